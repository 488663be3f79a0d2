// The worker falls back to tfjs `wasm` when a browser has no WebGPU: the same model code must run
// there (wasm has no gradient kernel for gather, hence the oneHot·matMul embedding by default).
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { createPolicy } from '../../src/model/transformer.ts';
import { type ModelConfig } from '../../src/model/config.ts';
import { sampleTokens } from '../../src/model/sampling.ts';
import { matMul, takeRows } from '../../src/model/ops.ts';
import { scatterPlan } from '../../src/model/kvcache.ts';
import { writableInPlace } from '../../src/model/kernels/inPlaceRows.ts';
import { SftTrainer } from '../../src/rl/sft.ts';
import { Rng } from '../../src/env/random.ts';

const tiny: ModelConfig = { vocabSize: 11, contextLength: 24, dModel: 16, nLayers: 2, nHeads: 2, dFF: 32 };

beforeAll(async () => {
  expect(await tf.setBackend('wasm')).toBe(true);
});

describe('on wasm', () => {
  it('KV-cache decoding matches the full forward, rows at different lengths', async () => {
    expect(tf.getBackend()).toBe('wasm');
    const policy = createPolicy(tiny, 7);
    const rng = new Rng(1);
    const seqs = Array.from({ length: 3 }, () => Array.from({ length: 16 }, () => rng.int(tiny.vocabSize)));
    const full = tf.tidy(() => policy.forward(tf.tensor2d(seqs, [3, 16], 'int32'))).arraySync();
    const cache = policy.newCache(3, 16);
    policy.prefill(cache, [0, 2], [seqs[0].slice(0, 5), seqs[2].slice(0, 2)]);
    let maxErr = 0;
    for (let s = 0; s < 4; s++) {
      const lens = cache.rowLengths();
      const logits = policy.step(cache, lens.map((l, b) => seqs[b][l]));
      const got = logits.arraySync();
      logits.dispose();
      for (let b = 0; b < 3; b++) for (let v = 0; v < tiny.vocabSize; v++) maxErr = Math.max(maxErr, Math.abs(got[b][v] - full[b][lens[b]][v]));
    }
    const logits = policy.step(cache, [1, 2, 3]);
    const out = await sampleTokens(logits, 1, new Rng(2), false);
    logits.dispose();
    expect(out.ids.every((id) => id >= 0 && id < tiny.vocabSize)).toBe(true);
    expect(maxErr).toBeLessThan(1e-4);
    cache.dispose();
    policy.dispose();
  });

  it('takeRows (a heap copy per run of rows, wasmRows) picks exactly what gather picks, in any order, leaking nothing', () => {
    const x = tf.tidy(() => tf.randomNormal([6, 2, 5, 3]).add(tf.range(0, 6).reshape([6, 1, 1, 1]))) as tf.Tensor4D; // [B, H, cap, hd]
    const before = tf.memory().numTensors;
    for (const rows of [[0], [5], [1, 2, 3], [4, 0, 5, 1], [2, 2, 3, 3], [0, 1, 2, 3, 4, 5], [5, 4, 3, 2, 1, 0, 0]]) {
      const got = takeRows(x, rows);
      expect(got.shape).toEqual([rows.length, 2, 5, 3]);
      const idx = tf.tensor1d(rows, 'int32');
      const want = tf.gather(x, idx);
      expect(Array.from(got.dataSync())).toEqual(Array.from(want.dataSync()));
      tf.dispose([got, want, idx]);
    }
    expect(tf.memory().numTensors).toBe(before);
    expect(() => takeRows(x, [6])).toThrow(/row 6 outside \[0, 6\)/);
    x.dispose();
  });

  it('KV writes go into the cache\'s own memory only when no other tensor shares it, with tensorScatterUpdate\'s values', () => {
    const H = 2;
    const fresh = tf.randomNormal([2, H, 3, 4]) as tf.Tensor4D; // [R, H, n, hd]
    const reference = (cache: tf.Tensor4D) => { // the same writes by tfjs's own op
      const idx: number[] = [];
      const src: number[] = [];
      [[2, 1, 3], [0, 4, 2]].forEach(([r, start, count], j) => { for (let h = 0; h < H; h++) for (let k = 0; k < count; k++) { idx.push(r, h, start + k); src.push((j * H + h) * 3 + k); } });
      return tf.tidy(() => tf.tensorScatterUpdate(cache, tf.tensor2d(idx, [idx.length / 3, 3], 'int32'), tf.gather(fresh.reshape([-1, 4]), src)));
    };
    const cache = tf.randomNormal([3, H, 8, 4]) as tf.Tensor4D; // [B, H, cap, hd]
    const want = reference(cache);
    const before = Array.from(cache.dataSync());
    const shared = cache.reshape([-1]); // another tensor over the same memory (wasm's reshape shares it): no in-place write
    expect(writableInPlace(cache)).toBe(false);
    const write = scatterPlan(H, [2, 0], [1, 4], [3, 2], [0, 1], 3);
    const copied = write(cache, fresh);
    expect(Array.from(cache.dataSync())).toEqual(before); // untouched
    expect(Array.from(copied.dataSync())).toEqual(Array.from(want.dataSync()));
    shared.dispose();
    expect(writableInPlace(cache)).toBe(true);
    const tensors = tf.memory().numTensors;
    const inPlace = write(cache, fresh);
    expect(Array.from(inPlace.dataSync())).toEqual(Array.from(want.dataSync()));
    expect(Array.from(cache.dataSync())).toEqual(Array.from(want.dataSync())); // the same memory
    cache.dispose(); // as KVCache.replace does: the result keeps the memory alive
    expect(Array.from(inPlace.dataSync())).toEqual(Array.from(want.dataSync()));
    expect(tf.memory().numTensors).toBe(tensors);
    tf.dispose([inPlace, copied, want, fresh]);
  });

  it('matMul (explicit transposes on wasm) gives the values and gradients of tf.matMul for every transpose flag', () => {
    const rng = new Rng(6);
    const rand = (shape: number[]) => tf.tensor(Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.next() - 0.5), shape);
    for (const [tA, tB] of [[false, false], [false, true], [true, false], [true, true]]) {
      for (const batch of [[], [2]]) { // 2-D and batched 3-D
        // [5, 9]·[9, 2]: Aᵀ·B with A the larger takes the (Bᵀ·A)ᵀ route
        const a = rand([...batch, ...(tA ? [9, 5] : [5, 9])]);
        const b = rand([...batch, ...(tB ? [2, 9] : [9, 2])]);
        const w = rand([...batch, 5, 2]);
        const ours = tf.grads((x: tf.Tensor, y: tf.Tensor) => matMul(x, y, tA, tB).mul(w).sum())([a, b]);
        const ref = tf.grads((x: tf.Tensor, y: tf.Tensor) => tf.matMul(x, y, tA, tB).mul(w).sum())([a, b]);
        ours.forEach((g, i) => expect(Math.max(...Array.from(g.sub(ref[i]).abs().dataSync()))).toBeLessThan(1e-5));
        expect(Math.max(...Array.from(matMul(a, b, tA, tB).sub(tf.matMul(a, b, tA, tB)).abs().dataSync()))).toBeLessThan(1e-5);
        tf.dispose([a, b, w, ...ours, ...ref]);
      }
    }
  });

  it('gives the same loss and gradients as cpu (per-head attention, head at chosen positions)', async () => {
    const config = { ...tiny, nHeads: 4 };
    const rng = new Rng(4);
    const seqs = Array.from({ length: 3 }, () => Array.from({ length: 20 }, () => rng.int(config.vocabSize)));
    const positions = [0, 7, 18, 19, 25, 40, 56];
    const run = async (backend: string) => {
      await tf.setBackend(backend);
      const policy = createPolicy(config, 9);
      const tokens = tf.tensor2d(seqs, [3, 20], 'int32');
      const { value, grads } = tf.variableGrads(() => tf.tidy(() => {
        const r = policy.logProbsAt(tokens, positions);
        return r.logProbs.sum().neg().add(r.entropy.sum().mul(0.1)) as tf.Scalar;
      }), [...policy.params.values()]);
      const out = { loss: value.dataSync()[0], grads: [...policy.params.values()].map((v) => Array.from(grads[v.name].dataSync())) };
      tf.dispose([tokens, value, ...Object.values(grads)]);
      policy.dispose();
      return out;
    };
    const cpu = await run('cpu');
    const wasm = await run('wasm');
    expect(tf.getBackend()).toBe('wasm');
    expect(Math.abs(wasm.loss - cpu.loss)).toBeLessThan(1e-5 * Math.abs(cpu.loss));
    cpu.grads.forEach((g, i) => {
      const scale = Math.max(1e-6, ...g.map(Math.abs));
      expect(Math.max(...g.map((x, j) => Math.abs(x - wasm.grads[i][j]))) / scale).toBeLessThan(1e-4);
    });
  });

  it('trains (SFT steps lower the loss) without leaking tensors', async () => {
    const policy = createPolicy(tiny, 3);
    const examples = [{ tokens: [1, 4, 5, 6, 2, 4, 5, 6], lossMask: [0, 0, 0, 0, 0, 1, 1, 1] }];
    const trainer = new SftTrainer(policy, examples, { batchSize: 4, peakLr: 1e-2, warmupSteps: 1, totalSteps: 20 });
    const first = (await trainer.sftStep())['losses/sft'];
    const count = tf.memory().numTensors;
    let last = first;
    for (let s = 0; s < 10; s++) last = (await trainer.sftStep())['losses/sft'];
    expect(tf.memory().numTensors).toBe(count);
    expect(last).toBeLessThan(0.5 * first);
    trainer.dispose();
    policy.dispose();
  });
});
