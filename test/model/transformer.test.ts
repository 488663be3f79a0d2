import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { createPolicy, type Policy } from '../../src/model/transformer.ts';
import { countParameters, preset, type ModelConfig } from '../../src/model/config.ts';
import { sampleTokens } from '../../src/model/sampling.ts';
import { Rng } from '../../src/env/random.ts';

const tiny: ModelConfig = { vocabSize: 11, contextLength: 24, dModel: 16, nLayers: 2, nHeads: 2, dFF: 32 };

beforeAll(async () => {
  await tf.setBackend('cpu');
});

function randomTokens(rng: Rng, B: number, T: number, V: number): number[][] {
  return Array.from({ length: B }, () => Array.from({ length: T }, () => rng.int(V)));
}

/** make the weights large enough that the function is far from linear (init std 0.02 is nearly so) */
function roughen(policy: Policy, seed: number): void {
  const rng = new Rng(seed);
  for (const v of policy.params.values()) {
    const vals = Float32Array.from({ length: v.size }, () => (rng.next() - 0.5) * 0.8 + (v.shape.length === 1 ? 0.5 : 0));
    v.assign(tf.tensor(vals, v.shape));
  }
}

describe('presets', () => {
  it('mirror 1.5B/3B/7B at about 1 : 2 : 4.7 and ~0.3M/0.6M/1.4M', () => {
    const [s, m, l] = (['s', 'm', 'l'] as const).map((n) => countParameters(preset(n, 512, 1024)));
    expect(s).toBeGreaterThan(0.25e6);
    expect(s).toBeLessThan(0.35e6);
    expect(m / s).toBeGreaterThan(1.8);
    expect(m / s).toBeLessThan(2.2);
    expect(l / s).toBeGreaterThan(4.3);
    expect(l / s).toBeLessThan(5.1);
  });

  it('counts exactly what the policy allocates', () => {
    const p = createPolicy(tiny, 1);
    const allocated = [...p.params.values()].reduce((n, v) => n + v.size, 0);
    expect(allocated).toBe(countParameters(tiny));
    p.dispose();
  });

  it('rejects a bad config', () => {
    expect(() => createPolicy({ ...tiny, nHeads: 3 }, 1)).toThrow(/divisible/);
  });
});

describe('logProbs', () => {
  it.each(['onehot', 'gather'] as const)('matches finite differences (per-parameter directional derivative), %s embedding', (embedding) => {
    const policy = createPolicy({ ...tiny, embedding }, 3);
    roughen(policy, 4);
    const rng = new Rng(5);
    const tokens = tf.tensor2d(randomTokens(rng, 2, 6, tiny.vocabSize), [2, 6], 'int32');
    const wLp = tf.tensor2d(Array.from({ length: 10 }, () => rng.next() - 0.5), [2, 5]);
    const wEnt = tf.tensor2d(Array.from({ length: 10 }, () => rng.next() - 0.5), [2, 5]);
    const loss = () => tf.tidy(() => {
      const { logProbs, entropy } = policy.logProbs(tokens);
      return logProbs.mul(wLp).sum().add(entropy.mul(wEnt).sum()) as tf.Scalar;
    });
    const vars = [...policy.params.values()];
    const { value, grads } = tf.variableGrads(loss, vars);
    value.dispose();
    const h = 1e-2;
    let checked = 0;
    for (const [name, v] of policy.params) {
      const g = grads[v.name];
      const dir = tf.tensor(Float32Array.from({ length: v.size }, () => rng.next() - 0.5), v.shape);
      const analytic = g.mul(dir).sum().dataSync()[0];
      const orig = v.clone();
      v.assign(orig.add(dir.mul(h)));
      const up = loss().dataSync()[0];
      v.assign(orig.sub(dir.mul(h)));
      const down = loss().dataSync()[0];
      v.assign(orig);
      const numeric = (up - down) / (2 * h);
      expect(Math.abs(analytic - numeric), `${name}: analytic ${analytic} numeric ${numeric}`)
        .toBeLessThan(2e-3 + 0.02 * Math.abs(numeric));
      if (Math.abs(numeric) > 1e-2) checked++;
      tf.dispose([orig, dir]);
    }
    expect(checked).toBeGreaterThan(policy.params.size / 2); // most gradients are far from zero
    tf.dispose([tokens, wLp, wEnt, ...Object.values(grads)]);
    policy.dispose();
  });

  it('logProbsAt equals logProbs at the chosen positions, with the same gradients', () => {
    const policy = createPolicy(tiny, 3);
    roughen(policy, 6);
    const [B, T] = [3, 9];
    const rng = new Rng(2);
    const tokens = tf.tensor2d(randomTokens(rng, B, T, tiny.vocabSize), [B, T], 'int32');
    const positions = [17, 0, 5, 9, 23, 12]; // any order, distinct, in [0, B·(T-1))
    const weights = Float32Array.from({ length: B * (T - 1) }, () => 0);
    positions.forEach((p, i) => { weights[p] = i + 1; });
    const w = tf.tensor2d(weights, [B, T - 1]);
    const wAt = tf.tensor1d(positions.map((_, i) => i + 1));
    const full = policy.logProbs(tokens);
    const at = policy.logProbsAt(tokens, positions);
    const lp = full.logProbs.dataSync();
    const ent = full.entropy.dataSync();
    const lpAt = at.logProbs.dataSync();
    const entAt = at.entropy.dataSync();
    positions.forEach((p, i) => {
      expect(lpAt[i]).toBeCloseTo(lp[p], 5);
      expect(entAt[i]).toBeCloseTo(ent[p], 5);
    });
    const vars = [...policy.params.values()];
    const gFull = tf.variableGrads(() => tf.tidy(() => {
      const r = policy.logProbs(tokens);
      return r.logProbs.mul(w).sum().add(r.entropy.mul(w).sum()) as tf.Scalar;
    }), vars);
    const gAt = tf.variableGrads(() => tf.tidy(() => {
      const r = policy.logProbsAt(tokens, positions);
      return r.logProbs.mul(wAt).sum().add(r.entropy.mul(wAt).sum()) as tf.Scalar;
    }), vars);
    expect(gAt.value.dataSync()[0]).toBeCloseTo(gFull.value.dataSync()[0], 4);
    for (const v of vars) {
      const a = gAt.grads[v.name].dataSync();
      const b = gFull.grads[v.name].dataSync();
      const scale = Math.max(1e-3, ...Array.from(b, Math.abs));
      expect(Math.max(...Array.from(a, (x, i) => Math.abs(x - b[i]))) / scale).toBeLessThan(1e-4);
    }
    expect(() => policy.logProbsAt(tokens, [3, 3])).toThrow(/twice/);
    expect(() => policy.logProbsAt(tokens, [B * (T - 1)])).toThrow(/outside/);
    tf.dispose([tokens, w, wAt, full.logProbs, full.entropy, at.logProbs, at.entropy, gFull.value, gAt.value,
      ...Object.values(gFull.grads), ...Object.values(gAt.grads)]);
    policy.dispose();
  });

  it('logProbsAt with bans scores the masked distribution a constrained rollout sampled from', async () => {
    const policy = createPolicy(tiny, 4);
    roughen(policy, 6);
    const T = 7;
    const tokens = tf.tensor2d(randomTokens(new Rng(3), 1, T, tiny.vocabSize), [1, T], 'int32');
    const logits = tf.tidy(() => policy.forward(tokens).slice([0, 3, 0], [1, 1, tiny.vocabSize]).reshape([1, tiny.vocabSize]) as tf.Tensor2D);
    // ban the 5 likeliest ids so the ban matters
    const order = Array.from(logits.dataSync()).map((v, id) => [v, id]).sort((a, b) => b[0] - a[0]).map(([, id]) => id);
    const bans = [order.slice(0, 5)];
    const drawn = await sampleTokens(logits, 1.5, new Rng(8), false, bans);
    expect(bans[0]).not.toContain(drawn.ids[0]);
    const at = tf.tidy(() => {
      const r = policy.logProbsAt(tokens, [3], tf.tensor1d([drawn.ids[0]], 'int32'), { temperature: 1.5, bans });
      return [r.logProbs.dataSync()[0], r.entropy.dataSync()[0]];
    });
    expect(at[0]).toBeCloseTo(drawn.logProbs[0], 4);
    expect(at[1]).toBeCloseTo(drawn.entropies[0], 4);
    expect(() => policy.logProbsAt(tokens, [3], undefined, { bans: [[], []] })).toThrow(/ban lists/);
    tf.dispose([tokens, logits]);
    policy.dispose();
  });

  it('gives normalised log-probs and non-negative entropies of the right shape', () => {
    const policy = createPolicy(tiny, 3);
    const tokens = tf.tensor2d(randomTokens(new Rng(1), 3, 7, tiny.vocabSize), [3, 7], 'int32');
    const { logProbs, entropy } = policy.logProbs(tokens);
    expect(logProbs.shape).toEqual([3, 6]);
    expect(Math.max(...logProbs.dataSync())).toBeLessThanOrEqual(0);
    const ent = entropy.dataSync();
    expect(Math.min(...ent)).toBeGreaterThanOrEqual(-1e-5);
    expect(Math.max(...ent)).toBeLessThanOrEqual(Math.log(tiny.vocabSize) + 1e-4);
    tf.dispose([tokens, logProbs, entropy]);
    policy.dispose();
  });
});

describe('KV-cache decoding', () => {
  it('gives the same logits as a full forward, with rows at different lengths after a prefill', () => {
    const policy = createPolicy(tiny, 7);
    roughen(policy, 8);
    const rng = new Rng(9);
    const B = 3;
    const T = 20;
    const seqs = randomTokens(rng, B, T, tiny.vocabSize);
    const full = policy.forward(tf.tensor2d(seqs, [B, T], 'int32')).arraySync(); // [B, T, V]
    const cache = policy.newCache(B, T);
    // prompts of different lengths (row 2 prefilled in two pieces, row 1 empty)
    policy.prefill(cache, [0, 1, 2], [seqs[0].slice(0, 4), [], seqs[2].slice(0, 1)]);
    policy.prefill(cache, [2], [seqs[2].slice(1, 9)]);
    expect(cache.rowLengths()).toEqual([4, 0, 9]);
    let maxErr = 0;
    for (let s = 0; s < 6; s++) {
      const lens = cache.rowLengths();
      const logits = policy.step(cache, lens.map((l, b) => seqs[b][l]));
      const got = logits.arraySync();
      for (let b = 0; b < B; b++) for (let v = 0; v < tiny.vocabSize; v++) maxErr = Math.max(maxErr, Math.abs(got[b][v] - full[b][lens[b]][v]));
      logits.dispose();
      // mid-way, row 0 receives an "observation" of 3 tokens while the others keep going
      if (s === 2) { const l = cache.lengthOf(0); policy.prefill(cache, [0], [seqs[0].slice(l, l + 3)]); }
    }
    expect(maxErr).toBeLessThan(1e-4);
    // inactive rows do not advance
    const before = cache.rowLengths();
    policy.step(cache, before.map((l, b) => seqs[b][l]), [true, false, true]).dispose();
    expect(cache.rowLengths()).toEqual([before[0] + 1, before[1], before[2] + 1]);
    cache.dispose();
    policy.dispose();
  });

  it('copyRows duplicates a row (ARPO branching) and decoding from the copy matches the original', () => {
    const policy = createPolicy(tiny, 11);
    roughen(policy, 12);
    const seq = randomTokens(new Rng(2), 1, 10, tiny.vocabSize)[0];
    const cache = policy.newCache(2, 16);
    policy.prefill(cache, [0, 1], [seq.slice(0, 6), [1, 2]]);
    cache.copyRows([0], [1]);
    const logits = policy.step(cache, [seq[6], seq[6]]).arraySync();
    for (let v = 0; v < tiny.vocabSize; v++) expect(logits[1][v]).toBeCloseTo(logits[0][v], 5);
    cache.dispose();
    policy.dispose();
  });

  it('rejects overflow and bad token ids with clear errors', () => {
    const policy = createPolicy(tiny, 1);
    const cache = policy.newCache(1, 4);
    expect(() => policy.prefill(cache, [0], [[1, 2, 3, 4, 5]])).toThrow(/maxLen/);
    expect(() => policy.step(cache, [99])).toThrow(/token id/);
    cache.dispose();
    policy.dispose();
  });

  it('leaks no tensors across 20 decode steps with sampling', async () => {
    const policy = createPolicy(tiny, 1);
    const rng = new Rng(3);
    const cache = policy.newCache(4, 24);
    policy.prefill(cache, [0, 1, 2, 3], [[1], [2, 3], [4], [5, 6, 7]]);
    let last: Int32Array = Int32Array.from([1, 2, 3, 4]);
    let count = -1;
    for (let s = 0; s < 20; s++) {
      const logits = policy.step(cache, last);
      const out = await sampleTokens(logits, 1, rng, false);
      logits.dispose();
      last = out.ids;
      if (s === 1) count = tf.memory().numTensors;
      if (s > 1) expect(tf.memory().numTensors).toBe(count);
    }
    cache.dispose();
    policy.dispose();
  });
});

describe('sampleTokens', () => {
  it('samples from the distribution, greedy takes the argmax, same seed → same ids', async () => {
    const logits = tf.tensor2d([[0, Math.log(3), -50, 0], [5, 0, 0, 0]]); // row 0: p = [1/5, 3/5, 0, 1/5]
    const greedy = await sampleTokens(logits, 1, new Rng(1), true);
    expect([...greedy.ids]).toEqual([1, 0]);
    expect(greedy.logProbs[0]).toBeCloseTo(Math.log(3 / 5), 5);
    const rng = new Rng(2);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 400; i++) counts[(await sampleTokens(logits, 1, rng, false)).ids[0]]++;
    expect(counts[2]).toBe(0);
    expect(counts[1] / 400).toBeGreaterThan(0.5);
    expect(counts[1] / 400).toBeLessThan(0.7);
    const a = await sampleTokens(logits, 2, new Rng(9), false);
    const b = await sampleTokens(logits, 2, new Rng(9), false);
    expect([...a.ids]).toEqual([...b.ids]);
    const h0 = -(0.2 * Math.log(0.2) * 2 + 0.6 * Math.log(0.6));
    expect(greedy.entropies[0]).toBeCloseTo(h0, 4);
    logits.dispose();
  });
  it('bans take a token out of the distribution: never drawn, and log-probs and entropy are the masked ones', async () => {
    const logits = tf.tensor2d([[0, Math.log(3), -50, 0], [5, 0, 0, 0]]);
    const bans = [[1], []]; // row 0 without id 1: p = [1/2, 0, 0, 1/2]; row 1 untouched
    const greedy = await sampleTokens(logits, 1, new Rng(1), true, bans);
    expect([...greedy.ids]).toEqual([0, 0]);
    expect(greedy.logProbs[0]).toBeCloseTo(Math.log(1 / 2), 5);
    expect(greedy.entropies[0]).toBeCloseTo(Math.log(2), 4);
    expect(greedy.logProbs[1]).toBeCloseTo(5 - Math.log(Math.exp(5) + 3), 5);
    const rng = new Rng(3);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 300; i++) counts[(await sampleTokens(logits, 1, rng, false, bans)).ids[0]]++;
    expect(counts[1]).toBe(0);
    expect(counts[0] + counts[3]).toBe(300);
    expect(counts[0] / 300).toBeGreaterThan(0.4);
    logits.dispose();
  });
});
