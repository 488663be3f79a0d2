// Learning (issue 10): from the shipped preset-s SFT checkpoint, GRPO with the Sum reward raises the
// reward the policy earns on its training queries and does not lower validation success against the
// step-0 evaluation. Deterministic on wasm (seeded sampling, tool calls and query order), so the
// numbers below are what every run of this test reproduces.
//
// Before and after are measured the same way: greedy rollouts on exactly the training queries of the
// run (STEPS × Q of them), scored with Sum; and greedy validation success on the first EVAL queries.
// Opt-in (STAR_RL_LEARNING=1): it does not pass yet. Measured 2026-12-01 (wasm, shared machine, 541 s):
// lr 3e-4, 8 steps of 4×8 — greedy Sum reward on the trained queries 0.559 → 0.611 (up), validation success
// (40 queries) 0.275 → 0.100 (down); sampled reward per step 0.20 0.56 0.23 0.29 0.13 0.22 0.35 0.32.
// RL fits the trained queries but costs held-out success at this rate; a lower lr / more queries is the
// next probe before it joins npm test (issue 10).
// Probes (GRPO, Sum, 4 queries × 8, shared machine): lr 1e-3 collapsed by step 5 (delivery 0.69 → 0,
// KL 0.39, validation success 0.275 → 0); lr 3e-4 and 1e-4 were stable over the 3–4 steps they ran.
import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { readCheckpointDir } from '../../src/cli/checkpointDir.ts';
import { policyFromCheckpoint } from '../../src/rl/loadPolicy.ts';
import { rlEnvironment } from '../../src/rl/rlEnvironment.ts';
import { rlConfigFor } from '../../src/rl/rlConfig.ts';
import { RlTrainer } from '../../src/rl/rlTrainer.ts';
import { rollout } from '../../src/agent/rollout.ts';
import { evaluatePlan } from '../../src/env/evaluate.ts';
import { sumReward } from '../../src/env/rewards.ts';
import { Rng } from '../../src/env/random.ts';
import type { Query } from '../../src/env/types.ts';
import type { Policy } from '../../src/model/transformer.ts';

const STEPS = Number(process.env.STAR_RL_STEPS ?? 8);
const LR = Number(process.env.STAR_RL_LR ?? 3e-4);
const Q = 4;
const EVAL = 40;

async function greedySum(policy: Policy, world: Parameters<typeof evaluatePlan>[0], queries: readonly Query[]): Promise<number> {
  const eps = await rollout(policy, queries.map((query) => ({ kind: 'travel', query }) as const), { world, greedy: true, rng: new Rng(0) });
  return eps.reduce((s, e, i) => s + sumReward(evaluatePlan(world, queries[i], e.plan)), 0) / eps.length;
}

describe.skipIf(!process.env.STAR_RL_LEARNING)('RL learns (wasm, shipped s checkpoint, GRPO + Sum)', () => {
  it('raises the training reward and keeps validation success', async () => {
    await tf.setBackend('wasm');
    const ckpt = await readCheckpointDir('public/checkpoints/s-tiny');
    const env = rlEnvironment({ world: ckpt.card.world, data: ckpt.card.data, contextLength: ckpt.config.contextLength }, { trainSize: 1000, mix: [4, 3, 3] });
    const config = rlConfigFor('grpo', { reward: 'sum', steps: STEPS, queriesPerStep: Q, groupSize: 8, learningRate: LR, evalQueries: EVAL, evalToolQa: 0, seed: 1 });
    const policy = policyFromCheckpoint(ckpt);
    const reference = policyFromCheckpoint(ckpt);
    const trainer = new RlTrainer(policy, reference, env, config);
    try {
      // the queries the run trains on, in its own schedule (a pure function of seed and step)
      const perm = new Rng(config.seed).fork(0x9e7).shuffle(env.train.map((_, i) => i));
      const trained = perm.slice(0, STEPS * Q).map((i) => env.train[i]);
      const before = await greedySum(policy, env.world, trained);
      const valBefore = (await trainer.evaluate())['eval/success'];
      const rewards: number[] = [];
      for (let s = 0; s < STEPS; s++) rewards.push((await trainer.trainStep())['reward/mean']);
      const after = await greedySum(policy, env.world, trained);
      const valAfter = (await trainer.evaluate())['eval/success'];
      console.log(`[rl learning] lr ${LR}, ${STEPS} steps of ${Q}×8: greedy Sum reward on the trained queries ${before.toFixed(3)} → ${after.toFixed(3)}; ` +
        `validation success (${EVAL}) ${valBefore} → ${valAfter}; sampled reward per step ${rewards.map((r) => r.toFixed(2)).join(' ')}`);
      expect(after).toBeGreaterThan(before);
      expect(valAfter).toBeGreaterThanOrEqual(valBefore);
    } finally {
      trainer.dispose();
      policy.dispose();
      reference.dispose();
    }
  }, 900_000);
});
