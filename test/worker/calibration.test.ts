// The backend calibration's measurement (src/worker/calibration.ts) on tfjs `wasm` in Node, at the s
// scale's real model: it times decode steps and a training micro-batch and turns them into the figure;
// it stops as soon as the backend is already slower than a finished figure (dropped), gives up at its
// cap (capped), and leaves no tensor behind either way. Wall times on a shared machine are not asserted.
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { measureBackend } from '../../src/worker/calibration.ts';
import { BackendChooser } from '../../src/worker/backendChooser.ts';
import { CALIBRATION, stepEstimateMs } from '../../src/lab/backendChoice.ts';

beforeAll(async () => {
  expect(await tf.setBackend('wasm')).toBe(true);
});

describe('measureBackend', () => {
  it('times decode steps and a training micro-batch at s, and frees every tensor', async () => {
    const before = tf.memory().numTensors;
    const phases: string[] = [];
    const f = await measureBackend('wasm', 'wasm · test', 's', { best: null, onPhase: (p) => phases.push(p) });
    expect(f.status).toBe('measured');
    expect(f.decodeStepMs).toBeGreaterThan(0);
    expect(f.trainMicroBatchMs).toBeGreaterThan(0);
    expect(f.stepMs).toBeCloseTo(stepEstimateMs(f.decodeStepMs!, f.trainMicroBatchMs!), 6);
    expect(f.costMs).toBeGreaterThan(0);
    expect(phases).toEqual(['building the model', 'warming up decoding', 'timing decode steps', 'warming up training', 'timing a training micro-batch']);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('drops a backend after its first timed decode step once that alone loses to a finished figure', async () => {
    const before = tf.memory().numTensors;
    const phases: string[] = [];
    // a finished figure no real decode step can match
    const f = await measureBackend('wasm', 'wasm · test', 's', { best: 1e-6, onPhase: (p) => phases.push(p) });
    expect(f).toMatchObject({ status: 'dropped', trainMicroBatchMs: null, stepMs: null, note: 'already slower after 1 decode step' });
    expect(f.atLeastMs).toBeCloseTo(f.decodeStepMs! * CALIBRATION.decodeStepsPerRlStep, 6);
    expect(phases).not.toContain('warming up training');
    expect(tf.memory().numTensors).toBe(before);
  });

  it('gives up at its cap without a figure, and frees what the unfinished step held once it ends', async () => {
    const before = tf.memory().numTensors;
    const f = await measureBackend('wasm', 'wasm · test', 's', { best: null, capMs: 1 });
    expect(f).toMatchObject({ status: 'capped', stepMs: null });
    expect(f.note).toMatch(/^no figure after 0 s/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('BackendChooser without WebGPU (Node)', () => {
  it('trains on wasm, the only backend offered, and measures nothing', async () => {
    const info = await new BackendChooser(null, undefined).choose('s');
    expect(info.name).toBe('wasm');
    expect(info.choice).toEqual({ mode: 'only', scale: 's' });
    expect(info.fallbackReason).toMatch(/^webgpu: this browser has no WebGPU/);
  });

  it('starts a forced backend and says so', async () => {
    const info = await new BackendChooser(null, 'cpu').choose('m');
    expect(info.name).toBe('cpu');
    expect(info.choice).toEqual({ mode: 'forced', scale: 'm', measured: null });
    await tf.setBackend('wasm');
  });
});
