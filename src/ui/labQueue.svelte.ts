// The run queue: a finding's grid, run one after another (src/lab/runQueue.ts is the pure part). It asks the run
// player to start each run, follows the player's progress reports, and has the store keep it across reloads
// (runStore.svelte.ts). Only this class writes the queue.
import type { LabConfig, SettingKey } from '../lab/config.ts';
import { formatValue } from '../lab/urlState.ts';
import {
  cancelWaiting, clearFinished, continueQueue, emptyQueue, enqueue, markStarted, markStarting, nextToStart,
  recordProgress, startFailed, type RunQueue,
} from '../lab/runQueue.ts';
import { reconcileAfterReload } from '../lab/queueRestore.ts';
import { findingById } from '../findings/findings.ts';
import { gridRuns } from '../findings/findingRuns.ts';
import type { RunProgress } from '../worker/api.ts';
import type { RunPlayer } from './runPlayer.svelte.ts';
import type { RunStore } from './runStore.svelte.ts';

export class LabQueue {
  #queue = $state.raw<RunQueue>(emptyQueue());
  /** what became of the stored queue on load (an unreadable record skipped, a run started again) */
  notice = $state<string | null>(null);
  private advancing = false;

  constructor(
    private readonly player: Readonly<RunPlayer>,
    private readonly store: Readonly<RunStore>,
    /** the page's setup, which a grid's runs vary */
    private readonly config: () => LabConfig,
  ) {}

  get queue(): RunQueue {
    return this.#queue;
  }

  /** every change is kept in the store (once the stored queue has been read) */
  private set(q: RunQueue): void {
    this.#queue = q;
    this.store.saveQueue(q);
  }

  /** Queues the distinct runs of a finding's grid, resolved against the current settings. */
  queueGrid(findingId: string): void {
    const f = findingById(findingId);
    const runs = gridRuns(f, $state.snapshot(this.config()) as LabConfig);
    // the cells' names alone ('success · 5 %') do not say what the run varies: its own settings follow
    const own = (cells: string[]) => {
      const cell = f.cells.find((c) => `${c.row} · ${c.col}` === cells[0]);
      return Object.entries(cell?.config ?? {}).map(([k, v]) => `${k}=${formatValue(k as SettingKey, v)}`).join(', ');
    };
    const label = (cells: string[]) => `${f.id} · ${cells.join(', ')}${own(cells) ? ` (${own(cells)})` : ''}`;
    this.set(enqueue(this.queue, runs.map((r) => ({ label: label(r.cells), config: r.config }))));
    void this.advance();
  }

  dismissNotice(): void {
    this.notice = null;
  }

  /** drops the queued runs that have not started (the running one goes on; Stop ends it) */
  cancel(): void {
    this.set(cancelWaiting(this.queue));
  }

  continue(): void {
    this.set(continueQueue(this.queue));
    void this.advance();
  }

  clear(): void {
    this.set(clearFinished(this.queue));
  }

  /** each progress report of the player's: the queue's item follows it; a run that ended lets the next start */
  onProgress(before: RunProgress | null, progress: RunProgress): void {
    this.set(recordProgress(this.queue, progress));
    if (before?.status !== progress.status && !this.player.running) void this.advance();
  }

  /** Reads the queue a previous page left; its running item stays running until the boot has resumed what it could. */
  async restore(): Promise<void> {
    const loaded = await this.store.loadQueue();
    if (!loaded) return;
    this.#queue = loaded.queue; // as stored: no write back
    this.notice = loaded.notice;
  }

  /** After a reload: the items that were running are matched to what happened to their runs; the next may start. */
  async settleRestored(): Promise<void> {
    const store = this.store;
    if (!store.ready || !this.queue.items.some((i) => i.status === 'running')) return void this.advance();
    await store.refreshRuns();
    const checkpoints: Record<string, boolean> = {};
    for (const i of this.queue.items) {
      if (i.status === 'running' && i.runId) checkpoints[i.runId] = (await store.checkpointSteps(i.runId)).length > 0;
    }
    const live = this.player.running ? (this.player.progress?.runId ?? null) : null;
    const { queue, notes, elsewhere } = reconcileAfterReload(this.queue, live, (runId) => {
      const run = store.runs.find((r) => r.id === runId);
      return run && { status: run.status, hasCheckpoint: checkpoints[runId] ?? false, error: run.summary.error };
    });
    if (elsewhere) {
      // another tab runs the queue: this one neither shows nor writes it (the store keeps that tab's)
      store.stopSavingQueue();
      this.#queue = emptyQueue();
      this.notice = 'The stored run queue is running in another tab of the lab; it goes on there. '
        + 'Queues made in this tab are not kept.';
      return;
    }
    this.set(queue);
    if (notes.length) this.notice = [this.notice, ...notes].filter(Boolean).join(' ');
    void this.advance();
  }

  /** Starts the queue's next run when nothing runs. */
  private async advance(): Promise<void> {
    const player = this.player;
    const next = nextToStart(this.queue, player.running || player.starting || this.advancing);
    if (!next || !player.worker) return;
    this.advancing = true;
    try {
      this.set(markStarting(this.queue, next.id));
      const runId = await player.start(undefined, next.config);
      this.set(runId ? markStarted(this.queue, next.id, runId)
        : startFailed(this.queue, next.id, player.actionError ?? 'the run did not start'));
    } finally {
      this.advancing = false;
    }
  }
}
