// Picks the fastest tfjs backend this browser (or Node) offers: webgpu › wasm › cpu.
// The WebGPU backend is imported only once `navigator.gpu` has handed out an adapter, so a
// browser without WebGPU never loads it; the wasm binaries are emitted by Vite as assets.
import * as tf from '@tensorflow/tfjs';
import type { BackendInfo, BackendName } from './api.ts';

export async function chooseBackend(force?: BackendName): Promise<BackendInfo> {
  const reasons: string[] = [];

  if (!force || force === 'webgpu') {
    const gpu = typeof navigator !== 'undefined' ? navigator.gpu : undefined;
    if (!gpu) {
      reasons.push('this browser has no WebGPU (navigator.gpu)');
    } else {
      try {
        const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
        if (!adapter) throw new Error('no WebGPU adapter was found');
        const info = await adapterInfo(adapter);
        await import('@tensorflow/tfjs-backend-webgpu');
        if (!(await tf.setBackend('webgpu'))) throw new Error('the tfjs webgpu backend failed to start');
        await tf.ready();
        const label = ['webgpu', info.architecture || info.vendor].filter(Boolean).join(' · ');
        return { name: 'webgpu', vendor: info.vendor, architecture: info.architecture, label };
      } catch (e) {
        reasons.push(`webgpu: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }

  if (!force || force === 'wasm') {
    try {
      const wasm = await import('@tensorflow/tfjs-backend-wasm');
      const paths = await wasmPaths();
      if (paths) wasm.setWasmPaths(paths);
      const plan = wasmThreadPlan();
      if (plan.threads > 1) wasm.setThreadsCount(plan.threads);
      if (!(await withLogicalCores(2 * plan.threads, () => tf.setBackend('wasm')))) throw new Error('the tfjs wasm backend failed to start');
      await tf.ready();
      const threads = wasm.getThreadsCount();
      const simd = (await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT')) ? 'simd · ' : '';
      const label = `wasm · ${simd}${threads} thread${threads > 1 ? 's' : ''}${threads > 1 ? '' : ` (${plan.reason ?? 'the threaded build did not start'})`}`;
      return { name: 'wasm', vendor: '', architecture: '', label, threads, crossOriginIsolated: isolated(), fallbackReason: reasons.join('; ') || undefined };
    } catch (e) {
      reasons.push(`wasm: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  await tf.setBackend('cpu');
  await tf.ready();
  return { name: 'cpu', vendor: '', architecture: '', label: 'cpu', crossOriginIsolated: isolated(), fallbackReason: reasons.join('; ') || undefined };
}

const isolated = (): boolean => (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;

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
  if (cores < 4) return { threads: 1, reason: `${cores} core${cores > 1 ? 's' : ''}: threads pay from 4` };
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
async function adapterInfo(adapter: GPUAdapter): Promise<{ vendor: string; architecture: string }> {
  // both exist in some browsers and not in others (and not in every @webgpu/types version)
  const either = adapter as GPUAdapter & { info?: GPUAdapterInfo; requestAdapterInfo?: () => Promise<GPUAdapterInfo> };
  const info = either.info ?? (await either.requestAdapterInfo?.());
  return { vendor: info?.vendor ?? '', architecture: info?.architecture ?? '' };
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
