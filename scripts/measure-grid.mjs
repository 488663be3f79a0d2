#!/usr/bin/env node
// A measurement, not a test: the wall time of T7's whole grid (its 3 runs, queued from the findings
// page at the e2e's tiny ARPO settings) end to end in headless Chromium on webgpu (SwiftShader when
// there is no GPU). Serves a built dist/ like scripts/e2e.mjs, prints per-run and total wall seconds
// and writes them with the date, commit and adapter to results/browser-grid-t7.json.
//
//   npx vite build && node scripts/measure-grid.mjs [--out FILE] [--screens DIR] [--backend wasm|cpu]
//
// The page is always opened with ?backend= (webgpu unless --backend says otherwise): without it the page
// measures the backends and trains on the faster (wasm, where WebGPU is SwiftShader).
// --backend forces another backend: a quick pass for the screenshots; its figures go to
// the temp folder unless --out says otherwise (the committed figure is webgpu's).
// --screens DIR also saves a screenshot of each view on the way (Lab training with curves, the queue,
// Findings T7 with the runs filled in, Runs with two runs overlaid, an episode's ARPO tree, Sandbox).
import { createServer } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { recordCommit } from './recordCommit.mjs';

const root = resolve(new URL('..', import.meta.url).pathname);
// refused here, before measuring, where the record could not be checked out
const made = recordCommit(root, process.argv.includes('--allow-dirty'));
const dist = resolve(process.env.E2E_DIST || join(root, 'dist'));
const arg = (name) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : undefined; };
const wanted = arg('--backend') ?? 'webgpu';
const out = resolve(
  arg('--out') ??
    (wanted === 'webgpu'
      ? join(root, 'results', 'browser-grid-t7.json')
      : join(tmpdir(), `browser-grid-t7-${wanted}.json`)),
);
const query = `?backend=${wanted}`; // forced: without it the page measures and picks the faster
const screens = arg('--screens') ? resolve(arg('--screens')) : null;
const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
// scripts/e2e.mjs's RL link (ARPO from the shipped s-tiny checkpoint, one step of one query, two rollouts)
const RL =
  'stage=rl&scale=s&algorithm=arpo&arpoAlpha=1&reward=curriculum&steps=1&queriesPerStep=1&groupSize=2&evalEvery=1&evalQueries=0&evalToolQa=2&trainSize=20&seed=6';
const GRID_TIMEOUT_MS = 60 * 60_000;

if (!existsSync(join(dist, 'index.html'))) throw new Error(`no build at ${dist}: run npx vite build first`);
if (screens) mkdirSync(screens, { recursive: true });

const server = createServer((req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
  let file = join(dist, path);
  if (!file.startsWith(dist) || !existsSync(file) || statSync(file).isDirectory()) file = join(dist, 'index.html');
  const type = {
    '.html': 'text/html',
    '.js': 'text/javascript',
    '.css': 'text/css',
    '.wasm': 'application/wasm',
    '.json': 'application/json',
    '.svg': 'image/svg+xml',
  }[extname(file)];
  res.writeHead(200, { 'content-type': type ?? 'application/octet-stream', 'cache-control': 'no-store' });
  res.end(readFileSync(file));
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const base = `http://127.0.0.1:${server.address().port}/`;
const userDataDir = mkdtempSync(join(tmpdir(), 'star-lab-grid-'));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: chromiumPath,
  headless: true,
  viewport: { width: 1360, height: 900 },
  args: [
    '--headless',
    '--no-sandbox',
    '--enable-unsafe-webgpu',
    '--disable-gpu-sandbox',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
const page = context.pages()[0] ?? (await context.newPage());
page.setDefaultTimeout(180_000);
const attr = (selector, name) => page.locator(selector).first().getAttribute(name);
const shot = async (name, locator = null) => {
  if (!screens) return;
  const path = join(screens, `${name}.png`);
  await (locator ? locator.screenshot({ path }) : page.screenshot({ path, fullPage: true }));
  console.log(`  screenshot ${path}`);
};
const secs = (ms) => Math.round(ms / 100) / 10;

try {
  await page.goto(`${base}${query}#view=findings&finding=T7&${RL}`);
  await page.waitForSelector('[data-testid=backend][data-backend]:not([data-backend=""])', { timeout: 120_000 });
  const backend = await attr('[data-testid=backend]', 'data-backend');
  const adapter = (await page.locator('[data-testid=backend]').innerText()).trim().replace(/\s+/g, ' ');
  if (backend !== wanted) throw new Error(`backend is ${backend} (${adapter}), not ${wanted}`);
  console.log(`measure-grid: T7 grid on ${adapter} (${base})`);

  const t0 = Date.now();
  await page.locator('[data-testid=queue-grid]').click();
  await page.locator('[data-testid=queue-confirm]').click();
  await page.waitForSelector('[data-testid=queue][data-items="3"]', { timeout: 30_000 });
  /** per queue item: when it was seen running (being started counts) and when it ended */
  const seen = [{}, {}, {}];
  let shotsTaken = !screens;
  while (Date.now() - t0 < GRID_TIMEOUT_MS) {
    const items = await page
      .locator('[data-testid=queue-item]')
      .evaluateAll((els) => els.map((e) => ({ status: e.dataset.status, runId: e.dataset.runId })));
    const now = Date.now();
    items.forEach((item, i) => {
      if (item.status !== 'waiting') seen[i].startMs ??= now - t0;
      if (['completed', 'failed', 'stopped'].includes(item.status)) {
        seen[i].endMs ??= now - t0;
        seen[i].status = item.status;
      }
      seen[i].runId = item.runId;
    });
    if (!shotsTaken && Number(await attr('[data-testid=rl-charts]', 'data-evals')) >= 1) {
      shotsTaken = true;
      await shot('lab-training');
      await shot('queue-panel', page.locator('[data-testid=queue]'));
    }
    if (seen.every((s) => s.endMs !== undefined)) break;
    await page.waitForTimeout(500);
  }
  const totalMs = Math.max(...seen.map((s) => s.endMs ?? Number.NaN));
  if (!Number.isFinite(totalMs))
    throw new Error(`the grid did not finish in ${GRID_TIMEOUT_MS / 60_000} min: ${JSON.stringify(seen)}`);

  // what each run measured itself (its stored step point), read from the page's IndexedDB
  const stored = await page.evaluate((ids) => new Promise((ok, fail) => {
    const open = indexedDB.open('star-lab');
    open.onerror = () => fail(open.error);
    open.onsuccess = () => {
      const r = open.result.transaction('metrics').objectStore('metrics').getAll();
      r.onsuccess = () => (
        open.result.close(),
        ok(ids.map((id) => r.result.filter((p) => p.runId === id).sort((a, b) => a.step - b.step)))
      );
    };
  }), seen.map((s) => s.runId));
  const labels = await page.locator('[data-testid=queue-item] .label').allInnerTexts();
  const runs = seen.map((s, i) => {
    const [start, step] = stored[i];
    return {
      label: labels[i],
      runId: s.runId,
      status: s.status,
      wallS: secs(s.endMs - s.startMs),
      step0EvalS: Math.round(start?.values['eval/seconds'] ?? NaN),
      stepS: Math.round((step?.values['time/step_ms'] ?? NaN) / 1000),
      rolloutS: Math.round(step?.values['time/rollout'] ?? NaN),
      updateS: Math.round(step?.values['time/update'] ?? NaN),
      evalS: Math.round(step?.values['eval/seconds'] ?? NaN),
    };
  });
  const result = {
    what: 'T7 grid (3 runs) queued from the findings page, tiny ARPO settings of scripts/e2e.mjs, end to end in headless Chromium',
    date: new Date().toISOString(),
    ...made,
    backend,
    adapter,
    chromium: context.browser()?.version() ?? null,
    machine: { cpus: cpus().length, loadavg1AtEnd: Math.round(loadavg()[0] * 10) / 10 },
    link: `${query}#finding=T7&${RL}`,
    command: `npx vite build && node scripts/measure-grid.mjs${wanted === 'webgpu' ? '' : ` --backend ${wanted}`}`,
    runs,
    totalS: secs(totalMs),
  };
  for (const r of runs)
    console.log(
      `  ${r.label}: ${r.status} in ${r.wallS} s (step-0 evaluation ${r.step0EvalS} s, step ${r.stepS} s: rollouts ${r.rolloutS} s, update ${r.updateS} s, evaluation ${r.evalS} s)`,
    );
  console.log(
    `  total ${result.totalS} s (load average at the end ${result.machine.loadavg1AtEnd} on ${result.machine.cpus} cores)`,
  );
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
  console.log(`  wrote ${out}`);

  if (screens) await screenshotViews(seen.map((s) => s.runId));
} finally {
  await context.close();
  server.close();
  rmSync(userDataDir, { recursive: true, force: true });
}

/** the other views, with the grid's runs in the store */
async function screenshotViews(runIds) {
  await page.goto(`${base}${query}#view=findings&finding=T7&${RL}`);
  await page.waitForSelector('[data-testid=finding][data-finding=T7]');
  await page.waitForTimeout(1500); // the user's runs are read from the store
  await shot('findings-t7');
  await page.goto(`${base}${query}#view=runs`);
  const row = (id) => page.locator(`[data-testid=runs-row][data-run-id="${id}"]`);
  for (const id of runIds.slice(0, 2)) await row(id).locator('[data-testid=overlay-toggle]').check();
  await page.waitForSelector('[data-testid=run-overlay][data-runs="2"]', { timeout: 30_000 });
  await shot('runs-overlay');
  await page.locator('[data-testid=episode-run]').selectOption(runIds[0]);
  await page.waitForSelector('[data-testid=episode-step] option[value="1"]', { state: 'attached', timeout: 30_000 });
  await page.locator('[data-testid=episode-step]').selectOption('1');
  await page.locator('[data-testid=episode-item]').first().locator('[data-testid=open-episode]').click();
  await page.locator('[data-testid=episode-detail] [data-testid=branch-tree]').waitFor({ timeout: 30_000 });
  await shot('episode-arpo-tree', page.locator('[data-testid=episode-viewer]'));
  await page.goto(`${base}${query}#view=sandbox`);
  await page.waitForSelector('[data-testid=sandbox][data-ready=true]', { timeout: 60_000 });
  await page.locator('[data-testid=query-item][data-index="1"]').click();
  await page.locator('[data-testid=console-tool]').selectOption('SearchAccommodation');
  await page.locator('[data-testid=console-call]').click();
  await page.locator('[data-testid=plan-teacher]').click();
  await page.locator('[data-testid=plan-score]').click();
  await page.waitForSelector('[data-testid=plan-result]', { timeout: 30_000 });
  await shot('sandbox-scored');
}
