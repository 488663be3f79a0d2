// Starting the backend never leaves the page waiting for good (src/worker/backend.ts, backendChooser.ts,
// deadline.ts). Hangs are played here by tfjs backend factories that never answer, in front of the real wasm
// backend: a threaded build that never starts, a WebGPU adapter request, an IndexedDB that never opens. Firefox's
// own hang (its threaded build's pool of workers blocks the training worker) is seen only in Firefox (the e2e
// group `firefox`): there no timer fires, so only not starting that build avoids it.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { startBackend, startFirst } from '../../src/worker/backend.ts';
import { BackendChooser } from '../../src/worker/backendChooser.ts';
import { START_LIMITS, TimedOut, withinTime } from '../../src/worker/deadline.ts';
import type { CalibrationStore } from '../../src/store/calibrationStore.ts';

/** the builds tfjs was asked to start, and which of them never answer */
const builds: string[] = [];
const hang = { threaded: true };
const limits = { ...START_LIMITS };

beforeAll(() => {
  const real = tf.engine().registryFactory.wasm;
  tf.removeBackend('wasm');
  tf.registerBackend('wasm', async () => {
    const threaded = (await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT')) === true;
    builds.push(threaded ? 'threaded' : 'plain');
    if (threaded && hang.threaded) return new Promise<never>(() => {});
    return real.factory();
  }, real.priority);
  // a cross-origin isolated browser page on 2 cores: tfjs would take the threaded build by itself
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', true);
  vi.stubGlobal('crossOriginIsolated', true);
  vi.stubGlobal('navigator', { hardwareConcurrency: 2, userAgent: 'test' });
  Object.assign(START_LIMITS, { adapterMs: 300, storeMs: 300, wasmMs: 500, threadedWasmMs: 300, webgpuMs: 500 });
});

afterAll(() => {
  vi.unstubAllGlobals();
  Object.assign(START_LIMITS, limits);
});

describe('withinTime', () => {
  it('gives the answer, or a TimedOut error naming the step', async () => {
    expect(await withinTime(Promise.resolve(3), 50, 'a step')).toBe(3);
    const late = withinTime(new Promise(() => {}), 20, 'the adapter request');
    await expect(late).rejects.toThrow(TimedOut);
    await expect(late).rejects.toThrow('the adapter request did not answer within 20 ms');
  });
});

describe('starting the backend', () => {
  it('with one thread planned, starts the plain wasm build, never the threaded one (its pool of workers hung Firefox)', async () => {
    const info = await startBackend('wasm');
    expect(builds).toEqual(['plain']);
    expect(info).toMatchObject({ name: 'wasm', threads: 1, crossOriginIsolated: true });
    expect(info.label).toMatch(/1 thread \(this machine has 2 cores/);
  }, 10_000);

  it('a WebGPU adapter request and a figures store that never answer: wasm, the only backend, with the reason', async () => {
    vi.stubGlobal('navigator', { hardwareConcurrency: 2, userAgent: 'test', gpu: { requestAdapter: () => new Promise(() => {}) } });
    const never = { get: () => new Promise(() => {}), put: () => new Promise(() => {}) } as unknown as CalibrationStore;
    const t0 = performance.now();
    const info = await new BackendChooser(never, undefined).choose('s');
    expect(info.name).toBe('wasm');
    expect(info.choice).toEqual({ mode: 'only', scale: 's' });
    expect(info.fallbackReason).toBe('webgpu: the WebGPU adapter request did not answer within 300 ms');
    expect(performance.now() - t0).toBeLessThan(5_000);
    vi.stubGlobal('navigator', { hardwareConcurrency: 2, userAgent: 'test' });
  }, 10_000);

  it('a wasm start that never answers falls back to cpu with the reason, and tfjs works on cpu after it', async () => {
    tf.removeBackend('wasm'); // forget the started one: the next start calls the factory again
    const real = builds.length;
    tf.registerBackend('wasm', async () => {
      builds.push('again');
      return new Promise<never>(() => {});
    }, 2);
    const info = await startFirst(['wasm']);
    expect(builds.length).toBe(real + 1);
    expect(info.name).toBe('cpu');
    expect(info.fallbackReason).toBe('wasm: the tfjs wasm backend did not answer within 500 ms');
    await tf.ready(); // tfjs no longer awaits the abandoned start
    expect(tf.getBackend()).toBe('cpu');
    expect(Array.from(await tf.tensor([1, 2, 3]).sum().data())).toEqual([6]);
  }, 10_000);
});
