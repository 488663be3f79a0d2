#!/usr/bin/env node
// A quick look at the charts on a phone: serves dist/ (npx vite build first), opens each finding, the
// tool-failures lesson and its class view and the RL stage at 390 × 844 and prints what a phone hides or
// shrinks: elements that scroll sideways inside themselves, controls under 24 px, SVG text under 11 px.
// --shots DIR also pictures T6, T7 and the class view at 390 × 844 and 1280 × 900.
import { fileURLToPath } from 'node:url';
import { preview } from 'vite';
import { chromium } from 'playwright-core';
import { phoneChartProblems } from './e2e-phone.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const arg = (name) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : null; };
const shots = arg('--shots');
const VIEWS = ['finding=T1', 'finding=T2', 'finding=T3', 'finding=T4', 'finding=T5', 'finding=T6', 'finding=T7',
  'lesson=tool-failures', 'lesson=tool-failures&class', 'stage=rl'];
const server = await preview({
  root: ROOT,
  logLevel: 'silent',
  preview: { port: 0, host: '127.0.0.1', strictPort: false },
});
const base = server.resolvedUrls.local[0];
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox'],
});
let bad = 0;
let took = 0; // ms in the check itself
try {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
  await page.goto(`${base}?backend=cpu#${VIEWS[0]}`);
  for (const v of VIEWS) {
    await page.evaluate((h) => { location.hash = h; }, v);
    await page.waitForTimeout(800);
    const t0 = performance.now();
    const found = await phoneChartProblems(page);
    took += performance.now() - t0;
    bad += found.length;
    console.log(`${v}: ${found.length ? `\n  ${found.join('\n  ')}` : 'ok'}`);
  }
  if (shots) {
    for (const [w, h] of [[390, 844], [1280, 900]]) {
      await page.setViewportSize({ width: w, height: h });
      for (const v of ['finding=T6', 'finding=T7', 'lesson=tool-failures&class']) {
        await page.evaluate((x) => { location.hash = x; }, v);
        await page.waitForTimeout(800);
        const sel = v.startsWith('finding') ? '[data-testid=pair-forest], [data-testid=interaction-forest]' : 'svg';
        await page.locator(sel).first().evaluate((el) => el.scrollIntoView({ block: 'start' })).catch(() => {});
        await page.screenshot({ path: `${shots}/${v.replace(/[=&]/g, '-')}-${w}.png` });
        for (const more of ['interaction-forest', 'finding-table']) {
          const el = page.locator(`[data-testid=${more}]`).first();
          if (!(await el.count())) continue;
          await el.evaluate((e) => e.scrollIntoView({ block: 'start' }));
          await page.screenshot({ path: `${shots}/${v.replace(/[=&]/g, '-')}-${w}-${more}.png` });
        }
      }
    }
  }
} finally {
  await browser.close();
  await server.close();
}
console.log(`the check: ${Math.round(took)} ms over ${VIEWS.length} views`);
process.exit(bad ? 1 : 0);
