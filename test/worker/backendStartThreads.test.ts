// The threaded wasm build, wanted on 4 cores or more, that never starts (as Firefox's pool of workers hung, see
// backendStart.test.ts) gives way to the plain build within its time, and the badge says why one thread. Its own
// file: a wasm backend starts once per thread, and backendStart.test.ts starts the plain one first.
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { startBackend } from '../../src/worker/backend.ts';
import { START_LIMITS } from '../../src/worker/deadline.ts';

const builds: string[] = [];
const limits = { ...START_LIMITS };

beforeAll(() => {
  const real = tf.engine().registryFactory.wasm;
  tf.removeBackend('wasm');
  tf.registerBackend('wasm', async () => {
    const threaded = (await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT')) === true;
    builds.push(threaded ? 'threaded' : 'plain');
    return threaded ? new Promise<never>(() => {}) : real.factory();
  }, real.priority);
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', true); // a cross-origin isolated page
  vi.stubGlobal('crossOriginIsolated', true);
  vi.stubGlobal('navigator', { hardwareConcurrency: 8, userAgent: 'test' });
  Object.assign(START_LIMITS, { threadedWasmMs: 300, wasmMs: 5_000 });
});

afterAll(() => {
  vi.unstubAllGlobals();
  Object.assign(START_LIMITS, limits);
});

it('a threaded wasm build that never starts gives way to the plain build, and the label says why one thread', async () => {
  const t0 = performance.now();
  const info = await startBackend('wasm');
  expect(builds).toEqual(['threaded', 'plain']);
  expect(info).toMatchObject({ name: 'wasm', threads: 1 });
  expect(info.label).toMatch(/1 thread \(the tfjs wasm backend \(threaded build\) did not answer within 300 ms: one thread\)$/);
  expect(performance.now() - t0).toBeLessThan(5_000);
  expect(Array.from(await tf.tensor([1, 2, 3]).sum().data())).toEqual([6]);
}, 10_000);
