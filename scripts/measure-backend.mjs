#!/usr/bin/env node
// A measurement, not a test: how the page picks its backend, and what a run costs on it, in headless
// Chromium (WebGPU on: SwiftShader when there is no GPU). Serves a built dist/ like scripts/e2e.mjs on a
// fresh profile, opens the link, times the backend choice (the calibration on a first visit, the stored
// figures on each reload), then presses Start and times the run; prints the badge as it changes and a JSON
// summary: the calibration's figures, the run's wall time and each step's rollout and update seconds.
//
//   npx vite build && node scripts/measure-backend.mjs [--hash '#stage=rl&scale=s&…'] [--backend webgpu|wasm|cpu]
//                                                       [--reloads N] [--no-train] [--shots DIR]
//
// --backend forces one (?backend=); without it the page measures. --reloads N opens the page N more times
// (later visits: the stored figures). --shots DIR saves the header's badge while measuring and after.
import { createServer } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { extname, join, normalize, resolve } from 'node:path';
import { chromium } from 'playwright-core';

const root = resolve(new URL('..', import.meta.url).pathname);
const dist = resolve(process.env.E2E_DIST || join(root, 'dist'));
const arg = (name) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : undefined; };
const hash = arg('--hash') ?? '#stage=rl&scale=s&steps=2&evalEvery=2&evalQueries=4&evalToolQa=2';
const query = arg('--backend') ? `?backend=${arg('--backend')}` : '';
const reloads = Number(arg('--reloads') ?? 0);
const shots = arg('--shots') ? resolve(arg('--shots')) : null;
if (shots) mkdirSync(shots, { recursive: true });
if (!existsSync(join(dist, 'index.html'))) throw new Error('dist/ is missing: run `npx vite build` first');

const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
};
const server = createServer((req, res) => {
  let file = join(
    dist,
    normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, ''),
  );
  if (!file.startsWith(dist) || !existsSync(file) || statSync(file).isDirectory()) file = join(dist, 'index.html');
  res.writeHead(200, {
    'content-type': types[extname(file)] ?? 'application/octet-stream',
    'cache-control': 'no-store',
  });
  res.end(readFileSync(file));
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const url = `http://127.0.0.1:${server.address().port}/${query}${hash}`;
const profile = mkdtempSync(join(tmpdir(), 'star-lab-backend-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1280, height: 800 },
  args: ['--headless', '--no-sandbox', '--enable-unsafe-webgpu', '--disable-gpu-sandbox', '--no-first-run'],
});
const page = context.pages()[0] ?? (await context.newPage());
page.setDefaultTimeout(1_800_000);
page.on('pageerror', (e) => console.log(`pageerror: ${e.message}`));
const secs = (t0) => Math.round((Date.now() - t0) / 100) / 10;
const badge = () => page.evaluate(() => {
  const b = document.querySelector('[data-testid=backend]');
  return b ? { choice: b.dataset.choice, backend: b.dataset.backend, text: b.innerText.replace(/\s+/g, ' ') } : null;
});
const store = (db, name) => page.evaluate(([db, name]) => new Promise((ok, fail) => {
  const open = indexedDB.open(db);
  open.onerror = () => fail(open.error);
  open.onsuccess = () => {
    const q = open.result.transaction(name).objectStore(name).getAll();
    q.onsuccess = () => (open.result.close(), ok(q.result));
  };
}), [db, name]);

const summary = { url: url.replace(/^http:\/\/[^/]+/, ''), loadavg: loadavg()[0], visits: [], run: null };
for (let visit = 0; visit <= reloads; visit++) {
  const t0 = Date.now();
  if (visit === 0) await page.goto(url); else await page.reload();
  let last = '';
  let shot = false;
  for (;;) {
    const b = await badge();
    if (b && b.text !== last) console.log(`${secs(t0)} s  [${b.choice}] ${(last = b.text)}`);
    if (shots && !shot && b?.choice === 'measuring' && /wasm|webgpu/.test(b.text.split('…')[1] ?? '')) {
      shot = true;
      await page
        .locator('[data-testid=backend]')
        .screenshot({ path: join(shots, 'badge-measuring.png'), timeout: 120_000 })
        .catch(() => {});
    }
    if (b?.choice && b.choice !== 'measuring') break;
    await page.waitForTimeout(250);
  }
  summary.visits.push({ decidedS: secs(t0), ...(await badge()) });
  if (shots && visit === 0)
    await page
      .locator('header')
      .screenshot({ path: join(shots, 'badge-after.png'), timeout: 180_000 })
      .catch(() => {});
}
summary.calibrations = await store('star-lab-device', 'calibrations').catch(() => []);

if (!process.argv.includes('--no-train')) {
  await page.waitForFunction(() => document.querySelector('[data-testid=start]')?.disabled === false);
  const t0 = Date.now();
  await page.locator('[data-testid=start]').click();
  let last = '';
  for (;;) {
    const status = await page.locator('[data-testid=run-status]').getAttribute('data-status');
    const text = (await page.locator('[data-testid=run-status]').innerText()).replace(/\s+/g, ' ');
    if (text !== last) console.log(`${secs(t0)} s  ${(last = text)}`);
    if (['completed', 'failed', 'stopped'].includes(status)) break;
    await page.waitForTimeout(250);
  }
  const [run] = await store('star-lab', 'runs');
  const points = await store('star-lab', 'metrics');
  summary.run = {
    status: run.status,
    seconds: secs(t0),
    backend: run.backend,
    calibration: run.calibration?.summary,
    meanStepMs: run.summary.meanStepMs,
    steps: points
      .filter((p) => p.step > 0)
      .map((p) => ({ step: p.step, rolloutS: p.values['time/rollout'], updateS: p.values['time/update'] })),
  };
  if (shots)
    await page.screenshot({ path: join(shots, 'lab-after-run.png'), fullPage: true, timeout: 180_000 }).catch(() => {});
}
console.log(JSON.stringify(summary, null, 1));
await context.close();
server.close();
rmSync(profile, { recursive: true, force: true });
