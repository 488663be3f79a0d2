// The e2e group `live` (E2E_ONLY=live node scripts/e2e.mjs), called from e2e.mjs: an RL run on wasm
// shows every step as it happens — the counter, the ETA and the curves move with each step, and
// Resume from Pause reads "Training" while the step it started is still in flight;
// a run reloaded at two different points (just after a checkpoint, and between checkpoints: each forced by
// holding the run there, src/worker/testHolds.ts) finishes
// with every step's metrics and every evaluation, and the resume notice names the step the kept curve
// ends at (point 2); the run stores the world it trained in, its starting point's, and the Experiment
// panel says so where World size would be (point 4). Its bundle test (group `runs`): a bundle whose setup no link could
// give is refused with its reason and stores nothing (point 3).
import { checkpointKeys, storedPoints, storedRun } from './e2e-store.mjs';
import { makeRunBundle } from './e2e-runBundle.mjs';

/** a small RL run on wasm: ~1-3 s a step on 2 cores, evaluated at 0, 2, 4 (and 5, the end) */
const LIVE = 'stage=rl&scale=s&steps=5&evalEvery=2&evalQueries=2&evalToolQa=2&queriesPerStep=1&groupSize=2&seed=7';
/** the run that showed the bug (evaluations every 2, seed 11), shorter and smaller per step */
const RELOAD_STEPS = 4;
const RELOAD = `stage=rl&scale=s&steps=${RELOAD_STEPS}&evalEvery=2&evalQueries=2&evalToolQa=2&queriesPerStep=1&groupSize=2&seed=11`;

/** runs in the page: records every change of the status line and the charts' point count */
const watchProgress = () => {
  window.__progress = [];
  const read = () => {
    const status = document.querySelector('[data-testid=run-status]');
    const charts = document.querySelector('[data-testid=rl-charts]');
    const text = status?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
    const step = /step (\d+)\//.exec(text);
    return {
      t: performance.now(),
      status: status?.getAttribute('data-status') ?? '',
      step: step ? Number(step[1]) : null,
      eta: /ETA (\S+)/.exec(text)?.[1] ?? null,
      points: Number(charts?.getAttribute('data-points') ?? 0),
    };
  };
  const same = (a, b) => a && a.status === b.status && a.step === b.step && a.eta === b.eta && a.points === b.points;
  const observe = () => {
    const now = read();
    if (!same(window.__progress.at(-1), now)) window.__progress.push(now);
  };
  new MutationObserver(observe).observe(document.body, {
    subtree: true,
    childList: true,
    characterData: true,
    attributes: true,
  });
  observe();
};

export async function liveTests({ page, base, results, test, assert, attr, join, storeCounts, checkpointDir }) {
  const group = 'live';
  const status = () => attr('[data-testid=run-status]', 'data-status');
  const waitStatus = (want, timeout = 240_000) =>
    page.waitForFunction(
      (w) => document.querySelector('[data-testid=run-status]')?.getAttribute('data-status') === w,
      want,
      { timeout },
    );
  const seen = () => page.evaluate(() => window.__progress);

  await test('live: an RL run shows every step as it happens, and Resume reads Training at once (wasm)', async () => {
    await page.goto('about:blank');
    // held after step 2 (the test holds, src/worker/testHolds.ts), so Pause surely lands mid-run
    await page.goto(`${base}?backend=wasm&holds=after-step:2#${LIVE}`);
    await page.waitForSelector('[data-testid=backend][data-backend="wasm"]', { timeout: 60_000 });
    await page.evaluate(watchProgress);
    // RL names the world it trains in, its starting point's, where the World size setting would be
    await page.locator('summary', { hasText: 'Environment' }).click();
    const world = page.locator('[data-testid=rl-world]');
    assert(
      (await world.getAttribute('data-size')) === 'tiny' && /applies to SFT/.test(await world.innerText()),
      `the RL world note: ${await world.innerText()}`,
    );
    await page
      .locator('[aria-label="Experiment configuration"]')
      .screenshot({ path: join(results, 'live-rl-world.png') });
    await page.locator('[data-testid=start]').click();
    await waitStatus('running', 120_000);
    // pause while the run is held after step 2, release it (it parks in pause before step 3), resume once paused
    await page.waitForFunction(() => window.__testHolds?.held.length === 1, null, { timeout: 600_000 });
    const brief = (log) => log.map((r) => `${r.status[0]}${r.step}/${r.points}${r.eta ? `·${r.eta}` : ''}`).join(' ');
    await page.locator('section[aria-label=Training]').screenshot({ path: join(results, 'live-mid-run.png') });
    await page.locator('[data-testid=pause]').click();
    await page.evaluate(() => window.__testHolds.release());
    await waitStatus('paused', 120_000);
    const pausedPoints = Number(await attr('[data-testid=rl-charts]', 'data-points'));
    const resumedAt = await page.evaluate(() => performance.now());
    await page.locator('[data-testid=resume]').click({ timeout: 10_000 }).catch(async (e) => {
      throw new Error(`no Resume to press (log: ${brief(await seen())}): ${e.message.split('\n')[0]}`);
    });
    await waitStatus('completed', 300_000);
    const log = await seen();
    const running = log.filter((r) => r.status === 'running');
    const steps = [...new Set(log.filter((r) => r.step !== null).map((r) => r.step))];
    const curve = [...new Set(log.map((r) => r.points))];
    // the counter shows every step in turn, and the curve grows one point at a time
    assert(
      JSON.stringify(steps) === '[0,1,2,3,4,5]',
      `the counter showed steps ${steps.join(', ')} (log: ${brief(log)})`,
    );
    assert(
      JSON.stringify(curve) === '[0,1,2,3,4,5]',
      `the curve's point counts seen: ${curve.join(', ')} (log: ${brief(log)})`,
    );
    assert(
      [0, 1, 2, 3, 4].every((k) => running.some((r) => r.step === k)),
      `a step was not shown while training (log: ${brief(log)})`,
    );
    assert(
      running.some((r) => r.step >= 1 && r.eta && r.eta !== '–'),
      `no ETA was shown while training (log: ${brief(log)})`,
    );
    // Resume is shown at once: "Training" reads while the step it started is still in flight, before that step's
    // point arrives. Asserted as an order of what the page showed (the observer sees every change), not as a share
    // of the step's time: a page that waited for the point would show both in the same change.
    const afterResume = log.filter((r) => r.t > resumedAt);
    const nextPoint = afterResume.findIndex((r) => r.points > pausedPoints);
    const shownRunning = afterResume.findIndex((r) => r.status === 'running' && r.points === pausedPoints);
    assert(
      nextPoint > 0 && shownRunning >= 0 && shownRunning < nextPoint,
      `after Resume the page did not read "Training" before the step's point arrived (log: ${brief(afterResume)})`,
    );
    console.log(`      seen: ${brief(log)}`);
    await page.screenshot({ path: join(results, 'live-finished.png'), fullPage: true });
  }, group);

  await test(
    'live: a run reloaded at two points finishes with every step and every evaluation, and says where it resumed (wasm)',
    async () => {
      await page.goto('about:blank');
      // held after step 2 (its checkpoint just stored) and after step 3 (stored, no step-4 checkpoint yet): the test
      // holds, src/worker/testHolds.ts — each reload comes at its moment, however fast the steps are
      await page.goto(`${base}?backend=wasm&holds=after-step:2,after-step:3#${RELOAD}`);
      await page.waitForSelector('[data-testid=backend][data-backend="wasm"]', { timeout: 60_000 });
      await page.locator('[data-testid=start]').click();
      await waitStatus('running', 120_000);
      /** waits until this page's worker holds the run (after a step of the holds) */
      const held = () => page.waitForFunction(() => window.__testHolds?.held.length === 1, null, { timeout: 600_000 });
      const runId = await page
        .locator('[data-testid=run-row][data-status=running]')
        .first()
        .getAttribute('data-run-id');
      const checkpoints = async () => (await checkpointKeys(page, runId)).map((k) => k[1]);
      const stored = async () => (await storedPoints(page, runId)).map((p) => p.step);
      /** once the run is held, checks `ready`, then reloads and waits for the resume notice */
      const reloadWhen = async (ready, what) => {
        await held();
        assert((await status()) === 'running', `the run is ${await status()} at ${what}`);
        assert(await ready(), `held, yet not ${what}`);
        const storedThen = await stored();
        const checkpointThen = Math.max(0, ...(await checkpoints()));
        await page.reload();
        await page.waitForFunction(
          () => /resumed by itself/.test(document.querySelector('[data-testid=recovery-notice]')?.textContent ?? ''),
          null,
          { timeout: 120_000 },
        );
        const notice = await page.locator('[data-testid=recovery-notice]').innerText();
        const from = Number(/(?:checkpoint at step|resumed by itself from step) (\d+)/.exec(notice)?.[1]);
        assert(
          from === checkpointThen,
          `${what}: resumed from ${from}, the newest checkpoint was ${checkpointThen} (${notice})`,
        );
        const kept = await stored();
        assert(
          JSON.stringify(kept.filter((s) => s <= from)) === JSON.stringify([...Array(from + 1).keys()]),
          `${what}: the store held steps ${storedThen.join(',')} with checkpoint ${checkpointThen}; after the resume it holds ${kept.join(',')}`,
        );
        // the notice says what is kept, and the page shows the same
        assert(notice.includes(`its curve up to step ${from} is kept`), `${what}: the notice reads: ${notice}`);
        await page.waitForFunction(
          (n) => Number(document.querySelector('[data-testid=rl-charts]')?.getAttribute('data-points')) >= n,
          from,
          { timeout: 30_000 },
        );
        return `${what}: checkpoint ${checkpointThen}, stored ${storedThen.join(',')}`;
      };
      // the moment the step-2 checkpoint is stored (the reload that lost steps), then between checkpoints (step 3
      // stored, no step-4 checkpoint yet)
      const first = await reloadWhen(async () => (await checkpoints()).includes(2), 'the step-2 checkpoint stored');
      const second = await reloadWhen(
        async () => (await stored()).includes(3) && !(await checkpoints()).includes(4),
        'step 3 stored',
      );
      // resumed from step 2 again, the run holds after step 3 once more: let it go
      await held();
      await page.evaluate(() => window.__testHolds.release());
      await waitStatus('completed', 300_000);
      const points = await storedPoints(page, runId);
      const evals = points.filter((p) => p.values['eval/success'] !== undefined).map((p) => p.step);
      assert(
        JSON.stringify(points.map((p) => p.step)) === JSON.stringify([...Array(RELOAD_STEPS + 1).keys()]),
        `stored steps: ${points.map((p) => p.step).join(',')}`,
      );
      assert(JSON.stringify(evals) === '[0,2,4]', `evaluations at steps ${evals.join(',')}`);
      assert(
        points.slice(1).every((p) => p.values['reward/mean'] !== undefined),
        'a step lost its training point',
      );
      assert(
        Number(await attr('[data-testid=rl-charts]', 'data-points')) === RELOAD_STEPS,
        'the chart does not show every step',
      );
      // the World size setting (the default, standard) does not apply to RL: the run stores the world it trained in
      const world = (await storedRun(page, runId))?.config.worldSize;
      assert(world === 'tiny', `the run stored World size ${world}; it trained in the shipped checkpoint's tiny world`);
      console.log(
        `      ${first}; ${second}; finished with steps ${points.map((p) => p.step).join(',')}, evaluations at ${evals.join(',')}`,
      );
      await page.screenshot({ path: join(results, 'live-reloaded.png'), fullPage: true });
    },
    group,
  );

  await test(
    'runs: a bundle whose setup no link could give is refused with its reason, and nothing is stored',
    async () => {
      await page.goto('about:blank');
      await page.goto(`${base}?backend=cpu#view=runs`);
      await page.waitForSelector('[data-testid=runs-count]', { timeout: 30_000 });
      const before = await storeCounts();
      const bundle = JSON.parse(makeRunBundle(checkpointDir, 'e2e-bad-setup'));
      const cases = [
        ['scale', (b) => (b.run.config.scale = 'xl'), /run\.config\.scale: “xl” must be one of s, m, l/],
        ['steps', (b) => (b.run.config.steps = -5), /run\.config\.steps: “-5” must be between 1 and/],
        ['an unknown setting', (b) => (b.run.config.foo = 'bar'), /run\.config\.foo is not a setting of this lab/],
        ['steps beside the summary', (b) => (b.run.config.steps = 40), /the run's setup says 40 steps, its summary 2/],
      ];
      for (const [what, change, reason] of cases) {
        const file = structuredClone(bundle);
        change(file);
        const dismiss = page.locator('[data-testid=runs-message] button');
        if (await dismiss.count()) await dismiss.click();
        await page.locator('[data-testid=import-bundle]').setInputFiles({
          name: 'bad-setup.json',
          mimeType: 'application/json',
          buffer: Buffer.from(JSON.stringify(file)),
        });
        await page
          .waitForSelector('[data-testid=runs-message][data-kind=error]', { timeout: 20_000 })
          .catch(async () => {
            throw new Error(
              `${what}: expected a refusal, saw: ${await page
                .locator('[data-testid=runs-message]')
                .innerText()
                .catch(() => 'nothing')}`,
            );
          });
        const text = await page.locator('[data-testid=runs-message]').innerText();
        assert(
          /bad-setup\.json was not imported, and nothing was stored/.test(text) && reason.test(text),
          `${what}: ${text}`,
        );
        if (what === 'scale') await page.screenshot({ path: join(results, 'runs-bad-setup.png') });
      }
      assert(JSON.stringify(await storeCounts()) === JSON.stringify(before), 'the store changed');
    },
    ['runs', group],
  );
}
