// Starts a tfjs backend in this worker (or page, or Node) and names it for the badge. Which one the
// page trains on is decided by measurement (backendChooser.ts, calibration.ts); this file only knows
// how to start each: the WebGPU backend is imported only once `navigator.gpu` has handed out an
// adapter, so a browser without WebGPU never loads it; the wasm binaries are emitted by Vite as assets.
import * as tf from '@tensorflow/tfjs';
import type { BackendInfo } from './api.ts';
import type { BackendName } from '../lab/backendChoice.ts';
import { fewCoresReason, threadsRefusedBy } from '../lab/backendChoice.ts';
import { boundBufferPool } from '../model/kernels/bufferPool.ts';
import type { WebGPUBackend } from '../model/kernels/webgpu.ts';
import { START_LIMITS, withinTime } from './deadline.ts';

/** The WebGPU adapter this browser would hand out, named as the device key and badge need; or why there is none. */
export type WebgpuProbe =
  | {
      ok: true;
      vendor: string;
      architecture: string;
      /** vendor · architecture · description, '(fallback)' when it says so */ key: string;
    }
  | { ok: false; reason: string };

export async function probeWebgpu(): Promise<WebgpuProbe> {
  const gpu = typeof navigator !== 'undefined' ? navigator.gpu : undefined;
  if (!gpu) return { ok: false, reason: 'this browser has no WebGPU (navigator.gpu)' };
  try {
    const adapter = await withinTime(
      gpu.requestAdapter({ powerPreference: 'high-performance' }),
      START_LIMITS.adapterMs,
      'the WebGPU adapter request',
    );
    if (!adapter) return { ok: false, reason: 'no WebGPU adapter was found' };
    const info = await withinTime(adapterInfo(adapter), START_LIMITS.adapterMs, "the WebGPU adapter's info");
    const fallback =
      (adapter as GPUAdapter & { isFallbackAdapter?: boolean }).isFallbackAdapter === true ||
      info.isFallbackAdapter === true;
    const key =
      [info.vendor, info.architecture, info.description].filter(Boolean).join(' · ') + (fallback ? ' (fallback)' : '');
    return { ok: true, vendor: info.vendor, architecture: info.architecture, key: key || 'unnamed adapter' };
  } catch (e) {
    return { ok: false, reason: messageOf(e) };
  }
}

/** Starts `name` and makes it tfjs's backend; throws the reason when it cannot. A backend started before is switched
 * back to. */
export async function startBackend(name: BackendName): Promise<BackendInfo> {
  if (name === 'webgpu') {
    const probe = await probeWebgpu();
    if (!probe.ok) throw new Error(probe.reason);
    await import('@tensorflow/tfjs-backend-webgpu');
    await startWithin('webgpu', START_LIMITS.webgpuMs, 'the tfjs webgpu backend');
    boundBufferPool(tf.backend() as unknown as WebGPUBackend); // else every tensor size a run meets stays allocated
    const label = ['webgpu', probe.architecture || probe.vendor].filter(Boolean).join(' · ');
    return { name: 'webgpu', vendor: probe.vendor, architecture: probe.architecture, label };
  }
  if (name === 'wasm') return startWasm();
  if (!(await tf.setBackend('cpu'))) throw new Error('the tfjs cpu backend failed to start');
  await tf.ready();
  return { name: 'cpu', vendor: '', architecture: '', label: 'cpu', crossOriginIsolated: isolated() };
}
/** the wasm backend started once in this thread: its paths and threads are set */
let wasmStarted = false;
/** why the threaded wasm build was given up for the plain one, for the label */
let threadedFailed: string | undefined;

async function startWasm(): Promise<BackendInfo> {
  const wasm = await withinTime(
    import('@tensorflow/tfjs-backend-wasm'),
    START_LIMITS.wasmMs,
    "the wasm backend's code",
  );
  const plan = wasmThreadPlan();
  if (!wasmStarted) { // all are read once, when the backend first starts (tfjs refuses them after)
    const paths = await withinTime(wasmPaths(), START_LIMITS.wasmMs, "the wasm binaries' addresses");
    if (paths) wasm.setWasmPaths(paths);
    if (plan.threads > 1) wasm.setThreadsCount(plan.threads);
    // One thread: the plain build. tfjs takes the threaded build whenever the page is cross-origin isolated, and
    // that build starts a pool of 8 workers whatever the count; Firefox, creating them from this worker, hung for
    // good on a third to a half of page loads, leaving the page at "starting backend…".
    else tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  }
  const threaded = !wasmStarted && (await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT')) === true;
  try {
    await withLogicalCores(2 * plan.threads, () =>
      startWithin(
        'wasm',
        threaded ? START_LIMITS.threadedWasmMs : START_LIMITS.wasmMs,
        `the tfjs wasm backend${threaded ? ' (threaded build)' : ''}`,
      ),
    );
  } catch (e) {
    if (!threaded) throw e;
    threadedFailed = messageOf(e); // the plain build, on one thread
    tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
    await startWithin('wasm', START_LIMITS.wasmMs, 'the tfjs wasm backend (plain build)');
  }
  wasmStarted = true;
  const threads = wasm.getThreadsCount();
  const simd = (await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT')) ? 'simd · ' : '';
  const why = threadedFailed ? `${threadedFailed}: one thread` : (plan.reason ?? 'the threaded build did not start');
  const label = `wasm · ${simd}${threads} thread${threads > 1 ? 's' : ''}${threads > 1 ? '' : ` (${why})`}`;
  return { name: 'wasm', vendor: '', architecture: '', label, threads, crossOriginIsolated: isolated() };
}

/** tf.setBackend(name) and tf.ready() within `ms`; throws the reason when it fails or hangs. A hung start is
 *  abandoned: tfjs would otherwise await it in every later setBackend() and ready(), the fallbacks' included. */
async function startWithin(name: BackendName, ms: number, what: string): Promise<void> {
  let ok: boolean;
  try {
    const started = async () => {
      if (!(await tf.setBackend(name))) return false;
      await tf.ready();
      return true;
    };
    ok = await withinTime(started(), ms, what);
  } catch (e) {
    abandonStart(name);
    throw e;
  }
  if (!ok) {
    abandonStart(name);
    throw new Error(`${what} failed to start`);
  }
}

/** forgets a backend's unfinished start, keeping its factory so that it can be started again */
function abandonStart(name: BackendName): void {
  const { registryFactory, registry } = tf.engine();
  if (!(name in registryFactory) || name in registry) return; // never registered, or started after all
  const entry = registryFactory[name];
  tf.removeBackend(name); // makes its pending start obsolete
  tf.registerBackend(name, entry.factory, entry.priority);
}

/** The first of `order` that starts, else `cpu`; `fallbackReason` says why the ones before it did not (no measurement:
 *  a forced backend, and the bench pages). */
export async function startFirst(order: readonly BackendName[]): Promise<BackendInfo> {
  const reasons: string[] = [];
  for (const name of order) {
    try {
      const info = await startBackend(name);
      return reasons.length ? { ...info, fallbackReason: reasons.join('; ') } : info;
    } catch (e) {
      reasons.push(`${name}: ${messageOf(e)}`);
    }
  }
  const cpu = await startBackend('cpu');
  return { ...cpu, fallbackReason: reasons.join('; ') || undefined };
}

const isolated = (): boolean => (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;
const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** How many threads wasm can have here, and why only one. tfjs loads its threaded build by itself when
 *  SharedArrayBuffer can be posted, which a browser allows only to a cross-origin isolated page (the
 *  server's COOP + COEP headers: vite.config.ts, public/_headers). */
function wasmThreadPlan(): { threads: number; reason?: string } {
  const cores = typeof navigator !== 'undefined' ? navigator.hardwareConcurrency || 1 : 1;
  if (typeof SharedArrayBuffer === 'undefined' || !isolated()) {
    return { threads: 1, reason: 'not cross-origin isolated: the server sends no COOP/COEP headers' };
  }
  // one core stays with the page; on 2 cores a second thread made training slower (0.77–0.96× in Node,
  // bench model wasm.threads.*): these models' matmuls are too small to split across a busy core
  if (cores < 4) return { threads: 1, reason: fewCoresReason(cores) };
  const refused = threadsRefusedBy(typeof navigator !== 'undefined' ? navigator.userAgent ?? '' : '');
  if (refused) return { threads: 1, reason: refused };
  return { threads: Math.min(8, cores - 1) }; // the threaded build's pool holds 8
}

/** The threaded build caps its pool at navigator.hardwareConcurrency / 2 (it assumes two hyperthreads
 *  per core), read once while the module starts: on a 2-core machine that is 1. Show it `cores`
 *  meanwhile so that setThreadsCount decides. */
async function withLogicalCores<T>(cores: number, fn: () => Promise<T>): Promise<T> {
  if (typeof navigator === 'undefined' || cores <= 2) return fn();
  Object.defineProperty(navigator, 'hardwareConcurrency', { value: cores, configurable: true });
  try {
    return await fn();
  } finally {
    delete (navigator as { hardwareConcurrency?: number }).hardwareConcurrency; // the prototype's getter again
  }
}

/** GPUAdapter.info (Chrome 114+), else the older requestAdapterInfo(). */
async function adapterInfo(
  adapter: GPUAdapter,
): Promise<{ vendor: string; architecture: string; description: string; isFallbackAdapter?: boolean }> {
  // both exist in some browsers and not in others (and not in every @webgpu/types version)
  const either = adapter as GPUAdapter & { info?: GPUAdapterInfo; requestAdapterInfo?: () => Promise<GPUAdapterInfo> };
  const info = (either.info ?? (await either.requestAdapterInfo?.())) as
    (GPUAdapterInfo & { isFallbackAdapter?: boolean }) | undefined;
  return {
    vendor: info?.vendor ?? '',
    architecture: info?.architecture ?? '',
    description: info?.description ?? '',
    isFallbackAdapter: info?.isFallbackAdapter,
  };
}

/** In a Vite build the .wasm files are assets with hashed names; tell tfjs where they are. */
async function wasmPaths(): Promise<Record<string, string> | null> {
  if (typeof window === 'undefined' && typeof self === 'undefined') return null; // Node: tfjs finds them itself
  const [plain, simd, threaded] = await Promise.all([
    import('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm?url'),
    import('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm?url'),
    import('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-threaded-simd.wasm?url'),
  ]);
  return {
    'tfjs-backend-wasm.wasm': plain.default,
    'tfjs-backend-wasm-simd.wasm': simd.default,
    'tfjs-backend-wasm-threaded-simd.wasm': threaded.default,
  };
}

/** Resolves with a message if the WebGPU device is lost (driver reset, GPU removed, tab killed). */
export function gpuDeviceLost(): Promise<string> | null {
  if (tf.getBackend() !== 'webgpu') return null;
  const device = (tf.backend() as unknown as { device?: GPUDevice }).device;
  if (!device) return null;
  return device.lost.then((info) => `The GPU device was lost (${info.reason}): ${info.message || 'no details'}`);
}
