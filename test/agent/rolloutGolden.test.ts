// The rollout loop's golden record: fixed seeds through the shipped s-tiny checkpoint on wasm give exactly
// the episodes test/fixtures/rollout-golden.json holds — GRPO rows with tool failures and compaction
// (8 → 4 rows), ARPO with constrained plans that branches, and ARPO groups filled from the prompt.
// The fixture was written by the loop before it was rewritten as one record per row; a refactor of the
// loop must leave every token, finish and branch as it was. A deliberate change of the model's numerics or
// of the sampling law changes it: rewrite it then with UPDATE_ROLLOUT_GOLDEN=1 and say why in the commit.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { readCheckpointDir } from '../../src/node/checkpointDir.ts';
import { policyFromCheckpoint } from '../../src/rl/loadPolicy.ts';
import { rlEnvironment } from '../../src/rl/rlEnvironment.ts';
import { rollout } from '../../src/agent/rollout.ts';
import { type AgentTask, type Episode } from '../../src/agent/episode.ts';
import { Rng } from '../../src/env/random.ts';
import { Policy } from '../../src/model/transformer.ts';

const FIXTURE = 'test/fixtures/rollout-golden.json';

/** an episode as the fixture keeps it: its tokens by hash, the rest as it is (log-probs summed, to 1e-3) */
function digest(e: Episode) {
  return {
    length: e.tokens.length,
    tokens: createHash('sha256').update(e.tokens.join(',')).digest('hex').slice(0, 16),
    finish: e.finish, toolFailures: e.toolFailures, steps: e.steps.length, callErrors: e.callErrors.length,
    bans: e.bans.length, plan: e.plan !== null, branch: e.branch ?? null,
    logProbSum: Math.round(e.logProbs.reduce((a, b) => a + b, 0) * 1000) / 1000,
  };
}

describe('rollout golden record (wasm)', () => {
  it('fixed seeds give the recorded episodes: GRPO with compaction, ARPO with branches, ARPO with fills', async () => {
    expect(await tf.setBackend('wasm')).toBe(true);
    const ckpt = await readCheckpointDir('public/checkpoints/s-tiny');
    const env = rlEnvironment({ world: ckpt.card.world, data: ckpt.card.data, contextLength: ckpt.config.contextLength },
      { trainSize: 100, mix: [4, 3, 3] });
    const policy = policyFromCheckpoint(ckpt);
    const travel = (n: number, from: number): AgentTask[] => env.train.slice(from, from + n).map((query) => ({ kind: 'travel', query }));
    const batches: number[] = [];
    const step = Policy.prototype.step;
    Policy.prototype.step = function (this: Policy, cache, last, active) { batches.push(cache.batch); return step.call(this, cache, last, active); };
    try {
      const before = tf.memory().numTensors;
      const grpo = await rollout(policy, travel(8, 0), { world: env.world, rng: new Rng(4), failureRate: 0.1, maxTokens: 320 });
      expect([...new Set(batches)]).toEqual([8, 4]); // compacted
      const arpo = await rollout(policy, travel(2, 60).flatMap((t) => [t, t]), { world: env.world, rng: new Rng(11), failureRate: 0.2,
        maxTokens: 320, constrainPlan: true, branching: { groups: [0, 0, 1, 1], budget: 5, k: 3, alpha: 0.6, beta: 1, branches: 2 } });
      const fills = await rollout(policy, travel(2, 80), { world: env.world, rng: new Rng(13), maxTurns: 2, failureRate: 0.3,
        branching: { groups: [0, 1], budget: 4, k: 2, alpha: 0.3, beta: 0, branches: 1 } });
      expect(tf.memory().numTensors).toBe(before);
      const got = { grpo: grpo.map(digest), arpo: arpo.map(digest), fills: fills.map(digest) };
      if (process.env.UPDATE_ROLLOUT_GOLDEN) writeFileSync(FIXTURE, JSON.stringify(got, null, 1) + '\n');
      const want = JSON.parse(readFileSync(FIXTURE, 'utf8')) as typeof got;
      // the cases cover what they are meant to: branches, fills, bans and tool failures were all met
      expect(want.arpo.some((e) => e.branch?.parent !== null)).toBe(true);
      expect(want.fills.some((e) => e.branch?.fill)).toBe(true);
      expect(want.arpo.some((e) => e.bans > 0)).toBe(true);
      expect(want.grpo.some((e) => e.toolFailures > 0)).toBe(true);
      for (const k of ['grpo', 'arpo', 'fills'] as const) {
        expect(got[k].map(({ logProbSum: _, ...e }) => e), k).toEqual(want[k].map(({ logProbSum: _, ...e }) => e));
        got[k].forEach((e, i) => expect(e.logProbSum, `${k} ${i}`).toBeCloseTo(want[k][i].logProbSum, 2));
      }
    } finally {
      Policy.prototype.step = step;
      policy.dispose();
    }
  }, 60_000);
});
