// SeedStackDecoder (model/seedStackDecode.ts): S seeds' views meeting at one stacked decode step. Each view,
// driven through what rollout() does to a cache (prefill, step, ARPO's copyRows/truncateRow/resetRows,
// compaction's selectRows), must give the logits its seed's own Policy gives on its own KVCache, while the
// stacked cache grows (a seed needs more rows), shrinks (every seed holds few) and seeds leave it.
import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { Policy } from '../../src/model/transformer.ts';
import { type KVCache } from '../../src/model/kvcache.ts';
import { type ModelConfig } from '../../src/model/config.ts';
import { SeedStackedPolicy } from '../../src/model/seedStack.ts';
import { SeedStackDecoder, type SeedCache, type SeedDecodeView } from '../../src/model/seedStackDecode.ts';
import { readCheckpointDir } from '../../src/node/checkpointDir.ts';
import { policyFromCheckpoint } from '../../src/rl/loadPolicy.ts';
import { rlEnvironment } from '../../src/rl/rlEnvironment.ts';
import { rollout } from '../../src/agent/rollout.ts';
import { type AgentTask } from '../../src/agent/episode.ts';
import { Rng } from '../../src/env/random.ts';

const model: ModelConfig = { vocabSize: 16, contextLength: 48, dModel: 16, nLayers: 2, nHeads: 2, dFF: 32, positions: 'alibi' };

/** seed s through the decoder (view, cache) and alone (its Policy, its KVCache), the same operations on both */
class Pair {
  cache: SeedCache;
  own: KVCache;
  constructor(readonly view: SeedDecodeView, readonly policy: Policy, batch: number) {
    this.cache = view.newCache(batch, 40);
    this.own = policy.newCache(batch, 40);
  }
  /** the view's prefill (awaiting the barrier: the other seeds must ask for something too) and its Policy's */
  async prefill(rows: number[], tokens: number[][]): Promise<void> {
    await this.view.prefill(this.cache, rows, tokens);
    this.policy.prefill(this.own, rows, tokens);
  }
  /** the view's step (awaiting the barrier) against its Policy's, on the active rows */
  async step(tokens: number[], active: boolean[]): Promise<number> {
    const got = await this.view.step(this.cache, tokens, active);
    const want = this.policy.step(this.own, tokens, active);
    const [g, w] = [got.arraySync(), want.arraySync()];
    tf.dispose([got, want]);
    let err = 0;
    active.forEach((a, p) => { if (a) g[p].forEach((x, k) => { err = Math.max(err, Math.abs(x - w[p][k])); }); });
    return err;
  }
  apply(f: (c: SeedCache | KVCache) => void): void {
    f(this.cache);
    f(this.own);
  }
  select(rows: number[]): void {
    const [c, o] = [this.cache.selectRows(rows), this.own.selectRows(rows)];
    this.cache.dispose();
    this.own.dispose();
    [this.cache, this.own] = [c, o];
  }
  dispose(): void {
    this.cache.dispose();
    this.own.dispose();
  }
}

describe.each(['cpu', 'wasm'] as const)('SeedStackDecoder on %s', (backend) => {
  it('each view gives its seed\'s own logits through growth, ARPO copies, compaction, shrinking and leaving', async () => {
    await tf.setBackend(backend);
    const policies = [new Policy(model, 1), new Policy(model, 2)];
    const stack = SeedStackedPolicy.fromPolicies(policies);
    const decoder = new SeedStackDecoder(stack, policies);
    const before = tf.memory().numTensors;
    const errs: number[] = [];
    const both = async (pairs: Pair[], tokens: number[][], active: boolean[][]) => {
      errs.push(...await Promise.all(pairs.map((p, s) => p.step(tokens[s], active[s]))));
    };
    try {
      const b = new Pair(decoder.views[1], policies[1], 2); // seed 1 opens first: blocks of 2 rows
      await b.prefill([0, 1], [[3, 4, 5], [6]]); // the only seed open: it waits for no one
      const a = new Pair(decoder.views[0], policies[0], 8); // seed 0 needs 8: the stacked cache grows, b's rows move
      const on8 = new Array<boolean>(8).fill(true);
      // seed 0's prefill waits for seed 1 to ask (for a step), runs, then seed 0's step meets seed 1's
      let prefilled = false;
      const aFirst = a.prefill([0, 1, 2, 3, 4, 5, 6, 7], [[1, 2], [2], [3, 3, 3, 3], [4], [5, 6], [7], [8, 9, 10], [11]])
        .then(() => { prefilled = true; return a.step([1, 2, 3, 4, 5, 6, 7, 8], on8); });
      await new Promise((r) => setTimeout(r, 10));
      expect(prefilled).toBe(false);
      errs.push(...await Promise.all([aFirst, b.step([9, 10], [true, true])]));
      for (let k = 1; k < 3; k++) await both([a, b], [[1, 2, 3, 4, 5, 6, 7, 8].map((t) => (t + k) % 16), [9, 10 + k]], [on8, [true, true]]);

      // the barrier waits: seed 0's step is answered only once seed 1 has asked too
      let answered = false;
      const first = a.step([1, 1, 1, 1, 1, 1, 1, 1], on8).then((e) => { answered = true; return e; });
      await new Promise((r) => setTimeout(r, 10));
      expect(answered).toBe(false);
      errs.push(...await Promise.all([first, b.step([2, 2], [true, false])]));

      // ARPO: row 5 continues row 2 from a fork point; row 7 starts over from a prompt
      a.apply((c) => c.copyRows([2], [5]));
      a.apply((c) => c.truncateRow(5, 3));
      a.apply((c) => c.resetRows([7]));
      // both seeds prefill in one round (on webgpu one pass of the fused kernels), then step
      await Promise.all([a.prefill([7], [[12, 13, 14]]), b.prefill([1], [[7, 8]])]);
      await both([a, b], [[5, 5, 5, 5, 4, 6, 5, 15], [3, 4]], [on8, [true, true]]);

      // compaction: seed 0 keeps rows 5 and 2; with both seeds at 2 rows the blocks shrink 8 → 4
      a.select([5, 2]);
      await both([a, b], [[7, 8], [5, 6]], [[true, true], [true, true]]);
      expect(decoder.stacked().batch).toBe(8);

      // seed 1 leaves: seed 0 steps alone, waiting for no one
      b.dispose();
      errs.push(await a.step([9, 9], [true, false]), await a.step([9, 10], [true, true]));
      expect(decoder.counts).toEqual({ steps: 8, seedSteps: 14, prefills: 3, seedPrefills: 4 });
      a.dispose();
      expect(() => decoder.stacked()).toThrow(/no cache open/); // the last seed out frees the stacked cache
      expect(tf.memory().numTensors).toBe(before);
      // a row's logits do not depend on the other rows of a step: equal to the float, not within a tolerance
      expect(Math.max(...errs)).toBe(0);
    } finally {
      stack.dispose();
      policies.forEach((p) => p.dispose());
    }
  });
});

describe('SeedStackDecoder: two seeds\' ARPO rollouts decoding together (wasm, shipped s checkpoint)', () => {
  it('each seed samples exactly its own rollout\'s episodes, forks and fills included', async () => {
    await tf.setBackend('wasm');
    const ckpt = await readCheckpointDir('public/checkpoints/s-tiny');
    const env = rlEnvironment({ world: ckpt.card.world, data: ckpt.card.data, contextLength: ckpt.config.contextLength },
      { trainSize: 100, mix: [4, 3, 3] });
    const policies = [policyFromCheckpoint(ckpt), policyFromCheckpoint(ckpt)];
    const rng = new Rng(7); // the second seed starts apart
    tf.tidy(() => {
      for (const v of policies[1].params.values()) {
        v.assign(v.add(tf.tensor(Float32Array.from({ length: v.size }, () => (rng.next() - 0.5) * 2e-3), v.shape)));
      }
    });
    const stack = SeedStackedPolicy.fromPolicies(policies);
    const decoder = new SeedStackDecoder(stack, policies);
    const task = (i: number): AgentTask => ({ kind: 'travel', query: env.train[i] });
    // seed 0 forks rows after observations; seed 1, with two calls at most, fills its group's budget from the prompt
    const tasks = [[task(60), task(60)], [task(80)]];
    const opts = (s: number) => (s === 0
      ? { world: env.world, rng: new Rng(11), failureRate: 0.2, maxTokens: 256, constrainPlan: true,
        branching: { groups: [0, 0], budget: 4, k: 3, alpha: 0.6, beta: 1, branches: 2 } }
      : { world: env.world, rng: new Rng(13), failureRate: 0.3, maxTokens: 256, maxTurns: 2,
        branching: { groups: [0], budget: 3, k: 2, alpha: 0.3, beta: 0, branches: 1 } });
    try {
      const before = tf.memory().numTensors;
      const together = await Promise.all([0, 1].map((s) => rollout(decoder.views[s], tasks[s], opts(s))));
      expect(tf.memory().numTensors).toBe(before);
      for (let s = 0; s < 2; s++) {
        const alone = await rollout(policies[s], tasks[s], opts(s));
        expect(together[s].map((e) => e.tokens)).toEqual(alone.map((e) => e.tokens));
        expect(together[s].map((e) => e.logProbs)).toEqual(alone.map((e) => e.logProbs));
        expect(together[s].map((e) => e.branch)).toEqual(alone.map((e) => e.branch));
      }
      const forks = together.flat().filter((e) => e.branch!.parent !== null).length;
      const fills = together.flat().filter((e) => e.branch!.fill).length;
      expect(forks).toBeGreaterThan(0); // rows were forked (copyRows, truncateRow)
      expect(fills).toBeGreaterThan(0); // and started over from the prompt (resetRows)
      expect(decoder.counts.seedSteps).toBeGreaterThan(decoder.counts.steps); // and the seeds met
    } finally {
      stack.dispose();
      policies.forEach((p) => p.dispose());
    }
  }, 120_000);
});
