import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openDB } from 'idb';
import { isQuotaError, LabStore, MIGRATIONS, StoreError } from '../../src/store/labStore.ts';
import type { CheckpointRecord, RunRecord } from '../../src/store/records.ts';

let dbCount = 0;
const freshName = () => `star-lab-test-${++dbCount}`;

function sampleRun(id: string, createdAt = 1000): RunRecord {
  return {
    id,
    kind: 'demo-sort',
    config: { scale: 'm', seed: 1 },
    status: 'running',
    createdAt,
    updatedAt: createdAt,
    backend: 'cpu',
    summary: { steps: 0, totalSteps: 10, last: {} },
  };
}

function sampleCheckpoint(runId: string, step: number): CheckpointRecord {
  return {
    runId,
    step,
    createdAt: 5,
    weights: new Float32Array([1, 2, 3, step]).buffer,
    weightSpecs: [{ name: 'w', shape: [4], dtype: 'float32' }],
    optimizer: new Float32Array([0.5]).buffer,
    optimizerSpecs: [{ name: 'iter', shape: [], dtype: 'float32' }],
    rngState: [1, 2, 3, 4],
  };
}

afterEach(() => vi.restoreAllMocks());

describe('LabStore', () => {
  it('keeps a lesson\'s tag (and the prediction in it) with its run through the worker\'s updates and a resume', async () => {
    const store = await LabStore.open(freshName());
    await store.putRun(sampleRun('a'));
    const lesson = { id: 'seeds', session: 'les-1', arm: 'seed-a', prediction: 'far', arms: ['seed-a', 'seed-b'] };
    await store.updateRun('a', { lesson });
    // the worker's flush patches status and summary; a resume writes the stored record back whole
    await store.updateRun('a', { status: 'completed', summary: { steps: 10, totalSteps: 10, last: {} } });
    const stored = await store.getRun('a');
    expect(stored?.lesson).toEqual(lesson);
    await store.putRun({ ...stored!, status: 'running' });
    expect((await store.listRuns()).items[0].lesson).toEqual(lesson);
    // a tag that is not one is reported, not used
    await store.putRun({ ...sampleRun('b'), lesson: { id: 'seeds' } } as unknown as RunRecord);
    expect((await store.listRuns()).skipped.map((s) => s.key)).toEqual([JSON.stringify('b')]);
  });

  it('reads a point stored under a metric\'s old name under its name now (runs recorded before the rename)', async () => {
    const store = await LabStore.open(freshName());
    await store.putRun(sampleRun('old', 1));
    await store.appendMetrics([{ runId: 'old', step: 1, t: 10, values: { 'reward/mean': 0.5, kl: 0.002, clip_frac: 0.1 } }]);
    expect((await store.readMetrics('old')).items[0].values).toEqual({ 'reward/mean': 0.5, 'losses/kl': 0.002, 'losses/clip_frac': 0.1 });
  });

  it('round-trips runs, metric points, checkpoints and episodes', async () => {
    const store = await LabStore.open(freshName());
    await store.putRun(sampleRun('a', 1));
    await store.putRun(sampleRun('b', 2));
    await store.appendMetrics([
      { runId: 'a', step: 2, t: 20, values: { loss: 1.5 } },
      { runId: 'a', step: 1, t: 10, values: { loss: 2 } },
      { runId: 'b', step: 1, t: 10, values: { loss: 9 } },
    ]);
    const updated = await store.updateRun('a', { status: 'completed', summary: { steps: 2, totalSteps: 10, last: { loss: 1.5 } } });
    expect(updated.status).toBe('completed');

    const runs = await store.listRuns();
    expect(runs.skipped).toEqual([]);
    expect(runs.items.map((r) => r.id)).toEqual(['b', 'a']); // newest first
    expect(runs.items[1].summary.last.loss).toBe(1.5);

    const points = await store.readMetrics('a');
    expect(points.items.map((p) => [p.step, p.values.loss])).toEqual([[1, 2], [2, 1.5]]);
    await store.deleteAfter('a', 1);
    expect((await store.readMetrics('a')).items.map((p) => p.step)).toEqual([1]);
    expect((await store.readMetrics('b')).items).toHaveLength(1);

    for (const step of [5, 10, 15]) await store.putCheckpoint(sampleCheckpoint('a', step));
    const cp = await store.latestCheckpoint('a');
    expect(cp?.step).toBe(15);
    expect(Array.from(new Float32Array(cp!.weights))).toEqual([1, 2, 3, 15]);
    expect(cp?.rngState).toEqual([1, 2, 3, 4]);
    // only the newest two are kept
    expect(await store.db.getAllKeys('checkpoints')).toEqual([['a', 10], ['a', 15]]);

    await store.putEpisodes([{ runId: 'a', step: 15, index: 0, createdAt: 1, trajectory: { input: [1, 2], output: [2, 1] }, reward: 1 }]);
    expect((await store.readEpisodes('a')).items[0].trajectory).toEqual({ input: [1, 2], output: [2, 1] });

    await store.deleteRun('a');
    expect((await store.listRuns()).items.map((r) => r.id)).toEqual(['b']);
    expect((await store.readMetrics('a')).items).toEqual([]);
    expect((await store.readMetrics('b')).items).toHaveLength(1);
    expect(await store.latestCheckpoint('a')).toBeNull();
    store.close();
  });

  it('migrates a version-1 database, keeping its runs and points', async () => {
    const name = freshName();
    // a database as the first skeleton wrote it: runs without backend/kind
    const v1 = await LabStore.open(name, 1);
    expect([...v1.db.objectStoreNames].sort()).toEqual(['metrics', 'runs']);
    const { backend: _b, kind: _k, ...oldRun } = sampleRun('old');
    await v1.db.put('runs', oldRun as RunRecord);
    await v1.db.put('metrics', { runId: 'old', step: 1, t: 1, values: { loss: 3 } });
    v1.close();

    const store = await LabStore.open(name);
    expect([...store.db.objectStoreNames].sort()).toEqual(['checkpoints', 'episodes', 'metrics', 'queue', 'runs']);
    const runs = await store.listRuns();
    expect(runs.skipped).toEqual([]);
    expect(runs.items[0]).toMatchObject({ id: 'old', backend: 'unknown', kind: 'demo-sort' });
    expect((await store.readMetrics('old')).items[0].values.loss).toBe(3);
    await store.putCheckpoint(sampleCheckpoint('old', 1));
    expect(await store.latestCheckpoint('old')).not.toBeNull();
    store.close();
    expect(MIGRATIONS).toHaveLength(3);
  });

  it('skips corrupt records with a reason instead of crashing', async () => {
    const name = freshName();
    const store = await LabStore.open(name);
    await store.putRun(sampleRun('good'));
    // write garbage behind the store's back, as a buggy older build or a hand edit might
    const raw = await openDB(name);
    await raw.put('runs', { id: 'bad', status: 'exploded', config: 7 });
    await raw.put('metrics', { runId: 'good', step: 2, t: 'soon', values: {} });
    await raw.put('checkpoints', { runId: 'good', step: 9, weights: 'not a buffer' });
    raw.close();
    await store.appendMetrics([{ runId: 'good', step: 1, t: 1, values: { loss: 1 } }]);
    await store.putCheckpoint(sampleCheckpoint('good', 3));

    const runs = await store.listRuns();
    expect(runs.items.map((r) => r.id)).toEqual(['good']);
    expect(runs.skipped).toHaveLength(1);
    expect(runs.skipped[0].key).toBe('"bad"');
    expect(runs.skipped[0].reason).toMatch(/kind|status|config/);

    const points = await store.readMetrics('good');
    expect(points.items.map((p) => p.step)).toEqual([1]);
    expect(points.skipped[0].reason).toContain('t');
    // the corrupt newer checkpoint is passed over for the readable older one
    expect((await store.latestCheckpoint('good'))?.step).toBe(3);
    expect(await store.getRun('bad')).toBeNull();
    await expect(store.updateRun('bad', { status: 'completed' })).rejects.toThrow(/unreadable/);
    store.close();
  });

  it('reports a full disk as a clear quota error', async () => {
    const store = await LabStore.open(freshName());
    vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(() => {
      throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    });
    const error = await store.appendMetrics([{ runId: 'x', step: 1, t: 1, values: {} }]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).kind).toBe('quota');
    expect((error as StoreError).message).toMatch(/storage is full while saving metric points/);
    await expect(store.putRun(sampleRun('y'))).rejects.toThrow(/storage is full/);
    expect(isQuotaError(error)).toBe(true);
    // as the page sees it after comlink: a plain Error with the name and message, no `kind`
    const crossed = Object.assign(new Error((error as Error).message), { name: 'StoreError' });
    expect(isQuotaError(crossed)).toBe(true);
    expect(isQuotaError(new DOMException('full', 'QuotaExceededError'))).toBe(true);
    expect(isQuotaError(new StoreError('IndexedDB failed while saving a run: x', 'other'))).toBe(false);
    expect(isQuotaError(Object.assign(new Error('IndexedDB failed'), { name: 'StoreError' }))).toBe(false);
    store.close();
  });

  it('prunes to each run\'s newest checkpoint when storage is full, then writes again', async () => {
    const store = await LabStore.open(freshName());
    for (const step of [25, 50]) await store.putCheckpoint(sampleCheckpoint('a', step));
    for (const step of [5, 10]) await store.putCheckpoint(sampleCheckpoint('b', step));
    await store.putCheckpoint(sampleCheckpoint('c', 3));
    expect(await store.checkpointSteps('a')).toEqual([25, 50]);
    // the disk is full: a checkpoint write fails with the quota error...
    const spy = vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(() => {
      throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    });
    const error = await store.putCheckpoint(sampleCheckpoint('a', 75)).catch((e: unknown) => e);
    expect(isQuotaError(error)).toBe(true);
    // ...pruning (deletes only) frees it: every run keeps its newest checkpoint, intact
    expect(await store.pruneCheckpoints()).toBe(2);
    expect(await store.db.getAllKeys('checkpoints')).toEqual([['a', 50], ['b', 10], ['c', 3]]);
    expect(Array.from(new Float32Array((await store.latestCheckpoint('a'))!.weights))).toEqual([1, 2, 3, 50]);
    spy.mockRestore();
    await store.putCheckpoint(sampleCheckpoint('a', 75));
    expect(await store.checkpointSteps('a')).toEqual([50, 75]);
    expect(await store.pruneCheckpoints()).toBe(1);
    expect(await store.pruneCheckpoints()).toBe(0);
    store.close();
  });
});
