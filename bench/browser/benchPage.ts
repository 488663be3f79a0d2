// The browser bench page (bench.html): runs the `model` suite's measurements (bench/model.ts) on the
// `webgpu` backend and publishes them on `globalThis.__bench` for the Node driver (bench/webgpu.ts).
// `?quick` shortens them; `?full` adds the SFT-like mix (each new batch shape compiles shaders). The
// WebGPU road's own figures (dispatch counts, time to the first step: webgpuFigures.ts) come first, on
// a page where no shader has been compiled yet; `?only=webgpu` stops after them. `?only=calibration` runs the
// lab's backend calibration instead (calibrationFigures.ts; `&scales=s,m`), every backend offered.
import { probeWebgpu, startFirst } from '../../src/worker/backend.ts';
import type { Scale } from '../../src/lab/backendChoice.ts';
import { measureFirstStep, measureMatmulPrograms, measureWebGPU } from './webgpuFigures.ts';

export interface BrowserBenchResult {
  done: boolean;
  figures: Record<string, { value: number; unit: string; note?: string }>;
  adapter: string;
  error?: string;
}

const result: BrowserBenchResult = { done: false, figures: {}, adapter: '' };
(globalThis as unknown as { __bench: BrowserBenchResult }).__bench = result;
const out = document.getElementById('out') as HTMLElement;
const show = (): void => {
  out.textContent = [
    `adapter: ${result.adapter || '…'}`,
    ...Object.entries(result.figures).map(
      ([k, f]) => `${k.padEnd(36)} ${f.value.toPrecision(4)} ${f.unit}${f.note ? `  (${f.note})` : ''}`,
    ),
    result.error ? `error: ${result.error}` : result.done ? 'done' : 'running…',
  ].join('\n');
};

async function run(): Promise<void> {
  const params = new URLSearchParams(location.search);
  if (params.get('only') === 'calibration') {
    // before any backend starts here: the calibration starts each one itself
    const probe = await probeWebgpu();
    result.adapter = probe.ok ? probe.key : `no webgpu (${probe.reason})`;
    const { measureCalibration } = await import('./calibrationFigures.ts');
    return measureCalibration((key, value, unit, note) => { result.figures[key] = { value, unit, note }; show(); },
      (params.get('scales') ?? 's').split(',') as Scale[]);
  }
  const backend = await startFirst(['webgpu']); // the lab's own way of starting webgpu (cpu if it cannot)
  if (backend.name !== 'webgpu') throw new Error(`no webgpu here: ${backend.fallbackReason ?? backend.label}`);
  result.adapter = [backend.vendor, backend.architecture].filter(Boolean).join(' · ') || 'unnamed adapter';
  show();
  const report = (key: string, value: number, unit: string, note?: string) => {
    result.figures[key] = { value, unit, note };
    show();
  };
  if (params.get('only') === 'first-step') return measureFirstStep(report);
  if (params.get('only') === 'matmul') return measureMatmulPrograms(report);
  await measureWebGPU(report);
  if (params.get('only') === 'webgpu') return;
  // loaded after the WebGPU road's figures, so a module of the model suite that fails in a browser
  // (e.g. one importing node: built-ins) cannot cost them
  const { measureBackend } = await import('../model.ts');
  await measureBackend(report, params.has('quick'), '.webgpu', { sftMix: params.has('full') });
}

run().catch((e: unknown) => { result.error = e instanceof Error ? e.message : String(e); })
  .finally(() => { result.done = true; show(); });
