import { describe, expect, it } from 'vitest';
import { findingById } from '../../src/findings/findings.ts';
import { queueFromRecord, queueToRecord, reconcileAfterReload, type StoredRunState } from '../../src/lab/queueRestore.ts';
import {
  emptyQueue, enqueue, markStarted, markStarting, nextToStart, recordProgress, type ProgressReport, type RunQueue,
} from '../../src/lab/runQueue.ts';
import { gridRuns } from '../../src/findings/findingRuns.ts';
import { parseHash } from '../../src/lab/urlState.ts';

const TINY = parseHash('#finding=T7&scale=s&steps=2&queriesPerStep=1&groupSize=2&evalEvery=2&evalQueries=0&evalToolQa=2&trainSize=20&seed=6').config;
const report = (runId: string, status: ProgressReport['status'], step = 0): ProgressReport => ({ runId, status, step, etaMs: null, meanStepMs: null });
/** T7's three runs, the first started as run-a and one step in */
function midGrid(): RunQueue {
  let q = enqueue(emptyQueue(), gridRuns(findingById('T7'), TINY).map((r) => ({ label: `T7 · ${r.cells[0]}`, config: r.config })));
  q = markStarted(markStarting(q, q.items[0].id), q.items[0].id, 'run-a');
  return recordProgress(q, report('run-a', 'running', 1));
}
const storedAs = (runs: Record<string, StoredRunState>) => (id: string) => runs[id];

describe('the queue as a stored record', () => {
  it('round-trips through plain data (what IndexedDB keeps)', () => {
    const q = midGrid();
    const record = structuredClone(queueToRecord(q, 123));
    expect(record.savedAt).toBe(123);
    const { queue, dropped } = queueFromRecord(record);
    expect(dropped).toEqual([]);
    expect(queue).toEqual(q);
  });

  it('drops an item whose config no longer reads cleanly, names it, and keeps the rest', () => {
    const record = queueToRecord(midGrid());
    record.items[1].config = { ...record.items[1].config, toolFailureRate: 7, bogus: 1 };
    const { queue, dropped } = queueFromRecord(record);
    expect(queue.items.map((i) => i.id)).toEqual([1, 3]);
    expect(dropped).toHaveLength(1);
    expect(dropped[0]).toMatch(/toolFailureRate/);
  });

  it('keeps ids unique when the stored nextId lags behind its items', () => {
    const record = { ...queueToRecord(midGrid()), nextId: 1 };
    const { queue } = queueFromRecord(record);
    const more = enqueue(queue, [{ label: 'x', config: TINY }]);
    expect(new Set(more.items.map((i) => i.id)).size).toBe(4);
  });
});

describe('after a reload', () => {
  it('the run the page resumed runs on, and the queue carries on after it', () => {
    const { queue, notes } = reconcileAfterReload(midGrid(), 'run-a', storedAs({ 'run-a': { status: 'running', hasCheckpoint: true } }));
    expect(notes).toEqual([]);
    expect(queue.items.map((i) => i.status)).toEqual(['running', 'waiting', 'waiting']);
    expect(nextToStart(queue, false)).toBeNull(); // one at a time
    // the resumed run's reports reach its item; when it completes the next one starts
    let q = recordProgress(queue, report('run-a', 'running', 2));
    expect(q.items[0].step).toBe(2);
    q = recordProgress(q, report('run-a', 'completed', 2));
    expect(nextToStart(q, false)?.id).toBe(2);
  });

  it('a run that finished meanwhile takes its outcome; the next starts', () => {
    const done = reconcileAfterReload(midGrid(), null, storedAs({ 'run-a': { status: 'completed', hasCheckpoint: true } })).queue;
    expect(done.items[0]).toMatchObject({ status: 'completed', etaMs: 0 });
    expect(nextToStart(done, false)?.id).toBe(2);
    const failed = reconcileAfterReload(midGrid(), null, storedAs({ 'run-a': { status: 'failed', hasCheckpoint: true, error: 'NaN' } })).queue;
    expect(failed.items[0]).toMatchObject({ status: 'failed', error: 'NaN' });
    expect(nextToStart(failed, false)?.id).toBe(2);
  });

  it('an item without a run, or whose run stored no checkpoint, starts again in its place', () => {
    let q = midGrid();
    const starting = markStarting(q, 2); // as if the page closed while item 2 was starting
    q = { ...starting, items: starting.items.map((i) => (i.id === 1 ? { ...i, status: 'completed' as const } : i)) };
    const fresh = reconcileAfterReload(q, null, storedAs({}));
    expect(fresh.queue.items[1]).toMatchObject({ status: 'waiting', runId: null, step: 0 });
    expect(fresh.notes[0]).toMatch(/starts again/);
    expect(nextToStart(fresh.queue, false)?.id).toBe(2);

    const noCheckpoint = reconcileAfterReload(midGrid(), null, storedAs({ 'run-a': { status: 'interrupted', hasCheckpoint: false } }));
    expect(noCheckpoint.queue.items[0]).toMatchObject({ status: 'waiting', runId: null });
    expect(noCheckpoint.notes[0]).toMatch(/first checkpoint/);
    expect(nextToStart(noCheckpoint.queue, false)?.id).toBe(1);
  });

  it('a run left paused, or gone from the store, stops the item and holds the queue', () => {
    const paused = reconcileAfterReload(midGrid(), null, storedAs({ 'run-a': { status: 'interrupted', hasCheckpoint: true } }));
    expect(paused.queue.items[0].status).toBe('stopped');
    expect(paused.queue.held).toBe(true);
    expect(nextToStart(paused.queue, false)).toBeNull();
    expect(paused.notes[0]).toMatch(/holds/);
    // resumed by the user from the run list: the item runs again and the queue goes on after it
    let q = recordProgress(paused.queue, report('run-a', 'running', 1));
    expect(q.items[0]).toMatchObject({ status: 'running', step: 1 });
    expect(q.items[0].error).toBeUndefined();
    expect(q.held).toBe(false);
    q = recordProgress(q, report('run-a', 'completed', 2));
    expect(nextToStart(q, false)?.id).toBe(2);

    const gone = reconcileAfterReload(midGrid(), null, storedAs({}));
    expect(gone.queue.items[0]).toMatchObject({ status: 'stopped', error: expect.stringMatching(/no longer in the store/) });
    expect(gone.queue.held).toBe(true);
  });

  it('leaves the queue to another tab whose worker still trains its run', () => {
    for (const status of ['running', 'paused']) {
      const { queue, elsewhere } = reconcileAfterReload(midGrid(), null, storedAs({ 'run-a': { status, hasCheckpoint: true } }));
      expect(elsewhere).toBe(true);
      expect(queue.items[0].status).toBe('running');
    }
    expect(reconcileAfterReload(midGrid(), 'run-a', storedAs({ 'run-a': { status: 'running', hasCheckpoint: true } })).elsewhere).toBe(false);
  });

  it('leaves a queue with nothing running as it was', () => {
    const q = enqueue(emptyQueue(), [{ label: 'x', config: TINY }]);
    expect(reconcileAfterReload(q, null, storedAs({})).queue).toEqual(q);
  });
});

describe('a crashed worker or a lost GPU', () => {
  it('the interrupted run, resumed on a new backend, is the queue\'s running item again', () => {
    let q = recordProgress(midGrid(), report('run-a', 'interrupted', 1));
    expect(q.items[0].status).toBe('stopped');
    expect(q.held).toBe(true); // nothing else starts while the page restarts the backend
    q = recordProgress(q, report('run-a', 'running', 1));
    expect(q.items[0].status).toBe('running');
    expect(q.held).toBe(false);
    // a report of another run does not take over a stopped item
    const other = recordProgress(recordProgress(midGrid(), report('run-a', 'stopped', 1)), report('run-z', 'running', 0));
    expect(other.items[0].status).toBe('stopped');
  });
});
