// The page's state: the experiment config (mirrored in the URL hash), the training worker's
// backend and live run, and the stored runs read from IndexedDB. Components read it and call its
// methods; nothing here touches tfjs (the worker does).
import { defaultConfig, type LabConfig, type SettingKey } from '../lab/config.ts';
import { configFromRecord, formatValue, parseHash, serializeHash, type Route, type UrlNotice, type View } from '../lab/urlState.ts';
import { isOwnEntry, onAddressChange, readAddress, writeAddress } from './addressBar.ts';
import { LabStore } from '../store/labStore.ts';
import { findingById } from '../findings/findings.ts';
import {
  cancelWaiting, clearFinished, continueQueue, emptyQueue, enqueue, runTimeLeftMs, markStarted, markStarting, nextToStart, recordProgress, startFailed,
  type RunQueue, type StepSample,
} from '../lab/runQueue.ts';
import { gridRuns } from '../findings/findingRuns.ts';
import { calibrationOf, stepSamplesFor } from '../lab/backendChoice.ts';
import { decodeRunBundle, encodeRunBundle } from '../store/runBundle.ts';
import type { EpisodeRecord, MetricPoint, RunRecord } from '../store/records.ts';
import type { BackendInfo, BackendName, RunProgress, StartingPointSource, StartingPointSummary, WorkerEvent } from '../worker/api.ts';
import type { TrainingWorkerHandle } from '../worker/client.ts';
import { RunRecovery } from './runRecovery.svelte.ts';
import { runLink, runResultOf } from '../lessons/runResultCode.ts';
import { settingKey } from '../lessons/lessonReference.ts';
import { BUILD } from './build.ts';
import { BackendState } from './backendState.svelte.ts';
import { QueueSaver } from './queueSaver.ts';
import { reconcileAfterReload } from '../lab/queueRestore.ts';
import { trainingSandboxSpec } from '../sandbox/sandboxSetup.ts';
import type { WorldSize } from '../env/types.ts';

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

export class LabState {
  config = $state<LabConfig>(defaultConfig());
  /** which view is shown (and which finding), mirrored in the URL hash beside the config */
  route = $state<Route>({ view: 'lab', finding: null });
  notices = $state<UrlNotice[]>([]);
  /** the backend the worker chose for the page's scale, and its measurement (backendState.svelte.ts) */
  readonly backends: BackendState = new BackendState({ worker: () => this.worker, scale: () => this.config.scale, onError: (m) => (this.actionError = m) });
  get backend(): BackendInfo | null { return this.backends.info; }
  set backend(info: BackendInfo | null) { this.backends.info = info; }
  get backendError(): string | null { return this.backends.error; }
  set backendError(message: string | null) { this.backends.error = message; }
  runs = $state.raw<RunRecord[]>([]);
  /** the stored runs have been read once (or the store could not open): before, an empty list means "not read yet" */
  runsListed = $state(false);
  /** records in the store that failed validation (listed, not shown) */
  skippedRecords = $state<string[]>([]);
  storeError = $state<string | null>(null);
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
  /** runs queued to start one after another (a finding's grid); src/lab/runQueue.ts; kept in the store */
  #queue = $state.raw<RunQueue>(emptyQueue());
  get queue(): RunQueue {
    return this.#queue;
  }
  set queue(q: RunQueue) {
    this.#queue = q;
    this.queueSaver?.save(q);
  }
  /** what became of the stored queue on load (an unreadable record skipped, a run started again) */
  queueNotice = $state<string | null>(null);

  /** resume after a reload, a crash or a lost GPU; full storage and its prune offer (runRecovery.svelte.ts) */
  readonly recovery: RunRecovery = new RunRecovery(this, {
    worker: () => this.worker,
    setWorker: (worker) => (this.worker = worker),
    store: () => this.store,
  });
  private worker: TrainingWorkerHandle | null = null;
  private store: LabStore | null = null;
  /** set once the stored queue has been read, so nothing overwrites it before */
  private queueSaver: QueueSaver | null = null;
  private livePoints: MetricPoint[] = [];
  /** progress reports received from the worker (a start keeps one that came before its own answer) */
  private reports = 0;
  private markBooted: () => void = () => {};
  /** resolves once boot() has resumed what it could after a reload (the lessons continue their sittings from there) */
  readonly booted = new Promise<void>((resolve) => (this.markBooted = resolve));
  /** the live run's setup, for its ETA before it has timed a step */
  private liveConfig: LabConfig | null = null;

  get running(): boolean {
    return this.progress?.status === 'running' || this.progress?.status === 'paused';
  }

  /** Reads the URL, starts the worker and opens the store. */
  async boot(): Promise<void> {
    this.readHash();
    onAddressChange(() => this.onAddressChange());
    const force = /[?&]backend=(webgpu|wasm|cpu)\b/.exec(location.search)?.[1];
    const forceBackend = (this.recovery.forceBackend = force as BackendName | undefined);
    this.worker = this.recovery.createWorker();
    const backend = this.backends.boot(this.worker, forceBackend);
    try {
      this.store = await LabStore.open();
      await this.refreshRuns();
      await this.noteResuming(this.store);
      await this.restoreQueue(this.store); // before resuming: the resumed run's progress finds its item
    } catch (e) {
      this.storeError = messageOf(e);
    }
    this.runsListed = true;
    await backend; // the worker marks runs of a closed page as interrupted: list them again
    await this.refreshRuns();
    await this.recovery.afterBoot(); // and continues the one that was training
    this.resuming = null;
    this.markBooted();
    await this.settleRestoredQueue(); // then the queue carries on
  }

  /** A run the closed page left training is continued once the worker is up (afterBoot), seconds later: the
   *  panel says so, with its kept curve, from the first paint rather than "Ready". */
  private async noteResuming(store: LabStore): Promise<void> {
    const run = this.runs.find((r) => r.status === 'running'); // newest first, as afterBoot picks it
    const from = run ? (await store.checkpointSteps(run.id).catch(() => [])).at(-1) : undefined;
    if (!run || from === undefined) return; // none, or one without a checkpoint: not resumed
    this.resuming = { runId: run.id, step: from, totalSteps: run.summary.totalSteps };
    await this.showRun(run.id);
  }

  /** Applies a config edit and writes it to the URL (only non-default values). */
  setConfig(patch: Partial<LabConfig>): void {
    const scale = this.config.scale;
    this.config = { ...this.config, ...patch };
    this.writeHash();
    if (this.config.scale !== scale) void this.backends.choose(); // the choice is per scale
  }

  /** Shows a view (and a finding on the Findings view, a lesson on the Lessons view) as a new history entry, so Back returns to the last; the URL keeps it, so a link opens it. */
  setRoute(view: View, finding: string | null = view === 'findings' ? this.route.finding : null,
    lesson: string | null = view === 'lessons' ? (this.route.lesson ?? null) : null): void {
    const moved = view !== this.route.view || finding !== this.route.finding || lesson !== (this.route.lesson ?? null);
    this.route = { view, finding, lesson };
    this.writeHash(moved);
  }

  /** A lesson's class view (`#lesson=<id>&class=<codes>`): its accepted codes, comma-joined, kept in the address so the link reproduces the class (replaces the entry: adding a learner is no step back). */
  setLessonClass(codes: string | null): void {
    this.route = { ...this.route, result: null, lessonClass: codes };
    this.writeHash(false);
  }

  /** the address of a view at the current setup (the tabs' links) */
  hrefFor(view: View): string {
    return serializeHash(this.config, { view, finding: view === 'findings' ? this.route.finding : null, lesson: view === 'lessons' ? (this.route.lesson ?? null) : null }) || '#';
  }

  private writeHash(push = false): void {
    writeAddress(this.config, this.route, push);
  }

  /** Back / Forward between the page's own entries move the view and keep the setup as it is now; any other address is a link, read whole. */
  private onAddressChange(): void {
    if (!isOwnEntry()) return this.readHash();
    const { route } = parseHash(location.hash);
    if (route.view !== this.route.view || route.finding !== this.route.finding || (route.lesson ?? null) !== (this.route.lesson ?? null)
      || (route.result ?? null) !== (this.route.result ?? null) || (route.lessonClass ?? null) !== (this.route.lessonClass ?? null) || (route.run ?? null) !== (this.route.run ?? null)) this.route = route;
    this.writeHash(); // the entry's address now carries the current setup
  }

  resetConfig(): void {
    this.setConfig(defaultConfig());
  }

  dismissNotices(): void {
    this.notices = [];
  }

  /** Starts a run (or resumes one); `queued`: a queued run's own config, from the shipped checkpoint of its scale. Returns its id, or null when it did not start. */
  async start(resumeRunId?: string, queued?: LabConfig): Promise<string | null> {
    if (!this.worker) return null;
    this.actionError = null;
    this.livePoints = [];
    this.starting = true;
    try {
      const listener = this.worker.listen((events) => this.onWorkerEvents(events));
      const config = queued ?? ($state.snapshot(this.config) as LabConfig);
      // RL starts where the Starting point card says (a resumed run keeps its own; a queued one the shipped checkpoint)
      const startingPoint = queued ? { kind: 'shipped' as const, scale: queued.scale }
        : config.stage === 'rl' ? $state.snapshot(this.startingSource) as StartingPointSource : undefined;
      const reportsBefore = this.reports;
      const worker = this.worker;
      // a run at a scale not measured yet is measured first: the page shows it
      const runId = await this.backends.measured(() => worker.api.start({ config, startingPoint, resumeRunId }, listener));
      if (resumeRunId) {
        // the kept curve, then what the worker has sent meanwhile (it reports as soon as it trains)
        const kept = (await this.store?.readMetrics(runId))?.items ?? [];
        const last = kept.at(-1)?.step ?? -1;
        this.livePoints = kept.concat(this.livePoints.filter((p) => p.step > last));
      }
      this.curve = { runId, live: true, points: this.livePoints };
      const stored = resumeRunId ? this.runs.find((r) => r.id === runId) : undefined;
      this.liveConfig = stored ? configFromRecord(stored.config).config : config;
      // until the worker's first report: a resumed run shows where it resumes (its kept curve's end, its own length)
      if (this.reports === reportsBefore || this.progress?.runId !== runId) {
        const step = resumeRunId ? (this.livePoints.at(-1)?.step ?? 0) : 0;
        this.progress = this.withEta({ runId, status: 'running', step, totalSteps: stored?.summary.totalSteps ?? config.steps, etaMs: null, meanStepMs: null });
      }
      this.episodes = [];
      if (resumeRunId) await this.loadEpisodes(runId);
      await this.refreshRuns();
      return runId;
    } catch (e) {
      this.actionError = messageOf(e);
      this.recovery.onStartError(e);
      return null;
    } finally {
      this.starting = false;
    }
  }

  /** SFT runs of the chosen scale that can be a starting point (the live one is still changing) */
  get startingRuns(): RunRecord[] {
    const live = this.running ? this.progress?.runId : undefined;
    return this.runs.filter((r) => r.kind === 'sft' && r.config.scale === this.config.scale && r.summary.steps > 0 && r.id !== live);
  }

  /** RL: the world the run will train in — its starting point's, not the World size setting's (null on SFT) */
  get rlWorld(): { size: WorldSize; seed: number; from: string } | null {
    if (this.config.stage !== 'rl') return null;
    const source = this.startingSource;
    if (source.kind === 'run') {
      // an SFT run trained in its own setup's world (what the worker reads when it loads it)
      const sft = configFromRecord(this.runs.find((r) => r.id === source.runId)?.config).config;
      return { size: sft.worldSize, seed: sft.seed, from: `SFT run ${source.runId}'s setup` };
    }
    // a shipped checkpoint's is its card's (read by the worker; until then the cards' known world)
    const read = this.startingPoint?.status === 'ready' ? this.startingPoint.summary?.world : null;
    const spec = trainingSandboxSpec(this.config, { kind: 'shipped', world: read });
    return { size: spec.size, seed: spec.seed, from: `the shipped ${source.scale} checkpoint's card` };
  }

  get startingSource(): StartingPointSource {
    const run = this.startingChoice !== 'shipped' && this.startingRuns.some((r) => r.id === this.startingChoice);
    return run ? { kind: 'run', runId: this.startingChoice } : { kind: 'shipped', scale: this.config.scale };
  }

  /** Asks the worker to load and check the starting point, once per choice; `force` checks it again. */
  async inspectStartingPoint(source: StartingPointSource, force = false): Promise<void> {
    if (!this.worker || !this.backend) return;
    const key = source.kind === 'shipped' ? `shipped:${source.scale}` : `run:${source.runId}`;
    if (!force && this.startingPoint?.key === key) return;
    this.startingPoint = { key, status: 'loading' };
    let next: StartingPointView;
    try {
      next = { key, status: 'ready', summary: await this.worker.api.inspectStartingPoint(source) };
    } catch (e) {
      next = { key, status: 'error', error: messageOf(e) };
    }
    // a later choice may have been made meanwhile: its answer wins
    if (this.startingPoint?.key === key) this.startingPoint = next;
  }

  pause = () => this.worker?.api.pause();
  resume = () => this.worker?.api.resume();
  stop = () => this.worker?.api.stop();

  /** Shows a stored run's curve (or the live one, if it is the live run). */
  async showRun(runId: string): Promise<void> {
    if (this.progress?.runId === runId && this.running) {
      this.curve = { runId, live: true, points: this.livePoints };
      await this.loadEpisodes(runId);
      return;
    }
    const result = await this.store?.readMetrics(runId);
    if (!result) return;
    this.curve = { runId, live: false, points: result.items };
    await this.loadEpisodes(runId);
    if (result.skipped.length) this.skippedRecords = result.skipped.map((s) => `${s.store} ${s.key}: ${s.reason}`);
  }

  async deleteRun(runId: string): Promise<void> {
    if (this.running && this.progress?.runId === runId) return;
    await this.store?.deleteRun(runId);
    if (this.curve?.runId === runId) {
      this.curve = null;
      this.episodes = [];
    }
    await this.refreshRuns();
  }

  async refreshRuns(): Promise<void> {
    if (!this.store) return;
    try {
      const { items, skipped } = await this.store.listRuns();
      this.runs = items;
      this.skippedRecords = skipped.map((s) => `${s.store} ${s.key}: ${s.reason}`);
    } catch (e) {
      this.storeError = messageOf(e);
    }
  }

  // ---- the Runs view and the episode viewer ------------------------------------------------

  /** a stored run's metric points (empty when the store is not open) */
  async runPoints(runId: string): Promise<MetricPoint[]> {
    return (await this.store?.readMetrics(runId))?.items ?? [];
  }

  /** a stored run's result link (`#run=<code>`, src/lessons/runResultCode.ts); null while it has no evaluation to show */
  async runShareLink(runId: string): Promise<string | null> {
    const run = this.runs.find((r) => r.id === runId);
    if (!run) throw new Error(`Run ${runId} is not in this browser's store.`);
    const config = configFromRecord(run.config).config;
    const result = runResultOf({
      setting: settingKey(config), seed: config.seed, kind: run.kind, status: run.status, backend: run.backend, build: BUILD,
      steps: run.summary.steps, totalSteps: run.summary.totalSteps, last: run.summary.last, points: await this.runPoints(runId),
    });
    return result && runLink(`${location.origin}${location.pathname}`, result);
  }

  /** a stored run as bundle text (src/store/runBundle.ts) */
  async exportRunBundle(runId: string): Promise<string> {
    const bundle = await this.store?.readRunBundle(runId);
    if (!bundle) throw new Error(`Run ${runId} is not in this browser's store.`);
    return encodeRunBundle(bundle);
  }

  /**
   * Checks a bundle's text and stores the run (all or nothing); returns the id it got, or the id of the
   * same run already stored (`already`: nothing was written). Throws the reason when it is refused.
   */
  async importRunBundle(text: string): Promise<{ id: string; already: boolean }> {
    if (!this.store) throw new Error('The store is not open, so nothing can be imported.');
    const imported = await this.store.importRunBundle(await decodeRunBundle(text));
    await this.refreshRuns();
    return imported;
  }

  /** the steps of a run that have stored episodes */
  async episodeSteps(runId: string): Promise<number[]> {
    return (await this.store?.episodeSteps(runId)) ?? [];
  }

  async episodesAt(runId: string, step: number): Promise<EpisodeRecord[]> {
    return (await this.store?.readEpisodesAt(runId, step))?.items ?? [];
  }

  // ---- the run queue (a finding's grid, run one after another) ----------------------------------

  /** Queues the distinct runs of a finding's grid, resolved against the current settings. */
  queueGrid(findingId: string): void {
    const f = findingById(findingId);
    const runs = gridRuns(f, $state.snapshot(this.config) as LabConfig);
    // the cells' names alone ('success · 5 %') do not say what the run varies: its own settings follow
    const own = (cells: string[]) => {
      const cell = f.cells.find((c) => `${c.row} · ${c.col}` === cells[0]);
      return Object.entries(cell?.config ?? {}).map(([k, v]) => `${k}=${formatValue(k as SettingKey, v)}`).join(', ');
    };
    this.queue = enqueue(this.queue, runs.map((r) => ({ label: `${f.id} · ${r.cells.join(', ')}${own(r.cells) ? ` (${own(r.cells)})` : ''}`, config: r.config })));
    void this.advanceQueue();
  }

  dismissQueueNotice(): void {
    this.queueNotice = null;
  }

  /** drops the queued runs that have not started (the running one goes on; Stop ends it) */
  cancelQueue(): void {
    this.queue = cancelWaiting(this.queue);
  }

  continueQueue(): void {
    this.queue = continueQueue(this.queue);
    void this.advanceQueue();
  }

  clearQueue(): void {
    this.queue = clearFinished(this.queue);
  }

  /** measured step times on this backend — its stored RL runs', else its calibration figure — for the ETA of runs not timed yet */
  get stepSamples(): StepSample[] {
    const calibration = calibrationOf(this.backend);
    return stepSamplesFor(this.runs, this.backend?.name ?? null, calibration ? [calibration] : []);
  }

  /** the worker's progress, with an ETA from the measured step times until the run has timed its own steps */
  private withEta(p: RunProgress): RunProgress {
    if (p.etaMs !== null || p.status !== 'running' || !this.liveConfig) return p;
    // its steps and evaluations left (the final one included) at this backend's measured times
    const left = runTimeLeftMs({ ...this.liveConfig, steps: p.totalSteps }, p.step, this.stepSamples);
    return left === null ? p : { ...p, etaMs: left };
  }

  private advancing = false;

  /** Reads the queue a previous page left; its running item stays running until the boot has resumed what it could. */
  private async restoreQueue(store: LabStore): Promise<void> {
    const saver = new QueueSaver(store);
    const { queue, notice } = await saver.load();
    this.#queue = queue;
    this.queueNotice = notice;
    this.queueSaver = saver;
  }

  /** After a reload: the queue's items that were running are matched to what happened to their runs; the next may start. */
  private async settleRestoredQueue(): Promise<void> {
    const store = this.store;
    if (!store || !this.queue.items.some((i) => i.status === 'running')) return void this.advanceQueue();
    await this.refreshRuns();
    const checkpoints: Record<string, boolean> = {};
    for (const i of this.queue.items) {
      if (i.status === 'running' && i.runId) checkpoints[i.runId] = (await store.checkpointSteps(i.runId).catch(() => [])).length > 0;
    }
    const live = this.running ? (this.progress?.runId ?? null) : null;
    const { queue, notes, elsewhere } = reconcileAfterReload(this.queue, live, (runId) => {
      const run = this.runs.find((r) => r.id === runId);
      return run && { status: run.status, hasCheckpoint: checkpoints[runId] ?? false, error: run.summary.error };
    });
    if (elsewhere) {
      // another tab runs the queue: this one neither shows nor writes it (the store keeps that tab's)
      this.queueSaver = null;
      this.#queue = emptyQueue();
      this.queueNotice = 'The stored run queue is running in another tab of the lab; it goes on there. Queues made in this tab are not kept.';
      return;
    }
    this.queue = queue;
    if (notes.length) this.queueNotice = [this.queueNotice, ...notes].filter(Boolean).join(' ');
    void this.advanceQueue();
  }

  /** Starts the queue's next run when nothing runs. */
  private async advanceQueue(): Promise<void> {
    const next = nextToStart(this.queue, this.running || this.starting || this.advancing);
    if (!next || !this.worker) return;
    this.advancing = true;
    try {
      this.queue = markStarting(this.queue, next.id);
      const runId = await this.start(undefined, next.config);
      this.queue = runId ? markStarted(this.queue, next.id, runId) : startFailed(this.queue, next.id, this.actionError ?? 'the run did not start');
    } finally {
      this.advancing = false;
    }
  }

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
        this.recovery.onProgress(before, event.progress);
        this.queue = recordProgress(this.queue, event.progress);
        // a run ended (queued or not): the queue's next may start
        if (before?.status !== event.progress.status && !this.running) void this.advanceQueue();
        if (before?.status !== event.progress.status) void this.refreshRuns();
        // a run at another scale may have moved the worker to another backend: back to the page's scale's
        if (before?.status !== event.progress.status && !this.running && this.backend?.choice?.scale !== this.config.scale) void this.backends.choose();
        if ((event.progress.episodes ?? 0) !== (before?.episodes ?? 0) && this.curve?.runId === event.progress.runId) {
          void this.loadEpisodes(event.progress.runId);
        }
      }
    }
  }

  /** the episodes of the run's latest evaluation */
  private async loadEpisodes(runId: string): Promise<void> {
    const result = await this.store?.readEpisodes(runId).catch(() => null);
    if (!result || this.curve?.runId !== runId) return;
    const newest = Math.max(-1, ...result.items.map((e) => e.step));
    this.episodes = result.items.filter((e) => e.step === newest).sort((a, b) => a.index - b.index);
  }

  /** Reads a link (a malformed one is corrected in the address: addressBar.ts). */
  private readHash(): void {
    const { config, route, notices } = readAddress();
    const scale = this.config.scale;
    this.config = config;
    if (config.scale !== scale) void this.backends.choose();
    this.route = route;
    this.notices = notices;
  }
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
