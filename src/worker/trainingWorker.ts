// The training Web Worker. It owns tfjs and the training loop so the page stays responsive; the
// page talks to it only through the comlink API in api.ts. It writes everything it produces
// (run record, metric points, checkpoints, episodes) to IndexedDB, where the page reads it back.
import * as Comlink from 'comlink';
import { configFromRecord } from '../lab/urlState.ts';
import { defaultConfig, type LabConfig } from '../lab/config.ts';
import { runCalibration, type Scale } from '../lab/backendChoice.ts';
import { LabStore } from '../store/labStore.ts';
import { CalibrationStore } from '../store/calibrationStore.ts';
import type { MetricPoint, RunRecord } from '../store/records.ts';
import { ActiveRun, resumeFromCheckpoint } from './activeRun.ts';
import type { BackendInfo, InterruptedRun, MeasureListener, StartingPointSource, StartingPointSummary, StartRequest, TrainingWorkerApi, WorkerListener } from './api.ts';
import type { BackendName } from '../lab/backendChoice.ts';
import { gpuDeviceLost } from './backend.ts';
import { BackendChooser } from './backendChooser.ts';
import { START_LIMITS, withinTime } from './deadline.ts';
import { RlJob } from './rlJob.ts';
import { SftJob, sftJobOptions } from './sftJob.ts';
import { checkSource, loadStartingPoint } from './startingPoint.ts';
import type { TrainingJob } from './trainingJob.ts';
import { TestHolds } from './testHolds.ts';
import { configAsTrained } from '../rl/startConfig.ts';

/** The job of a stage: RL from a starting point, or SFT from scratch. */
function createJob(
  stage: LabConfig['stage'],
  config: LabConfig,
  source: StartingPointSource,
  store: LabStore | null,
): TrainingJob {
  return stage === 'sft' ? new SftJob(sftJobOptions(config)) : new RlJob({ lab: config, source, store });
}

const LOCK_PREFIX = 'star-lab-run:';
/** a browser test's holds, from this worker's name (none on a production page: src/worker/testHolds.ts) */
const testHolds = TestHolds.fromWorkerName(typeof self !== 'undefined' ? self.name : '');
/** a closing page's worker may still hold its run's lock for a moment: look again after this */
const LOCK_RECHECK_MS = 1500;

class TrainingWorker implements TrainingWorkerApi {
  private backend: BackendInfo | null = null;
  private store: LabStore | null = null;
  private storeError: string | undefined;
  private active: ActiveRun | null = null;
  /** marking the runs of a closed page; start() and interruptedRuns() wait for it */
  private marking: Promise<InterruptedRun[]> = Promise.resolve([]);

  private initializing: Promise<BackendInfo> | null = null;
  private chooser: BackendChooser | null = null;
  /** the page's listener for calibration progress (the latest one it gave) */
  private onMeasure: MeasureListener | undefined;
  /** tfjs work that must not overlap a backend switch (choosing, loading a starting point, starting a run) runs one at
   * a time */
  private tfjsTurn: Promise<unknown> = Promise.resolve();

  /** once per worker: a call that arrives while the first is choosing the backend waits for it */
  init(options?: { forceBackend?: BackendName; scale?: Scale }, onMeasure?: MeasureListener): Promise<BackendInfo> {
    if (onMeasure) this.onMeasure = onMeasure;
    this.initializing ??= this.initOnce(options?.forceBackend, options?.scale ?? defaultConfig().scale);
    return this.initializing;
  }

  private async initOnce(forceBackend: BackendName | undefined, scale: Scale): Promise<BackendInfo> {
    try {
      this.store = await withinTime(LabStore.open(), START_LIMITS.storeMs, 'opening the run store (IndexedDB)');
      this.marking = this.markInterruptedRuns().catch(() => []);
    } catch (e) {
      this.storeError = e instanceof Error ? e.message : String(e);
    }
    // the figures are kept apart from the runs; without IndexedDB the backends are measured on every visit
    const figures = await withinTime(CalibrationStore.open(), START_LIMITS.storeMs, 'opening the figures store').catch(
      () => null,
    );
    this.chooser = new BackendChooser(figures, forceBackend);
    return this.exclusive(() => this.switchTo(scale));
  }

  async backendFor(scale: Scale, options?: { remeasure?: boolean }, onMeasure?: MeasureListener): Promise<BackendInfo> {
    if (onMeasure) this.onMeasure = onMeasure;
    await this.init();
    return this.exclusive(async () => {
      if (this.training()) {
        if (options?.remeasure)
          throw new Error('A run is training on this backend: measure again once it has stopped.');
        return this.backend!;
      }
      return this.switchTo(scale, options?.remeasure);
    });
  }

  /** chooses (and starts) the backend for `scale`; call inside exclusive() */
  private async switchTo(scale: Scale, remeasure = false): Promise<BackendInfo> {
    this.backend = await this.chooser!.choose(scale, { remeasure, onProgress: (p) => this.onMeasure?.(p) });
    return this.backend;
  }

  private training(): boolean {
    return this.active?.status === 'running' || this.active?.status === 'paused';
  }

  /** runs `fn` after the tfjs work queued before it */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const turn = this.tfjsTurn.then(fn);
    this.tfjsTurn = turn.catch(() => undefined);
    return turn;
  }

  async inspectStartingPoint(source: StartingPointSource): Promise<StartingPointSummary> {
    await this.init();
    return this.exclusive(async () => {
      const loaded = await loadStartingPoint(source, { store: this.store });
      loaded.policy.dispose();
      return loaded.summary;
    });
  }

  async start(request: StartRequest, listener: WorkerListener): Promise<string> {
    await this.init();
    await this.marking; // else it could mark the run this call resumes as interrupted
    // nothing may switch the backend between choosing it and the run holding it
    return this.exclusive(() => this.startNow(request, listener));
  }

  private async startNow(request: StartRequest, listener: WorkerListener): Promise<string> {
    if (this.training()) throw new Error('A run is already in progress; stop it first.');
    let config = request.config;
    let source: StartingPointSource = request.startingPoint
      ? checkSource(request.startingPoint)
      : { kind: 'shipped', scale: config.scale };
    let run: RunRecord;
    let resumeFrom = null;
    if (request.resumeRunId) {
      const stored = await this.store?.getRun(request.resumeRunId);
      if (!stored) throw new Error(`Run ${request.resumeRunId} is not in the store (or unreadable).`);
      resumeFrom = await this.store!.latestCheckpoint(stored.id);
      if (!resumeFrom) throw new Error('This run has no checkpoint to resume from.');
      // the stored run decides: its stage (runs of older builds have no `stage` setting) and starting point
      config = { ...configFromRecord(stored.config).config, stage: stored.kind === 'sft' ? 'sft' : 'rl' };
      source = stored.startingPoint ? checkSource(stored.startingPoint) : { kind: 'shipped', scale: config.scale };
      const backend = await this.switchTo(config.scale);
      run = { ...stored, status: 'running', ...backendFields(backend) };
    } else {
      const backend = await this.switchTo(config.scale); // the run's scale may not be the page's
      const now = Date.now();
      run = {
        id: `run-${now.toString(36)}-${Math.random().toString(36).slice(2, 6)}`,
        kind: config.stage,
        config: { ...config },
        ...(config.stage === 'rl' ? { startingPoint: source } : {}),
        status: 'running',
        createdAt: now,
        updatedAt: now,
        ...backendFields(backend),
        summary: { steps: 0, totalSteps: config.steps, last: {}, error: this.storeError },
      };
    }
    const job = createJob(config.stage, config, source, this.store);
    let history: MetricPoint[] = [];
    try {
      await job.init();
      if (resumeFrom) history = await resumeFromCheckpoint(job, this.store!, resumeFrom);
      // RL trains in its starting point's world (the checkpoint's card), whatever the World size setting: the run keeps
      // the one it used
      else if (job instanceof RlJob) run = { ...run, config: configAsTrained(run.config, job.world) };
    } catch (e) {
      job.dispose();
      throw e;
    }
    await this.store?.putRun(run);
    const requestedAt = resumeFrom ? null : run.createdAt;
    const active = new ActiveRun(run, job, this.store, listener, history, requestedAt, resumeFrom);
    if (this.storeError) active.error = `runs are not being saved: ${this.storeError}`;
    active.testHolds = testHolds;
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

  async interruptedRuns(): Promise<InterruptedRun[]> {
    await this.init();
    return this.marking;
  }

  async retryStorage(): Promise<void> {
    await this.active?.retryStorage();
  }

  /** Runs left 'running' or 'paused' by a closed page are 'interrupted' (resumable from a checkpoint). */
  private async markInterruptedRuns(): Promise<InterruptedRun[]> {
    if (!this.store) return [];
    const marked: InterruptedRun[] = [];
    // after a reload the old page's worker may not have let go of its lock yet: look once more
    if (await this.markUnlocked(marked)) {
      await new Promise((resolve) => setTimeout(resolve, LOCK_RECHECK_MS));
      await this.markUnlocked(marked);
    }
    return marked;
  }

  /** one pass of markInterruptedRuns; true when some live-looking run's lock was held (another tab, or not yet
   * released) */
  private async markUnlocked(marked: InterruptedRun[]): Promise<boolean> {
    const held = new Set<string>();
    if (typeof navigator !== 'undefined' && navigator.locks) {
      for (const lock of (await navigator.locks.query()).held ?? []) if (lock.name) held.add(lock.name);
    }
    let unsure = false;
    const { items } = await this.store!.listRuns();
    for (const run of items) {
      if (run.status !== 'running' && run.status !== 'paused') continue;
      if (held.has(LOCK_PREFIX + run.id) || run.id === this.active?.run.id) {
        unsure ||= run.id !== this.active?.run.id;
        continue;
      }
      await this.store!.updateRun(run.id, { status: 'interrupted' });
      marked.push({ runId: run.id, was: run.status });
    }
    return unsure;
  }
}

/** what a run records of the backend it trains on, and of how that was chosen */
function backendFields(backend: BackendInfo): Pick<RunRecord, 'backend' | 'calibration'> {
  return {
    backend: backend.label,
    ...(backend.choice ? { calibration: runCalibration(backend, backend.choice) } : {}),
  };
}

Comlink.expose(new TrainingWorker());
