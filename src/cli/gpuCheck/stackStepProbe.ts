// The S-seed RL step on the GPU check (`--stack-seeds 1,4,16`): the real thing the seed probe estimates. At the
// first scale, on webgpu, S seeds of the lab's default setting train one RL step in one program
// (rl/seedStackStep.ts: each seed its own rollouts, rewards and advantages, the seeds decoding together, one
// update for all), a first step (shader compiles) and one timed step per S. Its figure is seed-steps per second,
// S ÷ the timed step's seconds, against S = 1's (what is asked of it: 6× at S = 16). Each S runs only when a
// linear guess of its time (the last S's, scaled by S) fits what is left of the probe's budget and the check's
// deadline, so one call keeps its time; a GPU should do better than linear, and the skip note says so.
import * as tf from '@tensorflow/tfjs';
import { defaultConfig } from '../../lab/config.ts';
import type { RlConfig } from '../../rl/rlConfig.ts';
import { rlEnvironment } from '../../rl/rlEnvironment.ts';
import { policyFromCheckpoint } from '../../rl/loadPolicy.ts';
import { SeedStackTrainer } from '../../rl/seedStackStep.ts';
import { readCheckpointDir } from '../../node/checkpointDir.ts';
import { shippedCheckpointDir } from '../rlRun.ts';
import type { DawnCounters } from './decodeProbe.ts';
import { summarizeStack, type Scale, type StackRunFigures, type StackStepFigures } from './figures.ts';
import { METRIC } from '../../lab/metricNames.ts';

export interface StackProbeOptions {
  scale: Scale;
  /** the setting every seed trains (the check's RL config at the scale) */
  rl: RlConfig;
  seeds: readonly number[];
  /** the probe's own budget in seconds, and the seconds left to the check's deadline */
  budgetS: number;
  leftS: () => number;
  counters: DawnCounters | null;
  /** one Policy's timed step at this scale on webgpu, when the check measured it (the single-run baseline) */
  singleRunStepS: number | null;
  update: (f: StackStepFigures) => void;
}

export async function stackStepProbe(o: StackProbeOptions): Promise<void> {
  const t0 = performance.now();
  const spent = () => (performance.now() - t0) / 1000;
  const runs: StackRunFigures[] = [];
  const publish = () => o.update(summarizeStack(o.scale, o.singleRunStepS, runs));
  await tf.setBackend('webgpu');
  const ckpt = await readCheckpointDir(shippedCheckpointDir(o.scale));
  const env = rlEnvironment(
    { world: ckpt.card.world, data: ckpt.card.data, contextLength: ckpt.config.contextLength },
    { trainSize: defaultConfig().trainSize, mix: defaultConfig().mix },
  );
  for (const S of o.seeds) {
    const last = runs.filter((r) => r.firstStepS !== undefined).at(-1);
    const guessS = last ? ((last.firstStepS! + (last.stepS ?? 0)) * S) / last.seeds : 0;
    const left = Math.min(o.budgetS - spent(), o.leftS());
    if (guessS > left) {
      runs.push({ seeds: S, note: `skipped: ~${Math.round(guessS)} s if linear in S, ${Math.round(left)} s left` });
      publish();
      continue;
    }
    const run: StackRunFigures = { seeds: S };
    runs.push(run);
    const seedList = Array.from({ length: S }, (_, s) => o.rl.seed + s);
    const policies = seedList.map(() => policyFromCheckpoint(ckpt));
    const references = o.rl.klCoef > 0 ? seedList.map(() => policyFromCheckpoint(ckpt)) : null;
    let trainer: SeedStackTrainer | null = null;
    try {
      trainer = new SeedStackTrainer(policies, references, env, { config: o.rl, seeds: seedList });
      const timed = async () => {
        o.counters?.reset();
        const before = { ...trainer!.decoder.counts };
        const start = performance.now();
        const metrics = await trainer!.trainStep();
        const wallS = (performance.now() - start) / 1000;
        // the update starts once the last seed's rollouts end (each seed times its own from the step's start)
        const updateAt = start + (wallS - (metrics[0]?.[METRIC.timeUpdate] ?? 0)) * 1000;
        const times = o.counters?.dispatchTimes ?? [];
        return {
          wallS,
          dispatches: o.counters ? times.length : undefined,
          dispatchesUpdate: o.counters ? times.filter((t) => t >= updateAt).length : undefined,
          decodeSteps: trainer!.decoder.counts.steps - before.steps,
          seedSteps: trainer!.decoder.counts.seedSteps - before.seedSteps,
          reward: metrics.reduce((a, m) => a + (m[METRIC.rewardMean] ?? NaN), 0) / S,
        };
      };
      const first = await timed();
      run.firstStepS = first.wallS;
      publish();
      if (Math.min(o.budgetS - spent(), o.leftS()) < first.wallS * 1.2) {
        run.note = 'no timed step: too little time left after the first';
      } else {
        const step = await timed();
        Object.assign(run, {
          stepS: step.wallS,
          dispatches: step.dispatches,
          dispatchesUpdate: step.dispatchesUpdate,
          decodeSteps: step.decodeSteps,
          seedDecodeSteps: step.seedSteps,
          meanReward: step.reward,
        });
      }
      console.log(`stack of ${S} (${o.scale}): first step ${run.firstStepS.toFixed(1)} s` +
        (run.stepS !== undefined ? `, then ${run.stepS.toFixed(2)} s (${(S / run.stepS).toFixed(3)} seed-steps/s), ` +
          `${run.dispatches ?? '—'} dispatches (${run.dispatchesUpdate ?? '—'} in the update), ` +
          `${run.decodeSteps} decode steps for ${run.seedDecodeSteps} seed-steps`
          : ` — ${run.note}`));
    } catch (e) {
      run.error = e instanceof Error ? e.message : String(e);
      console.log(`stack of ${S} (${o.scale}): error: ${run.error}`);
    } finally {
      trainer?.dispose();
      for (const p of [...policies, ...(references ?? [])]) p.dispose();
    }
    publish();
  }
}
