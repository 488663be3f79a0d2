// The e2e group `rl`, called from e2e.mjs: T7's finding page queues its grid, whose first run (ARPO)
// trains on webgpu from the shipped s-tiny checkpoint while the other two are cancelled: the curves
// stream in, the start and the end are evaluated, the sample rollouts show their reward, advantage and
// group tree, and nothing else starts. Screenshots: findings.png, queue.png, rl-running.png,
// rl-episode.png, rl-finished.png. The queue's reload/pause part is e2e-queue.mjs.
import { join } from 'node:path';
import { storeCounts, storedPoints, storedRun } from './e2e-store.mjs';

// the browser's RL config: ARPO from the shipped s-tiny checkpoint (preset s, context 576), one step of
// one query with a budget of two rollouts, the second always branched (α = 1), evaluated at the start and
// the end on two unseen tool-QA tasks (short episodes; no validation trip). SwiftShader's CPU-emulated GPU
// decodes a token of this model in 0.1-0.5 s (dispatch-bound), so seed 6 is chosen for its first query,
// a 3-day trip (~150-token rollouts on wasm; seed 2's 5-day trip took twice as long). GRPO and DAPO run
// the same job and page code and are tested in Node, with validation trips (test/worker/rlJob.test.ts).
const RL_STEPS = 1;
const RL = `stage=rl&scale=s&algorithm=arpo&arpoAlpha=1&reward=curriculum&steps=${RL_STEPS}&queriesPerStep=1&groupSize=2&evalEvery=1&evalQueries=0&evalToolQa=2&trainSize=20&seed=6`;

/** registers the group's tests with e2e.mjs' `test`; `timings` gains the run's phases */
export async function rlTests({ page, base, results, test, assert, attr, timings, assertEpisodeShown }) {
  const chartAttr = async (name) => Number(await attr('[data-testid=rl-charts]', name));

  async function clickStart() {
    assert((await attr('[data-testid=start]', 'disabled')) === null, 'Start is disabled');
    assert(
      (await page.locator('[data-testid=start]').innerText()).startsWith('Start RL'),
      'the Start button does not start RL',
    );
    await page.locator('[data-testid=start]').click();
  }

  /** opens an RL link on webgpu (forced: without ?backend= SwiftShader loses to wasm), starts it (`start`: by default
   *  the Lab view's Start button) and waits for the end. The run is held after its last step (the test holds,
   *  src/worker/testHolds.ts), so "while running" is a moment the test makes: `start` finds it running whatever the
   *  machine's speed, and the charts are read (screenshot `shot`-running.png) with both evaluations in and the run
   *  not yet ended; then it is released. */
  async function runRl(hash, shot, start = clickStart) {
    await page.goto('about:blank');
    await page.goto(`${base}?backend=webgpu&holds=after-step:${RL_STEPS}#${hash}`);
    await page.waitForSelector('[data-testid=backend][data-backend]:not([data-backend=""])', { timeout: 60_000 });
    const backend = await attr('[data-testid=backend]', 'data-backend');
    assert(backend === 'webgpu', `backend is ${backend}; expected webgpu`);
    // every phase the page ever shows, recorded as the DOM changes (a poll can miss a short one: the step-0
    // evaluation on a fast run)
    await page.evaluate(() => {
      const phases = (window.__phases = new Set());
      const look = () => {
        const p = document.querySelector('[data-testid=run-status]')?.getAttribute('data-phase');
        if (p) phases.add(p);
      };
      window.__phaseObserver = new MutationObserver(look);
      window.__phaseObserver.observe(document, { subtree: true, childList: true, attributes: true });
    });
    const t0 = Date.now();
    await start();
    await page.waitForFunction(
      () => document.querySelector('[data-testid=run-status]')?.getAttribute('data-status') === 'running',
      null,
      { timeout: 90_000 },
    );
    const startedMs = Date.now() - t0;
    // SwiftShader on a busy 2-core machine: minutes to the hold
    await page.waitForFunction(() => window.__testHolds?.held.length === 1, null, { timeout: 900_000 });
    const status = await attr('[data-testid=run-status]', 'data-status');
    assert(status === 'running', `held after its last step, the run reads ${status}`);
    const seen = {
      evalsWhileRunning: await chartAttr('data-evals'),
      pointsWhileRunning: await chartAttr('data-points'),
      phases: new Set(),
    };
    await page.screenshot({ path: join(results, `${shot}-running.png`), fullPage: true });
    await page.evaluate(() => window.__testHolds.release());
    await page.waitForFunction(
      () => ['completed', 'failed', 'stopped'].includes(document.querySelector('[data-testid=run-status]')?.dataset.status),
      null,
      { timeout: 300_000 },
    );
    const shown = await page.evaluate(() => (window.__phaseObserver.disconnect(), [...window.__phases]));
    for (const p of shown) seen.phases.add(p);
    const error = (await page.locator('[data-testid=run-error]').count())
      ? await page.locator('[data-testid=run-error]').innerText()
      : '';
    const ended = await attr('[data-testid=run-status]', 'data-status');
    assert(ended === 'completed', `RL run ended as ${ended || 'nothing'} ${error}`);
    const id = await page.locator('[data-testid=run-row]').first().getAttribute('data-run-id');
    const points = await storedPoints(page, id);
    return { id, seen, startedMs, totalMs: Date.now() - t0, points };
  }

  await test(
    "a finding's grid queues; its first run (ARPO) trains on webgpu from the shipped checkpoint: curves stream, start and end are evaluated, the branch tree is drawn; the cancelled rest never starts",
    async () => {
      let runsBefore = 0;
      const run = await runRl(`finding=T7&${RL}`, 'rl', async () => {
        runsBefore = (await storeCounts(page)).runs ?? 0;
        await queueFindingGrid();
      });
      assert((await attr('[data-testid=queue]', 'data-running')) === '0', 'the queue still runs something');
      await page.waitForTimeout(3000); // time for a wrongly queued next run to start
      assert(
        (await attr('[data-testid=run-status]', 'data-status')) === 'completed',
        'another run started after the queue was cancelled',
      );
      assert(((await storeCounts(page)).runs ?? 0) === runsBefore + 1, 'the store holds more than the one started run');
      assert(run.seen.evalsWhileRunning >= 1, 'the step-0 evaluation did not reach the curves while running');
      assert(
        run.seen.phases.has('evaluating the starting point'),
        `phases seen: ${[...run.seen.phases].join(', ') || 'none'}`,
      );
      assert(
        (await chartAttr('data-points')) === RL_STEPS,
        `charts have ${await chartAttr('data-points')} training points, expected ${RL_STEPS}`,
      );
      assert(
        (await chartAttr('data-evals')) === 2,
        `charts have ${await chartAttr('data-evals')} evaluations, expected 2 (step 0 and the end)`,
      );
      assert(run.points.map((p) => p.step).join() === '0,1', `stored steps ${run.points.map((p) => p.step).join()}`);
      const [start, step] = run.points;
      for (const key of [
        'reward/mean',
        'charts/success',
        'charts/delivery',
        'losses/kl',
        'losses/entropy',
        'losses/clip_frac',
        'charts/response_len',
        'charts/tool_calls',
        'time/rollout',
        'arpo/branches',
      ]) {
        assert(Number.isFinite(step.values[key]), `${key} missing from the step's point`);
      }
      assert(
        Number.isFinite(start.values['eval/ood_accuracy']) && Number.isFinite(step.values['eval/ood_accuracy']),
        'OOD accuracy missing from an evaluation',
      );
      assert(
        start.values['eval/success'] === undefined,
        'an evaluation without validation queries reported a success rate',
      );
      // the default charts, each with its points; the curriculum's stage (Sum at the first step)
      const plots = Object.fromEntries(
        await page
          .locator('[data-testid=metric-plot]')
          .evaluateAll((els) => els.map((e) => [e.dataset.metric, Number(e.dataset.count)])),
      );
      assert(
        plots['reward/mean'] === RL_STEPS && plots['eval/ood_accuracy'] === 2 && plots['eval/success'] === 0,
        `plots: ${JSON.stringify(plots)}`,
      );
      const stage = await attr('[data-testid=curriculum-stage]', 'data-stage');
      assert(stage === 'sum', `curriculum stage shown: ${stage}`);
      // the metric picker adds a chart
      await page.locator('[data-testid=metric-picker-toggle]').click();
      await page.locator('[data-testid="metric-losses/clip_frac"]').click();
      // SwiftShader draws in the GPU process that trained: on a loaded machine a chart takes a while (the page's 120 s)
      await page.locator('[data-testid=metric-plot][data-metric="losses/clip_frac"]').waitFor();
      const row = page.locator(`[data-testid=run-row][data-run-id="${run.id}"]`);
      assert((await row.locator('[data-testid=run-kind]').innerText()) === 'RL', 'the run is not listed as RL');
      assert(
        (await row.locator('.backend').innerText()).startsWith('webgpu'),
        `run backend ${await row.locator('.backend').innerText()}`,
      );
      const record = await storedRun(page, run.id);
      assert(
        record.calibration?.mode === 'forced' && /^forced with \?backend=webgpu/.test(record.calibration.summary),
        `the run's backend choice: ${JSON.stringify(record.calibration)}`,
      );
      // the kept rollouts: reward, advantage, and the group as ARPO's tree with a branch at its fork
      await page.locator('[data-testid=sample-episode]').waitFor({ timeout: 15_000 });
      const rl = page.locator('[data-testid=episode-rl]');
      assert(
        Number.isFinite(Number(await rl.getAttribute('data-reward'))) &&
          Number.isFinite(Number(await rl.getAttribute('data-advantage'))),
        'reward/advantage missing',
      );
      const tree = page.locator('[data-testid=branch-tree]');
      assert(
        Number(await tree.getAttribute('data-nodes')) === 2 && Number(await tree.getAttribute('data-branches')) === 1,
        `tree: ${await tree.getAttribute('data-nodes')} nodes, ${await tree.getAttribute('data-branches')} branches`,
      );
      const forks = await page
        .locator('[data-testid=tree-node]')
        .evaluateAll((els) => els.map((e) => [e.dataset.parent, Number(e.dataset.fork)]));
      assert(
        forks.some(([parent, fork]) => parent !== '' && fork > 0),
        `tree nodes: ${JSON.stringify(forks)}`,
      );
      assert((await tree.innerText()).includes('fork @'), 'the fork position is not labelled');
      await assertEpisodeShown();
      timings.rlStartS = Math.round(run.startedMs / 100) / 10;
      timings.rlStep0EvalS = Math.round(start.values['eval/seconds']);
      timings.rlStepS = Math.round(step.values['time/step_ms'] / 1000);
      timings.rlRolloutS = Math.round(step.values['time/rollout']);
      timings.rlUpdateS = Math.round(step.values['time/update']);
      timings.rlEvalS = Math.round(step.values['eval/seconds']);
      timings.rlTotalS = Math.round(run.totalMs / 1000);
      console.log(
        `      ready in ${timings.rlStartS}s; step-0 evaluation ${timings.rlStep0EvalS}s; step 1 ${timings.rlStepS}s (rollouts ${timings.rlRolloutS}s, update ${timings.rlUpdateS}s, evaluation ${timings.rlEvalS}s); ${timings.rlTotalS}s in all`,
      );
      await page.locator('[data-testid=sample-episode]').screenshot({ path: join(results, 'rl-episode.png') });
      await page.screenshot({ path: join(results, 'rl-finished.png'), fullPage: true });
      await page.locator('[data-testid=queue-clear]').click();
      await page.waitForSelector('[data-testid=queue][data-items="0"]', { timeout: 30_000 });
    },
    'rl',
  );

  // ---- findings: a finding's page, its grid in the run queue ------------------------------------------
  // The RL test above starts its run this way: T7's page (claim, paper, reference table, its own link), its
  // grid queued at the RL test's tiny size (3 runs, the cells' failure rates on top of the link's settings),
  // the first run left to finish and the two others cancelled while it trains.
  async function queueFindingGrid() {
    await page.waitForSelector('[data-testid=finding][data-finding=T7]', { timeout: 30_000 });
    const claim = await page.locator('[data-testid=finding-claim]').innerText();
    assert(/5 %.*10 %/.test(claim), `T7's claim reads: ${claim}`);
    assert((await page.locator('[data-testid=finding-cell]').count()) === 3, 'T7 table is not 1 × 3');
    // the test behind the call: one forest line per compared pair, each with the committed table's call
    const pairCalls = await page
      .locator('[data-testid=pair-line]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-call')));
    assert(
      pairCalls.length === 2 &&
        pairCalls.every((c) => ['supports', 'contradicts', 'not resolved', 'interim'].includes(c)),
      `T7's pair forest reads ${JSON.stringify(pairCalls)}`,
    );
    // under the call, the mechanism the paper names, measured in the committed runs (results/findings/mechanisms.json)
    assert(
      /failed calls/.test(await page.locator('[data-testid=mechanism-sentence]').innerText()),
      "T7's mechanism sentence is missing",
    );
    assert((await page.locator('[data-testid=mechanism-figure]').count()) >= 2, "T7's mechanism figures are missing");
    const hasReference = (await attr('[data-testid=finding-table]', 'data-reference')) === 'yes';
    if (hasReference) {
      const described = await page.locator('[data-testid=reference-direction]').innerText();
      assert(
        /\S/.test(described) && !/agrees with the paper|does not agree/.test(described),
        `the one-seed table calls a direction: ${described}`,
      );
    } else
      assert(
        /No quick table committed/.test(await page.locator('[data-testid=reference-missing]').innerText()),
        'neither a reference table nor its absence is shown',
      );
    // a finding has its own link; T1 carries the paper's numbers in its cells
    await page.locator('[data-testid=finding-tab-T1]').click();
    await page.waitForSelector('[data-testid=finding][data-finding=T1]');
    assert(/finding=T1/.test(page.url()), `the link does not name T1: ${page.url()}`);
    assert(
      (await page.locator('[data-testid=finding-cell][data-paper="34.9"]').count()) === 1,
      "T1's table lacks the paper's 34.9 (1.5B, Curriculum)",
    );
    // the gain chart: one line per cell and one null control per scale, the paper's gain over its SFT column (1.5B Sum
    // +26.2)
    assert(
      (await page.locator('[data-testid=gain-chart] [data-testid=gain-line]').count()) === 15,
      "T1's gain chart is not 12 cells + a null control for each of 3 scales",
    );
    assert(
      (await page.locator('[data-testid=gain-line][data-paper="26.2"]').count()) === 1,
      "T1's chart lacks the paper's +26.2 (1.5B, Sum)",
    );
    // a called table prices each pair it leaves not resolved (T1 at its planned seeds: all nine, none against the
    // start)
    const unresolved = await page.locator('[data-testid=pair-line][data-call="not resolved"]').count();
    const priced = await page.locator('[data-testid=resolve-cost] [data-testid=resolve-line]').count();
    assert(
      priced === unresolved &&
        (unresolved === 0 || /seeds/.test(await page.locator('[data-testid=resolve-line]').first().textContent())),
      `T1 prices ${priced} pairs of the ${unresolved} its call leaves not resolved`,
    );
    // the claim's scale × choice interactions: T1 states two, each with what it rules out
    assert(
      (await page.locator('[data-testid=interaction-forest] [data-testid=interaction-line]').count()) === 2,
      "T1's interactions forest does not show its two interactions",
    );
    await page.screenshot({ path: join(results, 'findings.png'), fullPage: true });
    // T6 carries the interactions' planned test on fresh seeds under its forest (T1's was not planned: none there)
    assert(
      (await page.locator('[data-testid=interaction-plan-test]').count()) === 0,
      'T1 shows a planned test it never had',
    );
    await page.locator('[data-testid=finding-tab-T6]').click();
    await page.waitForSelector(
      '[data-testid=finding][data-finding=T6] [data-testid=interaction-plan-test][data-runs="80"] li[data-call]',
    );
    await page.locator('[data-testid=finding-tab-T7]').click();
    await page.waitForSelector('[data-testid=finding][data-finding=T7]');

    // the resolved configs are shown before queueing: the link's settings, the cell's tool failure rate on top
    await page.locator('[data-testid=queue-grid]').click();
    const preview = await page.locator('[data-testid=queue-preview] li').allInnerTexts();
    assert(preview.length === 3, `the preview lists ${preview.length} runs`);
    assert(
      preview.every((t) => /scale=s/.test(t) && /steps=1/.test(t) && /algorithm=arpo/.test(t)),
      `the preview misses the link's settings: ${preview.join(' | ')}`,
    );
    assert(
      /toolFailureRate=0\.05/.test(preview[1]) && /toolFailureRate=0\.1/.test(preview[2]),
      `the cells' rates are not on top: ${preview.join(' | ')}`,
    );
    await page.locator('[data-testid=queue-confirm]').click();
    await page.waitForSelector('[data-testid=queue][data-items="3"]', { timeout: 30_000 });
    await page.waitForFunction(
      () =>
        document.querySelector('[data-testid=queue-item]')?.getAttribute('data-status') === 'running' &&
        document.querySelector('[data-testid=run-status]')?.getAttribute('data-status') === 'running',
      null,
      { timeout: 120_000 },
    );
    assert((await attr('[data-testid=queue]', 'data-waiting')) === '2', 'two runs should wait behind the first');
    assert(
      (await page.locator('[data-testid=queue] [role=progressbar]').count()) === 4,
      'the queue and each run need a progress bar',
    );
    assert(/ETA/.test(await page.locator('[data-testid=queue-summary]').innerText()), 'the queue shows no ETA');
    await page.screenshot({ path: join(results, 'queue.png'), fullPage: true });
    await page.locator('[data-testid=queue-cancel]').click();
    await page.waitForSelector('[data-testid=queue][data-waiting="0"][data-items="1"]', { timeout: 30_000 });
  }
}
