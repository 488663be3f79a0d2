// Checks wasm threads in headless Chromium: the page and the training worker are cross-origin isolated,
// the worker's wasm backend reports its threads in the badge, a short SFT run trains, and nothing breaks
// the CSP. Usage (a built site in DIR, or a running server):
//   node scripts/check-wasm-threads.mjs --dist DIR            serve DIR with DIR/_headers and the CSP as a header
//   node scripts/check-wasm-threads.mjs --dist DIR --bare     the same with no headers at all: expects 1 thread
//   node scripts/check-wasm-threads.mjs --url http://127.0.0.1:5173/   (npm start / npm run preview)
// It forces ?backend=wasm (this machine's WebGPU is SwiftShader). Exit 0 when every check holds.
import { availableParallelism } from 'node:os';
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { chromium } from 'playwright-core';

const arg = (name) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? process.argv[i + 1] : undefined; };
const bare = process.argv.includes('--bare');
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SFT = 'stage=sft&steps=3&seed=3&scale=s&worldSize=tiny&trainSize=40';

/** `_headers` (Netlify syntax): the headers of the `/*` block */
function hostHeaders(dir) {
  const file = join(dir, '_headers');
  if (!existsSync(file)) return {};
  const out = {};
  let inAll = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^\S/.test(line) && !line.startsWith('#')) inAll = line.trim() === '/*';
    else if (inAll && /^\s+[\w-]+:/.test(line)) {
      const [k, ...v] = line.trim().split(':');
      out[k] = v.join(':').trim();
    }
  }
  return out;
}

let server = null;
let base = arg('url');
const dist = arg('dist');
if (dist) {
  const root = resolve(dist);
  const policy = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(
    readFileSync(join(root, 'index.html'), 'utf8'),
  )?.[1];
  // the CSP as a header too (as e2e-robust does), so the worker and the wasm threads are held to it
  const headers = bare ? {} : { ...hostHeaders(root), 'Content-Security-Policy': policy };
  const types = {
    '.html': 'text/html',
    '.js': 'text/javascript',
    '.css': 'text/css',
    '.wasm': 'application/wasm',
    '.json': 'application/json',
    '.svg': 'image/svg+xml',
  };
  server = createServer((req, res) => {
    let file = join(
      root,
      normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, ''),
    );
    if (!file.startsWith(root) || !existsSync(file) || statSync(file).isDirectory()) file = join(root, 'index.html');
    res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream', ...headers });
    res.end(readFileSync(file));
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${server.address().port}/`;
  console.log(`serving ${root} at ${base} with ${bare ? 'no headers' : Object.keys(headers).join(', ')}`);
}
if (!base) throw new Error('give --dist DIR or --url URL');

const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'star-threads-')), {
  executablePath: chromiumPath,
  headless: true,
  args: ['--headless', '--no-sandbox', '--no-first-run', '--disable-background-networking'],
});
const page = context.pages()[0] ?? (await context.newPage());
page.setDefaultTimeout(240_000);
const errors = [];
page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
page.on('worker', (w) =>
  w.on('console', (m) => m.type() === 'error' && errors.push(`worker ${w.url().slice(0, 40)}: ${m.text()}`)),
);
await page.addInitScript(() => {
  window.__csp = [];
  document.addEventListener('securitypolicyviolation', (e) =>
    window.__csp.push(`${e.effectiveDirective} ${e.blockedURI}`),
  );
});

let failed = 0;
const check = (ok, what) => { console.log(`  ${ok ? '✓' : '✗'} ${what}`); if (!ok) failed++; };
try {
  const t0 = Date.now();
  await page.goto(`${base}?backend=wasm#${SFT}`);
  await page.waitForSelector('[data-testid=backend][data-backend]:not([data-backend=""])');
  const label = await page.locator('[data-testid=backend]').innerText();
  const pageIsolated = await page.evaluate(() => crossOriginIsolated);
  const worker = page.workers().find((w) => w.url().includes('trainingWorker'));
  const workerIsolated = worker ? await worker.evaluate(() => crossOriginIsolated) : null;
  const threads = Number(/(\d+) threads?/.exec(label)?.[1] ?? 0);
  console.log(
    `backend badge: "${label}" after ${((Date.now() - t0) / 1000).toFixed(1)} s; crossOriginIsolated page ${pageIsolated}, worker ${workerIsolated}; ${page.workers().length} workers`,
  );
  check(await page.locator('[data-testid=backend]').getAttribute('data-backend') === 'wasm', 'the worker runs on wasm');
  if (bare) {
    check(
      pageIsolated === false && threads === 1 && /not cross-origin isolated/.test(label),
      'no headers: one thread, and the badge says why',
    );
  } else {
    check(
      pageIsolated === true && workerIsolated === true,
      'the page and the training worker are cross-origin isolated',
    );
    // below 4 cores the lab keeps one thread on purpose (src/worker/backend.ts wasmThreadPlan)
    if (availableParallelism() < 4)
      check(
        threads === 1 && /speeds it up from 4 cores on/.test(label),
        `${availableParallelism()} cores: one thread, and the badge says why`,
      );
    else check(threads > 1, `the worker reports ${threads} threads (> 1)`);
  }
  await page.locator('[data-testid=start]').click();
  await page.waitForFunction(
    () => Number(document.querySelector('[data-testid=loss-chart]')?.getAttribute('data-points')) >= 3,
  );
  const first = Number(await page.locator('[data-testid=loss-chart]').getAttribute('data-first-loss'));
  const last = Number(await page.locator('[data-testid=loss-chart]').getAttribute('data-last-loss'));
  check(
    Number.isFinite(first) && Number.isFinite(last),
    `SFT trains: 3 steps, loss ${first.toFixed(3)} → ${last.toFixed(3)} (${((Date.now() - t0) / 1000).toFixed(0)} s)`,
  );
  const csp = await page.evaluate(() => window.__csp);
  check(
    csp.length === 0 && !errors.some((e) => /Content Security Policy/i.test(e)),
    `no CSP violation${csp.length ? `: ${csp.join('; ')}` : ''}`,
  );
  check(errors.length === 0, `no console errors${errors.length ? `:\n      ${errors.join('\n      ')}` : ''}`);
} catch (e) {
  failed++;
  console.log(`  ✗ ${e instanceof Error ? e.message : String(e)}\n      ${errors.join('\n      ')}`);
} finally {
  await context.close();
  server?.close();
}
process.exit(failed ? 1 : 0);
