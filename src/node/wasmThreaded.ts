// tfjs's threaded SIMD wasm build (Emscripten pthreads on worker_threads) in Node. tfjs 4.22 never
// picks it in Node by itself: WASM_HAS_MULTITHREAD_SUPPORT is false under IS_NODE, and forcing the
// flag fails (measured: ERR_WORKER_PATH, Node's Worker refuses the blob: URL tfjs makes for the
// pthread script). So this registers `wasm` with the same factory and BackendWasm, given a real file
// for the pthread script and the factory's own path for the threads to load.
import * as tf from '@tensorflow/tfjs';
import * as wasmBackend from '@tensorflow/tfjs-backend-wasm';
import { createRequire } from 'node:module';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** the Emscripten module as BackendWasm's constructor uses it */
type WasmModule = { cwrap: (name: string, ret: string | null, args: string[]) => unknown; tfjs?: unknown };
type Factory = (config: Record<string, unknown>) => Promise<WasmModule>;

/** Replaces the `wasm` backend's factory by the threaded one with `threads` XNNPACK threads (≤ 8,
 *  the build's pthread pool). Call before `tf.setBackend('wasm')`; the kernels stay registered. */
export function registerThreadedWasm(threads: number): void {
  // the GPU check's pack carries these files beside its one-file CLI, where no node_modules is (gpu-check.md)
  const out =
    process.env.STAR_TFJS_WASM_OUT ||
    join(dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json')), 'wasm-out');
  const mainScript = join(out, 'tfjs-backend-wasm-threaded-simd.js');
  const factory = require(mainScript) as Factory;
  const { wasmWorkerContents } = require(join(out, 'tfjs-backend-wasm-threaded-simd.worker.js')) as {
    wasmWorkerContents: string;
  };
  // tfjs escapes the template's newlines the same way before it makes its blob
  const workerFile = join(
    mkdtempSync(join(os.tmpdir(), 'tfjs-wasm-threads-')),
    'tfjs-backend-wasm-threaded-simd.worker.js',
  );
  writeFileSync(workerFile, wasmWorkerContents.replace(/\n/g, '\\n'));

  tf.removeBackend('wasm');
  tf.registerBackend('wasm', async () => {
    // the binary caps its pool at emscripten_num_logical_cores() / 2 (it assumes two hyperthreads
    // per core; this machine has one), read once at start-up: show it 2 × threads cores meanwhile
    const mutableOs = os as { cpus: typeof os.cpus };
    const realCpus = os.cpus;
    mutableOs.cpus = () => Array.from({ length: 2 * threads }, () => realCpus()[0]);
    let module: WasmModule;
    try {
      module = await factory({
        locateFile: (path: string) => (path.endsWith('.worker.js') ? workerFile : join(out, path)),
        mainScriptUrlOrBlob: mainScript,
      });
    } finally {
      mutableOs.cpus = realCpus;
    }
    // what tfjs's own init() attaches (backend_wasm.ts)
    module.tfjs = {
      init: module.cwrap('init', null, []),
      initWithThreadsCount: module.cwrap('init_with_threads_count', null, ['number']),
      getThreadsCount: module.cwrap('get_threads_count', 'number', []),
      registerTensor: module.cwrap('register_tensor', null, ['number', 'number', 'number']),
      disposeData: module.cwrap('dispose_data', null, ['number']),
      dispose: module.cwrap('dispose', null, []),
    };
    wasmBackend.setThreadsCount(threads);
    return new wasmBackend.BackendWasm(module as unknown as ConstructorParameters<typeof wasmBackend.BackendWasm>[0]);
  }, 2);
}
