// The page's state, in four parts, each the only writer of its fields:
//   address (labRoute.svelte.ts)  the setup and the view, mirrored in the URL hash
//   player  (runPlayer.svelte.ts) the training worker and the run in front of the user
//   store   (runStore.svelte.ts)  the stored runs, read from IndexedDB, and the queue kept there
//   queue   (labQueue.svelte.ts)  a finding's grid, run one after another
// and recovery (runRecovery.svelte.ts), which keeps a run going after a reload or a crash by asking the player.
// LabState builds them, wires them and boots them. Components read its getters and call its methods. Outside its
// owner a part is typed Readonly, so the compiler refuses a write to another's field. No tfjs here (the worker).
import type { LabConfig } from '../lab/config.ts';
import type { Route, UrlNotice, View } from '../lab/urlState.ts';
import type { RunQueue } from '../lab/runQueue.ts';
import type { StepSample } from '../lab/runEstimate.ts';
import type { EpisodeRecord, MetricPoint, RunRecord } from '../store/records.ts';
import type { BackendInfo, RunProgress, StartingPointSource } from '../worker/api.ts';
import type { BackendName } from '../lab/backendChoice.ts';
import type { WorldSize } from '../env/types.ts';
import type { BackendState } from './backendState.svelte.ts';
import { LabRoute } from './labRoute.svelte.ts';
import { LabQueue } from './labQueue.svelte.ts';
import { RunPlayer, type ShownCurve, type StartingPointView } from './runPlayer.svelte.ts';
import { RunRecovery } from './runRecovery.svelte.ts';
import { RunStore } from './runStore.svelte.ts';

export class LabState {
  /** a new scale asks for that scale's backend (the choice is per scale) */
  readonly address: Readonly<LabRoute> = new LabRoute(() => void this.player.backends.choose());
  readonly store: Readonly<RunStore> = new RunStore();
  readonly player: Readonly<RunPlayer> = new RunPlayer({
    config: () => this.address.config,
    store: this.store,
    onStartError: (e) => this.recovery.onStartError(e),
    onProgress: (before, progress) => {
      this.recovery.onProgress(before, progress);
      this.runQueue.onProgress(before, progress);
    },
  });
  readonly runQueue: Readonly<LabQueue> = new LabQueue(this.player, this.store, () => this.address.config);
  /** resume after a reload, a crash or a lost GPU; full storage and its prune offer (runRecovery.svelte.ts) */
  readonly recovery: Readonly<RunRecovery> = new RunRecovery(this.player, this.store, forcedBackend());
  private markBooted: () => void = () => {};
  /** resolves once boot() has resumed what it could after a reload (the lessons continue their sittings from there) */
  readonly booted = new Promise<void>((resolve) => (this.markBooted = resolve));

  /** Reads the URL, starts the worker and opens the store; then continues what a closed page left running. */
  async boot(): Promise<void> {
    this.address.boot();
    const backend = this.player.startWorker(this.recovery.createWorker(), this.recovery.forceBackend);
    await this.store.open(async () => {
      await this.player.noteResuming();
      await this.runQueue.restore(); // before resuming: the resumed run's progress finds its item
    });
    await backend; // the worker marks runs of a closed page as interrupted: list them again
    await this.store.refreshRuns();
    await this.recovery.afterBoot(); // and continues the one that was training
    this.player.doneResuming();
    this.markBooted();
    await this.runQueue.settleRestored(); // then the queue carries on
  }

  // ---- the address (labRoute.svelte.ts) --------------------------------------------------------------------

  get config(): LabConfig { return this.address.config; }
  /** which view is shown (and which finding), mirrored in the URL hash beside the config */
  get route(): Route { return this.address.route; }
  get notices(): UrlNotice[] { return this.address.notices; }
  setConfig(patch: Partial<LabConfig>): void { this.address.setConfig(patch); }
  resetConfig(): void { this.address.resetConfig(); }
  setRoute(view: View, finding?: string | null, lesson?: string | null): void {
    this.address.setRoute(view, finding, lesson);
  }
  setLessonClass(codes: string | null): void { this.address.setLessonClass(codes); }
  hrefFor(view: View): string { return this.address.hrefFor(view); }
  dismissNotices(): void { this.address.dismissNotices(); }

  // ---- the run player (runPlayer.svelte.ts) -----------------------------------------------------------------

  get backends(): Readonly<BackendState> { return this.player.backends; }
  get backend(): BackendInfo | null { return this.player.backend; }
  get backendError(): string | null { return this.player.backends.error; }
  get progress(): RunProgress | null { return this.player.progress; }
  get running(): boolean { return this.player.running; }
  get starting(): boolean { return this.player.starting; }
  get resuming(): { runId: string; step: number; totalSteps: number } | null { return this.player.resuming; }
  get curve(): ShownCurve | null { return this.player.curve; }
  get episodes(): EpisodeRecord[] { return this.player.episodes; }
  get actionError(): string | null { return this.player.actionError; }
  get startingPoint(): StartingPointView | null { return this.player.startingPoint; }
  get startingRuns(): RunRecord[] { return this.player.startingRuns; }
  get startingSource(): StartingPointSource { return this.player.startingSource; }
  get rlWorld(): { size: WorldSize; seed: number; from: string } | null { return this.player.rlWorld; }
  /** measured step times on this backend, for the estimates of runs not timed yet (the queue's, the lessons') */
  get stepSamples(): StepSample[] { return this.player.stepSamples; }
  start(resumeRunId?: string, queued?: LabConfig): Promise<string | null> {
    return this.player.start(resumeRunId, queued);
  }
  pause = () => this.player.pause();
  resume = () => this.player.resume();
  stop = () => this.player.stop();
  chooseStartingPoint(choice: string): void { this.player.chooseStartingPoint(choice); }
  inspectStartingPoint(source: StartingPointSource, force = false): Promise<void> {
    return this.player.inspectStartingPoint(source, force);
  }
  showRun(runId: string): Promise<void> { return this.player.showRun(runId); }
  deleteRun(runId: string): Promise<void> { return this.player.deleteRun(runId); }

  // ---- the stored runs (runStore.svelte.ts) -----------------------------------------------------------------

  /** newest first */
  get runs(): RunRecord[] { return this.store.runs; }
  get runsListed(): boolean { return this.store.runsListed; }
  get skippedRecords(): string[] { return this.store.skippedRecords; }
  get storeError(): string | null { return this.store.error; }
  refreshRuns(): Promise<void> { return this.store.refreshRuns(); }
  runPoints(runId: string): Promise<MetricPoint[]> { return this.store.runPoints(runId); }
  runShareLink(runId: string): Promise<string | null> { return this.store.runShareLink(runId); }
  exportRunBundle(runId: string): Promise<string> { return this.store.exportRunBundle(runId); }
  importRunBundle(text: string): Promise<{ id: string; already: boolean }> { return this.store.importRunBundle(text); }
  episodeSteps(runId: string): Promise<number[]> { return this.store.episodeSteps(runId); }
  episodesAt(runId: string, step: number): Promise<EpisodeRecord[]> { return this.store.episodesAt(runId, step); }

  // ---- the run queue (labQueue.svelte.ts) -------------------------------------------------------------------

  get queue(): RunQueue { return this.runQueue.queue; }
  get queueNotice(): string | null { return this.runQueue.notice; }
  queueGrid(findingId: string): void { this.runQueue.queueGrid(findingId); }
  dismissQueueNotice(): void { this.runQueue.dismissNotice(); }
  cancelQueue(): void { this.runQueue.cancel(); }
  continueQueue(): void { this.runQueue.continue(); }
  clearQueue(): void { this.runQueue.clear(); }
}

/** the backend the address forces (`?backend=webgpu|wasm|cpu`: tests, and a browser whose choice misbehaves) */
function forcedBackend(): BackendName | undefined {
  return /[?&]backend=(webgpu|wasm|cpu)\b/.exec(location.search)?.[1] as BackendName | undefined;
}
