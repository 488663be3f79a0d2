import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ActiveRun } from '../../src/worker/activeRun.ts';
import type { WorkerEvent } from '../../src/worker/api.ts';
import type { JobState, SteppedJob, TrainingJob } from '../../src/worker/trainingJob.ts';
import { LabStore } from '../../src/store/labStore.ts';
import { HOLD_CHANNEL, holdsFromWorkerName, parseHolds, TestHolds, workerName, type HoldMessage } from '../../src/worker/testHolds.ts';
import type { RunRecord } from '../../src/store/records.ts';

/** A job whose losses are scripted; `slowMs` makes each step take a while (for pause/stop). */
class ScriptedJob implements SteppedJob {
  readonly kind = 'scripted';
  readonly description = 'scripted losses';
  stepsDone = 0;
  disposed = false;
  constructor(
    private readonly losses: number[],
    private readonly slowMs = 0,
  ) {}
  get totalSteps() {
    return this.losses.length;
  }
  async init() {}
  async step() {
    if (this.slowMs) await new Promise((r) => setTimeout(r, this.slowMs));
    return { loss: this.losses[this.stepsDone++] };
  }
  async saveState(): Promise<JobState> {
    return { step: this.stepsDone, weights: new ArrayBuffer(8), weightSpecs: [], optimizer: new ArrayBuffer(4), optimizerSpecs: [], rngState: [1, 2, 3, 4] };
  }
  async loadState() {}
  async sampleEpisodes() {
    return [{ trajectory: { note: 'sample' }, reward: 1 }];
  }
  dispose() {
    this.disposed = true;
  }
}

let n = 0;
async function setup(job: TrainingJob) {
  const store = await LabStore.open(`active-run-${++n}`);
  const run: RunRecord = {
    id: `r${n}`,
    kind: job.kind,
    config: {},
    status: 'running',
    createdAt: 1,
    updatedAt: 1,
    backend: 'cpu',
    summary: { steps: 0, totalSteps: job.totalSteps, last: {} },
  };
  await store.putRun(run);
  const batches: WorkerEvent[][] = [];
  const active = new ActiveRun(run, job, store, (events) => void batches.push(events));
  return { store, run, active, batches };
}

afterEach(() => vi.restoreAllMocks());

describe('ActiveRun', () => {
  it('runs to the end, batches points, stores points, checkpoint, episodes and the summary', async () => {
    const losses = Array.from({ length: 30 }, (_, i) => 3 - i * 0.05);
    const job = new ScriptedJob(losses);
    const { store, run, active, batches } = await setup(job);
    await active.loop(null);
    expect(active.status).toBe('completed');
    expect(job.disposed).toBe(true);
    const points = batches.flat().flatMap((e) => (e.type === 'points' ? e.points : []));
    expect(points.map((p) => p.step)).toEqual(losses.map((_, i) => i + 1));
    expect(batches.length).toBeLessThan(losses.length); // batched, not one message per step
    const last = batches.at(-1)!.at(-1)!;
    expect(last).toMatchObject({ type: 'progress', progress: { status: 'completed', step: 30, totalSteps: 30 } });
    const stored = await store.getRun(run.id);
    expect(stored?.status).toBe('completed');
    expect(stored?.summary.last.loss).toBeCloseTo(losses[29]);
    expect((await store.readMetrics(run.id)).items).toHaveLength(30);
    expect((await store.latestCheckpoint(run.id))?.step).toBe(30);
    expect((await store.readEpisodes(run.id)).items[0].reward).toBe(1);
  });

  it('a NaN loss stops the run as failed with a clear error', async () => {
    const { store, run, active, batches } = await setup(new ScriptedJob([2, 1.5, NaN, 1, 1]));
    await active.loop(null);
    expect(active.status).toBe('failed');
    expect(active.error).toBe('loss became NaN at step 3: training diverged. No checkpoint had been stored yet.');
    const progress = batches.flat().filter((e) => e.type === 'progress').at(-1);
    expect(progress).toMatchObject({ progress: { status: 'failed', error: active.error } });
    const stored = await store.getRun(run.id);
    expect(stored?.status).toBe('failed');
    expect(stored?.summary.error).toContain('NaN');
    expect((await store.readMetrics(run.id)).items.map((p) => p.step)).toEqual([1, 2]);
  });

  it('stores the points up to a checkpoint before the checkpoint: a run resumed from it never lacks the steps it skips', async () => {
    const job = new ScriptedJob(Array.from({ length: 6 }, (_, i) => 3 - i * 0.1));
    Object.assign(job, { checkpointEvery: 2 });
    const { store, run, active } = await setup(job);
    const put = store.putCheckpoint.bind(store);
    const seen: [number, number][] = [];
    vi.spyOn(store, 'putCheckpoint').mockImplementation(async (cp) => {
      seen.push([cp.step, Math.max(0, ...(await store.readMetrics(run.id)).items.map((p) => p.step))]);
      return put(cp);
    });
    await active.loop(null);
    expect(seen.length).toBeGreaterThanOrEqual(3);
    for (const [step, storedTo] of seen) expect(storedTo, `checkpoint at step ${step}`).toBe(step);
  });

  it('a NaN loss after checkpoints keeps the last good one and the curve up to the failure', async () => {
    const job = new ScriptedJob([2, 1.9, 1.8, 1.7, 1.6, NaN, 1, 1]);
    Object.assign(job, { checkpointEvery: 2 });
    const saved: number[] = [];
    const save = job.saveState.bind(job);
    job.saveState = async () => (saved.push(job.stepsDone), save());
    const { store, run, active } = await setup(job);
    await active.loop(null);
    expect(active.status).toBe('failed');
    expect(active.error).toBe('loss became NaN at step 6: training diverged. The last good checkpoint (step 4) is kept.');
    expect(saved).toEqual([2, 4]); // the diverged step's weights are never saved
    expect((await store.latestCheckpoint(run.id))?.step).toBe(4);
    expect((await store.readMetrics(run.id)).items.map((p) => p.step)).toEqual([1, 2, 3, 4, 5]);
    expect((await store.getRun(run.id))?.summary.error).toContain('step 4');
  });

  it('a lost GPU device interrupts the run (resumable), even in the middle of a step, keeping its checkpoint', async () => {
    const job = new ScriptedJob(new Array(50).fill(1), 20);
    Object.assign(job, { checkpointEvery: 2 });
    const { store, run, active, batches } = await setup(job);
    const lost = new Promise<string>((resolve) => setTimeout(() => resolve('The GPU device was lost (unknown): reset'), 110));
    await active.loop(lost);
    expect(active.status).toBe('interrupted');
    expect(job.stepsDone).toBeLessThan(50);
    const kept = (await store.latestCheckpoint(run.id))!.step;
    expect(kept).toBeGreaterThanOrEqual(2);
    expect(active.error).toMatch(new RegExp(`^The GPU device was lost \\(unknown\\): reset\\. Training stopped at step \\d+; it resumes from its checkpoint at step ${kept} on a new backend\\.$`));
    const last = batches.flat().filter((e) => e.type === 'progress').at(-1);
    expect(last).toMatchObject({ progress: { status: 'interrupted', deviceLost: true, checkpointStep: kept } });
    expect((await store.getRun(run.id))?.status).toBe('interrupted');
  });

  it('a resumed run counts the checkpoint it started from as its last good one', async () => {
    const job = new ScriptedJob([1, 1, 1, NaN, 1]);
    job.stepsDone = 2; // as loadState left it
    const { active } = await setup(job);
    await active.loop(null);
    expect(active.error).toBe('loss became NaN at step 4: training diverged. The last good checkpoint (step 2) is kept.');
  });

  it('full storage is reported; the points and checkpoint it kept are written once there is space', async () => {
    const job = new ScriptedJob(new Array(400).fill(1), 2);
    Object.assign(job, { checkpointEvery: 1000 });
    const { store, run, active, batches } = await setup(job);
    let full = true;
    const put = IDBObjectStore.prototype.put;
    vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
      if (full && this.name !== 'runs') throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      return put.apply(this, args);
    });
    const done = active.loop(null);
    await new Promise((r) => setTimeout(r, 60));
    active.pause(); // the pause checkpoint fails too
    await new Promise((r) => setTimeout(r, 400));
    const reported = batches.flat().filter((e) => e.type === 'progress').at(-1);
    expect(reported).toMatchObject({ progress: { status: 'paused', storeFull: true } });
    expect(active.progress().error).toMatch(/storage is full/);
    expect((await store.readMetrics(run.id)).items).toEqual([]);
    expect(await store.latestCheckpoint(run.id)).toBeNull();
    full = false;
    await active.retryStorage();
    const stepsShown = batches.flat().flatMap((e) => (e.type === 'points' ? e.points.map((p) => p.step) : []));
    expect((await store.readMetrics(run.id)).items.map((p) => p.step)).toEqual(stepsShown);
    expect((await store.latestCheckpoint(run.id))?.step).toBe(job.stepsDone);
    expect(active.progress()).toMatchObject({ storeFull: undefined, error: undefined, checkpointStep: job.stepsDone });
    active.stop();
    await done;
    expect(active.status).toBe('stopped');
  });

  it('a resume is stored, then shown, before the next step starts (a reload then resumes what the page shows)', async () => {
    const job = new ScriptedJob(new Array(50).fill(1), 2);
    const { store, run } = await setup(job);
    const log: string[] = [];
    const updateRun = store.updateRun.bind(store);
    store.updateRun = async (id, patch) => {
      const updated = await updateRun(id, patch);
      log.push(`store ${patch.status}`);
      return updated;
    };
    const step = job.step.bind(job);
    job.step = () => (log.push('step'), step());
    const active = new ActiveRun(run, job, store, (events) => {
      for (const e of events) if (e.type === 'progress') log.push(`page ${e.progress.status}`);
    });
    const done = active.loop(null);
    await new Promise((r) => setTimeout(r, 20));
    active.pause();
    while (!(await store.latestCheckpoint(run.id))) await new Promise((r) => setTimeout(r, 5)); // parked after its checkpoint
    log.length = 0;
    active.resume();
    while (!log.includes('step')) await new Promise((r) => setTimeout(r, 1));
    active.stop();
    await done;
    expect(log.slice(0, log.indexOf('step') + 1).filter((l, i, all) => all.indexOf(l) === i)).toEqual(['store running', 'page running', 'step']);
  });

  it('pause holds the loop, resume continues, stop ends it as stopped', async () => {
    const job = new ScriptedJob(new Array(400).fill(1), 2);
    const { store, run, active } = await setup(job);
    const done = active.loop(null);
    await new Promise((r) => setTimeout(r, 40));
    active.pause();
    await new Promise((r) => setTimeout(r, 30));
    const pausedAt = job.stepsDone;
    await new Promise((r) => setTimeout(r, 60));
    expect(job.stepsDone).toBe(pausedAt);
    expect(active.progress().status).toBe('paused');
    active.resume();
    await new Promise((r) => setTimeout(r, 40));
    expect(job.stepsDone).toBeGreaterThan(pausedAt);
    active.stop();
    await done;
    expect(active.status).toBe('stopped');
    expect((await store.getRun(run.id))?.status).toBe('stopped');
    expect((await store.latestCheckpoint(run.id))?.step).toBe(job.stepsDone);
  });

  it('a resume that comes while the pause checkpoint is written is not lost', async () => {
    const job = new ScriptedJob(new Array(6).fill(1), 2);
    let saving: () => void = () => undefined;
    const saved = new Promise<void>((resolve) => (saving = resolve));
    const save = job.saveState.bind(job);
    job.saveState = async () => {
      saving();
      await new Promise((r) => setTimeout(r, 30));
      return save();
    };
    const { active, batches } = await setup(job);
    const done = active.loop(null);
    await new Promise((r) => setTimeout(r, 5));
    active.pause();
    expect(batches.at(-1)?.at(-1)).toMatchObject({ progress: { status: 'paused' } }); // told at once, not after the step
    await saved; // the loop is writing the pause checkpoint, not parked yet
    active.resume();
    await done; // before the fix the loop parked after this resume and never woke
    expect(active.status).toBe('completed');
    expect(job.stepsDone).toBe(6);
  }, 10_000);

  it('a job\'s initial metrics are the curve\'s step 0; its checkpoint interval and phase are used', async () => {
    class StagedJob extends ScriptedJob {
      readonly checkpointEvery = 2;
      phase = '';
      phases: (string | undefined)[] = [];
      saved: number[] = [];
      override async saveState() {
        this.saved.push(this.stepsDone);
        return super.saveState();
      }
      async initialMetrics() {
        return { 'eval/success': 0.25 };
      }
      override async step() {
        this.phase = 'rolling out';
        this.phases.push(active.progress().phase);
        const m = await super.step();
        this.phase = '';
        return m;
      }
    }
    const job = new StagedJob([1, 0.9, 0.8]);
    const { store, run, active } = await setup(job);
    await active.loop(null);
    const points = (await store.readMetrics(run.id)).items;
    expect(points.map((p) => p.step)).toEqual([0, 1, 2, 3]);
    expect(points[0].values).toEqual({ 'eval/success': 0.25 }); // no step time: it is not a step
    expect(job.phases).toEqual(['rolling out', 'rolling out', 'rolling out']);
    expect(job.saved).toEqual([2, 3]); // every 2 steps, and at the end
    expect(active.progress().phase).toBeUndefined(); // finished
    expect((await store.getRun(run.id))?.summary.last['eval/success']).toBe(0.25);
  });

  it('a non-finite initial metric fails the run before the first step', async () => {
    class BrokenStart extends ScriptedJob {
      async initialMetrics() {
        return { 'eval/success': NaN };
      }
    }
    const job = new BrokenStart([1, 1]);
    const { active } = await setup(job);
    await active.loop(null);
    expect(active.status).toBe('failed');
    expect(active.error).toBe('eval/success became NaN at step 0: training diverged. No checkpoint had been stored yet.');
    expect(job.stepsDone).toBe(0);
  });
});

/** A job on a scripted clock: every step takes `stepMs`, an evaluation (every `evalEvery` and the last) `evalMs` more. */
class TimedJob implements SteppedJob {
  readonly kind = 'timed';
  readonly description = 'scripted times';
  stepsDone = 0;
  constructor(readonly totalSteps: number, readonly evalEvery: number, private readonly clock: { now: number }, private readonly stepMs: number, private readonly evalMs: number) {}
  async init() {}
  async initialMetrics() {
    this.clock.now += this.evalMs;
    return { 'eval/success': 0.1, 'eval/seconds': this.evalMs / 1000 };
  }
  async step(): Promise<Record<string, number>> {
    this.stepsDone++;
    this.clock.now += this.stepMs;
    if (this.stepsDone % this.evalEvery === 0 || this.stepsDone === this.totalSteps) {
      this.clock.now += this.evalMs;
      return { loss: 1, 'eval/success': 0.2, 'eval/seconds': this.evalMs / 1000 };
    }
    return { loss: 1 };
  }
  async saveState(): Promise<JobState> {
    return { step: this.stepsDone, weights: new ArrayBuffer(8), weightSpecs: [], optimizer: new ArrayBuffer(4), optimizerSpecs: [], rngState: [1, 2, 3, 4] };
  }
  async loadState() {}
  async sampleEpisodes() {
    return [];
  }
  dispose() {}
}

/** Date.now and performance.now read the scripted clock */
function scriptedClock(start = 1_000_000) {
  const clock = { now: start };
  vi.spyOn(Date, 'now').mockImplementation(() => clock.now);
  vi.spyOn(performance, 'now').mockImplementation(() => clock.now);
  return clock;
}

const progressAt = (batches: WorkerEvent[][], step: number) =>
  batches.flat().flatMap((e) => (e.type === 'progress' && e.progress.step === step ? [e.progress] : [])).at(-1);

describe('ActiveRun timing', () => {
  it('the ETA counts the evaluations left: a last step of 6 s and its 19 s final evaluation read 25 s, not 6', async () => {
    const clock = scriptedClock();
    const job = new TimedJob(40, 20, clock, 6_000, 19_000);
    const { active, batches } = await setup(job);
    await active.loop(null);
    expect(progressAt(batches, 39)?.etaMs).toBeCloseTo(25_000, 0);
    // at step 10: 30 steps of 6 s, the evaluations at 20 and 40
    expect(progressAt(batches, 10)?.etaMs).toBeCloseTo(30 * 6_000 + 2 * 19_000, 0);
    expect(progressAt(batches, 40)?.etaMs).toBe(0);
    expect(progressAt(batches, 40)?.meanStepMs).toBeCloseTo(6_000, 0);
  });

  it('a resumed run continues its elapsed time and its mean step time from the points kept before the resume', async () => {
    const clock = scriptedClock();
    const job = new TimedJob(20, 10, clock, 5_000, 10_000);
    const { store, run, batches } = await setup(job);
    // the first session: steps 1–15 of 4 s each (the evaluation at 10 another 10 s), 178 s in at step 15
    const before = Array.from({ length: 16 }, (_, step) => ({
      runId: run.id, step, t: step === 15 ? 178_000 : step * 4_000,
      values: step === 0 ? { 'eval/seconds': 10 } : { loss: 1, 'time/step_ms': step === 10 ? 14_000 : 4_000, ...(step === 10 ? { 'eval/seconds': 10 } : {}) },
    }));
    await store.appendMetrics(before);
    job.stepsDone = 15; // as loadState left it
    const active = new ActiveRun(run, job, store, (events) => void batches.push(events), before);
    await active.loop(null);
    const points = (await store.readMetrics(run.id)).items;
    const t = (step: number) => points.find((p) => p.step === step)!.t;
    expect(t(16)).toBeGreaterThan(t(15));
    expect(t(16)).toBe(178_000 + 5_000);
    // every timed step (4–20, warm-up 1–3 left out): twelve of 4 s before the resume, five of 5 s after
    expect(progressAt(batches, 20)?.meanStepMs).toBeCloseTo((12 * 4_000 + 5 * 5_000) / 17, 3);
  });
});

describe('test holds (a browser test forcing a moment)', () => {
  it('?holds= names steps or fails at once; a worker reads them back from its name, a production worker has none', () => {
    expect(parseHolds('after-step:4,after-step:2')).toEqual([2, 4]);
    expect(() => parseHolds('after-step:0')).toThrow(/after-step:N with N ≥ 1/);
    expect(() => parseHolds('step2')).toThrow(/"step2"/);
    expect(holdsFromWorkerName(workerName('star-lab-training', [2, 4]))).toEqual([2, 4]);
    expect(workerName('star-lab-training', [])).toBe('star-lab-training');
    expect(TestHolds.fromWorkerName('star-lab-training')).toBeNull();
  });

  it('a held run stops after the step, that step stored and told, until released; it holds there once', async () => {
    const job = new ScriptedJob(new Array(5).fill(1));
    const { store, run, active, batches } = await setup(job);
    const holds = new TestHolds([2]);
    active.testHolds = holds;
    const page = new BroadcastChannel(HOLD_CHANNEL);
    const held = new Promise<HoldMessage>((resolve) => (page.onmessage = (e: MessageEvent<HoldMessage>) => resolve(e.data)));
    const done = active.loop(null);
    expect(await held).toEqual({ type: 'held', runId: run.id, step: 2 });
    // held: step 2 is stored and the page was told, step 3 has not started
    expect(job.stepsDone).toBe(2);
    expect((await store.readMetrics(run.id)).items.map((p) => p.step)).toEqual([1, 2]);
    expect(batches.flat().some((e) => e.type === 'progress' && e.progress.step === 2)).toBe(true);
    expect(holds.holds(run.id, 2)).toBe(false); // once per run and step
    page.postMessage({ type: 'release' } satisfies HoldMessage);
    await done;
    expect(active.status).toBe('completed');
    expect(job.stepsDone).toBe(5);
    page.close();
  });

  it('a Stop asked before the held step ends the run there without holding it', async () => {
    const job = new ScriptedJob(new Array(5).fill(1), 20);
    const { active } = await setup(job);
    active.testHolds = new TestHolds([1]);
    const done = active.loop(null);
    active.stop(); // during step 1
    await done;
    expect(active.status).toBe('stopped');
    expect(job.stepsDone).toBe(1);
  });

  it('a Stop gets through a hold: the run ends as stopped at the held step', async () => {
    const job = new ScriptedJob(new Array(5).fill(1));
    const { active } = await setup(job);
    active.testHolds = new TestHolds([1]);
    const page = new BroadcastChannel(HOLD_CHANNEL);
    const held = new Promise<void>((resolve) => (page.onmessage = () => resolve()));
    const done = active.loop(null);
    await held;
    active.stop();
    await done;
    expect(active.status).toBe('stopped');
    expect(job.stepsDone).toBe(1);
    page.close();
  });
});
