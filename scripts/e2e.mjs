#!/usr/bin/env node
// End-to-end tests: serve the built page (dist/, built by `vite build` in scripts/test.sh) on a
// free localhost port, drive it in headless Chromium with playwright-core, and check the path a
// user takes: a finding's page (T7) queues its grid, whose first run (ARPO) trains from the shipped s-tiny
// checkpoint on WebGPU (SwiftShader when there is no GPU) while the rest is cancelled: curves stream in,
// the start and the end are evaluated, and the sample rollouts show their reward, advantage and group
// tree; the Sandbox (a query played by hand and scored), the Runs view (bundles, CSV, overlays, the
// episode viewer, delete), robustness (origin and CSP, auto-resume, full storage, corrupt records); the SFT stage runs there too: the loss
// streams in and falls, validation rollouts land on the curve and a sample episode is shown, the run
// survives a reload, a malformed link shows its notice, and pause/resume/stop reach the worker; the
// RL starting point (a shipped SFT checkpoint) is loaded and shown, and a missing, truncated or
// mismatched one is refused with its reason while the store gains nothing.
//
//   node scripts/e2e.mjs                          run the tests
//   node scripts/e2e.mjs --measure                also time the same SFT run on the cpu backend (?backend=cpu)
//   E2E_ONLY=startingPoint node scripts/e2e.mjs   only one group of tests (rl — with the findings queue —, sft, startingPoint, sandbox, robust, runs;
//                                                 queue: the rl group's queue/reload/pause part alone)
//   E2E_CHECKPOINT=DIR                            serve this checkpoint folder as s-tiny (default: the shipped one)
//
// Screenshots go to test-results/. Prints `e2e: N passed, M failed`; exits non-zero on failure.
import { createServer } from 'node:http';
import { mkdtempSync, mkdirSync, readFileSync, existsSync, statSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, extname, resolve, normalize } from 'node:path';
import { chromium } from 'playwright-core';
import { robustTests } from './e2e-robust.mjs';
import { runsTests } from './e2e-runs.mjs';
import { queueTests } from './e2e-queue.mjs';
import { storedPoints } from './e2e-store.mjs';

const root = resolve(new URL('..', import.meta.url).pathname);
const dist = resolve(process.env.E2E_DIST || join(root, 'dist')); // E2E_DIST: serve another build
const results = join(root, 'test-results');
const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const measure = process.argv.includes('--measure');
const only = process.env.E2E_ONLY; // a test group (see the usage above)
// the s-tiny checkpoint the starting-point tests load: the shipped one (copied into dist/ by the build),
// or E2E_CHECKPOINT, a folder written by `npm run cli -- sft --out DIR`, served in its place
const shippedCheckpoint = join(dist, 'checkpoints', 's-tiny');
const checkpointDir = resolve(process.env.E2E_CHECKPOINT || shippedCheckpoint);
const STEPS = 5;
// the browser's SFT config, explicit: a tiny world (the smoke-test scale: a quarter-width model, context 256), 40 queries
// SwiftShader runs this model at seconds per step after ~60-90 s of shader compiles (closing note),
// so the webgpu run is short, at a higher learning rate; pause/resume/stop run on `cpu`.
const SFT = `stage=sft&steps=${STEPS}&seed=3&scale=s&worldSize=tiny&trainSize=40&sftLearningRate=0.01`;
// the browser's RL config: ARPO from the shipped s-tiny checkpoint (preset s, context 576), one step of
// one query with a budget of two rollouts, the second always branched (α = 1), evaluated at the start and
// the end on two unseen tool-QA tasks (short episodes; no validation trip). SwiftShader's CPU-emulated GPU
// decodes a token of this model in 0.1-0.5 s (dispatch-bound), so seed 6 is chosen for its first query,
// a 3-day trip (~150-token rollouts on wasm; seed 2's 5-day trip took twice as long). GRPO and DAPO run
// the same job and page code and are tested in Node, with validation trips (test/worker/rlJob.test.ts).
const RL_STEPS = 1;
const RL = `stage=rl&scale=s&algorithm=arpo&arpoAlpha=1&reward=curriculum&steps=${RL_STEPS}&queriesPerStep=1&groupSize=2&evalEvery=1&evalQueries=0&evalToolQa=2&trainSize=20&seed=6`;

if (!existsSync(join(dist, 'index.html'))) {
  console.error('e2e: dist/ is missing; run `npx vite build` first (npm test does).');
  process.exit(1);
}
if (!existsSync(chromiumPath)) {
  console.error(`e2e: Chromium not found at ${chromiumPath}. Install it: sudo apt-get install -y chromium (or set CHROMIUM_PATH)`);
  process.exit(1);
}
mkdirSync(results, { recursive: true });

// ---- a tiny static server for dist/ ------------------------------------------------------------
const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
};
const server = createServer((req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
  let file = join(dist, path);
  if (!file.startsWith(dist) || !existsSync(file) || statSync(file).isDirectory()) file = join(dist, 'index.html');
  res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
  res.end(readFileSync(file));
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const base = `http://127.0.0.1:${server.address().port}/`;

// ---- the browser ---------------------------------------------------------------------------------
const userDataDir = mkdtempSync(join(tmpdir(), 'star-lab-e2e-'));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: chromiumPath,
  headless: true,
  viewport: { width: 1360, height: 900 },
  args: [
    '--headless',
    '--no-sandbox',
    '--enable-unsafe-webgpu', // WebGPU on Linux; with no GPU, Dawn picks SwiftShader's Vulkan
    '--disable-gpu-sandbox',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
const page = context.pages()[0] ?? (await context.newPage());
// SwiftShader renders in the same GPU process that trains: on a busy machine a screenshot can wait a minute
page.setDefaultTimeout(120_000);
const consoleErrors = [];
page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
page.on('console', (m) => m.type() === 'error' && consoleErrors.push(`console: ${m.text()}`));
page.on('worker', (w) => w.on('console', (m) => m.type() === 'error' && consoleErrors.push(`worker: ${m.text()}`)));

let passed = 0;
let failed = 0;
async function test(name, fn, group = 'sft') {
  if (only && ![group].flat().includes(only)) return; // a test may belong to several groups
  const t0 = Date.now();
  try {
    await fn();
    passed++;
    console.log(`  ✓ ${name} (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
  } catch (e) {
    failed++;
    console.log(`  ✗ ${name}\n      ${String(e?.message ?? e).split('\n').join('\n      ')}`);
    await page.screenshot({ path: join(results, `failed-${name.replace(/\W+/g, '-')}.png`), fullPage: true }).catch(() => {});
  }
}
function assert(cond, message) {
  if (!cond) throw new Error(message);
}
const attr = (selector, name) => page.locator(selector).first().getAttribute(name);

/** runs the SFT job to the end from the current page; returns what the chart saw */
async function runSft() {
  await page.locator('[data-testid=start]').click();
  // the status line still shows the previous run until the worker has built the new one
  await page.waitForFunction(() => document.querySelector('[data-testid=run-status]')?.getAttribute('data-status') === 'running', null, { timeout: 60_000 });
  const seen = new Set();
  const deadline = Date.now() + 400_000;
  let status = '';
  while (Date.now() < deadline) {
    status = await attr('[data-testid=run-status]', 'data-status');
    const n = Number(await attr('[data-testid=loss-chart]', 'data-points'));
    if (status === 'running' && n > 0) seen.add(n);
    if (['completed', 'failed', 'stopped'].includes(status)) break;
    await page.waitForTimeout(100);
  }
  const error = (await page.locator('[data-testid=run-error]').count()) ? await page.locator('[data-testid=run-error]').innerText() : '';
  return {
    status,
    error,
    seen,
    points: Number(await attr('[data-testid=loss-chart]', 'data-points')),
    first: Number(await attr('[data-testid=loss-chart]', 'data-first-loss')),
    last: Number(await attr('[data-testid=loss-chart]', 'data-last-loss')),
    evals: Number(await attr('[data-testid=loss-chart]', 'data-evals')),
    stepMs: Number(await attr('[data-testid=step-ms]', 'data-ms')),
  };
}

/** the sample-episode card shows a stored episode: the request, and a plan table or why there is none, with checks */
async function assertEpisodeShown() {
  const card = page.locator('[data-testid=sample-episode]');
  await card.waitFor({ timeout: 15_000 });
  const text = await card.innerText();
  assert(text.length > 80, `sample episode card is nearly empty: ${text}`);
  const travel = (await card.getAttribute('data-kind')) === 'travel';
  if (travel) {
    const parts = await page.locator('[data-testid=episode-plan], [data-testid=episode-undelivered]').count();
    assert(parts === 1, 'the travel episode shows neither a plan nor why none was delivered');
    assert((await page.locator('[data-testid=episode-checks] tr').count()) >= 8, 'the checks with verdicts and reasons are missing');
  }
}

// ---- starting-point helpers: the s-tiny files, routed or altered, and the store's record counts ----
const SP_FILES = ['model.json', 'weights.bin', 'card.json'];
const checkpointFile = (f) => readFileSync(join(checkpointDir, f));
/** the lab store's record counts, read from the page */
const storeCounts = () =>
  page.evaluate(
    () =>
      new Promise((ok, fail) => {
        const open = indexedDB.open('star-lab');
        open.onerror = () => fail(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const names = ['runs', 'metrics', 'checkpoints', 'episodes'].filter((n) => db.objectStoreNames.contains(n));
          const tx = db.transaction(names);
          const counts = {};
          for (const n of names) tx.objectStore(n).count().onsuccess = (e) => (counts[n] = e.target.result);
          tx.oncomplete = () => (db.close(), ok(counts));
        };
      }),
  );
/** serves the s-tiny files through the browser context (the worker's fetches included), `change` altering one */
async function routeCheckpoint(change = {}) {
  await context.unroute('**/checkpoints/s-tiny/*');
  await context.route('**/checkpoints/s-tiny/*', (route) => {
    const file = new URL(route.request().url()).pathname.split('/').pop();
    if (change[file]) return route.fulfill(change[file]);
    if (!SP_FILES.includes(file)) return route.fulfill({ status: 404, body: 'not found' });
    return route.fulfill({ status: 200, contentType: file.endsWith('.json') ? 'application/json' : 'application/octet-stream', body: checkpointFile(file) });
  });
}
async function openStartingPoint(wanted) {
  await page.goto('about:blank');
  await page.goto(`${base}?backend=cpu#scale=s&worldSize=tiny`);
  const card = page.locator('[data-testid=starting-point]');
  await page.waitForFunction((w) => document.querySelector('[data-testid=starting-point]')?.getAttribute('data-state') === w, wanted, { timeout: 60_000 }).catch(async () => {
    throw new Error(`starting point is ${await card.getAttribute('data-state')}, expected ${wanted}: ${await card.innerText()}`);
  });
  return card;
}

const started = Date.now();
let runId = null;
const timings = {};
console.log(`e2e: ${base} in ${chromiumPath}`);

await test('the training worker runs on the webgpu backend', async () => {
  await page.goto(`${base}#${SFT}`);
  await page.waitForSelector('[data-testid=backend][data-backend]:not([data-backend=""])', { timeout: 60_000 });
  const backend = await attr('[data-testid=backend]', 'data-backend');
  const label = await page.locator('[data-testid=backend]').innerText();
  assert(backend === 'webgpu', `backend is ${backend} (${label}); expected webgpu`);
  console.log(`      badge: ${label.trim()}`);
  await page.screenshot({ path: join(results, '1-ready.png') });
});

await test('an SFT run streams points, its loss falls, and validation rollouts are shown', async () => {
  const run = await runSft();
  assert(run.status === 'completed', `run ended as ${run.status || 'nothing'} ${run.error}`);
  assert(run.seen.size >= 2, `points did not stream while running (saw counts ${[...run.seen].join(', ') || 'none'})`);
  assert(run.points === STEPS, `chart has ${run.points} points, expected ${STEPS}`);
  assert(run.last < run.first - 0.4, `loss did not fall enough: ${run.first.toFixed(3)} → ${run.last.toFixed(3)}`);
  assert(run.evals >= 1, `expected periodic evaluations on the curve, saw ${run.evals}`);
  const evalTile = await page.locator('[data-testid=tile-eval]').innerText();
  assert(/\d+% · \d+% · \d+%/.test(evalTile), `evaluation tile shows ${evalTile}`);
  await assertEpisodeShown();
  timings.webgpuStepMs = run.stepMs;
  console.log(`      loss ${run.first.toFixed(3)} → ${run.last.toFixed(3)}, ${run.seen.size} updates while running, ${run.evals} evaluations (${evalTile}), ${run.stepMs.toFixed(1)} ms/step`);
  runId = await page.locator('[data-testid=run-row]').first().getAttribute('data-run-id');
  // real gradients reach the weights (webgpu once summed the norm to 0 and still "trained" via Adam)
  const norms = await page.evaluate(
    (id) =>
      new Promise((ok, fail) => {
        const open = indexedDB.open('star-lab');
        open.onerror = () => fail(open.error);
        open.onsuccess = () => {
          const all = open.result.transaction('metrics').objectStore('metrics').getAll();
          all.onsuccess = () => ok(all.result.filter((p) => p.runId === id).map((p) => p.values['charts/grad_norm']));
        };
      }),
    runId,
  );
  assert(norms.length === STEPS && norms.every((n) => Number.isFinite(n) && n > 1e-3), `gradient norms on webgpu: ${norms.join(', ')}`);
  await page.screenshot({ path: join(results, '2-trained.png'), fullPage: true });
});

await test('the run and its curve are listed after a reload', async () => {
  assert(runId, 'no run id from the previous test');
  await page.reload();
  const row = page.locator(`[data-testid=run-row][data-run-id="${runId}"]`);
  await row.waitFor({ timeout: 30_000 });
  assert((await row.getAttribute('data-status')) === 'completed', `stored run is ${await row.getAttribute('data-status')}`);
  await row.click();
  await page.waitForFunction(
    (n) => Number(document.querySelector('[data-testid=loss-chart]')?.getAttribute('data-points')) === n,
    STEPS,
    { timeout: 10_000 },
  );
  await assertEpisodeShown();
  await page.screenshot({ path: join(results, '3-after-reload.png'), fullPage: true });
});

await test('the SFT run can be chosen as the starting point; its checkpoint loads', async () => {
  assert(runId, 'no run id from the SFT test');
  const before = await storeCounts();
  await page.locator('[data-testid=starting-choice]').selectOption(runId);
  await page.waitForFunction(
    (id) => document.querySelector('[data-testid=starting-point]')?.getAttribute('data-state') === 'ready' &&
      document.querySelector('[data-testid=starting-point-label]')?.textContent.includes(id),
    runId,
    { timeout: 60_000 },
  ).catch(async () => {
    throw new Error(`starting point: ${await page.locator('[data-testid=starting-point]').innerText()}`);
  });
  const label = await page.locator('[data-testid=starting-point-label]').innerText();
  assert(label === `run ${runId} at step ${STEPS}`, `label: ${label}`);
  assert(JSON.stringify(await storeCounts()) === JSON.stringify(before), 'loading a run as the starting point changed the store');
});

// ---- RL in the browser: GRPO from the shipped s-tiny checkpoint, on webgpu ----------------------------
const chartAttr = async (name) => Number(await attr('[data-testid=rl-charts]', name));

async function clickStart() {
  assert((await attr('[data-testid=start]', 'disabled')) === null, 'Start is disabled');
  assert((await page.locator('[data-testid=start]').innerText()).startsWith('Start RL'), 'the Start button does not start RL');
  await page.locator('[data-testid=start]').click();
}

/** opens an RL link on webgpu, starts it (`start`: by default the Lab view's Start button) and waits for the
 *  end (screenshot `shot`-running.png once the step-0 evaluation is in) */
async function runRl(hash, shot, start = clickStart) {
  await page.goto('about:blank');
  await page.goto(`${base}#${hash}`);
  await page.waitForSelector('[data-testid=backend][data-backend]:not([data-backend=""])', { timeout: 60_000 });
  const backend = await attr('[data-testid=backend]', 'data-backend');
  assert(backend === 'webgpu', `backend is ${backend}; expected webgpu`);
  const t0 = Date.now();
  await start();
  await page.waitForFunction(() => document.querySelector('[data-testid=run-status]')?.getAttribute('data-status') === 'running', null, { timeout: 90_000 });
  const startedMs = Date.now() - t0;
  const seen = { evalsWhileRunning: 0, pointsWhileRunning: 0, phases: new Set() };
  let status = '';
  let shotTaken = false;
  const deadline = Date.now() + 480_000; // SwiftShader on a busy 2-core machine: minutes
  while (Date.now() < deadline) {
    status = await attr('[data-testid=run-status]', 'data-status');
    if (status === 'running') {
      seen.evalsWhileRunning = Math.max(seen.evalsWhileRunning, await chartAttr('data-evals'));
      seen.pointsWhileRunning = Math.max(seen.pointsWhileRunning, await chartAttr('data-points'));
      const phase = await attr('[data-testid=run-status]', 'data-phase');
      if (phase) seen.phases.add(phase);
      if (!shotTaken && seen.evalsWhileRunning >= 1) {
        shotTaken = true;
        await page.screenshot({ path: join(results, `${shot}-running.png`), fullPage: true });
      }
    }
    if (['completed', 'failed', 'stopped'].includes(status)) break;
    await page.waitForTimeout(200);
  }
  const error = (await page.locator('[data-testid=run-error]').count()) ? await page.locator('[data-testid=run-error]').innerText() : '';
  assert(status === 'completed', `RL run ended as ${status || 'nothing'} ${error}`);
  const id = await page.locator('[data-testid=run-row]').first().getAttribute('data-run-id');
  const points = await storedPoints(page, id);
  return { id, seen, startedMs, totalMs: Date.now() - t0, points };
}

await test('a finding\'s grid queues; its first run (ARPO) trains on webgpu from the shipped checkpoint: curves stream, start and end are evaluated, the branch tree is drawn; the cancelled rest never starts', async () => {
  let runsBefore = 0;
  const run = await runRl(`finding=T7&${RL}`, 'rl', async () => {
    runsBefore = (await storeCounts()).runs ?? 0;
    await queueFindingGrid();
  });
  assert((await attr('[data-testid=queue]', 'data-running')) === '0', 'the queue still runs something');
  await page.waitForTimeout(3000); // time for a wrongly queued next run to start
  assert((await attr('[data-testid=run-status]', 'data-status')) === 'completed', 'another run started after the queue was cancelled');
  assert(((await storeCounts()).runs ?? 0) === runsBefore + 1, 'the store holds more than the one started run');
  assert(run.seen.evalsWhileRunning >= 1, 'the step-0 evaluation did not reach the curves while running');
  assert(run.seen.phases.has('evaluating the starting point'), `phases seen: ${[...run.seen.phases].join(', ') || 'none'}`);
  assert((await chartAttr('data-points')) === RL_STEPS, `charts have ${await chartAttr('data-points')} training points, expected ${RL_STEPS}`);
  assert((await chartAttr('data-evals')) === 2, `charts have ${await chartAttr('data-evals')} evaluations, expected 2 (step 0 and the end)`);
  assert(run.points.map((p) => p.step).join() === '0,1', `stored steps ${run.points.map((p) => p.step).join()}`);
  const [start, step] = run.points;
  for (const key of ['reward/mean', 'success', 'delivery', 'kl', 'entropy', 'clip_frac', 'response_len', 'tool_calls', 'time/rollout', 'arpo/branches']) {
    assert(Number.isFinite(step.values[key]), `${key} missing from the step's point`);
  }
  assert(Number.isFinite(start.values['eval/ood_accuracy']) && Number.isFinite(step.values['eval/ood_accuracy']), 'OOD accuracy missing from an evaluation');
  assert(start.values['eval/success'] === undefined, 'an evaluation without validation queries reported a success rate');
  // the default charts, each with its points; the curriculum's stage (Sum at the first step)
  const plots = Object.fromEntries(await page.locator('[data-testid=metric-plot]').evaluateAll((els) => els.map((e) => [e.dataset.metric, Number(e.dataset.count)])));
  assert(plots['reward/mean'] === RL_STEPS && plots['eval/ood_accuracy'] === 2 && plots['eval/success'] === 0, `plots: ${JSON.stringify(plots)}`);
  const stage = await attr('[data-testid=curriculum-stage]', 'data-stage');
  assert(stage === 'sum', `curriculum stage shown: ${stage}`);
  // the metric picker adds a chart
  await page.locator('[data-testid=metric-picker-toggle]').click();
  await page.locator('[data-testid="metric-clip_frac"]').click();
  await page.locator('[data-testid=metric-plot][data-metric=clip_frac]').waitFor({ timeout: 5_000 });
  const row = page.locator(`[data-testid=run-row][data-run-id="${run.id}"]`);
  assert((await row.locator('[data-testid=run-kind]').innerText()) === 'RL', 'the run is not listed as RL');
  assert((await row.locator('.backend').innerText()).startsWith('webgpu'), `run backend ${await row.locator('.backend').innerText()}`);
  // the kept rollouts: reward, advantage, and the group as ARPO's tree with a branch at its fork
  await page.locator('[data-testid=sample-episode]').waitFor({ timeout: 15_000 });
  const rl = page.locator('[data-testid=episode-rl]');
  assert(Number.isFinite(Number(await rl.getAttribute('data-reward'))) && Number.isFinite(Number(await rl.getAttribute('data-advantage'))), 'reward/advantage missing');
  const tree = page.locator('[data-testid=branch-tree]');
  assert(Number(await tree.getAttribute('data-nodes')) === 2 && Number(await tree.getAttribute('data-branches')) === 1, `tree: ${await tree.getAttribute('data-nodes')} nodes, ${await tree.getAttribute('data-branches')} branches`);
  const forks = await page.locator('[data-testid=tree-node]').evaluateAll((els) => els.map((e) => [e.dataset.parent, Number(e.dataset.fork)]));
  assert(forks.some(([parent, fork]) => parent !== '' && fork > 0), `tree nodes: ${JSON.stringify(forks)}`);
  assert((await tree.innerText()).includes('fork @'), 'the fork position is not labelled');
  await assertEpisodeShown();
  timings.rlStartS = Math.round(run.startedMs / 100) / 10;
  timings.rlStep0EvalS = Math.round(start.values['eval/seconds']);
  timings.rlStepS = Math.round(step.values.stepMs / 1000);
  timings.rlRolloutS = Math.round(step.values['time/rollout']);
  timings.rlUpdateS = Math.round(step.values['time/update']);
  timings.rlEvalS = Math.round(step.values['eval/seconds']);
  timings.rlTotalS = Math.round(run.totalMs / 1000);
  console.log(`      ready in ${timings.rlStartS}s; step-0 evaluation ${timings.rlStep0EvalS}s; step 1 ${timings.rlStepS}s (rollouts ${timings.rlRolloutS}s, update ${timings.rlUpdateS}s, evaluation ${timings.rlEvalS}s); ${timings.rlTotalS}s in all`);
  await page.locator('[data-testid=sample-episode]').screenshot({ path: join(results, 'rl-episode.png') });
  await page.screenshot({ path: join(results, 'rl-finished.png'), fullPage: true });
  await page.locator('[data-testid=queue-clear]').click();
  await page.waitForSelector('[data-testid=queue][data-items="0"]', { timeout: 5_000 });
}, 'rl');

// ---- the run queue across reloads, RL pause/resume (group rl; alone: queue) --------------------------
await queueTests({ page, base, results, test, assert, attr, join });

await test('a malformed link shows the notice and the page still works', async () => {
  await page.goto('about:blank');
  await page.goto(`${base}#scale=xl&bogus=1&steps=%E0%A4%A&&seed=-4&reward`);
  const notice = page.locator('[data-testid=url-notice]');
  await notice.waitFor({ timeout: 10_000 });
  const text = await notice.innerText();
  for (const key of ['scale', 'bogus', 'steps', 'seed', 'reward']) assert(text.includes(key), `notice does not mention ${key}: ${text}`);
  assert(await page.locator('h1', { hasText: 'STAR Lab' }).isVisible(), 'header missing');
  assert(await page.locator('[data-testid=choice-scale-m]').getAttribute('aria-checked') === 'true', 'bad scale did not fall back to the default');
  await page.screenshot({ path: join(results, '4-url-notice.png') });
});

// ---- the RL starting point: a shipped SFT checkpoint, loaded and checked by the worker ----------------
await test('starting point: the shipped s checkpoint is loaded, checked and its card shown', async () => {
  assert(existsSync(join(checkpointDir, 'card.json')), `no checkpoint at ${checkpointDir} (the shipped public/checkpoints/s-tiny, or set E2E_CHECKPOINT)`);
  const card = JSON.parse(checkpointFile('card.json'));
  // the shipped folder is served by the lab itself; another folder is routed in its place
  if (checkpointDir !== shippedCheckpoint) await routeCheckpoint();
  try {
    await openStartingPoint('ready');
  } finally {
    await context.unroute('**/checkpoints/s-tiny/*');
  }
  const label = await page.locator('[data-testid=starting-point-label]').innerText();
  assert(label.includes('s-tiny'), `label: ${label}`);
  for (const key of ['delivery', 'success', 'oodAccuracy']) {
    const shown = Number(await attr(`[data-testid=starting-${key}]`, 'data-value'));
    assert(shown === card.evaluation.free[key], `${key} shown ${shown}, card ${card.evaluation.free[key]}`);
  }
  const text = await page.locator('[data-testid=starting-point-summary]').innerText();
  assert(text.includes(`${card.sft.steps.toLocaleString('en-US')} steps`) && text.includes('tiny'), `summary lacks how it was made: ${text}`);
  assert((await page.locator('[data-testid=starting-point-command]').textContent()) === card.command, 'the card\'s command is not shown');
  console.log(`      ${label}: ${(await page.locator('[data-testid=starting-point] .figures').innerText()).replace(/\s+/g, ' ')}`);
  await page.locator('[data-testid=starting-point]').screenshot({ path: join(results, '5-starting-point.png') });
  await page.screenshot({ path: join(results, '5-starting-point-page.png') });
}, 'startingPoint');

const corrupt = [
  ['a truncated weights.bin', () => ({ 'weights.bin': { status: 200, contentType: 'application/octet-stream', body: checkpointFile('weights.bin').subarray(0, 4096) } }),
    /^The shipped checkpoint s-tiny is damaged or mismatched: weights\.bin has 4096 bytes, model\.json describes \d+ \(truncated\?\)/],
  ['a card whose SHA-256 does not match', () => {
    const card = JSON.parse(checkpointFile('card.json'));
    card.weights.sha256 = card.weights.sha256.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    return { 'card.json': { status: 200, contentType: 'application/json', body: JSON.stringify(card) } };
  }, /^The shipped checkpoint s-tiny is damaged or mismatched: weights\.bin does not match its card \(SHA-256 [0-9a-f]{12}…, card [0-9a-f]{12}…\)/],
  ['a missing model.json (404)', () => ({ 'model.json': { status: 404, body: 'not found' } }),
    /^The shipped checkpoint s-tiny is missing \(\/checkpoints\/s-tiny\/model\.json: 404\)/],
];
for (const [name, change, reason] of corrupt) {
  await test(`starting point: ${name} is refused with its reason, and nothing is stored`, async () => {
    assert(existsSync(join(checkpointDir, 'card.json')), `no checkpoint at ${checkpointDir}`);
    await page.goto(`${base}?backend=cpu#scale=s&worldSize=tiny`);
    const before = await storeCounts();
    await routeCheckpoint(change());
    try {
      await openStartingPoint('error');
      const shown = await page.locator('[data-testid=starting-point-reason]').innerText();
      assert(reason.test(shown), `reason shown: ${shown}`);
      assert((await page.locator('[data-testid=starting-point-error]').innerText()).includes('Nothing was stored'), 'the error box does not say nothing was stored');
      // asking again gives the same answer and still stores nothing
      await page.locator('[data-testid=starting-point] button', { hasText: 'Check again' }).click();
      await page.waitForFunction(() => document.querySelector('[data-testid=starting-point]')?.getAttribute('data-state') === 'error', null, { timeout: 60_000 });
      const after = await storeCounts();
      assert(JSON.stringify(after) === JSON.stringify(before), `the store changed: ${JSON.stringify(before)} → ${JSON.stringify(after)}`);
      console.log(`      ${shown}`);
      if (name.startsWith('a truncated')) await page.locator('[data-testid=starting-point]').screenshot({ path: join(results, '6-starting-point-error.png') });
    } finally {
      await context.unroute('**/checkpoints/s-tiny/*');
    }
  }, 'startingPoint');
}

await test('pause, resume and stop reach the worker (cpu backend, for time)', async () => {
  await page.goto('about:blank');
  await page.goto(`${base}?backend=cpu#stage=sft&steps=500&seed=4&scale=s&worldSize=tiny&trainSize=40`);
  await page.waitForSelector('[data-testid=backend][data-backend="cpu"]', { timeout: 60_000 });
  const fallback = await page.locator('[data-testid=backend-fallback]').innerText();
  assert(/not WebGPU.*forced with \?backend=/.test(fallback), `the fallback notice reads: ${fallback}`);
  const status = () => attr('[data-testid=run-status]', 'data-status');
  const waitStatus = (want) =>
    page.waitForFunction((w) => document.querySelector('[data-testid=run-status]')?.getAttribute('data-status') === w, want, { timeout: 60_000 });
  await page.locator('[data-testid=start]').click();
  await page.waitForFunction(() => Number(document.querySelector('[data-testid=loss-chart]')?.getAttribute('data-points')) >= 2, null, { timeout: 60_000 });
  await page.locator('[data-testid=pause]').click();
  await waitStatus('paused');
  const pausedAt = Number(await attr('[data-testid=loss-chart]', 'data-points'));
  await page.waitForTimeout(1500);
  const later = Number(await attr('[data-testid=loss-chart]', 'data-points'));
  assert(later <= pausedAt + 1, `still training while paused (${pausedAt} → ${later} points)`);
  await page.locator('[data-testid=resume]').click();
  await waitStatus('running');
  await page.locator('[data-testid=stop]').click();
  await waitStatus('stopped');
  assert((await status()) === 'stopped', 'run did not stop');
  const row = page.locator('[data-testid=run-row]').first();
  await page.waitForFunction(() => document.querySelector('[data-testid=run-row]')?.getAttribute('data-status') === 'stopped', null, { timeout: 10_000 });
  assert(await row.locator('button', { hasText: 'Resume' }).isVisible(), 'a stopped run offers no Resume');
  // resuming continues the same run from its newest checkpoint
  const stoppedAt = Number(await row.locator('td.num').first().innerText().then((t) => t.split('/')[0]));
  const rowsBefore = await page.locator('[data-testid=run-row]').count();
  const stoppedId = await row.getAttribute('data-run-id');
  await row.locator('button', { hasText: 'Resume' }).click();
  await waitStatus('running');
  await page.waitForFunction(
    (s) => Number(document.querySelector('[data-testid=loss-chart]')?.getAttribute('data-points')) > s,
    stoppedAt,
    { timeout: 60_000 },
  );
  await page.locator('[data-testid=stop]').click();
  await waitStatus('stopped');
  // the same run, still the newest, and no new row (the earlier tests' runs are listed too)
  assert((await page.locator('[data-testid=run-row]').count()) === rowsBefore && (await row.getAttribute('data-run-id')) === stoppedId,
    'resume made a new run instead of continuing');
});

// ---- the Sandbox: the training world browsed, a tool called by hand, a plan written and scored ----------
await test('sandbox: browse the world, call a tool by hand, write a plan and score it', async () => {
  await page.goto('about:blank');
  await page.goto(`${base}#view=sandbox`);
  await page.waitForSelector('[data-testid=sandbox][data-ready=true]', { timeout: 60_000 });
  // the world browser: a filter narrows the flights
  await page.locator('[data-testid=world-tab-flights]').click();
  const all = Number(await attr('[data-testid=world-count]', 'data-matched'));
  const firstFrom = await page.locator('[data-testid=world-table] tbody tr').first().locator('td').nth(1).innerText();
  await page.locator('[data-testid=world-filter]').fill(`${firstFrom} 2022-03-05`);
  const some = Number(await attr('[data-testid=world-count]', 'data-matched'));
  assert(all > 0 && some > 0 && some < all, `the filter did not narrow the flights (${all} → ${some})`);
  // a query: its text and constraints
  await page.locator('[data-testid=query-item][data-index="1"]').click();
  const detail = await page.locator('[data-testid=query-detail]').innerText();
  assert(/Budget\s*\$\d+/.test(detail) && detail.length > 80, `the query detail lacks its text or budget: ${detail}`);
  // a tool called by hand: its observation, as text and as the policy's tokens
  await page.locator('[data-testid=console-tool]').selectOption('SearchAccommodation');
  await page.locator('[data-testid=console-call]').click();
  const observation = await page.locator('[data-testid=console-observation]').first().innerText();
  assert(/price/i.test(observation), `the accommodation observation looks wrong: ${observation.slice(0, 200)}`);
  await page.locator('[data-testid=console-tokens]').check();
  const tokens = await page.locator('[data-testid=console-observation-tokens]').first().innerText();
  assert(tokens.startsWith('<obs> #1'), `the policy's tokens look wrong: ${tokens.slice(0, 80)}`);
  // a broken plan is refused with its reason
  await page.locator('[data-testid=plan-text-mode]').click();
  await page.locator('[data-testid=plan-text]').fill('[{"days": 1, "current_city": ');
  await page.locator('[data-testid=plan-score]').click();
  const error = await page.locator('[data-testid=plan-error]').innerText();
  assert(/cannot be read/.test(error), `no clear parse error: ${error}`);
  assert((await page.locator('[data-testid=plan-result]').count()) === 0, 'an unreadable plan was scored');
  // the teacher's plan, edited in the form: a wrong hotel fails the sandbox check, the teacher's passes
  await page.locator('[data-testid=plan-teacher]').click();
  await page.locator('[data-testid=plan-form-mode]').click();
  const stay = page.locator('[data-testid=plan-1-accommodation]');
  const teacherStay = await stay.inputValue();
  await stay.fill('Nowhere Inn, Atlantis');
  await page.locator('[data-testid=plan-score]').click();
  assert(await attr('[data-testid=plan-result]', 'data-final-pass') === 'false', 'a made-up hotel passed');
  assert((await page.locator('[data-testid=plan-check][data-verdict=fail]').count()) > 0, 'no failed check shown for a made-up hotel');
  await stay.fill(teacherStay);
  await page.locator('[data-testid=plan-score]').click();
  await page.waitForSelector('[data-testid=plan-result][data-final-pass=true]', { timeout: 5_000 });
  assert((await page.locator('[data-testid=plan-check]').count()) === 13, 'not every check is listed');
  for (const kind of ['sum', 'macro', 'success', 'curriculum']) {
    assert(await attr(`[data-testid=reward-${kind}]`, 'data-value') === '1', `the teacher's passing plan has ${kind} reward ≠ 1`);
  }
  await page.screenshot({ path: join(results, 'sandbox.png'), fullPage: true });
}, 'sandbox');

// ---- findings: a finding's page, its grid in the run queue ------------------------------------------
// The RL test above starts its run this way: T7's page (claim, paper, reference table, its own link), its
// grid queued at the RL test's tiny size (3 runs, the cells' failure rates on top of the link's settings),
// the first run left to finish and the two others cancelled while it trains.
async function queueFindingGrid() {
  await page.waitForSelector('[data-testid=finding][data-finding=T7]', { timeout: 30_000 });
  const claim = await page.locator('[data-testid=finding-claim]').innerText();
  assert(/5 %.*10 %/.test(claim), `T7's claim reads: ${claim}`);
  assert((await page.locator('[data-testid=finding-cell]').count()) === 3, 'T7 table is not 1 × 3');
  const hasReference = (await attr('[data-testid=finding-table]', 'data-reference')) === 'yes';
  if (hasReference) assert(/\S/.test(await page.locator('[data-testid=reference-direction]').innerText()), 'the reference table has no direction sentence');
  else assert(/No reference table committed yet/.test(await page.locator('[data-testid=reference-missing]').innerText()), 'neither a reference table nor its absence is shown');
  // a finding has its own link; T1 carries the paper's numbers in its cells
  await page.locator('[data-testid=finding-tab-T1]').click();
  await page.waitForSelector('[data-testid=finding][data-finding=T1]');
  assert(/finding=T1/.test(page.url()), `the link does not name T1: ${page.url()}`);
  assert((await page.locator('[data-testid=finding-cell][data-paper="34.9"]').count()) === 1, "T1's table lacks the paper's 34.9 (1.5B, Curriculum)");
  await page.screenshot({ path: join(results, 'findings.png'), fullPage: true });
  await page.locator('[data-testid=finding-tab-T7]').click();
  await page.waitForSelector('[data-testid=finding][data-finding=T7]');

  // the resolved configs are shown before queueing: the link's settings, the cell's tool failure rate on top
  await page.locator('[data-testid=queue-grid]').click();
  const preview = await page.locator('[data-testid=queue-preview] li').allInnerTexts();
  assert(preview.length === 3, `the preview lists ${preview.length} runs`);
  assert(preview.every((t) => /scale=s/.test(t) && /steps=1/.test(t) && /algorithm=arpo/.test(t)), `the preview misses the link's settings: ${preview.join(' | ')}`);
  assert(/toolFailureRate=0\.05/.test(preview[1]) && /toolFailureRate=0\.1/.test(preview[2]), `the cells' rates are not on top: ${preview.join(' | ')}`);
  await page.locator('[data-testid=queue-confirm]').click();
  await page.waitForSelector('[data-testid=queue][data-items="3"]', { timeout: 10_000 });
  await page.waitForFunction(() => document.querySelector('[data-testid=queue-item]')?.getAttribute('data-status') === 'running'
    && document.querySelector('[data-testid=run-status]')?.getAttribute('data-status') === 'running', null, { timeout: 120_000 });
  assert((await attr('[data-testid=queue]', 'data-waiting')) === '2', 'two runs should wait behind the first');
  assert((await page.locator('[data-testid=queue] [role=progressbar]').count()) === 4, 'the queue and each run need a progress bar');
  assert(/ETA/.test(await page.locator('[data-testid=queue-summary]').innerText()), 'the queue shows no ETA');
  await page.screenshot({ path: join(results, 'queue.png'), fullPage: true });
  await page.locator('[data-testid=queue-cancel]').click();
  await page.waitForSelector('[data-testid=queue][data-waiting="0"][data-items="1"]', { timeout: 5_000 });
}

// ---- robustness and security: CSP and origin, resume after a reload or a crash, full storage, corrupt records ----
await robustTests({ page, context, base, dist, results, test, assert, attr, consoleErrors });

// ---- the Runs view and the episode viewer (no training: an imported bundle) ----------------------------
await runsTests({ page, base, results, test, assert, attr, storeCounts, checkpointDir });

if (measure) {
  await test('measure: the same SFT run on the cpu backend', async () => {
    await page.goto(`${base}?backend=cpu#${SFT}`);
    await page.waitForSelector('[data-testid=backend][data-backend="cpu"]', { timeout: 60_000 });
    const run = await runSft();
    assert(run.status === 'completed', `cpu run ended as ${run.status}`);
    timings.cpuStepMs = run.stepMs;
    console.log(`      cpu: ${run.stepMs.toFixed(1)} ms/step, loss ${run.first.toFixed(3)} → ${run.last.toFixed(3)}`);
  });
}

await context.close();
server.close();
rmSync(userDataDir, { recursive: true, force: true });
if (failed && consoleErrors.length) console.log(`  browser errors:\n    ${consoleErrors.slice(0, 10).join('\n    ')}`);
if (Object.keys(timings).length) console.log(`e2e timings: ${JSON.stringify(timings)}`);
console.log(`e2e: ${passed} passed, ${failed} failed (${((Date.now() - started) / 1000).toFixed(1)}s)`);
process.exit(failed ? 1 : 0);
