// Regression for the evaluation crash "Must have updates.shape = indices.shape[:batchDim] …" seen on
// wasm after SFT: step() with only rows 0..k-1 active (the last rows of the batch finished first) made
// scatterPlan take its "sources are 0..M-1" shortcut and pass ALL fresh rows as the updates. It was our
// code, not the kernel: tf.tensorScatterUpdate's shape check fails the same way on cpu and wasm.
// Each case checks KV-cache logits against a full forward on both backends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { createPolicy, type Policy } from '../../src/model/transformer.ts';
import { type ModelConfig } from '../../src/model/config.ts';
import type { KVCache } from '../../src/model/kvcache.ts';
import { Rng } from '../../src/env/random.ts';

// 4 heads like preset s (hd 4 keeps it cheap); maxLen 128 = two 64-slot growth chunks
const config: ModelConfig = { vocabSize: 13, contextLength: 160, dModel: 16, nLayers: 2, nHeads: 4, dFF: 32 };
const B = 4;
const maxLen = 128;

describe.each([['cpu', 'learned'], ['wasm', 'learned'], ['cpu', 'alibi'], ['wasm', 'alibi']] as const)('KV cache on %s, %s positions', (backend, positions) => {
  let policy: Policy;
  let seqs: number[][]; // [B, maxLen] token ids
  let full: number[][][]; // [B, maxLen, V] logits of the full forward

  beforeAll(async () => {
    expect(await tf.setBackend(backend)).toBe(true);
    policy = createPolicy({ ...config, positions }, 11);
    const rng = new Rng(4);
    seqs = Array.from({ length: B }, () => Array.from({ length: maxLen }, () => rng.int(config.vocabSize)));
    full = tf.tidy(() => policy.forward(tf.tensor2d(seqs, [B, maxLen], 'int32'))).arraySync() as number[][][];
  });
  afterAll(() => policy.dispose());

  /** one step on the `active` rows (the next token of each); the largest |logit - full| over them */
  function stepAndCompare(cache: KVCache, active: boolean[]): number {
    const lens = cache.rowLengths();
    const logits = policy.step(cache, lens.map((l, b) => (active[b] ? seqs[b][l] : 0)), active);
    const got = logits.arraySync();
    logits.dispose();
    let err = 0;
    for (let b = 0; b < B; b++) {
      if (!active[b]) continue;
      for (let v = 0; v < config.vocabSize; v++) err = Math.max(err, Math.abs(got[b][v] - full[b][lens[b]][v]));
    }
    return err;
  }

  it('step with only the leading rows active (the crash) matches the full forward and leaves the rest alone', () => {
    const cache = policy.newCache(B, maxLen);
    policy.prefill(cache, [0, 1, 2, 3], [seqs[0].slice(0, 9), seqs[1].slice(0, 3), seqs[2].slice(0, 20), seqs[3].slice(0, 1)]);
    let err = 0;
    err = Math.max(err, stepAndCompare(cache, [true, true, true, true]));
    err = Math.max(err, stepAndCompare(cache, [true, true, false, false])); // crashed before the fix
    err = Math.max(err, stepAndCompare(cache, [true, false, false, false])); // crashed before the fix
    expect(cache.rowLengths()).toEqual([12, 5, 21, 2]);
    // the rows skipped above resume exactly where they were
    err = Math.max(err, stepAndCompare(cache, [false, true, true, true]));
    err = Math.max(err, stepAndCompare(cache, [true, true, true, true]));
    expect(err).toBeLessThan(1e-4);
    cache.dispose();
  });

  it('53-token prefills on some rows across the 64-slot growth and up to maxLen match the full forward', () => {
    const cache = policy.newCache(B, maxLen);
    policy.prefill(cache, [0, 1, 2, 3], [seqs[0].slice(0, 10), seqs[1].slice(0, 40), [], seqs[3].slice(0, 63)]);
    expect(cache.capacity).toBe(64);
    let err = stepAndCompare(cache, [true, true, false, true]); // row 3 fills slot 63: no growth yet
    expect(cache.capacity).toBe(64);
    // long prefills on rows 1 and 3 grow the cache to 128 while rows 0 and 2 keep their lengths
    policy.prefill(cache, [3, 1, 0], [seqs[3].slice(64, 64 + 53), seqs[1].slice(41, 41 + 53), []]);
    expect(cache.capacity).toBe(128);
    expect(cache.rowLengths()).toEqual([11, 94, 0, 117]);
    err = Math.max(err, stepAndCompare(cache, [true, true, false, true]));
    // row 3 up to exactly maxLen (slot 127), row 2 starts from empty with a 53-token prefill
    policy.prefill(cache, [2, 3], [seqs[2].slice(0, 53), seqs[3].slice(118, 127)]);
    err = Math.max(err, stepAndCompare(cache, [true, true, true, true]));
    expect(cache.rowLengths()).toEqual([13, 96, 54, 128]);
    expect(err).toBeLessThan(1e-4);
    cache.dispose();
  });

  it('a prefill or step past maxLen is a clear error that leaves the cache as it was', () => {
    const cache = policy.newCache(B, 64);
    policy.prefill(cache, [0, 1], [seqs[0].slice(0, 60), seqs[1].slice(0, 5)]);
    const before = tf.memory().numTensors;
    expect(() => policy.prefill(cache, [1, 0], [seqs[1].slice(5, 10), seqs[0].slice(60, 65)])).toThrow(/row 0 .*maxLen 64/);
    expect(cache.rowLengths()).toEqual([60, 5, 0, 0]);
    expect(tf.memory().numTensors).toBe(before);
    policy.prefill(cache, [0], [seqs[0].slice(60, 64)]);
    expect(() => policy.step(cache, [1, 1, 1, 1])).toThrow(/row 0 .*maxLen/);
    // the full row marked inactive, the others go on and still match the full forward
    expect(stepAndCompare(cache, [false, true, true, true])).toBeLessThan(1e-4);
    expect(tf.memory().numTensors).toBe(before);
    cache.dispose();
  });
});
