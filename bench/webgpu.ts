// The model's figures on `webgpu`, from the browser bench page (bench.html → bench/browser/benchPage.ts)
// served by Vite's dev server and driven headless in Chromium with playwright-core. Keys are the
// `model` suite's with a `.webgpu` suffix (decode.kv_speedup_512.webgpu, train.tokens_per_s.s.webgpu,
// backend.matmul_gflops.webgpu, …), plus webgpu.adapter_is_swiftshader (1 when Chromium fell back to
// its CPU-emulated adapter: figures then describe SwiftShader, not a GPU).
// Times here are wall clock (a browser has no CPU clock). The page always runs the short (`quick`)
// sizes: on SwiftShader every new tensor shape costs seconds of shader compiles.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BenchSuite } from './harness.ts';
import type { BrowserBenchResult } from './browser/benchPage.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const TIMEOUT_MS = 20 * 60_000;

/** Serves bench.html with Vite's dev server, opens `bench.html?QUERY` in headless Chromium (WebGPU on) and
 *  hands its result to `use`; resolves without a result (and says why) when Chromium is missing. */
export async function runBenchPage(query: string, use: (result: BrowserBenchResult) => void): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    console.log(
      `  (no browser figures: Chromium is missing at ${CHROMIUM}; install it, e.g. apt-get install -y chromium)`,
    );
    return;
  }
  const { createServer } = await import('vite');
  const { chromium } = await import('playwright-core');
  const server = await createServer({
    root: ROOT,
    logLevel: 'silent',
    server: { port: 0, host: '127.0.0.1', hmr: false, watch: null },
  });
  await server.listen();
  const url = server.resolvedUrls?.local[0];
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--enable-unsafe-webgpu', '--disable-gpu-sandbox'],
  });
  try {
    if (!url) throw new Error('the Vite dev server has no local URL');
    const page = await browser.newPage();
    await page.goto(`${url}bench.html?${query}`, { waitUntil: 'commit', timeout: 180_000 }); // Vite transforms on demand: the load event can take a while
    await page.waitForFunction(
      () => (globalThis as unknown as { __bench?: { done: boolean } }).__bench?.done === true,
      undefined,
      { timeout: TIMEOUT_MS, polling: 1000 },
    );
    use(await page.evaluate(() => (globalThis as unknown as { __bench: BrowserBenchResult }).__bench));
  } finally {
    await browser.close();
    await server.close();
  }
}

export const webgpuSuite: BenchSuite = {
  name: 'webgpu',
  async run(report) {
    await runBenchPage('quick', (r) => {
      report('webgpu.adapter_is_swiftshader', /swiftshader/i.test(r.adapter) ? 1 : 0, '', r.adapter);
      for (const [key, f] of Object.entries(r.figures)) report(key, f.value, f.unit, f.note); // what it measured before any error
      if (r.error) throw new Error(`bench page: ${r.error}`);
    });
  },
};
