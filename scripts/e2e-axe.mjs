// Accessibility check for the browser tests: axe-core (the devDependency, never a copy in the repo)
// is injected into the page and run against the whole document with the WCAG 2.0 / 2.1 A and AA rules.
// A view passes when axe reports no serious or critical violation. Any group can call it on any view
// (e2e-ui.mjs runs it on every view; a new view adds one call).
//
// The page's CSP forbids inline scripts, so axe's source is handed to page.evaluate (the DevTools
// protocol, not the page's script loader); axe itself needs no eval.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
export const WCAG21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** axe's violations of the page as it is now (impact serious or critical by default), one line each */
export async function axeViolations(page, { tags = WCAG21_AA, impacts = ['serious', 'critical'] } = {}) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE_SOURCE);
  const { violations } = await page.evaluate(
    (values) => window.axe.run(document, { runOnly: { type: 'tag', values }, resultTypes: ['violations'] }),
    tags,
  );
  return violations
    .filter((v) => impacts.includes(v.impact))
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      count: v.nodes.length,
      nodes: v.nodes.map(
        (n) => `${n.target.join(' ')}: ${(n.failureSummary ?? '').split('\n').slice(1).join(' ').trim()}`,
      ),
    }));
}

/** throws, listing each violation and its first elements, when the view has a serious or critical one */
export async function assertAccessible(page, view) {
  const found = await axeViolations(page);
  if (!found.length) return;
  const total = found.reduce((n, v) => n + v.count, 0);
  const lines = found.map((v) => `${v.id} (${v.impact}, ${v.count}): ${v.nodes.slice(0, 3).join(' | ')}`);
  throw new Error(`axe: ${total} serious/critical violation${total === 1 ? '' : 's'} in ${view}:\n${lines.join('\n')}`);
}
