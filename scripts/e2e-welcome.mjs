// The e2e group `welcome` (E2E_ONLY=welcome, seconds, no training): a first visit to `/` — no link, nothing of the
// lab stored — opens on the welcome at 1280 × 720 and at 390 × 844: its recorded episode steps from the request
// through every tool call to the checks and the four rewards, nothing on the page is in a warning colour (orange),
// the backend badge is one line, the page does not scroll sideways on the phone, and axe-core finds no serious or
// critical violation. A link with a hash lands where it says, a returning visitor on the Lab, and the lab's name
// in the header leads back to the welcome. Screenshots: test-results/welcome-*.png.
import { join } from 'node:path';
import { assertAccessible, axeViolations, WCAG21_AA } from './e2e-axe.mjs';

/** visible elements whose text, background or border is orange (the page's warning colour), one line each */
function warningColours(page) {
  return page.evaluate(() => {
    const orange = (css) => {
      const m = /rgba?\(([\d.]+), ([\d.]+), ([\d.]+)(?:, ([\d.]+))?\)/.exec(css);
      if (!m || (m[4] !== undefined && Number(m[4]) < 0.2)) return false;
      const [r, g, b] = [m[1], m[2], m[3]].map((x) => Number(x) / 255);
      const max = Math.max(r, g, b);
      const min = Math.min(r, g, b);
      if (max - min < 0.05) return false; // grey
      const l = (max + min) / 2;
      const s = (max - min) / (1 - Math.abs(2 * l - 1));
      const d = max - min;
      const h =
        max === r ? (60 * ((g - b) / d) + 360) % 360 : max === g ? 60 * ((b - r) / d + 2) : 60 * ((r - g) / d + 4);
      return h >= 15 && h <= 50 && s >= 0.5 && l <= 0.975;
    };
    const out = [];
    for (const el of document.body.querySelectorAll('*')) {
      if (!el.getClientRects().length) continue;
      const st = getComputedStyle(el);
      if (st.visibility === 'hidden') continue;
      const hit = ['color', 'backgroundColor', 'borderTopColor', 'borderLeftColor'].find(
        (p) => (p === 'color' ? el.textContent.trim() : p === 'backgroundColor' || parseFloat(st[p.replace('Color', 'Width')]) > 0) && orange(st[p]),
      );
      if (hit) out.push(`${el.tagName.toLowerCase()}${el.dataset.testid ? `[${el.dataset.testid}]` : ''} ${hit} ${st[hit]}`);
    }
    return out.slice(0, 8);
  });
}

/** registers the group's tests with e2e.mjs' `test` */
export async function welcomeTests({ page, base, results, test, assert, consoleErrors }) {
  const G = 'welcome';
  const viewport = page.viewportSize();
  /** what the lab keeps in localStorage, set aside so the page sees a first visit (put back at the end) */
  const forget = () =>
    page.evaluate(() => {
      const kept = {};
      for (const k of Object.keys(localStorage))
        if (k.startsWith('star-lab:')) {
          kept[k] = localStorage.getItem(k);
          localStorage.removeItem(k);
        }
      return kept;
    });
  const view = () => page.locator('nav[aria-label=Views] [aria-current=page]').getAttribute('data-testid').catch(() => null);

  await test('welcome: a first visit to / shows the welcome and a real episode, in no warning colour, at 1280 × 720 and 390 × 844', async () => {
    await page.goto(`${base}#view=runs`);
    await page.waitForSelector('[data-testid=runs-count]', { timeout: 30_000 });
    const kept = await forget();
    try {
      for (const size of [{ width: 1280, height: 720 }, { width: 390, height: 844 }]) {
        const errors = consoleErrors.length;
        await page.setViewportSize(size);
        await forget();
        await page.goto('about:blank');
        await page.goto(base);
        await page.waitForSelector('[data-testid=welcome]', { timeout: 20_000 });
        const where = new URL(page.url()).hash;
        assert(where === '#view=welcome', `the first visit's address reads ${where}`);
        assert(await page.locator('[data-testid=replay-request]').isVisible(), 'the episode shows no request');
        await page.screenshot({ path: join(results, `welcome-${size.width}.png`) });
        const colours = await warningColours(page);
        assert(!colours.length, `at ${size.width} px, in a warning colour: ${colours.join('; ')}`);
        const header = await page.locator('header').boundingBox();
        assert(header.height <= size.height * 0.2, `the header takes ${Math.round(header.height)} of ${size.height} px`);
        const badge = await page.locator('[data-testid=backend]').boundingBox();
        assert(badge.height <= 44, `the backend badge is ${Math.round(badge.height)} px tall (one line is ~36)`);
        // step through the episode: every tool call, the plan, the checks, the rewards
        const stages = [];
        for (let i = 0; i < 40 && !(await page.locator('[data-testid=replay-step]').isDisabled()); i++) {
          await page.locator('[data-testid=replay-step]').click();
          stages.push(await page.locator('[data-testid=welcome-episode]').getAttribute('data-stage'));
          if (stages.at(-1) === 'call')
            assert((await page.locator('[data-testid=replay-observation]').innerText()).trim(), `call ${stages.length}: no observation`);
          if (stages.at(-1) === 'checks') await page.screenshot({ path: join(results, `welcome-${size.width}-checks.png`) });
        }
        const calls = stages.filter((s) => s === 'call').length;
        assert(calls >= 4 && stages.slice(-3).join() === 'plan,checks,reward', `the replay went ${stages.join(',')}`);
        const checks = await page.locator('[data-testid=welcome-episode]').getAttribute('data-stage');
        assert(checks === 'reward', `the replay ends on ${checks}`);
        const rewards = await page.locator('[data-testid=replay-rewards] dt').allInnerTexts();
        assert(
          ['Sum', 'Macro', 'Success', 'Curriculum'].every((r, i) => new RegExp(`^${r}\\s+[01]\\.\\d\\d$`).test(rewards[i] ?? '')),
          `the rewards read ${rewards.join(' | ')}`,
        );
        await page.locator('[data-testid=welcome-episode]').scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(results, `welcome-${size.width}-reward.png`) });
        if (size.width < 600) {
          const width = await page.evaluate(() => document.documentElement.scrollWidth);
          assert(width <= size.width, `the welcome scrolls sideways on a phone: ${width} px`);
          const found = await axeViolations(page, { tags: [...WCAG21_AA, 'wcag22aa'] });
          assert(!found.length, `axe at 390 px: ${found.map((v) => `${v.id} (${v.count}): ${v.nodes[0]}`).join('; ')}`);
        } else await assertAccessible(page, 'the welcome');
        const pageErrors = consoleErrors.slice(errors).filter((e) => e.startsWith('pageerror'));
        assert(!pageErrors.length, pageErrors.join('; '));
        console.log(`      ${size.width} × ${size.height}: ${stages.length + 1} steps (${calls} tool calls); rewards ${rewards.join(', ').replace(/\s+/g, ' ')}`);
      }
    } finally {
      await page.setViewportSize(viewport);
      await page.evaluate((k) => { for (const [key, v] of Object.entries(k)) localStorage.setItem(key, v); }, kept);
    }
  }, G);

  await test('welcome: a link with a hash lands where it says, a returning visitor on the Lab; the header leads back', async () => {
    await page.goto('about:blank');
    await page.goto(`${base}#view=findings`);
    await page.waitForSelector('[data-testid=finding]', { timeout: 20_000 });
    assert(!(await page.locator('[data-testid=welcome]').count()), 'a findings link showed the welcome');
    await page.goto('about:blank');
    await page.goto(base); // something is stored now: a returning visitor
    await page.waitForSelector('nav[aria-label=Views] [aria-current=page]', { timeout: 20_000 });
    assert((await view()) === 'nav-lab', `a returning visitor landed on ${await view()}`);
    await page.locator('[data-testid=home]').click();
    await page.waitForSelector('[data-testid=welcome]', { timeout: 10_000 });
    await page.locator('[data-testid=door-lessons]').click();
    await page.waitForSelector('[data-testid=lesson-list]', { timeout: 10_000 });
    await page.goBack();
    await page.waitForSelector('[data-testid=welcome]', { timeout: 10_000 });
  }, G);
}
