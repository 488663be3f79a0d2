// The run queue across reloads: the queue as a plain record for the store, read back with each
// item's config checked, and matched after boot against what the page found (the run it resumed by
// itself, the stored runs' statuses). Pure (no DOM, no IndexedDB): the page's queue saves and restores it
// through LabStore, whose schema (src/store/records.ts QueueRecordSchema) checks the record's shape.
import type { LabConfig } from './config.ts';
import { emptyQueue, type QueueItem, type QueueStatus, type RunQueue } from './runQueue.ts';
import { configFromRecord } from './urlState.ts';

/** the stored shape (a QueueItem with its config as a plain record, checked again when read) */
export interface PersistedQueueItem extends Omit<QueueItem, 'config'> {
  config: Record<string, unknown>;
}

export interface PersistedQueue {
  items: PersistedQueueItem[];
  held: boolean;
  nextId: number;
  savedAt: number;
}

export function queueToRecord(q: RunQueue, now = Date.now()): PersistedQueue {
  return {
    items: q.items.map((i) => ({ ...i, config: { ...i.config } as Record<string, unknown> })),
    held: q.held,
    nextId: q.nextId,
    savedAt: now,
  };
}

/**
 * The queue of a stored record. An item whose config no longer reads cleanly (a setting renamed or
 * out of range since it was queued) is dropped and named in `dropped`: running it with defaults in
 * its place would be a different experiment.
 */
export function queueFromRecord(record: PersistedQueue): { queue: RunQueue; dropped: string[] } {
  const items: QueueItem[] = [];
  const dropped: string[] = [];
  for (const item of record.items) {
    const { config, notices } = configFromRecord(item.config);
    if (notices.length) dropped.push(`${item.label} (${notices.map((n) => `${n.key}: ${n.message}`).join('; ')})`);
    else items.push({ ...item, config: config as LabConfig });
  }
  // ids must stay unique whatever nextId the record says
  const nextId = Math.max(record.nextId, ...items.map((i) => i.id + 1), 1);
  return { queue: { ...emptyQueue(), items, held: record.held, nextId }, dropped };
}

/** what the store says of a queued item's run after a reload */
export interface StoredRunState {
  /** the run record's status ('completed', 'interrupted', …) */
  status: string;
  /** the run has a stored checkpoint to resume from */
  hasCheckpoint: boolean;
  error?: string;
}

/**
 * After a reload (once the page has resumed what it could): the items that were running. The one
 * whose run the page resumed (`liveRunId`) runs on, and the queue carries on after it. One that
 * finished meanwhile takes its outcome. One that never got a run, or whose run stored no
 * checkpoint before the page closed, waits to start again in its place. Any other (paused when the
 * page closed, missing from the store) is stopped, and the queue holds until the user continues it.
 * `elsewhere`: an item's run is still training in another tab (the boot marks a closed page's runs
 * interrupted, never one another tab's worker holds): that tab runs the queue, this one leaves it alone.
 */
export function reconcileAfterReload(
  q: RunQueue,
  liveRunId: string | null,
  stored: (runId: string) => StoredRunState | undefined,
): { queue: RunQueue; notes: string[]; elsewhere: boolean } {
  const notes: string[] = [];
  let held = q.held;
  let elsewhere = false;
  const items = q.items.map((item): QueueItem => {
    if (item.status !== 'running' || (item.runId !== null && item.runId === liveRunId)) return item;
    const run = item.runId === null ? undefined : stored(item.runId);
    const again = (why: string): QueueItem => {
      notes.push(`${item.label} starts again: ${why}.`);
      return { ...item, status: 'waiting', runId: null, step: 0, etaMs: null };
    };
    const settle = (status: QueueStatus, error?: string): QueueItem => ({
      ...item,
      status,
      etaMs: status === 'completed' ? 0 : null,
      ...(error ? { error } : {}),
    });
    if (item.runId === null) return again('the page closed while it was starting');
    if (run?.status === 'running' || run?.status === 'paused') {
      elsewhere = true;
      return item;
    }
    if (run?.status === 'completed') return settle('completed');
    if (run?.status === 'failed') return settle('failed', run.error ?? 'failed');
    if (run && !run.hasCheckpoint && run.status !== 'stopped')
      return again(`the page closed before run ${item.runId} stored its first checkpoint`);
    held = true;
    const why = run
      ? `run ${item.runId} was ${run.status === 'interrupted' ? 'paused or left behind' : run.status} when the page closed`
      : `run ${item.runId} is no longer in the store`;
    notes.push(
      `${item.label}: ${why}; the queue holds (resume the run from the run list, or continue the queue without it).`,
    );
    return settle('stopped', why);
  });
  const waiting = items.some((i) => i.status === 'waiting');
  return { queue: { ...q, items, held: held && waiting }, notes, elsewhere };
}
