// RL step costs, from the shipped preset-s SFT checkpoint on the tiny world, wasm:
//   rl.arpo_over_grpo             CPU time of an ARPO step over a GRPO step at the same number of rollouts
//                                 (M = G = 8 per query, 4 queries; ARPO: N = 4 from the prompt, the rest
//                                 branched by forking the KV cache). The paper's GPU-time ratio is
//                                 547/368 ≈ 1.49; the target here is ≤ 1.2.
//   rl.arpo_over_grpo.rollout     the same for the rollout phase alone (the update's cost follows the
//                                 sampled lengths; GRPO's rollout drops finished rows, ARPO's reuses them)
//   rl.step_s.grpo, rl.step_s.arpo CPU seconds per step of each, after one untimed warm-up step
//   rl.time_share.rollout|reward|update  where a GRPO step's wall time goes
// Both algorithms run the same steps (same seed, so the same queries) side by side in one process.
// Then the update's own figures (bench/rlUpdate.ts): rl.update_s.*, rl.update_speedup; with
// STAR_BENCH_RL_UPDATE_ONLY=1 those alone.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { cpuSeconds, type BenchSuite } from './harness.ts';
import { readCheckpointDir } from '../src/node/checkpointDir.ts';
import { policyFromCheckpoint } from '../src/rl/loadPolicy.ts';
import { rlEnvironment } from '../src/rl/rlEnvironment.ts';
import { rlConfigFor, type Algorithm, type RlConfig } from '../src/rl/rlConfig.ts';
import { RlTrainer } from '../src/rl/rlTrainer.ts';
import { rlUpdateBench } from './rlUpdate.ts';
// What these runs were measured with before the page's settings table gave the trainer its defaults (the page's:
// temperature 0.7, constrained plans, 100 validation queries, no sampled evaluation): kept, so the figures stay
// comparable.
const MEASURED_WITH: Partial<RlConfig> = { temperature: 1, planDecoding: 'free', evalQueries: 40, evalSamples: 4 };

export const rlSuite: BenchSuite = {
  name: 'rl',
  async run(report, { quick }) {
    const previous = tf.getBackend();
    await tf.setBackend('wasm');
    try {
      const ckpt = await readCheckpointDir('public/checkpoints/s-tiny');
      const env = rlEnvironment(
        { world: ckpt.card.world, data: ckpt.card.data, contextLength: ckpt.config.contextLength },
        { trainSize: 1000, mix: [4, 3, 3] },
      );
      if (process.env.STAR_BENCH_RL_UPDATE_ONLY === '1') { // the update's figures alone (bench/rlUpdate.ts)
        await rlUpdateBench(report, { quick });
        return;
      }
      const steps = quick ? 1 : 3;
      const measure = async (algorithm: Algorithm) => {
        const policy = policyFromCheckpoint(ckpt);
        const reference = policyFromCheckpoint(ckpt);
        const t = new RlTrainer(
          policy,
          reference,
          env,
          rlConfigFor(algorithm, {
            ...MEASURED_WITH,
            queriesPerStep: quick ? 2 : 4,
            groupSize: 8,
            steps: steps + 1,
            seed: 3,
            klCoef: 0.001,
          }),
        );
        const share = { rollout: 0, reward: 0, update: 0 };
        let cpu = 0;
        let rollouts = 0;
        try {
          await t.trainStep(); // warm-up, untimed: first kernels and allocations (the first algorithm measured would pay them alone)
          for (let i = 0; i < steps; i++) {
            const c0 = cpuSeconds();
            const m = await t.trainStep();
            cpu += cpuSeconds() - c0;
            rollouts += m['charts/rollouts']!;
            share.rollout += m['time/rollout']!;
            share.reward += m['time/reward']!;
            share.update += m['time/update']!;
          }
        } finally {
          t.dispose();
          policy.dispose();
          reference.dispose();
        }
        return { stepS: cpu / steps, share, rollouts };
      };
      const grpo = await measure('grpo');
      const arpo = await measure('arpo');
      report('rl.step_s.grpo', grpo.stepS, 's', `${grpo.rollouts / steps} rollouts per step`);
      report('rl.step_s.arpo', arpo.stepS, 's', `${arpo.rollouts / steps} rollouts per step`);
      report('rl.arpo_over_grpo', arpo.stepS / grpo.stepS, '×', 'paper 547/368 ≈ 1.49 GPU hours; target ≤ 1.2');
      // the rollouts alone: the update's cost follows the sampled lengths, which differ between the two
      report('rl.arpo_over_grpo.rollout', arpo.share.rollout / grpo.share.rollout, '×', 'rollout wall time only');
      const total = grpo.share.rollout + grpo.share.reward + grpo.share.update;
      for (const k of ['rollout', 'reward', 'update'] as const)
        report(`rl.time_share.${k}`, grpo.share[k] / total, 'fraction', 'GRPO step, wall time');
      await rlUpdateBench(report, { quick });
    } finally {
      if (previous) await tf.setBackend(previous);
    }
  },
};
