#!/usr/bin/env node
// A view pictured in headless Chromium: the Lab mid-run, its curves drawn, or (--still) a view as it opens, such
// as the README's welcome. Serves a built dist/ with Vite's
// preview server (the cross-origin isolation headers of vite.config.ts), opens a small RL run in headless
// Chromium with no query string — the page measures its backends and picks the faster (wasm here, where
// WebGPU is SwiftShader) —, presses Start and takes the picture once the run has its step-0 evaluation and
// at least two training steps on the curves, while it still runs. --backend B forces one (?backend=B).
//
//   npx vite build && node scripts/screenshot.mjs [--out /tmp/lab.png] [--hash '#stage=rl&…'] [--until completed]
// [--backend wasm]
//
// --until completed waits for the run's end instead (exit 1 if it fails) and pictures it: the page-side
// check that a setting trains at all, e.g. scale l's default 4 × 8 step on wasm:
//   node scripts/screenshot.mjs --until completed --out /tmp/l.png --hash
// '#stage=rl&scale=l&steps=1&evalEvery=1&evalQueries=0&evalToolQa=2'
//
// ~2–4 min on a shared 2-core machine (the step-0 evaluation is most of it; the backend measurement ~30 s).
//
// --still takes a view as it opens, without Start (no --hash: a first visit, the welcome): the README's picture is
//   node scripts/screenshot.mjs --still --replay-steps 13
// (--replay-steps N: the welcome's episode replay stepped N times first, 13: the plan it wrote).
// --size WxH sets the viewport (default 1280x900); --full pictures the whole page, not just its first screen.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { preview } from 'vite';
import { chromium } from 'playwright-core';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const still = process.argv.includes('--still');
// the README's picture is the welcome (--still); a run's picture goes where --out says
const out = resolve(ROOT, arg('--out', still ? 'docs/img/lab.png' : '/tmp/lab-running.png'));
// the Curriculum reward (its stage card moves) and 8 steps, so the picture is taken well before the end
const hash = arg(
  '--hash',
  still ? '' : '#stage=rl&scale=s&worldSize=tiny&reward=curriculum&steps=8&evalEvery=2&evalQueries=8&evalToolQa=8',
);
const [width, height] = arg('--size', '1280x900').split('x').map(Number);
if (!(width > 0 && height > 0)) throw new Error(`--size WxH, got ${arg('--size')}`);
const replaySteps = Number(arg('--replay-steps', '0'));
const until = arg('--until', 'running');
const query = arg('--backend') ? `?backend=${arg('--backend')}` : '';
if (!['running', 'completed'].includes(until)) throw new Error(`--until running|completed, got ${until}`);
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

const server = await preview({
  root: ROOT,
  logLevel: 'silent',
  preview: { port: 0, host: '127.0.0.1', strictPort: false },
});
const base = server.resolvedUrls.local[0];
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--enable-unsafe-webgpu'],
});
try {
  const page = await browser.newPage({ viewport: { width, height }, deviceScaleFactor: 1 });
  page.setDefaultTimeout(300_000);
  await page.goto(`${base}${query}${hash}`);
  // empty while the page measures its backends (~30 s on a first visit here)
  await page.waitForSelector('[data-testid=backend][data-backend]:not([data-backend=""])');
  if (still) {
    for (let i = 0; i < replaySteps; i++) await page.locator('[data-testid=replay-step]').click();
    await page.waitForTimeout(500); // fonts and the last layout
    mkdirSync(dirname(out), { recursive: true });
    await page.screenshot({ path: out, fullPage: process.argv.includes('--full') });
    console.log(`${out} (${width} × ${height}, ${hash || 'a first visit'})`);
    await browser.close();
    await server.close();
    process.exit(0); // the run's loop below is not for a still

  }
  await page.locator('[data-testid=start]').click();
  const attr = (sel, name) => page.locator(sel).first().getAttribute(name);
  const t0 = Date.now();
  for (;;) {
    const status = await attr('[data-testid=run-status]', 'data-status');
    const points = Number(await attr('[data-testid=rl-charts]', 'data-points'));
    const evals = Number(await attr('[data-testid=rl-charts]', 'data-evals'));
    if (until === 'running' && status === 'running' && evals >= 1 && points >= 2) break;
    if (until === 'completed' && status === 'completed') break;
    if (['completed', 'failed', 'stopped'].includes(status)) {
      await page.screenshot({ path: out });
      throw new Error(
        `the run ended (${status}) before the picture: ${(await page.locator('body').innerText()).slice(0, 400)}`,
      );
    }
    if (Date.now() - t0 > (until === 'completed' ? 1_800_000 : 600_000))
      throw new Error(
        `no ${until === 'completed' ? 'end' : 'curves'} after ${until === 'completed' ? 30 : 10} min (points ${points}, evaluations ${evals})`,
      );
    await page.waitForTimeout(250);
  }
  await page.waitForTimeout(500); // the charts' last redraw
  mkdirSync(dirname(out), { recursive: true });
  await page.screenshot({ path: out });
  const backend = await attr('[data-testid=backend]', 'data-backend');
  console.log(
    `${out} (${((Date.now() - t0) / 1000).toFixed(0)} s after Start, backend ${backend}, ${await attr('[data-testid=rl-charts]', 'data-points')} training points)`,
  );
} finally {
  await browser.close();
  await server.close();
}
