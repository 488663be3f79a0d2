import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openDB } from 'idb';
import { LabStore, MIGRATIONS, QUEUE_KEY } from '../../src/store/labStore.ts';
import type { RunRecord } from '../../src/store/records.ts';
import { findingById } from '../../src/findings/findings.ts';
import { queueToRecord, reconcileAfterReload } from '../../src/lab/queueRestore.ts';
import { emptyQueue, enqueue, markStarted, markStarting, nextToStart, recordProgress, type RunQueue } from '../../src/lab/runQueue.ts';
import { gridRuns } from '../../src/findings/findingRuns.ts';
import { parseHash } from '../../src/lab/urlState.ts';
import { QueueSaver } from '../../src/ui/queueSaver.ts';

let dbCount = 0;
const freshName = () => `star-lab-queue-test-${++dbCount}`;
const TINY = parseHash('#scale=s&steps=2&queriesPerStep=1&groupSize=2&evalEvery=2&evalQueries=0&evalToolQa=2&trainSize=20&seed=6').config;

function grid(): RunQueue {
  return enqueue(emptyQueue(), gridRuns(findingById('T7'), TINY).map((r) => ({ label: `T7 · ${r.cells[0]}`, config: r.config })));
}
const started = (q: RunQueue, runId: string, step: number) =>
  recordProgress(markStarted(markStarting(q, q.items[0].id), q.items[0].id, runId), { runId, status: 'running', step, etaMs: 9000, meanStepMs: 3000 });

/** writes a value behind the store's back, as an older build, a crash mid-write or a hand edit might */
async function writeRaw(name: string, value: unknown): Promise<void> {
  const raw = await openDB(name);
  await raw.put('queue', value, QUEUE_KEY);
  raw.close();
}

afterEach(() => vi.restoreAllMocks());

describe('the stored run queue', () => {
  it('is absent at first, then reads back what was saved', async () => {
    const store = await LabStore.open(freshName());
    expect(await store.loadQueue()).toBeNull();
    expect(await new QueueSaver(store).load()).toEqual({ queue: emptyQueue(), notice: null });
    const q = started(grid(), 'run-a', 1);
    await store.saveQueue(queueToRecord(q, 7));
    const found = await store.loadQueue();
    expect(found && 'record' in found && found.record.items.map((i) => i.status)).toEqual(['running', 'waiting', 'waiting']);
    const { queue, notice } = await new QueueSaver(store).load();
    expect(notice).toBeNull();
    expect(queue).toEqual(q);
    store.close();
  });

  it.each([
    ['a string', 'garbage'],
    ['null', null],
    ['an item with a bad status', { items: [{ id: 1, label: 'x', config: {}, status: 'exploded', runId: null, step: 0, meanStepMs: null, etaMs: null }], held: false, nextId: 2, savedAt: 1 }],
    ['no items', { held: false, nextId: 1, savedAt: 1 }],
    ['a negative step', { items: [{ id: 1, label: 'x', config: {}, status: 'waiting', runId: null, step: -3, meanStepMs: null, etaMs: null }], held: false, nextId: 2, savedAt: 1 }],
  ])('with %s is skipped with a notice, and the queue starts empty', async (_what, value) => {
    const name = freshName();
    const store = await LabStore.open(name);
    await writeRaw(name, value);
    const found = await store.loadQueue();
    expect(found && 'reason' in found && found.reason.length > 0).toBe(true);
    const saver = new QueueSaver(store);
    const { queue, notice } = await saver.load();
    expect(queue).toEqual(emptyQueue());
    expect(notice).toMatch(/unreadable and was skipped/);
    // the next queue overwrites the bad record
    saver.save(grid());
    await saver.flushed();
    expect(await store.loadQueue()).toHaveProperty('record');
    store.close();
  });

  it('drops the items whose settings no longer read cleanly, with a notice naming them', async () => {
    const name = freshName();
    const store = await LabStore.open(name);
    const record = queueToRecord(grid());
    record.items[2].config.scale = 'xxl';
    await writeRaw(name, record);
    const { queue, notice } = await new QueueSaver(store).load();
    expect(queue.items).toHaveLength(2);
    expect(notice).toMatch(/1 queued run.*dropped.*scale/);
    store.close();
  });

  it('writes the newest queue once, skips writes that change only the ETA, and survives a failing write', async () => {
    const store = await LabStore.open(freshName());
    const saver = new QueueSaver(store);
    await saver.load();
    const writes = vi.spyOn(store, 'saveQueue');
    let q = grid();
    for (let i = 0; i < 5; i++) saver.save((q = { ...q, nextId: q.nextId + 1 }));
    await saver.flushed();
    expect(writes.mock.calls.length).toBeLessThanOrEqual(2); // the first, then the newest of the rest
    expect((await store.loadQueue()) as unknown).toMatchObject({ record: { nextId: q.nextId } });
    const calls = writes.mock.calls.length;
    saver.save({ ...q, items: q.items.map((i) => ({ ...i, etaMs: 5 })) });
    await saver.flushed();
    expect(writes.mock.calls.length).toBe(calls);

    writes.mockRejectedValueOnce(new DOMException('full', 'QuotaExceededError'));
    const next = started(q, 'run-b', 1);
    saver.save(next);
    await saver.flushed();
    expect(saver.failed).toMatch(/full/);
    saver.save(next); // the next change tries again
    await saver.flushed();
    expect(saver.failed).toBeNull();
    expect((await store.loadQueue()) as unknown).toMatchObject({ record: { items: [{ runId: 'run-b' }, {}, {}] } });
    store.close();
  });

  it('survives a reload mid-grid: the resumed run keeps its item, then the queue carries on', async () => {
    const name = freshName();
    const before = await LabStore.open(name);
    const saver = new QueueSaver(before);
    await saver.load();
    saver.save(started(grid(), 'run-a', 1));
    await saver.flushed();
    before.close(); // the page goes away

    const after = await LabStore.open(name);
    const { queue } = await new QueueSaver(after).load();
    expect(queue.items.map((i) => [i.status, i.runId, i.step])).toEqual([['running', 'run-a', 1], ['waiting', null, 0], ['waiting', null, 0]]);
    expect(nextToStart(queue, false)).toBeNull(); // nothing else starts while the page resumes run-a
    const settled = reconcileAfterReload(queue, 'run-a', () => ({ status: 'running', hasCheckpoint: true })).queue;
    const done = recordProgress(settled, { runId: 'run-a', status: 'completed', step: 2, etaMs: 0, meanStepMs: 3000 });
    expect(nextToStart(done, false)?.label).toBe(queue.items[1].label);
    after.close();
  });

  it('is added by the 2 → 3 migration, which keeps the runs', async () => {
    const name = freshName();
    const v2 = await LabStore.open(name, 2);
    expect(v2.db.objectStoreNames.contains('queue')).toBe(false);
    const run: RunRecord = { id: 'old', kind: 'rl', config: {}, status: 'completed', createdAt: 1, updatedAt: 1, backend: 'cpu', summary: { steps: 1, totalSteps: 1, last: {} } };
    await v2.putRun(run);
    v2.close();
    const store = await LabStore.open(name);
    expect(MIGRATIONS).toHaveLength(3);
    expect(store.db.objectStoreNames.contains('queue')).toBe(true);
    expect((await store.listRuns()).items.map((r) => r.id)).toEqual(['old']);
    expect(await store.loadQueue()).toBeNull();
    store.close();
  });
});
