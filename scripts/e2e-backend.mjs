// The e2e group `backend` (E2E_ONLY=backend), called from e2e.mjs: the page opened with no query string
// measures the backends this browser offers (webgpu on SwiftShader, wasm) and trains on the faster by
// its own measurement — wasm here — saying so in the badge with both figures while and after it measures;
// the run records the backend and the calibration behind it; a reload reads the stored figures instead of
// measuring again; `?backend=webgpu` still forces webgpu and says how it compares (the rl group trains
// on it so). Screenshots: test-results/backend-measuring.png, backend-measured.png, backend-forced.png.
import { join } from 'node:path';
import { clearCalibrations, storedCalibrations, storedRun } from './e2e-store.mjs';

// a tiny GRPO run from the shipped s-tiny checkpoint: one step of one query, two rollouts, two tool-QA tasks
const RL =
  'stage=rl&scale=s&worldSize=tiny&steps=1&queriesPerStep=1&groupSize=2&evalEvery=1&evalQueries=0&evalToolQa=2&trainSize=20&seed=6';

export async function backendTests({ page, base, results, test, assert, attr }) {
  const group = 'backend';
  const badge = () => page.locator('[data-testid=backend]');
  const choice = () => attr('[data-testid=backend]', 'data-choice');
  /**
   * Every state the badge shows from the page's first paint on (its choice and its words), kept in
   * window.__badge: a measurement can end before any poll sees it, and the observer sees each change however
   * fast. Installed for one test's navigations, removed after.
   */
  const recordBadge = () =>
    page.addInitScript(() => {
      const seen = (window.__badge = []);
      new MutationObserver(() => {
        const el = document.querySelector('[data-testid=backend]');
        if (!el) return;
        const state = { choice: el.dataset.choice ?? '', text: el.textContent.trim().replace(/\s+/g, ' ') };
        const last = seen.at(-1);
        if (!last || last.choice !== state.choice || last.text !== state.text) seen.push(state);
      }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
    });
  const badgeStates = () => page.evaluate(() => window.__badge ?? []);
  /** what the badge read while it measured, once it had a figure to show */
  const measuringWithFigure = (states) =>
    states.find((s) => s.choice === 'measuring' && /wasm|webgpu/.test(s.text))?.text;

  await test(
    'backend: with no ?backend= the page measures, trains on the faster (wasm on SwiftShader) and says so with both figures',
    async () => {
      // forget what an earlier test measured (a forced page measures nothing)
      await page.goto('about:blank');
      await page.goto(`${base}?backend=cpu#view=runs`);
      await page.waitForSelector('[data-testid=backend][data-backend="cpu"]', { timeout: 60_000 });
      await clearCalibrations(page);
      await page.goto('about:blank');
      const recorder = await recordBadge();
      const t0 = Date.now();
      await page.goto(`${base}#${RL}`);
      // a picture of the measuring badge where the page is still measuring when it is taken (not asserted on)
      if ((await choice()) === 'measuring')
        await badge()
          .screenshot({ path: join(results, 'backend-measuring.png'), timeout: 120_000 })
          .catch(() => {}); // SwiftShader may hold the GPU process
      await page.waitForFunction(
        () =>
          ['measured', 'only', 'forced'].includes(
            document.querySelector('[data-testid=backend]')?.dataset.choice ?? '',
          ),
        null,
        { timeout: 240_000 },
      );
      const measureS = (Date.now() - t0) / 1000;
      const states = await badgeStates();
      await recorder.dispose();
      // while it measured, the badge said so with a figure, however short that moment was
      const during = measuringWithFigure(states);
      assert(
        /^Measuring the backends at s/.test(during ?? ''),
        `while measuring the badge read: ${states.map((st) => `${st.choice}: ${st.text}`).join(' → ')}`,
      );
      const after = (await badge().textContent()).trim().replace(/\s+/g, ' ');
      assert((await choice()) === 'measured', `the page did not measure (${await choice()}): ${after}`);
      assert(
        (await attr('[data-testid=backend]', 'data-backend')) === 'wasm',
        `the page chose ${await attr('[data-testid=backend]', 'data-backend')}: ${after}`,
      );
      // webgpu either measured slower, or (SwiftShader's shaders compiling past the cap on a busy machine) had no
      // figure, and the badge says which: the outcome, whatever the machine's speed
      assert(
        /faster here than webgpu · swiftshader|webgpu · swiftshader had no figure after .* \(still compiling\)/.test(
          after,
        ) &&
          /wasm [\d.]+ m?s · webgpu /.test(after) &&
          /measured just now/.test(after),
        `the badge lacks the comparison or a figure: ${after}`,
      );
      const [stored] = await storedCalibrations(page);
      assert(stored?.scale === 's' && stored.choice === 'wasm', `stored calibration: ${JSON.stringify(stored)}`);
      const wasm = stored.figures.find((f) => f.backend === 'wasm');
      const webgpu = stored.figures.find((f) => f.backend === 'webgpu');
      assert(wasm?.status === 'measured' && wasm.stepMs > 0, `wasm's figure: ${JSON.stringify(wasm)}`);
      // SwiftShader is dropped once behind, or capped while still compiling; measured to the end it must be slower
      assert(
        webgpu && (webgpu.status !== 'measured' || webgpu.stepMs > wasm.stepMs),
        `webgpu's figure: ${JSON.stringify(webgpu)}`,
      );
      console.log(
        `      measured in ${measureS.toFixed(1)} s (calibration ${(stored.costMs / 1000).toFixed(1)} s): ${after}`,
      );
      await badge().screenshot({ path: join(results, 'backend-measured.png'), timeout: 120_000 });

      // the run trains on wasm and records the measurement behind it
      await page.locator('[data-testid=start]').click();
      await page.waitForFunction(
        () =>
          ['completed', 'failed'].includes(document.querySelector('[data-testid=run-status]')?.dataset.status ?? ''),
        null,
        { timeout: 480_000 },
      );
      assert(
        (await attr('[data-testid=run-status]', 'data-status')) === 'completed',
        `the run ended ${await attr('[data-testid=run-status]', 'data-status')}`,
      );
      const runId = await page.locator('[data-testid=run-row]').first().getAttribute('data-run-id');
      const run = await storedRun(page, runId);
      assert(run.backend.startsWith('wasm'), `the run trained on ${run.backend}`);
      assert(
        run.calibration?.mode === 'measured' &&
          run.calibration.choice === 'wasm' &&
          run.calibration.figures.some((f) => f.backend === 'webgpu'),
        `the run's calibration: ${JSON.stringify(run.calibration)}`,
      );
      // the Runs view says how its backend was chosen
      await page.locator('[data-testid=nav-runs]').click();
      const cell = page.locator(`[data-testid=runs-row][data-run-id="${runId}"] [data-testid=run-calibration]`);
      assert((await cell.innerText()) === 'chosen by measurement', `the Runs view says: ${await cell.innerText()}`);
    },
    group,
  );

  await test(
    'backend: a reload reads the stored figures instead of measuring again; Re-measure measures again',
    async () => {
      // figures of its own to read: the first visit measures unless figures at s are stored already
      await page.goto('about:blank');
      await page.goto(`${base}#${RL}`);
      await page.waitForFunction(
        () => document.querySelector('[data-testid=backend]')?.dataset.choice === 'measured',
        null,
        { timeout: 240_000 },
      );
      const t0 = Date.now();
      await page.reload();
      await page.waitForFunction(
        () => document.querySelector('[data-testid=backend]')?.dataset.choice === 'measured',
        null,
        { timeout: 120_000 },
      );
      const seconds = (Date.now() - t0) / 1000;
      const text = (await badge().textContent()).trim().replace(/\s+/g, ' ');
      assert(
        /measured on an earlier visit/.test(text) && (await attr('[data-testid=backend]', 'data-backend')) === 'wasm',
        `after the reload: ${text}`,
      );
      console.log(`      the badge named wasm ${seconds.toFixed(1)} s after the page opened`);
      // Re-measure: the badge measures again (SwiftShader's shaders are compiled by now: seconds) and says so
      const before = (await storedCalibrations(page))[0].measuredAt;
      await page.locator('[data-testid=backend] summary').click(); // the badge's reason, where Re-measure is
      // every state from the click on, starting from the one it is in (this page is already loaded: the observer
      // starts here, not at a paint). The wait is for the whole sequence, measuring then measured, never for the
      // last state alone: any other change on the page can record the choice before Re-measure has begun.
      await page.evaluate(() => {
        const now = document.querySelector('[data-testid=backend]')?.dataset.choice ?? '';
        const seen = (window.__badge = [now]);
        new MutationObserver(() => {
          const el = document.querySelector('[data-testid=backend]');
          if (el && seen.at(-1) !== el.dataset.choice) seen.push(el.dataset.choice);
        }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-choice'] });
      });
      await page.locator('[data-testid=remeasure]').click();
      const measuredAgain = () => window.__badge.includes('measuring') && window.__badge.at(-1) === 'measured';
      const ended = await page
        .waitForFunction(measuredAgain, null, { timeout: 240_000 })
        .then(() => true)
        .catch(() => false);
      const remeasured = await badgeStates();
      assert(
        ended && remeasured[0] === 'measured',
        `after Re-measure the badge's choice went: ${remeasured.join(' → ')}` +
          (ended ? '' : ' (no measuring then measured within 240 s)'),
      );
      const again = (await badge().textContent()).trim().replace(/\s+/g, ' ');
      assert(
        /measured just now/.test(again) && (await storedCalibrations(page))[0].measuredAt > before,
        `after Re-measure: ${again}`,
      );
    },
    group,
  );

  await test(
    'backend: ?backend=webgpu forces webgpu and says how it compares with the measured choice',
    async () => {
      // a measurement at s to compare with: made now unless one is stored already
      await page.goto('about:blank');
      await page.goto(`${base}#${RL}`);
      await page.waitForFunction(
        () => document.querySelector('[data-testid=backend]')?.dataset.choice === 'measured',
        null,
        { timeout: 240_000 },
      );
      await page.goto('about:blank');
      await page.goto(`${base}?backend=webgpu#${RL}`);
      await page.waitForSelector('[data-testid=backend][data-backend="webgpu"]', { timeout: 60_000 });
      assert((await choice()) === 'forced', `choice: ${await choice()}`);
      const notice = await page.locator('[data-testid=backend-fallback]').innerText();
      assert(
        /forced with \?backend=webgpu/.test(notice) &&
          /measurement at s chose wasm/.test(notice) &&
          !/only slower/.test(notice),
        `the notice reads: ${notice}`,
      );
      await page
        .locator('header')
        .screenshot({ path: join(results, 'backend-forced.png'), timeout: 120_000 })
        .catch(() => {});
    },
    group,
  );
}
