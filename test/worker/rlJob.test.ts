// The RL job the way the worker drives it — its run loop storing through the worker's loop (ActiveRun) into
// IndexedDB — on tfjs `wasm` from the shipped s-tiny checkpoint (served from disk through a stubbed fetch, as
// the lab's origin would): the starting point is evaluated as step 0, steps train with no tensor leak, an
// evaluation keeps scored rollouts (ARPO: with their branch tree), a stored checkpoint resumes to the same
// next step, a stored SFT run can be the starting point, and bad input fails with its reason and frees what
// it built.
import 'fake-indexeddb/auto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { useNodeBackend } from '../../src/node/nodeBackend.ts';
import { defaultConfig, type LabConfig } from '../../src/lab/config.ts';
import { buildDataset } from '../../src/env/queries.ts';
import { generateWorld } from '../../src/env/world.ts';
import { LabStore } from '../../src/store/labStore.ts';
import type { CheckpointRecord, MetricPoint, RunRecord } from '../../src/store/records.ts';
import { ActiveRun, resumeFromCheckpoint } from '../../src/worker/activeRun.ts';
import { RlJob } from '../../src/worker/rlJob.ts';
import { SftJob, sftJobOptions } from '../../src/worker/sftJob.ts';
import type { SampleEpisode } from '../../src/worker/sampleEpisode.ts';
import type { JobEpisode, JobState } from '../../src/worker/trainingJob.ts';

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

/** the worker's loop around `job`, counting the live tensors as each step is stored and keeping the states it
 *  checkpoints */
class WatchedRun extends ActiveRun {
  readonly tensors: number[] = [];
  readonly saved: CheckpointRecord[] = [];
  override stepped(metrics: Record<string, number>, ms: number, episodes: JobEpisode[], save: JobState | boolean) {
    this.tensors.push(tf.memory().numTensors);
    return super.stepped(metrics, ms, episodes, save);
  }
  override checkpoint(state?: JobState) {
    if (state) this.saved.push({ runId: this.run.id, createdAt: 1, ...state });
    return super.checkpoint(state);
  }
}

let runs = 0;
/** `job` (initialised) run to its end or failure by the worker's loop into `store`, resumed from `from` when given */
async function runJob(job: RlJob, store: LabStore, from: CheckpointRecord | null = null, id = `run-${++runs}`) {
  const record: RunRecord = { id, kind: 'rl', config: {}, status: 'running', createdAt: 1, updatedAt: 1, backend: 'wasm',
    summary: { steps: 0, totalSteps: job.totalSteps, last: {} } };
  if (!from) await store.putRun(record);
  const history = from ? await resumeFromCheckpoint(job, store, from) : [];
  const active = new WatchedRun(record, job, store, () => undefined, history, null, from);
  await active.loop(null);
  const points = (await store.readMetrics(id)).items;
  const samples = (await store.readEpisodes(id)).items;
  return { active, points, samples, id };
}

const values = (points: MetricPoint[], step: number) => points.find((p) => p.step === step)!.values;

describe.skipIf(!shipped)('RlJob from the shipped s-tiny checkpoint (wasm)', () => {
  let store: LabStore;
  let first: Awaited<ReturnType<typeof runJob>>;
  beforeAll(async () => {
    store = await LabStore.open('rl-job');
  });

  it('evaluates the start, trains two steps without leaking tensors, keeps scored rollouts', async () => {
    serveCheckpoints();
    const job = new RlJob({ lab: LAB, baseUrl: BASE });
    await job.init();
    expect(job.kind).toBe('rl');
    expect(job.totalSteps).toBe(2);
    expect(job.startingPoint.label).toBe('shipped checkpoint s-tiny');
    // LAB's World size is the default (standard); RL trains in the card's world, which the run stores
    expect(LAB.worldSize).toBe('standard');
    expect(job.world).toEqual({ size: 'tiny', seed: 1 });
    expect(job.description).toMatch(/^GRPO with the Sum reward from shipped checkpoint s-tiny .* 1 query per step, G=2 rollouts each/);
    first = await runJob(job, store);
    expect(first.active.error).toBeUndefined();
    expect(first.active.status).toBe('completed');
    expect(first.points.map((p) => p.step)).toEqual([0, 1, 2]);
    for (const key of ['eval/success', 'eval/delivery', 'eval/ood_accuracy']) expect(values(first.points, 0)[key]).toBeGreaterThanOrEqual(0);
    for (const step of [1, 2]) {
      const m = values(first.points, step);
      for (const key of ['reward/mean', 'charts/success', 'charts/delivery', 'losses/kl', 'losses/entropy', 'losses/clip_frac', 'charts/response_len', 'charts/tool_calls', 'charts/tool_failures', 'time/rollout', 'charts/curriculum_stage', 'eval/success', 'eval/ood_accuracy']) {
        expect(Number.isFinite(m[key]), `${key} at step ${step}`).toBe(true);
      }
    }
    // no training rollouts before the first step; then each evaluation's, storable as they are
    expect(await store.episodeSteps(first.id)).toEqual([1, 2]);
    for (const e of first.samples) {
      const s = e.trajectory as SampleEpisode;
      expect(s.kind).toBe('travel');
      expect(s.rl).toMatchObject({ algorithm: 'grpo', rewardStage: 'sum' });
      expect(s.rl!.tree).toHaveLength(2); // the whole group
      expect(s.rl!.tree.every((n) => n.parent === null)).toBe(true);
      expect(s.rl!.reward).toBe(s.rl!.tree[s.rl!.index].reward);
    }
    // the run loop's save rule: the evaluation before the last step, and the end
    expect(await store.checkpointSteps(first.id)).toEqual([1, 2]);
    expect(first.active.tensors[1]).toBe(first.active.tensors[0]);
  }, 300_000);

  it('resumes from a stored checkpoint to the same next step', async () => {
    expect(first).toBeDefined();
    serveCheckpoints();
    const checkpoint = first.active.saved.find((c) => c.step === 1)!;
    expect(checkpoint).toBeDefined();
    const resumed = new RlJob({ lab: LAB, baseUrl: BASE });
    await resumed.init();
    const again = await runJob(resumed, store, checkpoint, first.id);
    expect(again.active.status).toBe('completed');
    expect(again.points.map((p) => p.step)).toEqual([0, 1, 2]);
    for (const key of ['reward/mean', 'charts/response_len', 'charts/tool_calls', 'losses/pg', 'losses/kl', 'eval/success'])
      expect(values(again.points, 2)[key], key).toBe(values(first.points, 2)[key]);
  }, 300_000);

  it('ARPO: an evaluation keeps a branched rollout with its group tree; no validation queries, no plan rates', async () => {
    serveCheckpoints();
    // evaluated on tool-QA only, as the browser test does: no plan rates of zero queries
    const arpo = new RlJob({ lab: { ...LAB, algorithm: 'arpo', arpoAlpha: 1, steps: 1, evalQueries: 0 }, baseUrl: BASE });
    await arpo.init();
    const { points, samples } = await runJob(arpo, store);
    const start = values(points, 0);
    expect(Number.isFinite(start['eval/ood_accuracy'])).toBe(true);
    for (const key of ['eval/success', 'eval/delivery', 'eval/cs_micro', 'eval/hard_macro']) expect(start[key], key).toBeUndefined();
    expect(points.map((p) => p.step)).toEqual([0, 1]); // the end is not evaluated again
    const branch = samples.map((e) => e.trajectory as SampleEpisode).find((s) => s.rl!.tree[s.rl!.index].parent !== null);
    expect(branch, 'a branched rollout is kept').toBeDefined();
    const { tree, index, promptTokens } = branch!.rl!;
    const node = tree[index];
    expect(tree[node.parent!].parent).toBeNull();
    expect(node.forkAt).toBeGreaterThan(promptTokens);
    expect(node.forkAt).toBeLessThan(tree[node.parent!].tokens);
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
    await other.init();
    const good = first.active.saved.find((c) => c.step === 1)!;
    const bad = { ...good, weights: good.weights.slice(0, 64) };
    const { active, points } = await runJob(other, store, bad, first.id);
    expect(active.status).toBe('failed');
    expect(active.error).toMatch(/^checkpoint does not fit this model: /);
    expect(points.map((p) => p.step)).toEqual([0, 1]); // the curve up to the checkpoint is kept
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
      const { points } = await runJob(job, store);
      expect(Number.isFinite(values(points, 1)['reward/mean'])).toBe(true);
    } finally {
      job.dispose(); // the worker's loop frees it at the end; a second dispose is a no-op
    }
    expect(tf.memory().numTensors).toBe(before);
  }, 300_000);
});
