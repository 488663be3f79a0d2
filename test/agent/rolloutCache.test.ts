// Rollouts through a REAL KV cache in the patterns that crashed evaluation after SFT: the last rows
// of the batch finish first (step() with only rows 0..k-1 active: "Must have updates.shape =
// indices.shape[:batchDim]…") and a row whose next observation would overrun maxTokens. A scripted
// wrapper replays teacher episodes: the real policy's prefill/step run on the cache exactly as in a
// rollout, but the sampled tokens come from the script.
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
import { type Episode } from '../../src/agent/episode.ts';
import { VOCAB } from '../../src/agent/vocab.ts';
import { encodeTrajectory } from '../../src/agent/encode.ts';
import type { Trajectory } from '../../src/env/types.ts';

const world = generateWorld('tiny', 3);
const ds = buildDataset(world, { size: 8, mix: [4, 3, 3], seed: 3, validationSize: 0, testSize: 0 });
const policyTokens = (t: Trajectory) => { const e = encodeTrajectory(t); return e.tokens.filter((_, i) => e.lossMask[i] === 1).length; };
const teacherRng = new Rng(5);
// most policy tokens first: the last rows run out of script first, so later steps have only leading rows active
const trajs = ds.train.map((q) => teachTrajectory(world, q, { rng: teacherRng })).filter((t) => t !== null).slice(0, 3)
  .sort((a, b) => policyTokens(b) - policyTokens(a));
const encoded = trajs.map((t) => encodeTrajectory(t));
const config = { ...preset('s', VOCAB.size, 1024), dModel: 16, nLayers: 1, nHeads: 4, dFF: 32 };

/** rollout of the teacher scripts through a real policy's KV cache; returns the episodes and each step's active mask */
async function scriptedRollout(maxTokens: number): Promise<{ eps: Episode[]; actives: boolean[][] }> {
  const real = createPolicy(config, 1);
  const before = tf.memory().numTensors;
  const scripts = encoded.map((e) => e.tokens.filter((_, i) => e.lossMask[i] === 1));
  const cursor = scripts.map(() => 0);
  const actives: boolean[][] = [];
  const scripted = {
    config: real.config,
    newCache: (b: number, m: number) => real.newCache(b, m),
    prefill: (c: KVCache, rows: number[], toks: number[][]) => real.prefill(c, rows, toks),
    step: (c: KVCache, last: Int32Array, active: boolean[]) => {
      actives.push(active.slice());
      real.step(c, last, active).dispose(); // the real cache write; the sampled token is scripted
      return tf.tidy(() => {
        const ids = scripts.map((s, b) => (active[b] ? s[cursor[b]++] : 0));
        return tf.oneHot(ids, VOCAB.size).cast('float32').mul(100) as tf.Tensor2D;
      });
    },
  } as unknown as Policy;
  try {
    const eps = await rollout(scripted, trajs.map((t) => ({ kind: 'travel', query: t.query }) as const),
      { world, rng: new Rng(6), greedy: true, maxTurns: 100, maxTokens });
    expect(tf.memory().numTensors).toBe(before);
    return { eps, actives };
  } finally {
    real.dispose();
  }
}

describe.each(['cpu', 'wasm'])('rollout through the real KV cache on %s', (backend) => {
  it('the last rows finishing first (only leading rows active) decode every episode to the end', async () => {
    expect(await tf.setBackend(backend)).toBe(true);
    expect(trajs.length).toBe(3);
    const { eps, actives } = await scriptedRollout(1024);
    // the pattern that crashed: a step with rows 0..k-1 active and the rest finished
    expect(actives.some((a) => a[0] && !a[2])).toBe(true);
    eps.forEach((e, b) => {
      expect(e.finish).toBe('eos');
      expect(e.tokens).toEqual(encoded[b].tokens);
    });
  });

  it('an observation that would overrun maxTokens ends that row with max_tokens, the others go on', async () => {
    expect(await tf.setBackend(backend)).toBe(true);
    // cut row 0 at its last observation: tokens up to </call>, that observation and one more do not fit
    const obsAt = encoded[0].tokens.lastIndexOf(VOCAB.id('<obs>'));
    expect(obsAt).toBeGreaterThan(0);
    const maxTokens = encoded[0].tokens.indexOf(VOCAB.id('</obs>'), obsAt) + 1;
    const { eps } = await scriptedRollout(maxTokens);
    expect(eps[0].finish).toBe('max_tokens');
    expect(eps[0].tokens).toEqual(encoded[0].tokens.slice(0, obsAt)); // never prefilled the observation
    for (const [b, e] of eps.entries()) {
      expect(e.tokens.length).toBeLessThanOrEqual(maxTokens);
      expect(e.tokens).toEqual(encoded[b].tokens.slice(0, e.tokens.length));
      if (encoded[b].tokens.length <= maxTokens - 1) expect(e.finish).toBe('eos');
    }
  });
});
