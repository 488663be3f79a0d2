// The run player: the training worker (src/worker, through comlink) and the run in front of the user — start,
// pause, resume, stop, its live progress and curve, its newest sample episodes — and where RL starts from.
// Only this class writes these fields; recovery (runRecovery.svelte.ts) asks it to replace a worker or mark a
// run interrupted. Nothing here touches tfjs (the worker does).
import type { LabConfig } from '../lab/config.ts';
import { configFromRecord } from '../lab/urlState.ts';
import { runTimeLeftMs, type StepSample } from '../lab/runEstimate.ts';
import { calibrationOf, stepSamplesFor } from '../lab/backendChoice.ts';
import type { EpisodeRecord, MetricPoint, RunRecord } from '../store/records.ts';
import type { BackendInfo, RunProgress, StartingPointSource, StartingPointSummary, WorkerEvent } from '../worker/api.ts';
import type { BackendName } from '../lab/backendChoice.ts';
import type { TrainingWorkerHandle } from '../worker/client.ts';
import { trainingSandboxSpec } from '../sandbox/sandboxSetup.ts';
import type { WorldSize } from '../env/types.ts';
import { BackendState } from './backendState.svelte.ts';
import type { RunStore } from './runStore.svelte.ts';

export interface ShownCurve {
  runId: string;
  live: boolean;
  points: MetricPoint[];
}

/** the starting point the page last asked the worker about, and what it answered */
export interface StartingPointView {
  /** 'shipped:s' or 'run:<id>' */
  key: string;
  status: 'loading' | 'ready' | 'error';
  summary?: StartingPointSummary;
  error?: string;
}

/** what the player reads from the rest of the page, and whom it tells */
export interface PlayerHost {
  /** the page's setup (labRoute.svelte.ts): a run started from the page runs it */
  config(): LabConfig;
  store: Readonly<RunStore>;
  /** a start or resume failed (after actionError is set) */
  onStartError(error: unknown): void;
  /** each progress report, once `progress` holds it (recovery, then the queue) */
  onProgress(before: RunProgress | null, progress: RunProgress): void;
}

export class RunPlayer {
  /** the backend the worker chose for the page's scale, and its measurement (backendState.svelte.ts) */
  readonly backends: BackendState;
  progress = $state<RunProgress | null>(null);
  /** the curve in the chart: the live run, or a stored run the user picked */
  curve = $state.raw<ShownCurve | null>(null);
  actionError = $state<string | null>(null);
  /** a start is being prepared in the worker (world, teacher data, model) */
  starting = $state(false);
  /** after a reload, the run the closed page left training, until it is resumed (or cannot be) */
  resuming = $state.raw<{ runId: string; step: number; totalSteps: number } | null>(null);
  /** the newest sample episodes of the shown run (its latest evaluation) */
  episodes = $state.raw<EpisodeRecord[]>([]);
  /** where RL starts: 'shipped' (the checkpoint shipped for the chosen scale) or a stored SFT run's id */
  startingChoice = $state<string>('shipped');
  startingPoint = $state.raw<StartingPointView | null>(null);

  #worker: TrainingWorkerHandle | null = null;
  private livePoints: MetricPoint[] = [];
  /** progress reports received from the worker (a start keeps one that came before its own answer) */
  private reports = 0;
  /** the live run's setup, for its ETA before it has timed a step */
  private liveConfig: LabConfig | null = null;

  constructor(private readonly host: PlayerHost) {
    this.backends = new BackendState({
      worker: () => this.#worker,
      scale: () => host.config().scale,
      onError: (m) => (this.actionError = m),
    });
  }

  get worker(): TrainingWorkerHandle | null {
    return this.#worker;
  }

  get backend(): BackendInfo | null {
    return this.backends.info;
  }

  get running(): boolean {
    return this.progress?.status === 'running' || this.progress?.status === 'paused';
  }

  /** Puts a new worker in place of the old one (terminated); at boot there is none. */
  replaceWorker(worker: TrainingWorkerHandle): void {
    this.#worker?.terminate();
    this.#worker = worker;
  }

  /** The first worker, and its first backend choice at the page's scale (resolves once it has chosen). */
  startWorker(worker: TrainingWorkerHandle, forceBackend: BackendName | undefined): Promise<void> {
    this.replaceWorker(worker);
    return this.backends.boot(worker, forceBackend);
  }

  /**
   * A run the closed page left training is continued once the worker is up (recovery's afterBoot), seconds later:
   * the panel says so, with its kept curve, from the first paint rather than "Ready".
   */
  async noteResuming(): Promise<void> {
    const store = this.host.store;
    const run = store.runs.find((r) => r.status === 'running'); // newest first, as afterBoot picks it
    const from = run ? (await store.checkpointSteps(run.id)).at(-1) : undefined;
    if (!run || from === undefined) return; // none, or one without a checkpoint: not resumed
    this.resuming = { runId: run.id, step: from, totalSteps: run.summary.totalSteps };
    await this.showRun(run.id);
  }

  /** the boot has resumed what it could: the panel shows the run's own state from now on */
  doneResuming(): void {
    this.resuming = null;
  }

  /**
   * Starts a run (or resumes one); `queued`: a queued run's own config, from the shipped checkpoint of its scale.
   * Returns its id, or null when it did not start.
   */
  async start(resumeRunId?: string, queued?: LabConfig): Promise<string | null> {
    if (!this.#worker) return null;
    this.actionError = null;
    this.livePoints = [];
    this.starting = true;
    try {
      const listener = this.#worker.listen((events) => this.onWorkerEvents(events));
      const config = queued ?? ($state.snapshot(this.host.config()) as LabConfig);
      // RL starts where the Starting point card says (a resumed run keeps its own; a queued one the shipped checkpoint)
      const startingPoint = queued ? { kind: 'shipped' as const, scale: queued.scale }
        : config.stage === 'rl' ? $state.snapshot(this.startingSource) as StartingPointSource : undefined;
      const reportsBefore = this.reports;
      const worker = this.#worker;
      // a run at a scale not measured yet is measured first: the page shows it
      const runId = await this.backends.measured(
        () => worker.api.start({ config, startingPoint, resumeRunId }, listener));
      if (resumeRunId) {
        // the kept curve, then what the worker has sent meanwhile (it reports as soon as it trains)
        const kept = (await this.host.store.readMetrics(runId))?.items ?? [];
        const last = kept.at(-1)?.step ?? -1;
        this.livePoints = kept.concat(this.livePoints.filter((p) => p.step > last));
      }
      this.curve = { runId, live: true, points: this.livePoints };
      const stored = resumeRunId ? this.host.store.runs.find((r) => r.id === runId) : undefined;
      this.liveConfig = stored ? configFromRecord(stored.config).config : config;
      // until the worker's first report: a resumed run shows where it resumes (its kept curve's end, its own length)
      if (this.reports === reportsBefore || this.progress?.runId !== runId) {
        const step = resumeRunId ? (this.livePoints.at(-1)?.step ?? 0) : 0;
        const totalSteps = stored?.summary.totalSteps ?? config.steps;
        this.progress = this.withEta({ runId, status: 'running', step, totalSteps, etaMs: null, meanStepMs: null });
      }
      this.episodes = [];
      if (resumeRunId) await this.loadEpisodes(runId);
      await this.host.store.refreshRuns();
      return runId;
    } catch (e) {
      this.actionError = messageOf(e);
      this.host.onStartError(e);
      return null;
    } finally {
      this.starting = false;
    }
  }

  pause = () => this.#worker?.api.pause();
  resume = () => this.#worker?.api.resume();
  stop = () => this.#worker?.api.stop();

  // ---- where RL starts -----------------------------------------------------------------------------------

  /** SFT runs of the chosen scale that can be a starting point (the live one is still changing) */
  get startingRuns(): RunRecord[] {
    const live = this.running ? this.progress?.runId : undefined;
    const scale = this.host.config().scale;
    return this.host.store.runs.filter((r) => r.kind === 'sft' && r.config.scale === scale && r.summary.steps > 0
      && r.id !== live);
  }

  get startingSource(): StartingPointSource {
    const run = this.startingChoice !== 'shipped' && this.startingRuns.some((r) => r.id === this.startingChoice);
    return run ? { kind: 'run', runId: this.startingChoice } : { kind: 'shipped', scale: this.host.config().scale };
  }

  /** the Starting point card's choice: 'shipped' or a stored SFT run's id */
  chooseStartingPoint(choice: string): void {
    this.startingChoice = choice;
  }

  /** RL: the world the run will train in — its starting point's, not the World size setting's (null on SFT) */
  get rlWorld(): { size: WorldSize; seed: number; from: string } | null {
    const config = this.host.config();
    if (config.stage !== 'rl') return null;
    const source = this.startingSource;
    if (source.kind === 'run') {
      // an SFT run trained in its own setup's world (what the worker reads when it loads it)
      const sft = configFromRecord(this.host.store.runs.find((r) => r.id === source.runId)?.config).config;
      return { size: sft.worldSize, seed: sft.seed, from: `SFT run ${source.runId}'s setup` };
    }
    // a shipped checkpoint's is its card's (read by the worker; until then the cards' known world)
    const read = this.startingPoint?.status === 'ready' ? this.startingPoint.summary?.world : null;
    const spec = trainingSandboxSpec(config, { kind: 'shipped', world: read });
    return { size: spec.size, seed: spec.seed, from: `the shipped ${source.scale} checkpoint's card` };
  }

  /** Asks the worker to load and check the starting point, once per choice; `force` checks it again. */
  async inspectStartingPoint(source: StartingPointSource, force = false): Promise<void> {
    if (!this.#worker || !this.backend) return;
    const key = source.kind === 'shipped' ? `shipped:${source.scale}` : `run:${source.runId}`;
    if (!force && this.startingPoint?.key === key) return;
    this.startingPoint = { key, status: 'loading' };
    let next: StartingPointView;
    try {
      next = { key, status: 'ready', summary: await this.#worker.api.inspectStartingPoint(source) };
    } catch (e) {
      next = { key, status: 'error', error: messageOf(e) };
    }
    // a later choice may have been made meanwhile: its answer wins
    if (this.startingPoint?.key === key) this.startingPoint = next;
  }

  // ---- the stored runs, seen from the player ---------------------------------------------------------------

  /** Shows a stored run's curve (or the live one, if it is the live run). */
  async showRun(runId: string): Promise<void> {
    if (this.progress?.runId === runId && this.running) {
      this.curve = { runId, live: true, points: this.livePoints };
      await this.loadEpisodes(runId);
      return;
    }
    const result = await this.host.store.readMetrics(runId);
    if (!result) return;
    this.curve = { runId, live: false, points: result.items };
    await this.loadEpisodes(runId);
    if (result.skipped.length) this.host.store.noteSkipped(result.skipped);
  }

  /** Deletes a stored run (never the live one), and its curve if it was shown. */
  async deleteRun(runId: string): Promise<void> {
    if (this.running && this.progress?.runId === runId) return;
    await this.host.store.deleteRun(runId);
    if (this.curve?.runId === runId) {
      this.curve = null;
      this.episodes = [];
    }
    await this.host.store.refreshRuns();
  }

  // ---- the run's time left (the estimate's inputs; the queue's and the lessons' estimates read them too) ----

  /** measured step times on this backend (its stored RL runs', else its calibration figure), for runs not timed yet */
  get stepSamples(): StepSample[] {
    const calibration = calibrationOf(this.backend);
    return stepSamplesFor(this.host.store.runs, this.backend?.name ?? null, calibration ? [calibration] : []);
  }

  /** the worker's progress, with an ETA from the measured step times until the run has timed its own steps */
  private withEta(p: RunProgress): RunProgress {
    if (p.etaMs !== null || p.status !== 'running' || !this.liveConfig) return p;
    // its steps and evaluations left (the final one included) at this backend's measured times
    const left = runTimeLeftMs({ ...this.liveConfig, steps: p.totalSteps }, p.step, this.stepSamples);
    return left === null ? p : { ...p, etaMs: left };
  }

  // ---- what recovery asks of the player (runRecovery.svelte.ts) ---------------------------------------------

  /** A replacement worker is up on `backend`; a start in flight died with the old worker (it never answers). */
  workerRestarted(backend: BackendInfo): void {
    this.backends.adopt(backend);
    this.starting = false;
  }

  /** The live run will not be resumed by itself: the panel shows it interrupted. */
  markInterrupted(runId: string): void {
    if (this.progress?.runId === runId) this.progress = { ...this.progress, status: 'interrupted' };
  }

  /** The worker could not be (re)started: the page says why. */
  backendFailed(message: string): void {
    this.backends.fail(message);
  }

  // ---- the worker's reports ---------------------------------------------------------------------------------

  private onWorkerEvents(events: WorkerEvent[]): void {
    for (const event of events) {
      if (event.type === 'points') {
        // a resumed run's curve was read from the store, which may already hold these points
        const last = this.livePoints.at(-1)?.step ?? -1;
        this.livePoints = this.livePoints.concat(event.points.filter((p) => p.step > last));
        if (this.curve?.live && this.curve.runId === event.runId) {
          this.curve = { runId: event.runId, live: true, points: this.livePoints };
        }
      } else {
        const before = this.progress;
        this.progress = this.withEta(event.progress);
        this.reports++;
        this.host.onProgress(before, event.progress);
        const changed = before?.status !== event.progress.status;
        if (changed) void this.host.store.refreshRuns();
        // a run at another scale may have moved the worker to another backend: back to the page's scale's
        if (changed && !this.running && this.backend?.choice?.scale !== this.host.config().scale) {
          void this.backends.choose();
        }
        if ((event.progress.episodes ?? 0) !== (before?.episodes ?? 0) && this.curve?.runId === event.progress.runId) {
          void this.loadEpisodes(event.progress.runId);
        }
      }
    }
  }

  /** the episodes of the run's latest evaluation */
  private async loadEpisodes(runId: string): Promise<void> {
    const items = await this.host.store.readEpisodes(runId);
    if (!items || this.curve?.runId !== runId) return;
    const newest = Math.max(-1, ...items.map((e) => e.step));
    this.episodes = items.filter((e) => e.step === newest).sort((a, b) => a.index - b.index);
  }
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
