// The agent's figures:
//   agent.len.d<3|5|7>.<min|median|p95|max>  tokens of an encoded teacher trajectory at `standard` size
//                                            (the token language's budget: a 7-day trip must fit 1,024)
//   sft.success.<s|m|l>                      final pass rate on the validation split after SFT at `small`
//                                            size (the lab's analogue of the paper's SFT column 6.9/12.2/19.7 %),
//                                            with sft.delivery.*, sft.ood.* (tool-QA accuracy), sft.train_s.*
//                                            (wall seconds of training) and sft.steps.*; sft.success_constrained.*
//                                            and sft.delivery_constrained.* decode the same policy's plans
//                                            with constrained plan decoding (plan.ts unresolvableNext)
//   agent.rollout.trajectories_per_s.b64     sampled (T = 1) episodes per second, batch 64, with the SFT'd
//                                            `s` policy at `small` size (tools run inline), CPU time
//   agent.rollout.tokens.median              median episode length of those rollouts
// SFT and rollouts run on the `wasm` backend (the model's figures on `cpu` are the `model` suite's):
// here `cpu` trains ~6× slower. `--quick` shrinks the SFT runs to a smoke test (preset s only, tiny
// world, 10 steps of 4): its sft.* figures then say nothing about quality. The full suite trains each
// preset 800 steps of 8 at lr 3e-3 at `small` size: ~6,400 sequences of ~400 tokens, about 25 min of
// one core for s and m and 60 for l here (sft-cpu suite: sft.step_s.*.wasm). On the tiny world 1,800
// steps were needed for delivery 0.7 (test/integration/sft.test.ts), so these figures measure SFT at a
// budget, not converged SFT. STAR_BENCH_PRESETS=s,m runs some presets only (to split the hours). Times are process CPU
// time (the machine is shared).
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { cpuSeconds, type BenchSuite, type Report } from './harness.ts';
import { generateWorld } from '../src/env/world.ts';
import { buildDataset } from '../src/env/queries.ts';
import { teachTrajectory } from '../src/env/teacher.ts';
import { Rng } from '../src/env/random.ts';
import { encodeTrajectory } from '../src/agent/encode.ts';
import { rollout } from '../src/agent/rollout.ts';
import { runSftPipeline, type SftPipelineOptions } from '../src/rl/sftPipeline.ts';
import type { Policy } from '../src/model/transformer.ts';
import type { PresetName } from '../src/model/config.ts';
import type { World, Query } from '../src/env/types.ts';


const quantile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

export function trajectoryLengths(world: World, queries: readonly Query[], seed: number): Record<3 | 5 | 7, number[]> {
  const rng = new Rng(seed);
  const by: Record<3 | 5 | 7, number[]> = { 3: [], 5: [], 7: [] };
  for (const q of queries) {
    const t = teachTrajectory(world, q, { rng });
    if (t) by[q.days].push(encodeTrajectory(t).tokens.length);
  }
  for (const d of [3, 5, 7] as const) by[d].sort((a, b) => a - b);
  return by;
}

function reportLengths(report: Report, quick: boolean): void {
  const world = generateWorld('standard', 1);
  const ds = buildDataset(world, { size: quick ? 90 : 300, mix: [4, 3, 3], seed: 1, validationSize: 0, testSize: 0 });
  const by = trajectoryLengths(world, ds.train, 7);
  for (const d of [3, 5, 7] as const) {
    const a = by[d];
    if (a.length === 0) continue;
    report(`agent.len.d${d}.min`, a[0], 'tokens');
    report(`agent.len.d${d}.median`, quantile(a, 0.5), 'tokens');
    report(`agent.len.d${d}.p95`, quantile(a, 0.95), 'tokens');
    report(`agent.len.d${d}.max`, a[a.length - 1], 'tokens', `${a.length} trajectories`);
  }
}

async function rolloutThroughput(report: Report, policy: Policy, world: World, queries: Query[]): Promise<void> {
  const tasks = Array.from({ length: 64 }, (_, i) => ({ kind: 'travel', query: queries[i % queries.length] }) as const);
  const t0 = cpuSeconds();
  const eps = await rollout(policy, tasks, { world, rng: new Rng(3), temperature: 1 });
  const s = cpuSeconds() - t0;
  const lens = eps.map((e) => e.tokens.length).sort((a, b) => a - b);
  report('agent.rollout.trajectories_per_s.b64', 64 / s, 'traj/s', `${s.toFixed(1)} CPU s for 64 episodes`);
  report('agent.rollout.tokens.median', quantile(lens, 0.5), 'tokens');
}

export const agentSuite: BenchSuite = {
  name: 'agent',
  async run(report, { quick }) {
    reportLengths(report, quick);
    const previous = tf.getBackend() as string | undefined; // undefined until some suite picked one
    await tf.setBackend('wasm');
    await tf.ready();
    try {
      await sftPerPreset(report, quick);
    } finally {
      if (previous) await tf.setBackend(previous);
    }
  },
};

/** steps of 8 of the per-preset SFT at `small` */
export const SFT_BENCH_STEPS = 800;

/** the per-preset SFT recipe (also timed on cpu by bench/sftCpu.ts) */
export function sftBenchOptions(p: PresetName, quick: boolean): SftPipelineOptions {
  return {
    worldSize: quick ? 'tiny' : 'small',
    seed: 1,
    preset: p,
    trainQueries: quick ? 60 : 600,
    validationQueries: quick ? 20 : 100,
    toolQa: quick ? 15 : 150,
    steps: quick ? 10 : SFT_BENCH_STEPS,
    batchSize: quick ? 4 : 8,
    peakLr: 3e-3,
    model: quick ? { contextLength: 512 } : {},
  };
}

/** STAR_BENCH_PRESETS=l (a comma list) runs only those presets: the full set takes hours of one core */
function benchPresets(quick: boolean): PresetName[] {
  const env = typeof process !== 'undefined' ? process.env.STAR_BENCH_PRESETS : undefined;
  if (env) return env.split(',').filter((p): p is PresetName => p === 's' || p === 'm' || p === 'l');
  return quick ? ['s'] : ['s', 'm', 'l'];
}

async function sftPerPreset(report: Report, quick: boolean): Promise<void> {
  for (const p of benchPresets(quick)) {
    const t0 = cpuSeconds();
    const w0 = performance.now();
    const r = await runSftPipeline(sftBenchOptions(p, quick));
    const e = r.evaluation;
    report(
      `sft.success.${p}`,
      e.success,
      'fraction',
      `${r.parameters} params, ${r.stepsDone} steps, loss ${r.finalLoss.toFixed(3)}`,
    );
    report(`sft.delivery.${p}`, e.deliveryRate, 'fraction');
    report(`sft.ood.${p}`, e.oodAccuracy, 'fraction');
    report(`sft.success_constrained.${p}`, r.constrained.success, 'fraction', 'constrained plan decoding');
    report(`sft.delivery_constrained.${p}`, r.constrained.deliveryRate, 'fraction');
    report(
      `sft.train_s.${p}`,
      r.trainSeconds,
      's',
      `wall; total ${(cpuSeconds() - t0).toFixed(0)} CPU s, ${((performance.now() - w0) / 1000).toFixed(0)} wall s with data + eval`,
    );
    report(`sft.steps.${p}`, r.stepsDone, 'steps');
    if (p === 's') {
      const world = generateWorld(quick ? 'tiny' : 'small', 1);
      const ds = buildDataset(world, { size: 0, mix: [4, 3, 3], seed: 1, validationSize: 64, testSize: 0 });
      await rolloutThroughput(report, r.policy, world, ds.validation);
    }
    r.policy.dispose();
  }
}
