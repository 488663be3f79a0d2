// The SFT job on tfjs `cpu`, the way the worker drives it: a few steps lower the loss, no tensor
// leaks per step, evaluation yields metrics and readable sample episodes, and a checkpoint resumes
// to the very same next losses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { defaultConfig } from '../../src/lab/config.ts';
import { SftJob, sftJobOptions, type SftJobOptions } from '../../src/worker/sftJob.ts';
import type { SampleEpisode } from '../../src/worker/sampleEpisode.ts';
import type { JobState } from '../../src/worker/trainingJob.ts';

// a micro model and short context: cpu is slow on this shared machine; the mechanics are the same
const OPTIONS: SftJobOptions = {
  worldSize: 'tiny', seed: 7, preset: 's',
  model: { dModel: 16, nLayers: 1, nHeads: 2, dFF: 32, contextLength: 96 },
  trainQueries: 20, mix: [4, 3, 3], toolQa: 24, teacherFailureRate: 0,
  validationQueries: 2, validationToolQa: 2,
  steps: 8, batchSize: 4, peakLr: 1e-2, evalEvery: 4, keepEpisodes: 3,
};

beforeAll(async () => {
  await tf.setBackend('cpu');
  await tf.ready();
});

describe('SftJob on cpu', () => {
  const losses: number[] = [];
  let state: JobState | null = null;
  const job = new SftJob(OPTIONS);
  afterAll(() => job.dispose());

  it('trains: the loss falls, tensors stay constant per step, evaluation stores episodes', async () => {
    await job.init();
    expect(job.modelConfig.contextLength).toBe(96);
    let tensorsAfterWarmup = 0;
    let evalMetrics: Record<string, number> = {};
    while (job.stepsDone < job.totalSteps) {
      const m = await job.step();
      losses.push(m['losses/sft']);
      for (const key of ['charts/lr', 'charts/grad_norm', 'charts/tokens_per_s']) expect(Number.isFinite(m[key])).toBe(true);
      if ('eval/delivery' in m) evalMetrics = m;
      if (job.stepsDone === 2) tensorsAfterWarmup = tf.memory().numTensors;
      if (job.stepsDone === 3) state = await job.saveState();
      if (job.stepsDone > 2) expect(tf.memory().numTensors).toBe(tensorsAfterWarmup);
    }
    expect(losses[losses.length - 1]).toBeLessThan(losses[0] - 0.5);
    for (const key of ['eval/delivery', 'eval/parse_rate', 'eval/success', 'eval/ood_accuracy']) {
      expect(evalMetrics[key]).toBeGreaterThanOrEqual(0);
      expect(evalMetrics[key]).toBeLessThanOrEqual(1);
    }
    // the n behind eval/success (a shared SFT run shows its interval from it)
    expect(evalMetrics['eval/queries']).toBe(2);
    // the last step evaluated, so sampleEpisodes hands out that evaluation's episodes
    const episodes = await job.sampleEpisodes();
    expect(episodes.length).toBeGreaterThan(0);
    const travel = episodes.map((e) => e.trajectory as SampleEpisode).find((e) => e.kind === 'travel');
    expect(travel?.prompt.length).toBeGreaterThan(10);
    // an undelivered plan still says why, and the evaluator's checks come with reasons
    if (travel?.plan === null) expect(travel.planError).toBeTruthy();
    expect(travel?.checks.length).toBeGreaterThan(0);
    for (const c of travel!.checks) expect(c.reason.length).toBeGreaterThan(0);
    expect(job.drainEpisodes()).toEqual([]);
  }, 300_000);

  it('resumes from a checkpoint to identical next losses', async () => {
    expect(state).not.toBeNull();
    const resumed = new SftJob({ ...OPTIONS, evalEvery: 1000 });
    try {
      await resumed.init();
      await resumed.loadState(state!);
      expect(resumed.stepsDone).toBe(3);
      for (let i = 3; i < 6; i++) expect((await resumed.step())['losses/sft']).toBe(losses[i]);
    } finally {
      resumed.dispose();
    }
  }, 300_000);

  it('frees everything on dispose', async () => {
    const before = tf.memory().numTensors;
    const other = new SftJob({ ...OPTIONS, steps: 1 });
    await other.init();
    await other.step();
    other.dispose();
    expect(tf.memory().numTensors).toBe(before);
  }, 300_000);
});

describe('sftJobOptions', () => {
  it('maps the lab config: scale, seed, steps, data knobs; tiny worlds get a halved model', () => {
    const config = { ...defaultConfig(), scale: 'l' as const, seed: 5, steps: 40, trainSize: 80, teacherFailureRate: 0.1, worldSize: 'tiny' as const, sftLearningRate: 0.002 };
    const o = sftJobOptions(config);
    expect(o).toMatchObject({ preset: 'l', seed: 5, steps: 40, trainQueries: 80, teacherFailureRate: 0.1, worldSize: 'tiny', peakLr: 0.002, toolQa: 20 });
    expect(o.model).toMatchObject({ dModel: 32, nLayers: 3, contextLength: 256 });
    expect(sftJobOptions({ ...config, worldSize: 'standard' }).model).toEqual({});
    expect(sftJobOptions({ ...config, planDecoding: 'free' }).constrainPlan).toBe(false);
    expect(sftJobOptions({ ...config, planDecoding: 'constrained' }).constrainPlan).toBe(true);
    expect(() => new SftJob({ ...o, steps: 0 })).toThrow(/steps/);
  });
});
