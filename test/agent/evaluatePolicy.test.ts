// evaluatePolicy end to end with a scripted stand-in for the model: replaying the teacher's tokens
// must score as the teacher does (every plan delivered and passing, every tool-QA answer right), and
// replaying garbage must score zero with the reasons reported. The sampled mode (k rollouts per task)
// averages over every sample, keeps each query's own rate, and is deterministic on cpu for a seed.
import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { generateWorld } from '../../src/env/world.ts';
import { buildDataset } from '../../src/env/queries.ts';
import { teachTrajectory } from '../../src/env/teacher.ts';
import { generateToolQa, teachToolQa } from '../../src/env/toolqa.ts';
import { Rng } from '../../src/env/random.ts';
import { encodeTrajectory } from '../../src/agent/encode.ts';
import { encodeToolQaEpisode } from '../../src/agent/toolqaCodec.ts';
import { evaluatePolicy } from '../../src/agent/evaluatePolicy.ts';
import { VOCAB } from '../../src/agent/vocab.ts';
import { createPolicy, type Policy } from '../../src/model/transformer.ts';
import { preset } from '../../src/model/config.ts';

await tf.setBackend('cpu');

/** a "policy" whose row b emits scripts[b] token by token (one-hot logits) */
function scripted(scripts: number[][]): Policy {
  const cursor = scripts.map(() => 0);
  let offset = 0; // evaluatePolicy runs batches in order; rows of a batch are scripts[offset + b]
  return {
    config: { vocabSize: VOCAB.size, contextLength: 1024, dModel: 8, nLayers: 1, nHeads: 1, dFF: 8 },
    newCache: (batch: number) => ({ dispose() { offset += batch; } }),
    prefill: () => {},
    step: (_c: unknown, last: Int32Array, active: boolean[]) => tf.tidy(() => {
      const ids = Array.from(last, (_, b) => (active[b] ? scripts[offset + b][cursor[offset + b]++] ?? VOCAB.id('<eos>') : 0));
      return tf.oneHot(ids, VOCAB.size).cast('float32').mul(100) as tf.Tensor2D;
    }),
  } as unknown as Policy;
}

describe('evaluatePolicy', () => {
  const world = generateWorld('tiny', 2);
  const ds = buildDataset(world, { size: 0, mix: [4, 3, 3], seed: 2, validationSize: 12, testSize: 0 });
  const rng = new Rng(4);
  const trajs = ds.validation.map((q) => teachTrajectory(world, q, { rng })).filter((t) => t !== null);
  const qa = generateToolQa(world, new Rng(8), 6);
  const qaEps = qa.map((t) => teachToolQa(world, t, rng)!);
  const policyPart = (e: { tokens: number[]; lossMask: number[] }) => e.tokens.filter((_, i) => e.lossMask[i] === 1);

  it('scores replayed teacher episodes as the teacher: all delivered, all pass, OOD 100 %', async () => {
    const scripts = [...trajs.map((t) => policyPart(encodeTrajectory(t))), ...qaEps.map((e) => policyPart(encodeToolQaEpisode(e)))];
    const r = await evaluatePolicy(scripted(scripts), world, trajs.map((t) => t.query), qa, { batchSize: 5 });
    expect(r.queries).toBe(trajs.length);
    expect(r.deliveryRate).toBe(1);
    expect(r.parseRate).toBe(1);
    expect(r.callParseRate).toBe(1);
    expect(r.success).toBe(1);
    expect(r.commonsenseMicro).toBe(1);
    expect(r.hardMicro).toBe(1);
    expect(r.oodAccuracy).toBe(1);
    expect(r.episodes.map((e) => e.plan).slice(0, trajs.length)).toEqual(trajs.map((t) => t.plan));
  });

  it('scores undelivered plans and wrong answers as zero, with reasons', async () => {
    const eos = [VOCAB.id('<eos>')];
    const wrongAnswer = [VOCAB.id('<ans>'), VOCAB.id('#40'), VOCAB.id('<eos>')];
    const r = await evaluatePolicy(scripted([...trajs.map(() => eos), ...qa.map(() => wrongAnswer)]), world, trajs.map((t) => t.query), qa);
    expect(r.deliveryRate).toBe(0);
    expect(r.success).toBe(0);
    expect(r.oodAccuracy).toBe(0);
    expect(r.failureReasons).toEqual([['ended without <plan>', trajs.length]]);
  });

  it('sampled mode: k rollouts per task, query-major; rates over every sample, each query its own rate', async () => {
    const eos = [VOCAB.id('<eos>')];
    const teach = trajs.slice(0, 3).map((t) => policyPart(encodeTrajectory(t)));
    // query 0: teacher, eos, teacher; query 1: eos ×3; query 2: teacher ×3 (one-hot logits ×100: sampling picks them)
    const scripts = [teach[0], eos, teach[0], eos, eos, eos, teach[2], teach[2], teach[2]];
    const queries = trajs.slice(0, 3).map((t) => t.query);
    const r = await evaluatePolicy(scripted(scripts), world, queries, [], { samples: 3, temperature: 1, batchSize: 4, seed: 1 });
    expect(r.samplesPerTask).toBe(3);
    expect(r.queries).toBe(3);
    expect(r.verdicts).toHaveLength(9);
    expect(r.querySuccess).toEqual([2 / 3, 0, 1]);
    expect(r.success).toBeCloseTo(5 / 9, 12);
    expect(r.deliveryRate).toBeCloseTo(5 / 9, 12);
    const greedy = await evaluatePolicy(scripted([teach[0], eos, teach[2]]), world, queries, []);
    expect([greedy.samplesPerTask, greedy.querySuccess]).toEqual([1, [1, 0, 1]]);
    await expect(evaluatePolicy(scripted([]), world, queries, [], { samples: -1 })).rejects.toThrow(/samples/);
  });

  it('sampled mode on a tiny untrained policy is deterministic on cpu for a seed, and the seed matters', async () => {
    const config = { ...preset('s', VOCAB.size, 256), dModel: 32, nLayers: 1, nHeads: 2, dFF: 64 };
    const policy = createPolicy(config, 3);
    const queries = ds.validation.slice(0, 3);
    const run = (seed: number) => evaluatePolicy(policy, world, queries, qa.slice(0, 2), { samples: 2, temperature: 1, seed, maxTokens: 100, maxTurns: 2, batchSize: 4 });
    try {
      const [a, b, c] = [await run(5), await run(5), await run(6)];
      expect(a.episodes).toHaveLength(3 * 2 + 2 * 2);
      expect(a.toolQaTasks).toBe(2);
      expect(a.querySuccess).toHaveLength(3);
      expect(b.episodes.map((e) => e.tokens)).toEqual(a.episodes.map((e) => e.tokens));
      expect(b.verdicts).toEqual(a.verdicts);
      expect(c.episodes.map((e) => e.tokens)).not.toEqual(a.episodes.map((e) => e.tokens));
      // the two samples of a query are drawn independently
      expect(a.episodes[0].tokens).not.toEqual(a.episodes[1].tokens);
    } finally {
      policy.dispose();
    }
  });
});
