// The RL job the way the worker drives it, on tfjs `wasm` from the shipped s-tiny checkpoint (served
// from disk through a stubbed fetch, as the lab's origin would): the starting point is evaluated as
// step 0, steps train with no tensor leak, an evaluation keeps scored rollouts (ARPO: with their
// branch tree), a saved state resumes to the same next step, a stored SFT run can be the starting
// point, and bad input fails with its reason and frees what it built.
import 'fake-indexeddb/auto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { useNodeBackend } from '../../src/node/nodeBackend.ts';
import { defaultConfig, type LabConfig } from '../../src/lab/config.ts';
import { buildDataset } from '../../src/env/queries.ts';
import { generateWorld } from '../../src/env/world.ts';
import { LabStore } from '../../src/store/labStore.ts';
import { RlJob } from '../../src/worker/rlJob.ts';
import { SftJob, sftJobOptions } from '../../src/worker/sftJob.ts';
import type { SampleEpisode } from '../../src/worker/sampleEpisode.ts';
import type { JobState } from '../../src/worker/trainingJob.ts';

const DIR = join('public', 'checkpoints', 's-tiny');
const shipped = existsSync(join(DIR, 'card.json'));
const BASE = 'http://lab.test/';
/** Q=1, G=2, two steps, evaluating a couple of queries and tool-QA tasks each time */
const LAB: LabConfig = {
  ...defaultConfig(), scale: 's', algorithm: 'grpo', reward: 'sum', steps: 2, queriesPerStep: 1, groupSize: 2,
  evalEvery: 1, evalQueries: 2, evalToolQa: 2, trainSize: 20, seed: 3,
};

/** serves public/checkpoints/<name>/ at BASE, as the lab's static server does */
function serveCheckpoints(): void {
  vi.stubGlobal('fetch', async (input: URL | string) => {
    const path = new URL(String(input)).pathname;
    const m = /^\/checkpoints\/([a-z]-tiny)\/(model\.json|weights\.bin|card\.json)$/.exec(path);
    const file = m && join('public', 'checkpoints', m[1], m[2]);
    if (!file || !existsSync(file)) return new Response('not found', { status: 404 });
    return new Response(readFileSync(file), { headers: { 'content-type': file.endsWith('.json') ? 'application/json' : 'application/octet-stream' } });
  });
}

beforeAll(async () => {
  await useNodeBackend('wasm');
});
afterEach(() => vi.unstubAllGlobals());
if (!shipped) console.warn(`[rlJob] ${DIR} holds no checkpoint: the RL job tests are skipped`);

describe.skipIf(!shipped)('RlJob from the shipped s-tiny checkpoint (wasm)', () => {
  const job = new RlJob({ lab: LAB, baseUrl: BASE });
  const steps: Record<string, number>[] = [];
  let state: JobState | null = null;
  afterAll(() => job.dispose());

  it('evaluates the start, trains two steps without leaking tensors, keeps scored rollouts', async () => {
    serveCheckpoints();
    await job.init();
    expect(job.kind).toBe('rl');
    expect(job.totalSteps).toBe(2);
    expect(job.startingPoint.label).toBe('shipped checkpoint s-tiny');
    // LAB's World size is the default (standard); RL trains in the card's world, which the run stores
    expect(LAB.worldSize).toBe('standard');
    expect(job.world).toEqual({ size: 'tiny', seed: 1 });
    expect(job.description).toMatch(/^GRPO with the Sum reward from shipped checkpoint s-tiny .* 1 query per step, G=2 rollouts each/);
    const start = await job.initialMetrics();
    for (const key of ['eval/success', 'eval/delivery', 'eval/ood_accuracy']) expect(start[key]).toBeGreaterThanOrEqual(0);
    expect(job.drainEpisodes()).toEqual([]); // no training rollouts before the first step
    const tensors: number[] = [];
    while (job.stepsDone < job.totalSteps) {
      const m = await job.step();
      steps.push(m);
      tensors.push(tf.memory().numTensors);
      if (job.stepsDone === 1) state = await job.saveState();
      for (const key of ['reward/mean', 'charts/success', 'charts/delivery', 'losses/kl', 'losses/entropy', 'losses/clip_frac', 'charts/response_len', 'charts/tool_calls', 'charts/tool_failures', 'time/rollout', 'charts/curriculum_stage', 'eval/success', 'eval/ood_accuracy']) {
        expect(Number.isFinite(m[key]), key).toBe(true);
      }
      const samples = job.drainEpisodes().map((e) => e.trajectory as SampleEpisode);
      expect(samples.length).toBeGreaterThanOrEqual(1);
      for (const s of samples) {
        expect(s.kind).toBe('travel');
        expect(s.rl).toMatchObject({ algorithm: 'grpo', rewardStage: 'sum' });
        expect(s.rl!.tree).toHaveLength(2); // the whole group
        expect(s.rl!.tree.every((n) => n.parent === null)).toBe(true);
        expect(s.rl!.reward).toBe(s.rl!.tree[s.rl!.index].reward);
        expect(structuredClone(s)).toEqual(s); // storable as is
      }
    }
    expect(tensors[1]).toBe(tensors[0]);
    expect(await job.sampleEpisodes()).toEqual([]); // the last step's samples were drained already
  }, 300_000);

  it('resumes from a saved state to the same next step', async () => {
    expect(state).not.toBeNull();
    serveCheckpoints();
    const resumed = new RlJob({ lab: LAB, baseUrl: BASE });
    try {
      await resumed.init();
      await resumed.loadState(structuredClone(state!));
      expect(resumed.stepsDone).toBe(1);
      const m = await resumed.step();
      for (const key of ['reward/mean', 'charts/response_len', 'charts/tool_calls', 'losses/pg', 'losses/kl']) expect(m[key], key).toBe(steps[1][key]);
    } finally {
      resumed.dispose();
    }
  }, 300_000);

  it('ARPO: an evaluation keeps a branched rollout with its group tree; no validation queries, no plan rates', async () => {
    serveCheckpoints();
    // evaluated on tool-QA only, as the browser test does: no plan rates of zero queries
    const arpo = new RlJob({ lab: { ...LAB, algorithm: 'arpo', arpoAlpha: 1, steps: 1, evalQueries: 0 }, baseUrl: BASE });
    try {
      await arpo.init();
      const start = await arpo.initialMetrics();
      expect(Number.isFinite(start['eval/ood_accuracy'])).toBe(true);
      for (const key of ['eval/success', 'eval/delivery', 'eval/cs_micro', 'eval/hard_macro']) expect(start[key], key).toBeUndefined();
      await arpo.step();
      const samples = arpo.drainEpisodes().map((e) => e.trajectory as SampleEpisode);
      const branch = samples.find((s) => s.rl!.tree[s.rl!.index].parent !== null);
      expect(branch, 'a branched rollout is kept').toBeDefined();
      const { tree, index, promptTokens } = branch!.rl!;
      const node = tree[index];
      expect(tree[node.parent!].parent).toBeNull();
      expect(node.forkAt).toBeGreaterThan(promptTokens);
      expect(node.forkAt).toBeLessThan(tree[node.parent!].tokens);
    } finally {
      arpo.dispose();
    }
  }, 300_000);

  it('a config, a source or a state it cannot use fails with the reason, freeing what it built', async () => {
    expect(() => new RlJob({ lab: { ...LAB, clipLow: 1 }, baseUrl: BASE })).toThrow(/clipLow must be < 1/);
    const before = tf.memory().numTensors;
    const missing = new RlJob({ lab: LAB, source: { kind: 'run', runId: 'nope' }, store: await LabStore.open('rl-job-missing') });
    await expect(missing.init()).rejects.toThrow('run nope is not in the store (deleted, or unreadable)');
    missing.dispose();
    expect(tf.memory().numTensors).toBe(before);
    serveCheckpoints();
    const other = new RlJob({ lab: LAB, baseUrl: BASE });
    try {
      await other.init();
      const bad = { ...state!, weights: state!.weights.slice(0, 64) };
      await expect(other.loadState(bad)).rejects.toThrow(/^checkpoint does not fit this model: /);
      expect(other.stepsDone).toBe(0); // the job is untouched and still usable
    } finally {
      other.dispose();
    }
    expect(tf.memory().numTensors).toBe(before);
  }, 300_000);
});

describe('RlJob from a stored SFT run (wasm)', () => {
  it('starts from the run\'s newest checkpoint, on the world and splits it was trained on', async () => {
    const store = await LabStore.open('rl-job-from-run');
    const sftLab: LabConfig = { ...defaultConfig(), stage: 'sft', scale: 's', worldSize: 'tiny', trainSize: 10, steps: 1, seed: 4 };
    const sft = new SftJob({ ...sftJobOptions(sftLab), evalEvery: 100 });
    await sft.init();
    await sft.step();
    const saved = await sft.saveState();
    sft.dispose();
    await store.putRun({ id: 'sft-1', kind: 'sft', config: { ...sftLab }, status: 'completed', createdAt: 1, updatedAt: 1, backend: 'wasm', summary: { steps: 1, totalSteps: 1, last: {} } });
    await store.putCheckpoint({ runId: 'sft-1', createdAt: 2, ...saved });
    const before = tf.memory().numTensors;
    const job = new RlJob({ lab: { ...LAB, steps: 1, evalQueries: 1, evalToolQa: 1 }, source: { kind: 'run', runId: 'sft-1' }, store });
    try {
      await job.init();
      expect(job.startingPoint.label).toBe('run sft-1 at step 1');
      // the SFT job's world and validation split (sftJob.ts builds them from the same config), grown to 300
      const world = generateWorld('tiny', 4);
      expect(job.trainer.env.world.seed).toBe(4);
      expect(job.world).toEqual({ size: 'tiny', seed: 4 });
      const sftValidation = buildDataset(world, { size: 10, mix: [4, 3, 3], seed: 4, validationSize: 2, testSize: 0 }).validation;
      expect(job.trainer.env.validation.slice(0, 2)).toEqual(sftValidation);
      expect(job.trainer.env.validation).toHaveLength(300);
      expect(job.trainer.policy.config.contextLength).toBe(256); // the tiny SFT model's context
      const m = await job.step();
      expect(Number.isFinite(m['reward/mean'])).toBe(true);
    } finally {
      job.dispose();
    }
    expect(tf.memory().numTensors).toBe(before);
  }, 300_000);
});
