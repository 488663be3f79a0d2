// The fused WebGPU kernels (src/model/kernels) against the plain tfjs ops, in headless Chromium on its
// WebGPU (SwiftShader when there is no GPU): serves bench/browser/kernels.html with Vite's dev server,
// waits for its checks (bench/browser/kernelCheck.ts) and exits 1 if any fails. ~20 s.
//   node scripts/webgpu-kernels.mjs          the kernels alone, then two SFT steps of a tiny model
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createServer } from 'vite';
import { chromium } from 'playwright-core';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  console.error(`Chromium is missing at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`);
  process.exit(1);
}
const t0 = Date.now();
const server = await createServer({
  root: ROOT,
  logLevel: 'silent',
  server: { port: 0, host: '127.0.0.1', hmr: false, watch: null },
});
await server.listen();
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--enable-unsafe-webgpu', '--disable-gpu-sandbox'],
});
let failed = 0;
try {
  const page = await browser.newPage();
  page.on('pageerror', (e) => console.log(`  pageerror: ${e.message}`));
  // 'commit': Vite transforms the page's imports on demand, which outlasts the load event's default wait
  await page.goto(`${server.resolvedUrls.local[0]}bench/browser/kernels.html?sft`, {
    waitUntil: 'commit',
    timeout: 180_000,
  });
  await page.waitForFunction(() => globalThis.__check?.done === true, undefined, { timeout: 300_000, polling: 500 });
  const r = await page.evaluate(() => globalThis.__check);
  console.log(`  adapter: ${r.adapter}`);
  for (const c of r.checks) {
    if (!c.ok) failed++;
    console.log(`  ${c.ok ? '✓' : '✗'} ${c.name}: max error ${c.maxErr.toExponential(2)} (tolerance ${c.tol})`);
  }
  if (r.error) { failed++; console.log(`  ✗ ${r.error}`); }
  if (r.checks.length === 0) { failed++; console.log('  ✗ no checks ran'); }
} finally {
  await browser.close();
  await server.close();
}
console.log(
  `webgpu kernels: ${failed ? `${failed} failed` : 'all passed'} (${((Date.now() - t0) / 1000).toFixed(1)}s)`,
);
process.exit(failed ? 1 : 0);
