// One training run in progress: the loop around a TrainingJob (pacing, pause, resume, stop, NaN
// and lost-device detection), what goes to the page and what goes to the store. Free of tfjs and of
// the worker's messaging, so it is tested in Node with a scripted job.
//
// The page is told at once (a comlink call posts its message synchronously), never behind a store
// write or a timer: a step on wasm holds the worker's event loop for its whole length, so a timer or
// an IndexedDB callback waits until the step ends, and a flush that awaited the store before telling
// the page reached it steps late. The store is written between steps, the loop waiting
// for it, and a checkpoint only after every point up to its step is stored: a resume starts after
// the checkpoint, so a checkpoint ahead of the points would lose them.
import { isQuotaError, type LabStore } from '../store/labStore.ts';
import type { CheckpointRecord, MetricPoint, RunRecord, RunStatus } from '../store/records.ts';
import type { RunProgress, WorkerEvent, WorkerListener } from './api.ts';
import type { JobEpisode, JobState, RunHost, SteppedJob, TrainingJob } from './trainingJob.ts';
import { RunTiming } from './runTiming.ts';
import type { TestHolds } from './testHolds.ts';
import { METRIC } from '../lab/metricNames.ts';

/** fast steps (SFT) go to the page and the store in batches at most this often; a slower step goes at once */
const FLUSH_MS = 250;
/** steps between checkpoints (also written on pause, stop and at the end) */
const CHECKPOINT_EVERY = 25;

/** The GPU device went away mid-run: the run is interrupted (resumable), not failed. */
export class DeviceLostError extends Error {
  override name = 'DeviceLostError';
}

/** A metric became NaN or infinite: the weights after this step are not worth keeping. */
class DivergedError extends Error {}

/** One run in progress: its job, its loop state and its outgoing buffer. */
export class ActiveRun implements RunHost {
  status: RunStatus = 'running';
  error: string | undefined;
  stopRequested = false;
  /** the run stopped because the GPU device was lost; a new backend resumes it from its checkpoint */
  deviceLost = false;
  /** the last store write failed because browser storage is full (cleared by the next write that works) */
  storeFull = false;
  /** why the last store write failed, while it keeps failing */
  private storeProblem: string | undefined;
  /** step of the newest checkpoint in the store (a resumed run starts at one; 0: none yet) */
  private checkpointStep: number;
  /** a checkpoint was not written (a failed write, or points before it unsaved): write one after the next step */
  private checkpointDue = false;
  /** the loop is parked in pause (no step in flight), so a checkpoint can be taken from outside it */
  private parked = false;
  private wake: (() => void) | null = null;
  /** steps whose metrics are recorded (the counter the page shows; a step in flight is not counted) */
  private stepsRecorded: number;
  private pending: MetricPoint[] = [];
  /** points sent to the page whose store write failed; written with the next flush */
  private unsaved: MetricPoint[] = [];
  /** elapsed time, mean step time and ETA, continued from the points kept before a resume */
  private readonly timing: RunTiming;
  private last: Record<string, number> = {};
  /** the store writes, one after another */
  private storing: Promise<void> = Promise.resolve();
  private flushedAt = 0;
  /** when this session started (a resumed run's elapsed time adds the time before it: timing) */
  private readonly sessionStart = Date.now();
  /** how many times sample episodes were stored (the page reloads them when it changes) */
  private episodesStored = 0;
  /** a browser test's holds (testHolds.ts); null on every production page */
  testHolds: TestHolds | null = null;
  /** the points kept from before a resume */
  private readonly history: readonly MetricPoint[];

  constructor(
    readonly run: RunRecord,
    readonly job: TrainingJob,
    private readonly store: LabStore | null,
    private readonly listener: WorkerListener,
    /** a resumed run's points kept from before (resumeFromCheckpoint returns them) */
    history: readonly MetricPoint[] = [],
    /** a new run's createdAt (once its backend is in place): its wall time, summary.wallMs, counts from it */
    private readonly requestedAt: number | null = null,
    /** the checkpoint a running job (RL) resumes from: it restores it itself (run), so its stepsDone is 0 here */
    readonly resumeFrom: JobState | null = null,
  ) {
    this.timing = new RunTiming({ totalSteps: job.totalSteps, evalEvery: job.evalEvery ?? null, history });
    this.history = history;
    this.checkpointStep = resumeFrom?.step ?? job.stepsDone;
    this.stepsRecorded = this.checkpointStep;
    // a new phase mid-step ('evaluating') reaches the page as it starts, not when the step ends
    job.onPhase = () => this.tell([]);
  }

  /** the loop: one optimiser step at a time, yielding between steps so pause/stop get through */
  async loop(deviceLost: Promise<string> | null): Promise<void> {
    const lost = deviceLost?.then((message) => {
      throw new DeviceLostError(message);
    });
    lost?.catch(() => undefined); // reported through the race below
    const race = <T>(work: Promise<T>): Promise<T> => (lost ? Promise.race([work, lost]) : work);
    try {
      this.tell([]);
      if ('run' in this.job) await race(this.job.run(this));
      else await this.stepLoop(this.job, race);
      this.status = this.stopRequested && this.job.stepsDone < this.job.totalSteps ? 'stopped' : 'completed';
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      if (e instanceof DeviceLostError) {
        // nothing is wrong with the run: a new backend (a new worker) continues it from its checkpoint
        this.status = 'interrupted';
        this.deviceLost = true;
        const from = this.storedCheckpoint();
        this.error =
          `${message}. Training stopped at step ${this.job.stepsDone}; ` +
          (from
            ? `it resumes from its checkpoint at step ${from} on a new backend.`
            : 'no checkpoint had been stored yet.');
      } else {
        this.status = 'failed';
        // a diverged step's weights are never checkpointed: the newest stored one is the last good one
        const kept = this.storedCheckpoint();
        this.error =
          e instanceof DivergedError
            ? `${message}. ${kept ? `The last good checkpoint (step ${kept}) is kept.` : 'No checkpoint had been stored yet.'}`
            : message;
      }
    } finally {
      this.job.onPhase = undefined;
      // the end status (completed, failed, stopped) reaches the page once stored: a lesson that reads
      // "finished" and a reload at that moment find the same run
      await this.flush(true);
      this.job.dispose();
    }
  }

  /** a stepped job's life (SFT): step 0's point, then its steps until the end or a stop, then its last checkpoint */
  private async stepLoop(job: SteppedJob, race: <T>(work: Promise<T>) => Promise<T>): Promise<void> {
    if (job.stepsDone === 0 && job.initialMetrics)
      await this.evaluation(0, await race(job.initialMetrics()), job.drainEpisodes?.() ?? []);
    while (job.stepsDone < job.totalSteps && (await this.between())) {
      const t0 = performance.now();
      const metrics = await race(job.step());
      const ms = performance.now() - t0;
      const due = job.stepsDone % (job.checkpointEvery ?? CHECKPOINT_EVERY) === 0;
      await this.stepped(metrics, ms, job.drainEpisodes?.() ?? [], due);
    }
    await this.checkpoint();
    if (job.stepsDone >= job.totalSteps) await this.storeEpisodes(await job.sampleEpisodes());
  }

  evaluatedAt(step: number): boolean {
    return this.history.some((p) => p.step === step && p.values[METRIC.evalSeconds] !== undefined);
  }

  async evaluation(step: number, metrics: Record<string, number>, episodes: JobEpisode[]): Promise<void> {
    this.checkFinite(metrics);
    this.timing.recordEvaluation(metrics[METRIC.evalSeconds]);
    // a resumed step's evaluation joins the point its training wrote before the stop
    const kept = this.history.find((p) => p.step === step)?.values;
    this.pending.push({ runId: this.run.id, step, t: this.elapsedMs(), values: { ...kept, ...metrics } });
    this.last = { ...this.last, ...metrics };
    await this.storeEpisodes(episodes);
    await this.flush();
    await yieldToMessages();
  }

  async stepped(
    metrics: Record<string, number>,
    ms: number,
    episodes: JobEpisode[],
    save: JobState | boolean,
  ): Promise<void> {
    this.checkFinite(metrics);
    this.record(metrics, ms);
    const sampled = await this.storeEpisodes(episodes);
    const held = this.testHolds?.holds(this.run.id, this.job.stepsDone) ?? false;
    if (this.checkpointDue || save) await this.checkpoint(typeof save === 'object' ? save : undefined);
    else if (held || sampled || Date.now() - this.flushedAt >= FLUSH_MS) await this.flush();
    // a test's hold: this step stored and shown (and checkpointed, if due), the run waits for the test
    // (a Stop that came before the hold, or during the flush, goes through: nothing would release it)
    if (held && !this.stopRequested) await this.testHolds!.after(this.run.id, this.job.stepsDone);
    await yieldToMessages();
  }

  async between(): Promise<boolean> {
    while (!this.stopRequested && this.status === 'paused') {
      await this.checkpoint();
      // a resume (or stop) while the checkpoint was written has come already: no wake-up would follow
      if (this.status === 'paused') {
        this.parked = true;
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.parked = false;
      }
      // stored, then shown, before the next step holds the event loop: a reload now resumes the run the page says
      // is training
      await this.flush(true);
    }
    return !this.stopRequested;
  }

  pause(): void {
    if (this.status === 'running') {
      this.status = 'paused';
      this.tell([]);
    }
  }

  resume(): void {
    if (this.status === 'paused') {
      this.status = 'running';
      // the loop stores and tells the new status before it starts the next step
      this.wake?.();
      this.wake = null;
    }
  }

  stop(): void {
    this.stopRequested = true;
    this.testHolds?.release(this.run.id); // a test's hold never keeps a Stop waiting
    if (this.status === 'paused') {
      this.status = 'running';
      this.wake?.();
    }
  }

  /** Writes a checkpoint that failed (storage was full) and the points not yet stored, now. */
  async retryStorage(): Promise<void> {
    if (this.checkpointDue && this.parked) await this.checkpoint();
    await this.flush();
  }

  private checkFinite(metrics: Record<string, number>): void {
    const bad = Object.entries(metrics).find(([, value]) => !Number.isFinite(value));
    if (bad) throw new DivergedError(`${bad[0]} became ${bad[1]} at step ${this.job.stepsDone}: training diverged`);
  }

  /** the step of the newest checkpoint in the store, or null */
  private storedCheckpoint(): number | null {
    return this.store && this.checkpointStep > 0 ? this.checkpointStep : null;
  }

  /** ms since the run started, the time before a resume included */
  private elapsedMs(): number {
    return this.timing.elapsedMs(Date.now() - this.sessionStart);
  }

  progress(): RunProgress {
    return {
      runId: this.run.id,
      status: this.status,
      step: this.stepsRecorded,
      totalSteps: this.job.totalSteps,
      // the steps and the evaluations left (src/worker/runTiming.ts)
      etaMs: this.timing.etaMs(this.stepsRecorded),
      meanStepMs: this.timing.meanStepMs,
      phase: this.status === 'running' ? this.job.phase || undefined : undefined,
      episodes: this.episodesStored,
      error: this.error ?? this.storeProblem,
      checkpointStep: this.checkpointStep || undefined,
      deviceLost: this.deviceLost || undefined,
      storeFull: this.storeFull || undefined,
    };
  }

  private record(metrics: Record<string, number>, ms: number): void {
    // the mean step time leaves out warm-up steps and evaluations; the ETA counts evaluations apart
    this.timing.recordStep(this.job.stepsDone, ms, metrics[METRIC.evalSeconds]);
    // the tiles show the latest value of every metric, evaluations included
    this.last = { ...this.last, ...metrics };
    this.stepsRecorded = this.job.stepsDone;
    this.pending.push({
      runId: this.run.id,
      step: this.job.stepsDone,
      t: this.elapsedMs(),
      values: { ...metrics, [METRIC.timeStepMs]: ms },
    });
  }

  /** stores a step's sample episodes; true when there were some (the page then reloads them) */
  private async storeEpisodes(episodes: JobEpisode[]): Promise<boolean> {
    if (!this.store || episodes.length === 0) return false;
    await this.store.putEpisodes(
      episodes.map((e, index) => ({
        runId: this.run.id,
        step: this.job.stepsDone,
        index,
        createdAt: Date.now(),
        ...e,
      })),
    );
    this.episodesStored++;
    return true;
  }

  /** Stores the points so far, then a checkpoint of this step (`state`, else the job's now) — unless a point
   *  before it is not stored. */
  async checkpoint(state?: JobState): Promise<void> {
    await this.flush();
    if (!this.store || this.job.stepsDone === 0) return;
    if (this.unsaved.length) {
      // a resume starts after its checkpoint: one ahead of unsaved points would lose them for good
      this.checkpointDue = true;
      return;
    }
    try {
      const saved = state ?? (await this.job.saveState());
      await this.store.putCheckpoint({ runId: this.run.id, createdAt: Date.now(), ...saved });
      this.checkpointStep = saved.step;
      this.checkpointDue = false;
      this.storeWorked();
    } catch (e) {
      this.checkpointDue = true;
      this.storeFailed(e, 'checkpoint not saved: ');
    }
    this.tell([]); // the checkpoint's step, or why there is none
  }

  private storeWorked(): void {
    this.storeFull = false;
    this.storeProblem = undefined;
  }

  private storeFailed(e: unknown, lead = ''): void {
    this.storeFull = isQuotaError(e);
    this.storeProblem = lead + (e instanceof Error ? e.message : String(e));
  }

  /** Sends `points` and the progress to the page now, in one message; never waits for its answer. */
  private tell(points: MetricPoint[]): void {
    const events: WorkerEvent[] = [];
    if (points.length) events.push({ type: 'points', runId: this.run.id, points });
    events.push({ type: 'progress', progress: this.progress() });
    try {
      // a comlink call posts at once; its answer needs this event loop, which a step may hold
      void Promise.resolve(this.listener(events)).catch(() => undefined);
    } catch {
      // the page went away; the run still finishes and is stored
    }
  }

  /**
   * Sends the buffered points and the progress to the page now, then stores them (after the writes
   * before); `storeFirst`: the page hears of them once stored (a status it must not show before a
   * reload would find it).
   */
  flush(storeFirst = false): Promise<void> {
    const points = this.pending;
    this.pending = [];
    this.flushedAt = Date.now();
    if (!storeFirst) this.tell(points);
    const progress = this.progress();
    const last = { ...this.last };
    this.storing = this.storing.then(async () => {
      await this.save(points, progress, last);
      if (storeFirst) this.tell(points);
    });
    return this.storing;
  }

  private async save(points: MetricPoint[], progress: RunProgress, last: Record<string, number>): Promise<void> {
    if (!this.store) return;
    const before = `${this.storeFull}|${this.storeProblem}`;
    this.unsaved.push(...points);
    try {
      await this.store.appendMetrics(this.unsaved);
      this.unsaved = [];
      await this.store.updateRun(this.run.id, {
        status: progress.status,
        summary: {
          steps: progress.step,
          totalSteps: progress.totalSteps,
          last,
          meanStepMs: progress.meanStepMs ?? undefined,
          meanEvalMs: this.timing.meanEvalMs ?? undefined,
          ...(progress.status === 'completed' && this.requestedAt !== null
            ? { wallMs: Date.now() - this.requestedAt } : {}),
          error: this.error,
        },
      });
      if (!this.checkpointDue) this.storeWorked();
    } catch (e) {
      this.storeFailed(e);
    }
    if (`${this.storeFull}|${this.storeProblem}` !== before) this.tell([]); // storage filled up, or has room again
  }
}

/**
 * Continues a stored run from its newest checkpoint: the store drops the points and episodes after it
 * (those steps are trained again), before the page reads the kept curve back; a stepped job takes its
 * weights, optimiser, random state and step now, a running job (RL) in its run (ActiveRun's resumeFrom).
 * Every point up to the checkpoint stays: the loop stores them before it writes one. Returns those
 * points: the resumed ActiveRun continues their elapsed time and step times from them.
 */
export async function resumeFromCheckpoint(
  job: TrainingJob,
  store: LabStore,
  checkpoint: CheckpointRecord,
): Promise<MetricPoint[]> {
  if (!('run' in job)) await job.loadState(checkpoint);
  await store.deleteAfter(checkpoint.runId, checkpoint.step);
  return (await store.readMetrics(checkpoint.runId)).items;
}

/** Lets queued messages (pause, stop) run between steps without the 4 ms clamp of setTimeout. */
function yieldToMessages(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}
