import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { generateWorld } from '../../src/env/world.ts';
import { buildDataset } from '../../src/env/queries.ts';
import { generateToolQa } from '../../src/env/toolqa.ts';
import { Rng } from '../../src/env/random.ts';
import { createPolicy } from '../../src/model/transformer.ts';
import { preset } from '../../src/model/config.ts';
import { rollout } from '../../src/agent/rollout.ts';
import { trainingRow, type AgentTask } from '../../src/agent/episode.ts';
import { VOCAB } from '../../src/agent/vocab.ts';
import { encodeTrajectory } from '../../src/agent/encode.ts';
import { teachTrajectory } from '../../src/env/teacher.ts';
import type { Policy } from '../../src/model/transformer.ts';

await tf.setBackend('cpu');

describe('rollout on an untrained model', () => {
  const world = generateWorld('tiny', 3);
  const ds = buildDataset(world, { size: 6, mix: [4, 3, 3], seed: 3, validationSize: 0, testSize: 0 });
  const qa = generateToolQa(world, new Rng(1), 2);
  const tasks: AgentTask[] = [...ds.train.map((query) => ({ kind: 'travel', query }) as const), ...qa.map((q) => ({ kind: 'toolqa', qa: q }) as const)];
  const config = { ...preset('s', VOCAB.size, 256), dModel: 32, nLayers: 1, nHeads: 2, dFF: 64 };

  it('never crashes, respects token and turn limits, and records aligned per-token data', async () => {
    const policy = createPolicy(config, 1);
    try {
      const eps = await rollout(policy, tasks, { world, rng: new Rng(2), maxTokens: 120, maxTurns: 3, temperature: 1 });
      expect(eps).toHaveLength(tasks.length);
      for (const e of eps) {
        expect(e.tokens.length).toBeLessThanOrEqual(120);
        for (const a of [e.lossMask, e.logProbs, e.entropies]) expect(a).toHaveLength(e.tokens.length);
        expect(e.lossMask.slice(0, e.promptLength).every((m) => m === 0)).toBe(true);
        expect(e.steps.length + e.callErrors.length).toBeLessThanOrEqual(3);
        e.logProbs.forEach((lp, i) => (e.lossMask[i] ? expect(lp).toBeLessThanOrEqual(0) : expect(lp).toBe(0)));
        // an untrained model delivers nothing, and says why
        if (e.task.kind === 'travel' && !e.plan) expect(e.planError).toBeTruthy();
      }
    } finally {
      policy.dispose();
    }
  });

  it('replays a teacher trajectory exactly: calls run, observations appended by prefill, plan decoded', async () => {
    // A scripted stand-in for the policy: each row emits the policy tokens of a teacher episode in
    // order (one-hot logits), so the episode must come out token-for-token equal to encodeTrajectory.
    const rng = new Rng(5);
    const trajs = ds.train.map((q) => teachTrajectory(world, q, { rng })).filter((t) => t !== null).slice(0, 3);
    const encoded = trajs.map((t) => encodeTrajectory(t));
    const scripts = encoded.map((e) => e.tokens.filter((_, i) => e.lossMask[i] === 1));
    const cursor = scripts.map(() => 0);
    const prefilled: number[][][] = scripts.map(() => []);
    const fake = {
      config: { ...config, contextLength: 1024 },
      newCache: () => ({ dispose() {} }),
      prefill: (_c: unknown, rows: number[], toks: number[][]) => rows.forEach((r, i) => prefilled[r].push(toks[i])),
      step: (_c: unknown, _last: Int32Array, active: boolean[]) => tf.tidy(() => {
        const ids = scripts.map((s, b) => (active[b] ? s[cursor[b]++] : 0));
        return tf.oneHot(ids, VOCAB.size).cast('float32').mul(100) as tf.Tensor2D;
      }),
    } as unknown as Policy;
    const eps = await rollout(fake, trajs.map((t) => ({ kind: 'travel', query: t.query })), { world, rng: new Rng(6), greedy: true, maxTurns: 100 });
    eps.forEach((e, b) => {
      expect(e.finish).toBe('eos');
      expect(e.tokens).toEqual(encoded[b].tokens);
      expect(e.lossMask).toEqual(encoded[b].lossMask);
      expect(e.steps).toEqual(trajs[b].steps);
      expect(e.plan).toEqual(trajs[b].plan);
      expect(e.observationEnds).toHaveLength(trajs[b].steps.length);
      // the first prefill is the prompt minus its last token; each later one is </call> + the observation minus </obs>
      expect(prefilled[b][0]).toEqual(encoded[b].tokens.slice(0, e.promptLength - 1));
      for (const [k, end] of e.observationEnds.entries()) {
        const obsStart = e.tokens.lastIndexOf(VOCAB.id('<obs>'), end - 1);
        expect(prefilled[b][k + 1]).toEqual(e.tokens.slice(obsStart - 1, end - 1));
        expect(e.lossMask.slice(obsStart, end).every((m) => m === 0)).toBe(true);
      }
    });
  });

  it('constrained plans: a policy that prefers an unresolvable ref is steered to the next best, and the bans are recorded', async () => {
    // the scripted stand-in again, now putting its top logit on #40 (past every list) wherever the
    // teacher's plan has a ref, with the teacher's token second
    const rng = new Rng(5);
    const trajs = ds.train.map((q) => teachTrajectory(world, q, { rng })).filter((t) => t !== null).slice(0, 3);
    const encoded = trajs.map((t) => encodeTrajectory(t));
    const scripts = encoded.map((e) => e.tokens.filter((_, i) => e.lossMask[i] === 1));
    const ref40 = VOCAB.id('#40');
    const run = async (constrainPlan: boolean) => {
      const cursor = scripts.map(() => 0);
      const inPlan = scripts.map(() => false);
      const fake = {
        config: { ...config, contextLength: 1024 },
        newCache: () => ({ dispose() {} }),
        prefill: () => {},
        step: (_c: unknown, _last: Int32Array, active: boolean[]) => tf.tidy(() => {
          const rows = scripts.map((s, b) => {
            const row = new Array<number>(VOCAB.size).fill(0);
            if (!active[b]) return row;
            const id = s[cursor[b]++];
            inPlan[b] ||= id === VOCAB.id('<plan>');
            row[id] = 50;
            if (inPlan[b] && VOCAB.tokens[id].startsWith('#')) row[ref40] = 100;
            return row;
          });
          return tf.tensor2d(rows);
        }),
      } as unknown as Policy;
      return rollout(fake, trajs.map((t) => ({ kind: 'travel', query: t.query })), { world, rng: new Rng(6), greedy: true, maxTurns: 100, constrainPlan });
    };
    const free = await run(false);
    for (const e of free) expect(e.planError).toMatch(/#40 is not among/);
    const constrained = await run(true);
    constrained.forEach((e, b) => {
      expect(e.tokens).toEqual(encoded[b].tokens);
      expect(e.plan).toEqual(trajs[b].plan);
      const refs = e.tokens.map((t, i) => (i > e.tokens.indexOf(VOCAB.id('<plan>')) && VOCAB.tokens[t].startsWith('#') ? i : -1)).filter((i) => i >= 0);
      for (const i of refs) {
        const ban = e.bans.find((x) => x.index === i);
        expect(ban?.ids).toContain(ref40);
        expect(e.logProbs[i]).toBeCloseTo(0, 5); // the masked distribution's log-prob: the teacher token is now all the mass
      }
      // RL rows carry the same bans, shifted to target positions
      expect(trainingRow(e).targetBans.map((x) => x.target)).toEqual(e.bans.map((x) => x.index - 1));
    });
  });

  it('seeded sampling rollouts are deterministic and leave no tensors across 20 batches', async () => {
    const policy = createPolicy(config, 4);
    try {
      const run = () => rollout(policy, tasks.slice(0, 4), { world, rng: new Rng(9), maxTokens: 44, temperature: 1.3 });
      const first = await run();
      // the sampling log-probs equal the training forward's at the same temperature (GRPO's old log-probs)
      const row = trainingRow(first[0]);
      const lp = tf.tidy(() => policy.logProbs(tf.tensor2d(row.tokens, [1, row.tokens.length], 'int32'), undefined, { temperature: 1.3 }).logProbs.arraySync()[0]);
      row.targetMask.forEach((m, t) => { if (m) expect(lp[t]).toBeCloseTo(row.oldLogProbs[t], 3); });
      expect(row.targetMask.some((m) => m === 1)).toBe(true);
      const before = tf.memory().numTensors;
      for (let i = 0; i < 20; i++) await run();
      expect(tf.memory().numTensors).toBe(before);
      expect((await run()).map((e) => e.tokens)).toEqual(first.map((e) => e.tokens));
    } finally {
      policy.dispose();
    }
  });
});
