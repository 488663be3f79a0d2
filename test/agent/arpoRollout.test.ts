// ARPO's branching rollout through a REAL KV cache: one query, budget M = 4 of which N = 2 start from
// the prompt, α = 1 (always branch). A scripted wrapper plays the teacher's trajectory (the next token
// is the script's token at the row's cache length, so a branch cut back to a fork point carries on from
// there) while the real policy runs every prefill/step on the cache. If forking copied the cache rows
// and cut them back correctly, a branch's real logits at every position equal those its parent
// computed at the same position (same prefix), and every episode replays the teacher exactly.
import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { generateWorld } from '../../src/env/world.ts';
import { buildDataset } from '../../src/env/queries.ts';
import { Rng } from '../../src/env/random.ts';
import { teachTrajectory } from '../../src/env/teacher.ts';
import { createPolicy, type Policy } from '../../src/model/transformer.ts';
import { preset } from '../../src/model/config.ts';
import type { KVCache } from '../../src/model/kvcache.ts';
import { rollout } from '../../src/agent/rollout.ts';
import { VOCAB } from '../../src/agent/vocab.ts';
import { encodeTrajectory } from '../../src/agent/encode.ts';

const world = generateWorld('tiny', 3);
const query = buildDataset(world, { size: 4, mix: [4, 3, 3], seed: 3, validationSize: 0, testSize: 0 }).train[0];
const traj = teachTrajectory(world, query, { rng: new Rng(5) })!;
const script = encodeTrajectory(traj).tokens;
const config = { ...preset('s', VOCAB.size, 1024), dModel: 16, nLayers: 1, nHeads: 4, dFF: 32 };

/** the real policy runs every prefill/step on the cache; the token it "samples" is the script's at the row's length */
function scriptedPolicy(real: Policy, onLogits: (values: number[][], lens: number[], active: boolean[]) => void = () => {}): Policy {
  return {
    config: real.config,
    newCache: (b: number, m: number) => real.newCache(b, m),
    prefill: (c: KVCache, rows: number[], toks: number[][]) => real.prefill(c, rows, toks),
    step: (c: KVCache, last: Int32Array, active: boolean[]) => {
      const lens = active.map((_, b) => c.lengthOf(b));
      const logits = real.step(c, last, active);
      onLogits(logits.arraySync() as number[][], lens, active);
      logits.dispose();
      return tf.tidy(() => tf.oneHot(active.map((a, b) => (a ? script[lens[b] + 1] : 0)), VOCAB.size).cast('float32').mul(100) as tf.Tensor2D);
    },
  } as unknown as Policy;
}

describe('ARPO branching rollout (wasm)', () => {
  it('forks KV-cache rows at observation ends; branches replay the script with their parents\' logits', async () => {
    await tf.setBackend('wasm');
    const real = createPolicy(config, 1);
    const before = tf.memory().numTensors;
    const logitsAt = new Map<number, Float32Array>(); // position → the real logits first computed there
    let compared = 0;
    let maxDiff = 0;
    const scripted = scriptedPolicy(real, (values, lens, active) => active.forEach((a, b) => {
      if (!a) return;
      const pos = lens[b]; // the token fed now sits at index pos; its logits predict index pos + 1
      const seen = logitsAt.get(pos);
      if (!seen) logitsAt.set(pos, Float32Array.from(values[b]));
      else { compared++; maxDiff = Math.max(maxDiff, ...values[b].map((v, i) => Math.abs(v - seen[i]))); }
    }));
    try {
      const eps = await rollout(scripted, [{ kind: 'travel', query }, { kind: 'travel', query }], {
        world, rng: new Rng(6), greedy: true, maxTurns: 100,
        branching: { groups: [0, 0], budget: 4, k: 3, alpha: 1, beta: 0, branches: 1 },
      });
      expect(eps).toHaveLength(4);
      for (const e of eps) {
        expect(e.tokens).toEqual(script); // every rollout, root or branch, replays the teacher
        expect(e.finish).toBe('eos');
        expect(e.plan).not.toBeNull();
        expect(e.steps.map((s) => s.call)).toEqual(traj.steps.map((s) => s.call));
      }
      const roots = eps.filter((e) => e.branch!.parent === null);
      const branches = eps.filter((e) => e.branch!.parent !== null);
      expect(roots).toHaveLength(2);
      expect(branches).toHaveLength(2);
      for (const b of branches) {
        expect(b.branch!.parent).toBeLessThan(eps.indexOf(b)); // parents come first
        expect(eps[0].observationEnds).toContain(b.branch!.forkAt); // forked right after an observation
        expect(b.lossMask.slice(0, b.branch!.forkAt)).toEqual(eps[b.branch!.parent!].lossMask.slice(0, b.branch!.forkAt));
      }
      // branches recomputed positions their parents had: identical logits means the cache rows were forked right
      expect(compared).toBeGreaterThan(50);
      expect(maxDiff).toBeLessThan(1e-4);
      expect(tf.memory().numTensors).toBe(before);
    } finally {
      real.dispose();
    }
  });

  it('α = 0, β = 0 never branches; the groups fill their budget from the prompt', async () => {
    await tf.setBackend('wasm');
    const real = createPolicy(config, 1);
    const scripted = scriptedPolicy(real);
    try {
      const eps = await rollout(scripted, [{ kind: 'travel', query }], {
        world, rng: new Rng(6), greedy: true, maxTurns: 100,
        branching: { groups: [0], budget: 2, k: 3, alpha: 0, beta: 0, branches: 2 },
      });
      expect(eps.map((e) => e.branch)).toEqual([
        { group: 0, parent: null, forkAt: 0, fill: false },
        { group: 0, parent: null, forkAt: 0, fill: true },
      ]);
      for (const e of eps) expect(e.tokens).toEqual(script);
    } finally {
      real.dispose();
    }
  });
});
