// What the page does by itself to keep a run going, and says so: after a reload (or a closed tab)
// the run that was training continues from its newest checkpoint; a crashed worker or a lost GPU
// device gets a new worker (a new backend) that resumes the run; full browser storage shows the
// store's message and offers to prune old checkpoints, after which the worker writes what it owes.
// LabState owns one of these; nothing here touches tfjs.
import { keptCurve } from '../lab/resumeNotice.ts';
import { isQuotaError, type LabStore } from '../store/labStore.ts';
import type { RunRecord } from '../store/records.ts';
import type { BackendInfo, BackendName, InterruptedRun, RunProgress } from '../worker/api.ts';
import { createTrainingWorker, type TrainingWorkerHandle } from '../worker/client.ts';

/** automatic restarts of the worker (crash, lost GPU) per run and page load, before the user is asked to resume */
export const MAX_AUTO_RESTARTS = 2;

/** the parts of LabState recovery reads and drives */
export interface RecoveryLab {
  backend: BackendInfo | null;
  backendError: string | null;
  progress: RunProgress | null;
  actionError: string | null;
  readonly runs: RunRecord[];
  readonly running: boolean;
  starting: boolean;
  start(resumeRunId?: string): Promise<unknown>;
  refreshRuns(): Promise<void>;
}

/** LabState's private handles: the live worker and the page's store connection */
export interface RecoveryAccess {
  worker(): TrainingWorkerHandle | null;
  setWorker(worker: TrainingWorkerHandle): void;
  store(): LabStore | null;
}

export class RunRecovery {
  /** what the page did by itself to keep a run going (resumed after a reload, a crash, a lost GPU) */
  notice = $state<string | null>(null);
  /** browser storage is full: the store's message, until old checkpoints are pruned */
  storageFull = $state<string | null>(null);
  /** the live run reported it (it keeps training), rather than a start that failed */
  storageFullWhileTraining = $state(false);
  /** what the last prune freed */
  pruneResult = $state<string | null>(null);
  pruning = $state(false);

  forceBackend: BackendName | undefined;
  private restarting = false;
  /** automatic restarts so far, by run id (not shown, so plain data) */
  private restarts: Record<string, number> = {};

  constructor(
    private readonly host: RecoveryLab,
    private readonly access: RecoveryAccess,
  ) {}

  /** a worker whose crash restarts it (and resumes its run) */
  createWorker(): TrainingWorkerHandle {
    const worker = createTrainingWorker((message) => {
      if (worker !== this.access.worker()) return; // one already replaced
      // a worker that never came up would fail the same way again
      if (!this.host.backend) this.host.backendError = `Training worker crashed: ${message}`;
      else void this.restartWorker(`The training worker crashed (${message})`, this.host.running ? (this.host.progress?.runId ?? null) : null);
    });
    return worker;
  }

  /** After boot: the newest run that was training when the page closed continues from its checkpoint. */
  async afterBoot(): Promise<void> {
    const worker = this.access.worker();
    if (!worker || !this.host.backend) return;
    const interrupted = await worker.api.interruptedRuns().catch((): InterruptedRun[] => []);
    await this.host.refreshRuns();
    const wasRunning = interrupted.filter((r) => r.was === 'running').map((r) => r.runId);
    const run = this.host.runs.find((r) => wasRunning.includes(r.id)); // the list is newest first
    if (!run) {
      if (interrupted.some((r) => r.was === 'paused')) this.notice = 'A run was paused when the page closed; resume it from the run list.';
      return;
    }
    if (this.host.running || this.host.starting) return; // the user was quicker
    await this.resumeRun(run.id, 'The page closed while a run trained');
  }

  /** each progress event: a lost GPU restarts the backend; full storage shows its message */
  onProgress(before: RunProgress | null, progress: RunProgress): void {
    if (progress.storeFull) {
      this.storageFull = progress.error ?? 'Browser storage is full.';
      this.storageFullWhileTraining = true;
    } else if (before?.storeFull) this.storageFull = null;
    if (progress.deviceLost && !before?.deviceLost) void this.restartWorker('The GPU device was lost', progress.runId);
  }

  /** a start or resume that failed: full storage gets the prune offer */
  onStartError(error: unknown): void {
    if (!isQuotaError(error)) return;
    this.storageFull = error instanceof Error ? error.message : String(error);
    this.storageFullWhileTraining = false;
  }

  dismiss(): void {
    this.notice = null;
    this.pruneResult = null;
  }

  /** Storage is full: keeps only each run's newest checkpoint, then has the worker write what it owes. */
  async prune(): Promise<void> {
    const store = this.access.store();
    if (!store || this.pruning) return;
    this.pruning = true;
    try {
      const deleted = await store.pruneCheckpoints();
      this.storageFull = null;
      this.pruneResult = `Deleted ${deleted} old checkpoint${deleted === 1 ? '' : 's'}; every run keeps its newest.`;
      await this.access.worker()?.api.retryStorage();
    } catch (e) {
      this.storageFull = e instanceof Error ? e.message : String(e);
    } finally {
      this.pruning = false;
    }
  }

  /** Continues a run from its newest checkpoint, saying so. */
  private async resumeRun(runId: string, why: string): Promise<void> {
    const steps = (await this.access.store()?.checkpointSteps(runId).catch(() => [])) ?? [];
    const from = steps.at(-1);
    if (from === undefined) {
      this.notice = `${why}, before run ${runId} stored its first checkpoint: start it again.`;
      return;
    }
    await this.host.start(runId);
    if (this.host.actionError) {
      this.notice = `${why}; run ${runId} could not be resumed: ${this.host.actionError}`;
      return;
    }
    // what the store kept, read back rather than assumed
    const kept = (await this.access.store()?.readMetrics(runId).catch(() => null))?.items ?? [];
    this.notice = `${why}: run ${runId} resumed by itself from its checkpoint at step ${from}; ${keptCurve(kept.map((p) => p.step), from)}.`;
  }

  /** Replaces the worker (a crash, or a lost GPU device) and resumes its run from the newest checkpoint. */
  private async restartWorker(why: string, runId: string | null): Promise<void> {
    if (this.restarting) return;
    this.restarting = true;
    try {
      this.access.worker()?.terminate();
      this.notice = `${why}. Restarting the backend…`;
      const worker = this.createWorker();
      this.access.setWorker(worker);
      const backend = await worker.api.init({ forceBackend: this.forceBackend });
      this.host.backend = backend;
      // a start in flight died with the old worker: its promise never settles
      this.host.starting = false;
      // the new worker marks the old one's run interrupted (its lock went with it); a run that was
      // starting when the worker died is found that way too
      const found = await worker.api.interruptedRuns().catch((): InterruptedRun[] => []);
      await this.host.refreshRuns();
      runId ??= this.host.runs.find((r) => found.some((f) => f.runId === r.id && f.was === 'running'))?.id ?? null;
      if (!runId) {
        this.notice = `${why}. The backend was restarted (${backend.label}).`;
        return;
      }
      const tries = (this.restarts[runId] ?? 0) + 1;
      this.restarts[runId] = tries;
      if (tries > MAX_AUTO_RESTARTS) {
        if (this.host.progress?.runId === runId) this.host.progress = { ...this.host.progress, status: 'interrupted' };
        this.notice = `${why} again. Run ${runId} was resumed ${MAX_AUTO_RESTARTS} times already; resume it from the run list when ready.`;
        return;
      }
      await this.resumeRun(runId, `${why}; the backend was restarted (${backend.label})`);
    } catch (e) {
      this.host.backendError = `The backend could not be restarted: ${e instanceof Error ? e.message : String(e)}`;
    } finally {
      this.restarting = false;
    }
  }
}
