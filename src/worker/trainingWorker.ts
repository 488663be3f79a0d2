// The training Web Worker. It owns tfjs and the training loop so the page stays responsive; the
// page talks to it only through the comlink API in api.ts. It writes everything it produces
// (run record, metric points, checkpoints, episodes) to IndexedDB, where the page reads it back.
import * as Comlink from 'comlink';
import { configFromRecord } from '../lab/urlState.ts';
import type { LabConfig } from '../lab/config.ts';
import { LabStore } from '../store/labStore.ts';
import type { MetricPoint, RunRecord, RunStatus } from '../store/records.ts';
import type { BackendInfo, BackendName, RunProgress, StartRequest, TrainingWorkerApi, WorkerEvent, WorkerListener } from './api.ts';
import { chooseBackend, gpuDeviceLost } from './backend.ts';
import { DEMO_DEFAULTS, DEMO_WIDTH, DemoSortJob } from './demoSortJob.ts';
import type { TrainingJob } from './trainingJob.ts';

/** how often metric points and progress go to the page and the store */
const FLUSH_MS = 250;
/** steps between checkpoints (also written on pause, stop and at the end) */
const CHECKPOINT_EVERY = 25;
/** step times averaged for the ETA */
const ETA_WINDOW = 20;

function createJob(config: LabConfig): TrainingJob {
  return new DemoSortJob({
    ...DEMO_DEFAULTS,
    width: DEMO_WIDTH[config.scale],
    steps: config.steps,
    seed: config.seed,
  });
}

/** One run in progress: its job, its loop state and its outgoing buffer. */
class ActiveRun {
  status: RunStatus = 'running';
  error: string | undefined;
  stopRequested = false;
  private wake: (() => void) | null = null;
  private pending: MetricPoint[] = [];
  private stepMs: number[] = [];
  private totalStepMs = 0;
  private stepsTimed = 0;
  private last: Record<string, number> = {};
  private flushTimer: ReturnType<typeof setInterval>;
  private flushing: Promise<void> = Promise.resolve();
  private startedAt = Date.now();

  constructor(
    readonly run: RunRecord,
    readonly job: TrainingJob,
    private readonly store: LabStore | null,
    private readonly listener: WorkerListener,
  ) {
    this.flushTimer = setInterval(() => void this.flush(), FLUSH_MS);
  }

  /** the loop: one optimiser step at a time, yielding between steps so pause/stop get through */
  async loop(deviceLost: Promise<string> | null): Promise<void> {
    const lost = deviceLost?.then((message) => {
      throw new Error(message);
    });
    lost?.catch(() => undefined); // reported through the race below
    try {
      while (this.job.stepsDone < this.job.totalSteps && !this.stopRequested) {
        if (this.status === 'paused') {
          await this.checkpoint();
          await new Promise<void>((resolve) => (this.wake = resolve));
          continue;
        }
        const t0 = performance.now();
        const metrics = await (lost ? Promise.race([this.job.step(), lost]) : this.job.step());
        const ms = performance.now() - t0;
        const bad = Object.entries(metrics).find(([, value]) => !Number.isFinite(value));
        if (bad) throw new Error(`${bad[0]} became ${bad[1]} at step ${this.job.stepsDone}: training diverged`);
        this.record(metrics, ms);
        if (this.job.stepsDone % CHECKPOINT_EVERY === 0) await this.checkpoint();
        await yieldToMessages();
      }
      await this.checkpoint();
      if (this.job.stepsDone >= this.job.totalSteps) {
        const episodes = await this.job.sampleEpisodes();
        await this.store?.putEpisodes(
          episodes.map((e, index) => ({ runId: this.run.id, step: this.job.stepsDone, index, createdAt: Date.now(), ...e })),
        );
      }
      this.status = this.stopRequested && this.job.stepsDone < this.job.totalSteps ? 'stopped' : 'completed';
    } catch (e) {
      this.status = 'failed';
      this.error = e instanceof Error ? e.message : String(e);
    } finally {
      clearInterval(this.flushTimer);
      await this.flush();
      this.job.dispose();
    }
  }

  pause(): void {
    if (this.status === 'running') {
      this.status = 'paused';
      void this.flush();
    }
  }

  resume(): void {
    if (this.status === 'paused') {
      this.status = 'running';
      this.wake?.();
      this.wake = null;
      void this.flush();
    }
  }

  stop(): void {
    this.stopRequested = true;
    if (this.status === 'paused') {
      this.status = 'running';
      this.wake?.();
    }
  }

  progress(): RunProgress {
    const recent = this.stepMs.slice(-ETA_WINDOW);
    const meanRecent = recent.length ? recent.reduce((a, b) => a + b, 0) / recent.length : null;
    const remaining = this.job.totalSteps - this.job.stepsDone;
    return {
      runId: this.run.id,
      status: this.status,
      step: this.job.stepsDone,
      totalSteps: this.job.totalSteps,
      etaMs: meanRecent !== null && recent.length >= 3 ? meanRecent * remaining : null,
      meanStepMs: this.stepsTimed ? this.totalStepMs / this.stepsTimed : null,
      error: this.error,
    };
  }

  private record(metrics: Record<string, number>, ms: number): void {
    this.stepMs.push(ms);
    if (this.stepMs.length > ETA_WINDOW) this.stepMs.shift();
    // the first steps compile shaders / warm caches; keep them out of the mean step time
    if (this.job.stepsDone > 3) {
      this.totalStepMs += ms;
      this.stepsTimed++;
    }
    this.last = metrics;
    this.pending.push({ runId: this.run.id, step: this.job.stepsDone, t: Date.now() - this.startedAt, values: { ...metrics, stepMs: ms } });
  }

  private async checkpoint(): Promise<void> {
    if (!this.store || this.job.stepsDone === 0) return;
    try {
      const state = await this.job.saveState();
      await this.store.putCheckpoint({ runId: this.run.id, createdAt: Date.now(), ...state });
    } catch (e) {
      this.error = `checkpoint not saved: ${e instanceof Error ? e.message : String(e)}`;
    }
  }

  /** Sends buffered points + progress to the page and the store, one flush at a time. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const points = this.pending;
      this.pending = [];
      const progress = this.progress();
      const events: WorkerEvent[] = [];
      if (points.length) events.push({ type: 'points', runId: this.run.id, points });
      events.push({ type: 'progress', progress });
      if (this.store) {
        try {
          await this.store.appendMetrics(points);
          await this.store.updateRun(this.run.id, {
            status: progress.status,
            summary: {
              steps: progress.step,
              totalSteps: progress.totalSteps,
              last: this.last,
              meanStepMs: progress.meanStepMs ?? undefined,
              error: this.error,
            },
          });
        } catch (e) {
          this.error = e instanceof Error ? e.message : String(e);
          progress.error = this.error;
        }
      }
      try {
        await this.listener(events);
      } catch {
        // the page went away; the run still finishes and is stored
      }
    });
    return this.flushing;
  }
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

const LOCK_PREFIX = 'star-lab-run:';

class TrainingWorker implements TrainingWorkerApi {
  private backend: BackendInfo | null = null;
  private store: LabStore | null = null;
  private storeError: string | undefined;
  private active: ActiveRun | null = null;

  async init(options?: { forceBackend?: BackendName }): Promise<BackendInfo> {
    if (this.backend) return this.backend;
    this.backend = await chooseBackend(options?.forceBackend);
    try {
      this.store = await LabStore.open();
      await this.markInterruptedRuns();
    } catch (e) {
      this.storeError = e instanceof Error ? e.message : String(e);
    }
    return this.backend;
  }

  async start(request: StartRequest, listener: WorkerListener): Promise<string> {
    if (!this.backend) await this.init();
    if (this.active && (this.active.status === 'running' || this.active.status === 'paused')) {
      throw new Error('A run is already in progress; stop it first.');
    }
    let config = request.config;
    let run: RunRecord;
    let resumeFrom = null;
    if (request.resumeRunId) {
      const stored = await this.store?.getRun(request.resumeRunId);
      if (!stored) throw new Error(`Run ${request.resumeRunId} is not in the store (or unreadable).`);
      resumeFrom = await this.store!.latestCheckpoint(stored.id);
      if (!resumeFrom) throw new Error('This run has no checkpoint to resume from.');
      config = configFromRecord(stored.config).config;
      run = { ...stored, status: 'running', backend: this.backend!.label };
    } else {
      const now = Date.now();
      run = {
        id: `run-${now.toString(36)}-${Math.random().toString(36).slice(2, 6)}`,
        kind: 'demo-sort',
        config: { ...config },
        status: 'running',
        createdAt: now,
        updatedAt: now,
        backend: this.backend!.label,
        summary: { steps: 0, totalSteps: config.steps, last: {}, error: this.storeError },
      };
    }
    const job = createJob(config);
    await job.init();
    if (resumeFrom) {
      await job.loadState(resumeFrom);
      await this.store!.deleteMetricsAfter(run.id, resumeFrom.step);
    }
    await this.store?.putRun(run);
    const active = new ActiveRun(run, job, this.store, listener);
    if (this.storeError) active.error = `runs are not being saved: ${this.storeError}`;
    this.active = active;
    const loop = () => active.loop(gpuDeviceLost());
    // hold a lock while training so another tab's worker does not mark this run interrupted
    if (typeof navigator !== 'undefined' && navigator.locks) {
      void navigator.locks.request(LOCK_PREFIX + run.id, loop);
    } else {
      void loop();
    }
    return run.id;
  }

  async pause(): Promise<void> {
    this.active?.pause();
  }

  async resume(): Promise<void> {
    this.active?.resume();
  }

  async stop(): Promise<void> {
    this.active?.stop();
  }

  /** Runs left 'running' or 'paused' by a closed page are 'interrupted' (resumable from a checkpoint). */
  private async markInterruptedRuns(): Promise<void> {
    if (!this.store) return;
    const held = new Set<string>();
    if (typeof navigator !== 'undefined' && navigator.locks) {
      for (const lock of (await navigator.locks.query()).held ?? []) if (lock.name) held.add(lock.name);
    }
    const { items } = await this.store.listRuns();
    for (const run of items) {
      if ((run.status === 'running' || run.status === 'paused') && !held.has(LOCK_PREFIX + run.id)) {
        await this.store.updateRun(run.id, { status: 'interrupted' });
      }
    }
  }
}

Comlink.expose(new TrainingWorker());
