// The e2e group `firefox` (E2E_ONLY=firefox), called from e2e.mjs: the page in Firefox (Debian's firefox-esr,
// no WebGPU there), driven by puppeteer-core over WebDriver BiDi, served cross-origin isolated as `npm start`
// and `vite preview` serve it (COOP + COEP: tfjs's threaded wasm build becomes available, the path on which
// Firefox's training worker hung on a third to a half of loads). The page settles on a backend on every one
// of several fresh loads, each in a browser context of its own (its own IndexedDB), the last a small Lab run's
// link, which then trains to its end; a lesson's first arm plays at the smoke size to its end. Where firefox-esr cannot
// be had, the group says so and is skipped. Screenshots: test-results/firefox-lab.png, firefox-lesson.png.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { storedRuns } from './e2e-store.mjs';

export const firefoxPath = process.env.FIREFOX_PATH || '/usr/bin/firefox-esr';
/** fresh loads of the default link, each checked to settle */
const LOADS = 3;
/** a load that has not settled by then hangs (it settled in 3–5 s here, 2 cores under the other shard's load) */
const SETTLE_MS = 45_000;
// the smallest RL run that trains and evaluates: one step of 2 queries × 4 rollouts, evaluated before and after
const LAB =
  'stage=rl&scale=s&worldSize=tiny&steps=1&groupSize=4&queriesPerStep=2&evalEvery=1&evalQueries=1&evalToolQa=1';

export async function firefoxTests({ base, results, test, assert, selected }) {
  const G = 'firefox';
  if (!selected(G)) return;
  if (!existsSync(firefoxPath)) {
    console.log(
      `  - firefox group SKIPPED: no Firefox at ${firefoxPath} (as root on Debian, npm test installs firefox-esr; else: sudo apt-get install -y firefox-esr, or set FIREFOX_PATH)`,
    );
    return;
  }
  const { default: puppeteer } = await import('puppeteer-core');
  let browser = null;
  /** a page in a browser context of its own; `errors` collects its page errors */
  const freshPage = async () => {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    page.setDefaultTimeout(120_000);
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    return { context, page, errors };
  };
  const noErrors = (errors) => assert(!errors.length, `page errors in Firefox: ${errors.join(' | ')}`);
  /** the backend badge once settled: its backend and how it was chosen, or null when it does not settle in `ms` */
  const settled = (page, ms) => page
    .waitForFunction(() => {
      const b = document.querySelector('[data-testid=backend]');
      return b?.dataset.backend && ['measured', 'only', 'forced'].includes(b.dataset.choice ?? '')
        ? `${b.dataset.backend} (${b.dataset.choice})`
        : false;
    }, { timeout: ms, polling: 100 })
    .then((h) => h.jsonValue())
    .catch(() => null);
  const badge = (page) =>
    page
      .$eval('[data-testid=backend]', (b) => `${b.textContent.trim().replace(/\s+/g, ' ')} [${b.title}]`)
      .catch(() => '(no badge)');

  /** the small RL run from its settled page, to its end */
  const labRun = async (page) => {
    const t0 = Date.now();
    await page.click('[data-testid=start]');
    const status = await page
      .waitForFunction(
        () => {
          const s = document.querySelector('[data-testid=run-status]')?.dataset.status;
          return ['completed', 'failed', 'stopped'].includes(s ?? '') && s;
        },
        { timeout: 180_000, polling: 250 },
      )
      .then((h) => h.jsonValue());
    const error = await page.$eval('[data-testid=run-error]', (e) => e.textContent).catch(() => '');
    assert(status === 'completed', `the Lab run ended ${status}: ${error}`);
    const runs = await storedRuns(page);
    assert(
      runs.length === 1 && runs[0].status === 'completed' && runs[0].backend.startsWith('wasm'),
      `stored runs: ${JSON.stringify(runs.map((r) => [r.status, r.backend]))}`,
    );
    console.log(`      the Lab run completed in ${((Date.now() - t0) / 1000).toFixed(1)} s on ${runs[0].backend}`);
    await page.screenshot({ path: join(results, 'firefox-lab.png'), fullPage: true });
  };

  try {
    await test(
      'firefox: the page settles on a backend within seconds on every fresh load, Start is enabled, and a small Lab run completes',
      async () => {
        const t0 = Date.now();
        browser = await puppeteer.launch({
          browser: 'firefox',
          executablePath: firefoxPath,
          protocol: 'webDriverBiDi',
          headless: true,
        });
        console.log(`      ${await browser.version()} started in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
        const times = [];
        for (let i = 0; i < LOADS; i++) {
          const { context, page, errors } = await freshPage();
          const start = Date.now();
          // the last load is the small run's link (it holds the run's settings; the Lab at its defaults otherwise:
          // a bare address opens the welcome, which has no Start)
          await page.goto(i === LOADS - 1 ? `${base}#${LAB}` : `${base}#view=lab`);
          const chosen = await settled(page, SETTLE_MS);
          times.push((Date.now() - start) / 1000);
          assert(
            chosen,
            `load ${i + 1} of ${LOADS} did not settle in ${SETTLE_MS / 1000} s: the badge reads ${await badge(page)}`,
          );
          assert(
            await page.evaluate(() => crossOriginIsolated),
            'the page is not cross-origin isolated: the test misses the path Firefox hung on',
          );
          assert(
            chosen === 'wasm (only)',
            `load ${i + 1}: Firefox ESR has no WebGPU, yet the page chose ${chosen}: ${await badge(page)}`,
          );
          assert(
            await page.$eval('[data-testid=start]', (b) => !b.disabled),
            `load ${i + 1}: Start is disabled once the backend settled`,
          );
          if (i === LOADS - 1) {
            console.log(
              `      settled on ${LOADS} of ${LOADS} fresh loads in ${times.map((t) => `${t.toFixed(1)} s`).join(', ')}`,
            );
            await labRun(page);
          }
          noErrors(errors);
          await context.close();
        }
      },
      G,
    );

    await test("firefox: a lesson's first arm plays at the smoke size to its end", async () => {
      assert(browser, 'Firefox did not start');
      const { context, page, errors } = await freshPage();
      try {
        await page.goto(`${base}?lessonSize=smoke#lesson=dense-reward`);
        assert(await settled(page, SETTLE_MS), `the lesson's page did not settle: ${await badge(page)}`);
        await page.waitForSelector('[data-testid=lesson-smoke]');
        await page.click('[data-testid=predict-success]');
        await page.click('input[name=which-dense-reward][value=first]');
        const t0 = Date.now();
        await page.click('[data-testid=lesson-run]');
        await page.waitForSelector('[data-testid=lesson][data-state=finished]', { timeout: 240_000 });
        const runs = (await storedRuns(page)).filter((r) => r.lesson?.id === 'dense-reward');
        assert(
          runs.length === 1 && runs[0].status === 'completed',
          `stored lesson runs: ${JSON.stringify(runs.map((r) => [r.lesson.arm, r.status]))}`,
        );
        console.log(`      the arm (${runs[0].lesson.arm}) ran in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
        await page.screenshot({ path: join(results, 'firefox-lesson.png'), fullPage: true });
        noErrors(errors);
      } finally {
        await context.close();
      }
    }, G);
  } finally {
    await browser?.close();
  }
}
