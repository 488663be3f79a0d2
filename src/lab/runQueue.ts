// The run queue: runs (a finding's grid, resolved in src/findings/findingRuns.ts) started one after
// another, with an ETA per run and for the whole queue. Pure data and functions (no DOM, no
// tfjs): the page's queue (src/ui/labQueue.svelte.ts) holds a RunQueue and calls these on every worker progress event.
import type { LabConfig } from './config.ts';
import { runTimeLeftMs, type StepSample } from './runEstimate.ts';

export type QueueStatus = 'waiting' | 'running' | 'completed' | 'failed' | 'stopped';

export interface QueueItem {
  id: number;
  label: string;
  config: LabConfig;
  status: QueueStatus;
  /** set once the worker has created the run */
  runId: string | null;
  step: number;
  /** the run's own mean step time so far (ms) */
  meanStepMs: number | null;
  /** the worker's ETA of the running item (ms) */
  etaMs: number | null;
  error?: string;
}

export interface RunQueue {
  items: QueueItem[];
  /** true after the user stopped a queued run or a start failed: nothing more starts until they continue */
  held: boolean;
  nextId: number;
}

/** the worker's report on a run, as far as the queue needs it */
export interface ProgressReport {
  runId: string;
  status: 'running' | 'paused' | 'completed' | 'stopped' | 'failed' | 'interrupted';
  step: number;
  etaMs: number | null;
  meanStepMs: number | null;
  error?: string;
}

export function emptyQueue(): RunQueue {
  return { items: [], held: false, nextId: 1 };
}

export function enqueue(q: RunQueue, runs: { label: string; config: LabConfig }[]): RunQueue {
  const added = runs.map((r, i): QueueItem => ({
    id: q.nextId + i,
    label: r.label,
    config: r.config,
    status: 'waiting',
    runId: null,
    step: 0,
    meanStepMs: null,
    etaMs: null,
  }));
  return { items: [...q.items, ...added], held: false, nextId: q.nextId + added.length };
}

/** the item to start now, or null: the queue is held, something runs (`busy`), or nothing waits */
export function nextToStart(q: RunQueue, busy: boolean): QueueItem | null {
  if (q.held || busy || q.items.some((i) => i.status === 'running')) return null;
  return q.items.find((i) => i.status === 'waiting') ?? null;
}

const update = (q: RunQueue, id: number, patch: Partial<QueueItem>): RunQueue =>
  ({ ...q, items: q.items.map((i) => (i.id === id ? { ...i, ...patch } : i)) });

/** the item is being started (its run id comes once the worker has created the run) */
export function markStarting(q: RunQueue, id: number): RunQueue {
  return update(q, id, { status: 'running' });
}

export function markStarted(q: RunQueue, id: number, runId: string): RunQueue {
  return update(q, id, { runId });
}

/** the worker refused to start it: the item failed and the queue holds (the next would likely fail too) */
export function startFailed(q: RunQueue, id: number, error: string): RunQueue {
  return { ...update(q, id, { status: 'failed', error }), held: true };
}

/**
 * Applies a worker progress report to the queued run it belongs to (reports of other runs change
 * nothing). A completed or failed run lets the next start; a run the user stopped holds the queue.
 */
export function recordProgress(q: RunQueue, p: ProgressReport): RunQueue {
  // matched by run id only: a late report of the previous run must not touch the item being started
  let item = q.items.find((i) => i.status === 'running' && i.runId === p.runId);
  if (!item) {
    q = reattach(q, p);
    item = q.items.find((i) => i.status === 'running' && i.runId === p.runId);
  }
  if (!item) return q;
  const live = { runId: p.runId, step: p.step, meanStepMs: p.meanStepMs ?? item.meanStepMs };
  switch (p.status) {
    case 'running':
    case 'paused':
      return update(q, item.id, { ...live, etaMs: p.etaMs });
    case 'completed':
      return update(q, item.id, { ...live, etaMs: 0, status: 'completed' });
    case 'failed':
      return update(q, item.id, { ...live, etaMs: null, status: 'failed', error: p.error ?? 'failed' });
    case 'stopped':
    case 'interrupted':
      return {
        ...update(q, item.id, { ...live, etaMs: null, status: 'stopped' }),
        held: q.items.some((i) => i.status === 'waiting'),
      };
  }
}

/**
 * A stopped item's run training again (the page resumed it after a crash or a lost GPU, or the user
 * from the run list) is the queue's running item again, and the queue goes on after it.
 */
function reattach(q: RunQueue, p: ProgressReport): RunQueue {
  if (p.status !== 'running' || q.items.some((i) => i.status === 'running')) return q;
  const stopped = q.items.find((i) => i.status === 'stopped' && i.runId === p.runId);
  if (!stopped) return q;
  const { error: _error, ...rest } = stopped;
  return { ...q, held: false, items: q.items.map((i) => (i.id === stopped.id ? { ...rest, status: 'running' } : i)) };
}

/** drops the runs that have not started; the running one (if any) goes on */
export function cancelWaiting(q: RunQueue): RunQueue {
  return { ...q, items: q.items.filter((i) => i.status !== 'waiting'), held: false };
}

export function continueQueue(q: RunQueue): RunQueue {
  return { ...q, held: false };
}

/** forgets the finished runs (they stay in the store and the Runs view) */
export function clearFinished(q: RunQueue): RunQueue {
  return { ...q, items: q.items.filter((i) => i.status === 'waiting' || i.status === 'running') };
}

export const waitingCount = (q: RunQueue) => q.items.filter((i) => i.status === 'waiting').length;

// ---- ETA -----------------------------------------------------------------------------------------

// the estimate itself is runEstimate.ts's, the one the Lab, the lessons and a class sitting use too
export interface QueueEta {
  /** ms left per item (0 when finished, null when there is nothing to estimate from) */
  perItem: Map<number, number | null>;
  /** ms left for the whole queue, null while some unfinished run has no estimate */
  totalMs: number | null;
  /** steps done and planned over the queue's runs (finished ones count in full) */
  doneSteps: number;
  totalSteps: number;
}

/** ETA of each item and of the queue: the worker's ETA for the running run, estimates for waiting ones */
export function queueEta(q: RunQueue, stored: StepSample[] = []): QueueEta {
  const samples: StepSample[] = [
    ...stored,
    ...q.items.flatMap((i) => (i.meanStepMs ? [{ config: i.config, meanStepMs: i.meanStepMs }] : [])),
  ];
  const perItem = new Map<number, number | null>();
  let totalMs: number | null = 0;
  let doneSteps = 0;
  let totalSteps = 0;
  for (const i of q.items) {
    const finished = i.status !== 'waiting' && i.status !== 'running';
    totalSteps += i.config.steps;
    doneSteps += finished ? i.config.steps : Math.min(i.step, i.config.steps);
    let left: number | null;
    if (finished) left = 0;
    else if (i.status === 'running' && i.etaMs !== null) left = i.etaMs;
    else left = runTimeLeftMs(i.config, i.step, samples);
    perItem.set(i.id, left);
    totalMs = totalMs === null || left === null ? null : totalMs + left;
  }
  return { perItem, totalMs, doneSteps, totalSteps };
}
