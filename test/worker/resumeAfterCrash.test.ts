// A page reload (or a crashed worker) at any moment loses nothing before the newest
// checkpoint. The worker is killed before each of its store writes in turn — every interleaving of a
// run's writes — then the run resumes from its newest checkpoint as the worker resumes it; it must end
// with every step's point and every evaluation, equal to those of a run never interrupted.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { ActiveRun, resumeFromCheckpoint } from '../../src/worker/activeRun.ts';
import type { JobEpisode, JobState, SteppedJob } from '../../src/worker/trainingJob.ts';
import { LabStore } from '../../src/store/labStore.ts';
import type { MetricPoint, RunRecord } from '../../src/store/records.ts';

const STEPS = 7;
const EVAL_EVERY = 2;

/** An RL-shaped job: its metrics are a function of the step; it evaluates at 0, every 2 steps and at
 *  the end (keeping a sample there), and checkpoints every 2 steps, as RlJob does with evalEvery 2. */
class EvaluatingJob implements SteppedJob {
  readonly kind = 'rl';
  readonly description = 'evaluating job';
  readonly totalSteps = STEPS;
  readonly checkpointEvery = EVAL_EVERY;
  stepsDone = 0;
  private fresh: JobEpisode[] = [];
  async init() {}
  async initialMetrics() {
    this.fresh = [{ trajectory: { step: 0 } }];
    return { 'eval/success': 0.1 };
  }
  async step() {
    await new Promise((r) => setTimeout(r, 1));
    const step = ++this.stepsDone;
    const metrics: Record<string, number> = { 'reward/mean': step / 10 };
    if (step % EVAL_EVERY === 0 || step === STEPS) {
      metrics['eval/success'] = 0.1 + step / 100;
      this.fresh = [{ trajectory: { step }, reward: step }];
    }
    return metrics;
  }
  drainEpisodes() {
    const out = this.fresh;
    this.fresh = [];
    return out;
  }
  async sampleEpisodes() {
    return this.drainEpisodes();
  }
  async saveState(): Promise<JobState> {
    return { step: this.stepsDone, weights: new ArrayBuffer(4), weightSpecs: [], optimizer: new ArrayBuffer(0), optimizerSpecs: [], rngState: [this.stepsDone] };
  }
  async loadState(state: JobState) {
    this.stepsDone = state.step;
  }
  dispose() {}
}

const WRITES = new Set(['appendMetrics', 'updateRun', 'putCheckpoint', 'putEpisodes', 'deleteAfter']);

/** the store as the worker sees it; before its `crashAt`-th write the worker dies: that write and
 *  everything after it never happen (a write that committed is the same as dying before the next) */
function dyingStore(store: LabStore, crashAt: number) {
  let writes = 0;
  let died: () => void = () => undefined;
  const dead = new Promise<void>((resolve) => (died = resolve));
  let isDead = false;
  const proxy = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (!isDead && WRITES.has(String(name)) && ++writes === crashAt) {
          isDead = true;
          died();
        }
        if (isDead) return new Promise(() => undefined); // the worker is gone: nothing comes back
        return value.apply(target, args);
      };
    },
  });
  return { proxy, dead, writes: () => writes };
}

/** the page's end of the comlink listener: its answer comes back a while later, as a message does */
const page = () => new Promise<void>((resolve) => setTimeout(resolve, 5));

let n = 0;
async function freshRun() {
  const store = await LabStore.open(`resume-after-crash-${++n}`);
  const run: RunRecord = {
    id: `run-${n}`, kind: 'rl', config: { steps: STEPS, evalEvery: EVAL_EVERY }, status: 'running', createdAt: 1, updatedAt: 1, backend: 'cpu',
    summary: { steps: 0, totalSteps: STEPS, last: {} },
  };
  await store.putRun(run);
  return { store, run };
}

/** what a run is judged by: each step's values (its time and step time aside) and where it kept samples */
async function outcome(store: LabStore, runId: string) {
  const values = (p: MetricPoint) => Object.fromEntries(Object.entries(p.values).filter(([k]) => k !== 'time/step_ms'));
  const points = (await store.readMetrics(runId)).items;
  return {
    points: points.map((p) => [p.step, values(p)]),
    evaluations: points.filter((p) => p.values['eval/success'] !== undefined).map((p) => p.step),
    episodes: (await store.readEpisodes(runId)).items.map((e) => [e.step, e.index]),
  };
}

describe('a run killed before any of its store writes', () => {
  it('resumes from its newest checkpoint with every step and every evaluation before it kept, and ends as if never stopped', async () => {
    const reference = await freshRun();
    const counting = dyingStore(reference.store, Infinity);
    await new ActiveRun(reference.run, new EvaluatingJob(), counting.proxy, page).loop(null);
    const expected = await outcome(reference.store, reference.run.id);
    expect(expected.points.map(([step]) => step)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(expected.evaluations).toEqual([0, 2, 4, 6, 7]);
    const total = counting.writes();
    expect(total).toBeGreaterThan(10);

    const resumedFrom: number[] = [];
    for (let crashAt = 1; crashAt <= total; crashAt++) {
      const { store, run } = await freshRun();
      const dying = dyingStore(store, crashAt);
      void new ActiveRun(run, new EvaluatingJob(), dying.proxy, page).loop(null);
      await dying.dead;
      await new Promise((r) => setTimeout(r, 20)); // a dead worker's writes in flight settle (or never started)

      // the page reloads: the new worker resumes the run from its newest checkpoint, if there is one
      const checkpoint = await store.latestCheckpoint(run.id);
      const stored = (await store.readMetrics(run.id)).items.map((p) => p.step);
      if (!checkpoint) {
        resumedFrom.push(0); // nothing to resume: the page says to start it again
        continue;
      }
      // nothing before the checkpoint is missing
      expect(stored.filter((s) => s <= checkpoint.step), `killed before write ${crashAt}: checkpoint ${checkpoint.step}, stored ${stored}`)
        .toEqual(Array.from({ length: checkpoint.step + 1 }, (_, s) => s));
      resumedFrom.push(checkpoint.step);
      const job = new EvaluatingJob();
      await resumeFromCheckpoint(job, store, checkpoint);
      await new ActiveRun({ ...run, status: 'running' }, job, store, page).loop(null);
      expect(await outcome(store, run.id), `killed before write ${crashAt}, resumed from step ${checkpoint.step}`).toEqual(expected);
    }
    // every checkpoint of the run was a resume point in some interleaving
    expect([...new Set(resumedFrom)].sort()).toEqual([0, 2, 4, 6, 7]);
  });
});
