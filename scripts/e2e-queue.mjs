// Part of the e2e group `rl` (also alone: E2E_ONLY=queue), called from e2e.mjs after the webgpu RL
// run: the run queue across reloads and RL's pause/resume on the page. A corrupt stored queue is
// skipped with a notice; T7's grid is queued from the findings page; its first run pauses (the step
// in flight ends and its checkpoint is written, then nothing trains) and resumes; a reload mid-run
// resumes it by itself from that checkpoint with the curve up to it kept, the queue (3 runs) is
// still there, and when the run completes the queue starts the next one (stopped here, for time).
// On the wasm backend: a step takes seconds there, minutes on SwiftShader's WebGPU.
import { checkpointKeys, storedPoints, writeQueueRecord } from './e2e-store.mjs';

/** the RL test's tiny ARPO for 16 steps (~1-3 s each on wasm: a reload after the pause lands mid-run; 8 steps ended
 * before the reload once the recipe's defaults made steps faster), evaluated at 0, 8 and 16 */
const STEPS = 16;
const RL_WASM = `stage=rl&scale=s&algorithm=arpo&arpoAlpha=1&reward=curriculum&steps=${STEPS}&queriesPerStep=1&groupSize=2&evalEvery=8&evalQueries=0&evalToolQa=2&trainSize=20&seed=6`;

export async function queueTests({ page, base, results, test, assert, attr, join }) {
  const groups = ['rl', 'queue'];
  const status = () => attr('[data-testid=run-status]', 'data-status');
  const waitStatus = (want, timeout = 240_000) =>
    page.waitForFunction(
      (w) => document.querySelector('[data-testid=run-status]')?.getAttribute('data-status') === w,
      want,
      { timeout },
    );
  const trainPoints = async () => Number(await attr('[data-testid=rl-charts]', 'data-points'));
  const checkpointSteps = async (runId) => (await checkpointKeys(page, runId)).map((k) => k[1]);
  const queueItems = () =>
    page.locator('[data-testid=queue-item]').evaluateAll((els) => els.map((e) => [e.dataset.status, e.dataset.runId]));

  await test('queue: a corrupt stored run queue is skipped with a notice, and the page works', async () => {
    await page.goto('about:blank');
    await page.goto(`${base}?backend=wasm#${RL_WASM}`);
    await page.waitForSelector('[data-testid=backend][data-backend="wasm"]', { timeout: 60_000 });
    await writeQueueRecord(page, { items: 'half-written', held: 3 });
    await page.reload();
    const notice = page.locator('[data-testid=queue-notice]');
    await notice.waitFor({ timeout: 30_000 });
    assert(
      /unreadable and was skipped/.test(await notice.innerText()),
      `the notice reads: ${await notice.innerText()}`,
    );
    await page.waitForSelector('[data-testid=queue][data-items="0"]', { timeout: 30_000 });
    await page.locator('[data-testid=queue-notice] button').click();
    await notice.waitFor({ state: 'detached', timeout: 30_000 });
  }, groups);

  /** after a failure: nothing queued may outlive this test (the next page load would start it) */
  const dropQueue = async () => {
    for (const id of ['queue-cancel', 'stop'])
      await page
        .locator(`[data-testid=${id}]:enabled`)
        .click({ timeout: 2_000 })
        .catch(() => {});
    await writeQueueRecord(page, { items: [], held: false, nextId: 1, savedAt: 0 }).catch(() => {});
  };

  await test(
    'queue: an RL run pauses and resumes; a reload mid-grid resumes it from its checkpoint, the queue survives and carries on (wasm)',
    async () => {
      try {
        await pauseReloadCarryOn();
      } catch (e) {
        await dropQueue();
        throw e;
      }
    },
    groups,
  );

  async function pauseReloadCarryOn() {
    await page.goto('about:blank');
    // held after step 1 (the test holds, src/worker/testHolds.ts), so the pause surely lands early in the run
    await page.goto(`${base}?backend=wasm&holds=after-step:1#view=findings&finding=T7&${RL_WASM}`);
    await page.waitForSelector('[data-testid=backend][data-backend="wasm"]', { timeout: 60_000 });
    await page.locator('[data-testid=queue-grid]').click();
    await page.locator('[data-testid=queue-confirm]').click();
    await page.waitForFunction(
      () =>
        document.querySelector('[data-testid=queue-item]')?.getAttribute('data-run-id') &&
        document.querySelector('[data-testid=run-status]')?.getAttribute('data-status') === 'running',
      null,
      { timeout: 120_000 },
    );
    const runId = await attr('[data-testid=queue-item]', 'data-run-id');

    // pause after the first step (a pause in the step-0 evaluation parks before any checkpoint exists): while held
    // there, then released, the run parks before step 2
    await page.waitForFunction(() => window.__testHolds?.held.length === 1, null, { timeout: 600_000 });
    await page.locator('[data-testid=pause]').click();
    await page.evaluate(() => window.__testHolds.release());
    await waitStatus('paused', 120_000);
    // parked: the step in flight ends and its checkpoint is written; then nothing trains
    const t0 = Date.now();
    let steps = [];
    while (!steps.length && Date.now() - t0 < 120_000) {
      steps = await checkpointSteps(runId);
      if (!steps.length) await page.waitForTimeout(250);
    }
    assert(steps.length, 'pausing wrote no checkpoint');
    const checkpoint = Math.max(...steps);
    await page.waitForFunction(
      (n) => Number(document.querySelector('[data-testid=rl-charts]')?.getAttribute('data-points')) >= n,
      checkpoint,
      { timeout: 30_000 },
    );
    const pausedAt = await trainPoints();
    await page.waitForTimeout(2000);
    assert(
      (await trainPoints()) === pausedAt && (await status()) === 'paused',
      `still training while paused (${pausedAt} → ${await trainPoints()} points)`,
    );
    assert(checkpoint < STEPS - 2, `the run was nearly done (${checkpoint}) before the pause`);
    const kept = (await storedPoints(page, runId)).filter((p) => p.step <= checkpoint);
    await page.locator('[data-testid=resume]').click();
    await waitStatus('running', 120_000);

    // a reload mid-run: the run resumes by itself from its checkpoint, the curve up to it kept, and the queue is back
    await page.reload();
    const notice = page.locator('[data-testid=recovery-notice]');
    await notice.waitFor({ timeout: 120_000 });
    const text = await notice.innerText();
    // the pause's checkpoint, or a periodic one written after the resume
    const from = Number(
      new RegExp(`run ${runId} resumed by itself from its checkpoint at step (\\d+)`).exec(text)?.[1],
    );
    assert(from >= checkpoint && from < STEPS, `recovery notice: ${text}`);
    await waitStatus('running', 30_000);
    assert(
      (await trainPoints()) >= from,
      `the curve lost its points up to the checkpoint (${await trainPoints()} < ${from})`,
    );
    await page.waitForSelector('[data-testid=queue][data-items="3"][data-waiting="2"][data-running="1"]', {
      timeout: 30_000,
    });
    const [first] = await queueItems();
    assert(first[0] === 'running' && first[1] === runId, `the queue's first item after the reload: ${first}`);
    assert((await page.locator('[data-testid=queue-notice]').count()) === 0, 'the restored queue showed a notice');
    await page.screenshot({ path: join(results, 'queue-after-reload.png'), fullPage: true });

    // the resumed run completes and the queue carries on with the next item
    await page.waitForFunction((id) => {
      const items = [...document.querySelectorAll('[data-testid=queue-item]')];
      return (
        items[0]?.dataset.status === 'completed' &&
        items[1]?.dataset.status === 'running' &&
        items[1]?.dataset.runId &&
        items[1].dataset.runId !== id
      );
    }, runId, { timeout: 300_000 });
    const after = (await storedPoints(page, runId)).sort((a, b) => a.step - b.step);
    assert(
      after.map((p) => p.step).join() === [...Array(STEPS + 1).keys()].join(),
      `stored steps after the resume: ${after.map((p) => p.step).join()}`,
    );
    const same = (p) => JSON.stringify(after.find((q) => q.step === p.step)) === JSON.stringify(p);
    assert(kept.length === checkpoint + 1 && kept.every(same), 'the points up to the checkpoint changed on resume');
    // for time: the next run is stopped and the rest cancelled (cancel first, so the stop does not hold the queue)
    await page.locator('[data-testid=queue-cancel]').click();
    await waitStatus('running', 60_000);
    await page.locator('[data-testid=stop]').click();
    await waitStatus('stopped', 120_000);
    assert(
      JSON.stringify((await queueItems()).map(([s]) => s)) === '["completed","stopped"]',
      `queue: ${JSON.stringify(await queueItems())}`,
    );
    await page.locator('[data-testid=queue-clear]').click();
    await page.waitForSelector('[data-testid=queue][data-items="0"]', { timeout: 30_000 });
  }
}
