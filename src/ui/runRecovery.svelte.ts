// What the page does by itself to keep a run going, and says so: after a reload (or a closed tab)
// the run that was training continues from its newest checkpoint; a crashed worker or a lost GPU
// device gets a new worker (a new backend) that resumes the run; full browser storage shows the
// store's message and offers to prune old checkpoints, after which the worker writes what it owes.
// LabState owns one of these. It writes only its own fields: it asks the run player (runPlayer.svelte.ts) to put
// a new worker in place, to resume a run or to show it interrupted. Nothing here touches tfjs.
import { keptCurve, resumeWords } from '../lab/resumeNotice.ts';
import { lessonById } from '../lessons/lessons.ts';
import { isQuotaError } from '../store/labStore.ts';
import type { InterruptedRun, RunProgress } from '../worker/api.ts';
import type { BackendName } from '../lab/backendChoice.ts';
import { createTrainingWorker, type TrainingWorkerHandle } from '../worker/client.ts';
import type { RunPlayer } from './runPlayer.svelte.ts';
import type { RunStore } from './runStore.svelte.ts';

/** automatic restarts of the worker (crash, lost GPU) per run and page load, before the user is asked to resume */
export const MAX_AUTO_RESTARTS = 2;

/** what recovery reads of the run player and asks of it */
export type RecoveryPlayer = Pick<Readonly<RunPlayer>, 'worker' | 'backend' | 'progress' | 'actionError' | 'running'
  | 'starting' | 'start' | 'replaceWorker' | 'workerRestarted' | 'markInterrupted' | 'backendFailed'>;

/** what recovery reads of the store */
export type RecoveryStore = Pick<Readonly<RunStore>, 'ready' | 'runs' | 'refreshRuns' | 'checkpointSteps'
  | 'readMetrics' | 'pruneCheckpoints'>;

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

  private restarting = false;
  /** automatic restarts so far, by run id (not shown, so plain data) */
  private restarts: Record<string, number> = {};

  /** `forceBackend`: the backend the address forces (`?backend=`), for a replacement worker too */
  constructor(
    private readonly player: RecoveryPlayer,
    private readonly store: RecoveryStore,
    readonly forceBackend: BackendName | undefined,
  ) {}

  /** a worker whose crash restarts it (and resumes its run) */
  createWorker(): TrainingWorkerHandle {
    const worker = createTrainingWorker((message) => {
      if (worker !== this.player.worker) return; // one already replaced
      // a worker that never came up would fail the same way again
      if (!this.player.backend) this.player.backendFailed(`Training worker crashed: ${message}`);
      else {
        const live = this.player.running ? (this.player.progress?.runId ?? null) : null;
        void this.restartWorker(`The training worker crashed (${message})`, live);
      }
    });
    return worker;
  }

  /** After boot: the newest run that was training when the page closed continues from its checkpoint. */
  async afterBoot(): Promise<void> {
    const worker = this.player.worker;
    if (!worker || !this.player.backend) return;
    const interrupted = await worker.api.interruptedRuns().catch((): InterruptedRun[] => []);
    await this.store.refreshRuns();
    const wasRunning = interrupted.filter((r) => r.was === 'running').map((r) => r.runId);
    const run = this.store.runs.find((r) => wasRunning.includes(r.id)); // the list is newest first
    if (!run) {
      if (interrupted.some((r) => r.was === 'paused')) {
        this.notice = 'A run was paused when the page closed; resume it from the run list.';
      }
      return;
    }
    if (this.player.running || this.player.starting) return; // the user was quicker
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
    if (!this.store.ready || this.pruning) return;
    this.pruning = true;
    try {
      const deleted = await this.store.pruneCheckpoints();
      this.storageFull = null;
      this.pruneResult = `Deleted ${deleted} old checkpoint${deleted === 1 ? '' : 's'}; every run keeps its newest.`;
      await this.player.worker?.api.retryStorage();
    } catch (e) {
      this.storageFull = e instanceof Error ? e.message : String(e);
    } finally {
      this.pruning = false;
    }
  }

  /** the run as the learner knows it: a lesson's arm, or their run (never its internal id) */
  private nameOf(runId: string): { name: string; lesson: boolean } {
    const tag = this.store.runs.find((r) => r.id === runId)?.lesson;
    const lesson = tag ? lessonById(tag.id) : undefined;
    const arm = lesson?.arms.find((a) => a.key === tag?.arm);
    if (lesson && arm) return { name: `the “${arm.label}” arm of the lesson “${lesson.title}”`, lesson: true };
    return { name: 'your run', lesson: false };
  }

  /** Continues a run from its newest checkpoint, saying so. */
  private async resumeRun(runId: string, why: string): Promise<void> {
    const from = (await this.store.checkpointSteps(runId)).at(-1);
    const { name, lesson } = this.nameOf(runId);
    if (from === undefined) {
      // a lesson's sitting starts such an arm again by itself (lessonRuns.svelte.ts continueSession)
      this.notice = resumeWords.noCheckpoint(why, name, lesson);
      return;
    }
    this.notice = resumeWords.resuming(why, name, from);
    await this.player.start(runId);
    if (this.player.actionError) {
      this.notice = resumeWords.failed(why, name, this.player.actionError);
      return;
    }
    // what the store kept, read back rather than assumed
    const kept = (await this.store.readMetrics(runId).catch(() => undefined))?.items ?? [];
    const curve = keptCurve(kept.map((p) => p.step), from);
    this.notice = resumeWords.resumed(why, name, from, curve);
  }

  /** Replaces the worker (a crash, or a lost GPU device) and resumes its run from the newest checkpoint. */
  private async restartWorker(why: string, runId: string | null): Promise<void> {
    if (this.restarting) return;
    this.restarting = true;
    try {
      this.notice = `${why}. Restarting the backend…`;
      const worker = this.createWorker();
      this.player.replaceWorker(worker); // the old one is terminated
      const backend = await worker.api.init({ forceBackend: this.forceBackend });
      this.player.workerRestarted(backend);
      // the new worker marks the old one's run interrupted (its lock went with it); a run that was
      // starting when the worker died is found that way too
      const found = await worker.api.interruptedRuns().catch((): InterruptedRun[] => []);
      await this.store.refreshRuns();
      runId ??= this.store.runs.find((r) => found.some((f) => f.runId === r.id && f.was === 'running'))?.id ?? null;
      if (!runId) {
        this.notice = `${why}. The backend was restarted (${backend.label}).`;
        return;
      }
      const tries = (this.restarts[runId] ?? 0) + 1;
      this.restarts[runId] = tries;
      if (tries > MAX_AUTO_RESTARTS) {
        this.player.markInterrupted(runId);
        this.notice = resumeWords.tooOften(why, this.nameOf(runId).name, MAX_AUTO_RESTARTS);
        return;
      }
      await this.resumeRun(runId, `${why}; the backend was restarted (${backend.label})`);
    } catch (e) {
      this.player.backendFailed(`The backend could not be restarted: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      this.restarting = false;
    }
  }
}
