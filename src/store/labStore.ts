// The lab's one IndexedDB database. The training worker writes (runs, metric points, checkpoints,
// episodes); the page reads. Both open it through `LabStore.open`, so both agree on the schema.
//
// Schema changes go through MIGRATIONS, a ladder: migration i takes a database at version i to
// i + 1, and opening an old database runs every rung above its version in order. Never edit a
// rung that has shipped; add the next one.
import { openDB, type DBSchema, type IDBPDatabase, type IDBPTransaction, type StoreNames } from 'idb';
import {
  CheckpointSchema,
  EpisodeSchema,
  MetricPointSchema,
  QueueRecordSchema,
  RunSchema,
  checkRecord,
  type CheckpointRecord,
  type EpisodeRecord,
  type MetricPoint,
  type QueueRecord,
  type RunRecord,
} from './records.ts';
import { importedStatus, sameRun, type RunBundle } from './runBundle.ts';
import { checkpointsToPrune, type CheckpointKey } from './checkpointPruning.ts';
import { withMetricNames } from '../lab/metrics.ts';

export const DB_NAME = 'star-lab';
export const DB_VERSION = 3;
/** the key of the one run-queue record */
export const QUEUE_KEY = 'current';

export interface LabDB extends DBSchema {
  runs: { key: string; value: RunRecord; indexes: { byUpdated: number } };
  metrics: { key: [string, number]; value: MetricPoint; indexes: { byRun: string } };
  checkpoints: { key: [string, number]; value: CheckpointRecord; indexes: { byRun: string } };
  episodes: { key: [string, number, number]; value: EpisodeRecord; indexes: { byRun: string } };
  queue: { key: string; value: QueueRecord };
}

type UpgradeTx = IDBPTransaction<LabDB, StoreNames<LabDB>[], 'versionchange'>;
type Migration = (db: IDBPDatabase<LabDB>, tx: UpgradeTx) => Promise<void> | void;

export const MIGRATIONS: Migration[] = [
  // 0 → 1: the first skeleton kept runs and their metric points.
  (db) => {
    db.createObjectStore('runs', { keyPath: 'id' });
    const metrics = db.createObjectStore('metrics', { keyPath: ['runId', 'step'] });
    metrics.createIndex('byRun', 'runId');
  },
  // 1 → 2: checkpoints and sample episodes; runs gain `backend` and `kind`, and an index by update
  // time for the runs list.
  async (db, tx) => {
    db.createObjectStore('checkpoints', { keyPath: ['runId', 'step'] }).createIndex('byRun', 'runId');
    db.createObjectStore('episodes', { keyPath: ['runId', 'step', 'index'] }).createIndex('byRun', 'runId');
    const runs = tx.objectStore('runs');
    runs.createIndex('byUpdated', 'updatedAt');
    for (let cursor = await runs.openCursor(); cursor; cursor = await cursor.continue()) {
      const old = cursor.value as Partial<RunRecord>;
      await cursor.update({ ...old, backend: old.backend ?? 'unknown', kind: old.kind ?? 'demo-sort' } as RunRecord);
    }
  },
  // 2 → 3: the page's run queue (one record), so a reload keeps a queued grid.
  (db) => {
    db.createObjectStore('queue');
  },
];

/** A record that failed validation and was skipped. */
export interface SkippedRecord {
  store: StoreNames<LabDB>;
  key: string;
  reason: string;
}

export interface ReadResult<T> {
  items: T[];
  skipped: SkippedRecord[];
}

/** Errors of the store, with a message a user can act on. */
export class StoreError extends Error {
  constructor(
    message: string,
    readonly kind: 'quota' | 'unavailable' | 'other',
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreError';
  }
}

/** Turns an IndexedDB failure into a StoreError with a clear message. */
export function describeStoreError(error: unknown, doing: string): StoreError {
  const name = (error as { name?: string } | null)?.name;
  if (name === 'QuotaExceededError') {
    return new StoreError(
      `Browser storage is full while ${doing}. Delete old runs (or free site data) and try again.`,
      'quota',
      { cause: error },
    );
  }
  const detail = error instanceof Error ? error.message : String(error);
  return new StoreError(`IndexedDB failed while ${doing}: ${detail}`, 'other', { cause: error });
}

/** A full-storage error, also after it crossed the worker boundary (comlink keeps name and message, not `kind`). */
export function isQuotaError(error: unknown): boolean {
  if (error instanceof StoreError) return error.kind === 'quota';
  const e = error as { name?: string; message?: string } | null;
  return (
    e?.name === 'QuotaExceededError' || (e?.name === 'StoreError' && /^Browser storage is full/.test(e.message ?? ''))
  );
}

/** How many checkpoints of a run to keep (the newest ones). */
const KEEP_CHECKPOINTS = 2;

export class LabStore {
  private constructor(readonly db: IDBPDatabase<LabDB>) {}

  /** Opens (creating or migrating) the database. `version` is for tests of older schemas. */
  static async open(name = DB_NAME, version = DB_VERSION): Promise<LabStore> {
    if (typeof indexedDB === 'undefined') {
      throw new StoreError('This browser has no IndexedDB, so runs cannot be stored.', 'unavailable');
    }
    try {
      const db = await openDB<LabDB>(name, version, {
        async upgrade(db, oldVersion, newVersion, tx) {
          for (let v = oldVersion; v < (newVersion ?? version); v++) await MIGRATIONS[v](db, tx);
        },
        blocking(_current, _blocked, event) {
          // another tab wants a newer schema: let it proceed, this connection reopens on next load
          (event.target as IDBDatabase).close();
        },
      });
      return new LabStore(db);
    } catch (e) {
      throw describeStoreError(e, 'opening the database');
    }
  }

  close(): void {
    this.db.close();
  }

  // ---- runs ----------------------------------------------------------------------------------

  async putRun(run: RunRecord): Promise<void> {
    await this.write('saving a run', () => this.db.put('runs', run));
  }

  /** Applies `patch` to a stored run (read-modify-write in one transaction). */
  async updateRun(id: string, patch: Partial<Omit<RunRecord, 'id'>>): Promise<RunRecord> {
    return this.write('updating a run', async () => {
      const tx = this.db.transaction('runs', 'readwrite');
      const found = checkRecord(RunSchema, await tx.store.get(id));
      if (!found.ok) throw new StoreError(`Run ${id} is missing or unreadable (${found.reason}).`, 'other');
      const next: RunRecord = { ...found.value, ...patch, id, updatedAt: Date.now() };
      await tx.store.put(next);
      await tx.done;
      return next;
    });
  }

  async getRun(id: string): Promise<RunRecord | null> {
    const found = checkRecord(RunSchema, await this.db.get('runs', id));
    return found.ok ? found.value : null;
  }

  /** All readable runs, newest first; unreadable ones are listed in `skipped`. */
  async listRuns(): Promise<ReadResult<RunRecord>> {
    const result = this.validateAll('runs', await this.readAllWithKeys('runs'), RunSchema);
    result.items.sort((a, b) => b.createdAt - a.createdAt);
    return result;
  }

  /** Deletes a run with its metrics, checkpoints and episodes. */
  async deleteRun(id: string): Promise<void> {
    const tx = this.db.transaction(['runs', 'metrics', 'checkpoints', 'episodes'], 'readwrite');
    const range = IDBKeyRange.bound([id], [id, []]);
    await Promise.all([
      tx.objectStore('runs').delete(id),
      tx.objectStore('metrics').delete(range),
      tx.objectStore('checkpoints').delete(range),
      tx.objectStore('episodes').delete(range),
      tx.done,
    ]);
  }

  // ---- metric points -------------------------------------------------------------------------

  /** Writes a batch of points in one transaction (the worker flushes a few times a second). */
  async appendMetrics(points: readonly MetricPoint[]): Promise<void> {
    if (points.length === 0) return;
    await this.write('saving metric points', async () => {
      const tx = this.db.transaction('metrics', 'readwrite');
      await Promise.all([...points.map((p) => tx.store.put(p)), tx.done]);
    });
  }

  /** Drops a run's points and episodes after `step`, in one transaction (a resumed run trains those steps again from
   * its checkpoint). */
  async deleteAfter(runId: string, step: number): Promise<void> {
    await this.write('trimming metric points and episodes', async () => {
      const tx = this.db.transaction(['metrics', 'episodes'], 'readwrite');
      await Promise.all([
        tx.objectStore('metrics').delete(IDBKeyRange.bound([runId, step], [runId, []], true, false)),
        tx.objectStore('episodes').delete(IDBKeyRange.bound([runId, step, Infinity], [runId, []], true, false)),
        tx.done,
      ]);
    });
  }

  /** A run's points in step order. */
  async readMetrics(runId: string): Promise<ReadResult<MetricPoint>> {
    const range = IDBKeyRange.bound([runId], [runId, []]);
    const tx = this.db.transaction('metrics');
    const rows: [IDBValidKey, unknown][] = [];
    for (let c = await tx.store.openCursor(range); c; c = await c.continue()) rows.push([c.key, c.value]);
    const read = this.validateAll('metrics', rows, MetricPointSchema);
    // points stored before a metric was renamed are read under its name now
    return { ...read, items: read.items.map((p) => ({ ...p, values: withMetricNames(p.values) })) };
  }

  // ---- checkpoints ---------------------------------------------------------------------------

  /** Saves a checkpoint and drops all but the newest few of the run. */
  async putCheckpoint(cp: CheckpointRecord): Promise<void> {
    await this.write('saving a checkpoint', async () => {
      const tx = this.db.transaction('checkpoints', 'readwrite');
      await tx.store.put(cp);
      const keys = await tx.store.getAllKeys(IDBKeyRange.bound([cp.runId], [cp.runId, []]));
      for (const key of keys.slice(0, Math.max(0, keys.length - KEEP_CHECKPOINTS))) await tx.store.delete(key);
      await tx.done;
    });
  }

  /** The run's newest readable checkpoint, or null. */
  async latestCheckpoint(runId: string): Promise<CheckpointRecord | null> {
    const range = IDBKeyRange.bound([runId], [runId, []]);
    const tx = this.db.transaction('checkpoints');
    for (let c = await tx.store.openCursor(range, 'prev'); c; c = await c.continue()) {
      const found = checkRecord(CheckpointSchema, c.value);
      if (found.ok) return found.value;
    }
    return null;
  }

  /** The steps of a run's stored checkpoints, oldest first (keys only: no weights are read). */
  async checkpointSteps(runId: string): Promise<number[]> {
    const keys = await this.db.getAllKeys('checkpoints', IDBKeyRange.bound([runId], [runId, []]));
    return keys.map(([, step]) => step);
  }

  /** Frees space when storage is full: deletes all but each run's newest checkpoint; returns how many went. */
  async pruneCheckpoints(): Promise<number> {
    return this.write('deleting old checkpoints', async () => {
      const tx = this.db.transaction('checkpoints', 'readwrite');
      const doomed = checkpointsToPrune((await tx.store.getAllKeys()) as CheckpointKey[]);
      await Promise.all([...doomed.map((key) => tx.store.delete([...key] as [string, number])), tx.done]);
      return doomed.length;
    });
  }

  // ---- episodes ------------------------------------------------------------------------------

  async putEpisodes(episodes: readonly EpisodeRecord[]): Promise<void> {
    if (episodes.length === 0) return;
    await this.write('saving episodes', async () => {
      const tx = this.db.transaction('episodes', 'readwrite');
      await Promise.all([...episodes.map((e) => tx.store.put(e)), tx.done]);
    });
  }

  async readEpisodes(runId: string): Promise<ReadResult<EpisodeRecord>> {
    const range = IDBKeyRange.bound([runId], [runId, []]);
    const tx = this.db.transaction('episodes');
    const rows: [IDBValidKey, unknown][] = [];
    for (let c = await tx.store.openCursor(range); c; c = await c.continue()) rows.push([c.key, c.value]);
    return this.validateAll('episodes', rows, EpisodeSchema);
  }

  /** The steps of a run that have stored episodes, ascending (read from the keys only). */
  async episodeSteps(runId: string): Promise<number[]> {
    const range = IDBKeyRange.bound([runId], [runId, []]);
    const tx = this.db.transaction('episodes');
    const steps = new Set<number>();
    for (let c = await tx.store.openKeyCursor(range); c; c = await c.continue()) steps.add(c.key[1]);
    return [...steps].sort((a, b) => a - b);
  }

  /** A run's episodes of one step, by index. */
  async readEpisodesAt(runId: string, step: number): Promise<ReadResult<EpisodeRecord>> {
    const range = IDBKeyRange.bound([runId, step], [runId, step, []]);
    const tx = this.db.transaction('episodes');
    const rows: [IDBValidKey, unknown][] = [];
    for (let c = await tx.store.openCursor(range); c; c = await c.continue()) rows.push([c.key, c.value]);
    return this.validateAll('episodes', rows, EpisodeSchema);
  }

  // ---- the run queue (src/lab/queueRestore.ts turns it into a RunQueue and back) --------------

  async saveQueue(record: QueueRecord): Promise<void> {
    await this.write('saving the run queue', () => this.db.put('queue', record, QUEUE_KEY));
  }

  /** The stored queue; null when there is none; `reason` when the record is unreadable (skipped, not thrown). */
  async loadQueue(): Promise<{ record: QueueRecord } | { reason: string } | null> {
    const raw: unknown = await this.db.get('queue', QUEUE_KEY);
    if (raw === undefined) return null;
    const found = checkRecord(QueueRecordSchema, raw);
    return found.ok ? { record: found.value } : { reason: found.reason };
  }

  // ---- run bundles (src/store/runBundle.ts encodes and checks them) ---------------------------

  /** A run with its metric points, episodes and newest checkpoint, read in one transaction; null if it is missing. */
  async readRunBundle(id: string): Promise<RunBundle | null> {
    return this.bundleIn(this.db.transaction(['runs', 'metrics', 'checkpoints', 'episodes']), id);
  }

  /**
   * Stores a checked bundle in one transaction: all of it, or nothing if any write fails. A bundle
   * of a run already stored — the same record, points, episodes and checkpoint (runBundle.ts sameRun)
   * under its id or one of its import ids — is recognised and nothing is written (`already`): a second
   * copy of the same run would only double its curves. A different run whose id is taken is stored
   * under a new one (`<id>-import`, `<id>-import-2`, …), so an import never overwrites a run; a bundle
   * of a running or paused run arrives as interrupted (no worker is running it here). Returns the id
   * it was stored (or found) under.
   */
  async importRunBundle(bundle: RunBundle): Promise<{ id: string; already: boolean }> {
    return this.write('importing a run', async () => {
      const tx = this.db.transaction(['runs', 'metrics', 'checkpoints', 'episodes'], 'readwrite');
      const writes: Promise<unknown>[] = [];
      try {
        const runs = tx.objectStore('runs');
        let id = bundle.run.id;
        for (let n = 1; await runs.getKey(id); n++) {
          const stored = await this.bundleIn(tx, id);
          if (stored && sameRun(stored, bundle)) {
            await tx.done;
            return { id, already: true };
          }
          id = `${bundle.run.id}-import${n === 1 ? '' : `-${n}`}`;
        }
        writes.push(runs.add({ ...bundle.run, id, status: importedStatus(bundle.run.status) }));
        for (const p of bundle.metrics) writes.push(tx.objectStore('metrics').add({ ...p, runId: id }));
        for (const e of bundle.episodes) writes.push(tx.objectStore('episodes').add({ ...e, runId: id }));
        if (bundle.checkpoint) writes.push(tx.objectStore('checkpoints').add({ ...bundle.checkpoint, runId: id }));
        await Promise.all([...writes, tx.done]);
        return { id, already: false };
      } catch (e) {
        // a failed request aborts the transaction already; abort it here if it is still open (a write threw before its
        // request)
        try {
          tx.abort();
        } catch {
          // already finished
        }
        await Promise.allSettled([...writes, tx.done]);
        throw e;
      }
    });
  }

  /** a stored run as a bundle, read in `tx` (null: unreadable) */
  private async bundleIn(
    tx: IDBPTransaction<LabDB, ('runs' | 'metrics' | 'checkpoints' | 'episodes')[], 'readonly' | 'readwrite'>,
    id: string,
  ): Promise<RunBundle | null> {
    const range = IDBKeyRange.bound([id], [id, []]);
    const found = checkRecord(RunSchema, await tx.objectStore('runs').get(id));
    if (!found.ok) return null;
    const [metrics, episodes, checkpoints] = await Promise.all([
      tx.objectStore('metrics').getAll(range),
      tx.objectStore('episodes').getAll(range),
      tx.objectStore('checkpoints').getAll(range),
    ]);
    const valid = <T>(schema: Parameters<typeof checkRecord<T>>[0], rows: unknown[]) =>
      rows.flatMap((r) => {
        const c = checkRecord(schema, r);
        return c.ok ? [c.value] : [];
      });
    return {
      run: found.value,
      metrics: valid(MetricPointSchema, metrics),
      episodes: valid(EpisodeSchema, episodes),
      checkpoint: valid(CheckpointSchema, checkpoints).at(-1) ?? null,
    };
  }

  // ---- helpers -------------------------------------------------------------------------------

  private async write<T>(doing: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw e instanceof StoreError ? e : describeStoreError(e, doing);
    }
  }

  private async readAllWithKeys(store: StoreNames<LabDB>): Promise<[IDBValidKey, unknown][]> {
    const tx = this.db.transaction(store);
    const rows: [IDBValidKey, unknown][] = [];
    for (let c = await tx.store.openCursor(); c; c = await c.continue()) rows.push([c.key, c.value]);
    return rows;
  }

  private validateAll<T>(
    store: StoreNames<LabDB>,
    rows: [IDBValidKey, unknown][],
    schema: Parameters<typeof checkRecord<T>>[0],
  ): ReadResult<T> {
    const items: T[] = [];
    const skipped: SkippedRecord[] = [];
    for (const [key, value] of rows) {
      const found = checkRecord(schema, value);
      if (found.ok) items.push(found.value);
      else skipped.push({ store, key: JSON.stringify(key), reason: found.reason });
    }
    return { items, skipped };
  }
}
