// A step of starting the backend that may never answer in some browser (Firefox creating the threaded wasm
// build's workers, a WebGPU adapter request, an IndexedDB open held by another tab) must not leave the page at
// "starting backend…": each is given a time, past which it counts as failed with a reason and the next is tried.

/** How long each step may take. Generous: a cold start on a busy 2-core machine takes a few seconds. */
export const START_LIMITS = {
  /** navigator.gpu.requestAdapter() and the adapter's info */
  adapterMs: 10_000,
  /** tf.setBackend('webgpu'): the device and the backend's set-up */
  webgpuMs: 60_000,
  /** the threaded wasm build (fetch, compile, its pool of workers); the plain build is tried after it */
  threadedWasmMs: 15_000,
  /** the plain wasm build (fetch and compile of ~0.4 MB) and the backend's code */
  wasmMs: 30_000,
  /** opening an IndexedDB database, and a read of the stored figures */
  storeMs: 10_000,
};

export class TimedOut extends Error {}

/** `work`, or a TimedOut error naming `what` once `ms` have passed without an answer. `work` itself runs on. */
export async function withinTime<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>(
        (_, reject) =>
          (timer = setTimeout(() => reject(new TimedOut(`${what} did not answer within ${seconds(ms)}`)), ms)),
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const seconds = (ms: number): string => (ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`);
