// Keeps the page's run queue in the store, so a reload does not lose a queued grid: reads it back
// on boot (a corrupt record is skipped with a notice) and writes every change, one write at a time,
// coalesced (the queue changes with each progress event) and skipped when nothing changed.
import { queueFromRecord, queueToRecord } from '../lab/queueRestore.ts';
import { emptyQueue, type RunQueue } from '../lab/runQueue.ts';
import type { LabStore } from '../store/labStore.ts';

export class QueueSaver {
  private lastSaved = '';
  private latest: RunQueue | null = null;
  private writing: Promise<void> | null = null;
  /** the last write failed (full storage, a closed database): retried with the next change */
  failed: string | null = null;

  constructor(private readonly store: LabStore) {}

  /** The stored queue (empty when there is none), and a notice when the record or some items were unreadable. */
  async load(): Promise<{ queue: RunQueue; notice: string | null }> {
    let found: Awaited<ReturnType<LabStore['loadQueue']>>;
    try {
      found = await this.store.loadQueue();
    } catch (e) {
      return {
        queue: emptyQueue(),
        notice: `The stored run queue could not be read (${messageOf(e)}); the queue starts empty.`,
      };
    }
    if (!found) return { queue: emptyQueue(), notice: null };
    if ('reason' in found)
      return {
        queue: emptyQueue(),
        notice: `The stored run queue was unreadable and was skipped (${found.reason}); the queue starts empty.`,
      };
    const { queue, dropped } = queueFromRecord(found.record);
    this.lastSaved = fingerprint(queue);
    const notice = dropped.length
      ? `${dropped.length} queued run(s) no longer read as valid settings and were dropped: ${dropped.join('; ')}.`
      : null;
    return { queue, notice };
  }

  /** Writes `q` (after the write in flight, if any; only the newest of several waiting is written). */
  save(q: RunQueue): void {
    this.latest = q;
    this.kick();
  }

  private kick(): void {
    if (this.writing) return;
    // cleared in a later microtask: a queue handed over in between is written by the next drain
    this.writing = this.drain().finally(() => {
      this.writing = null;
      if (this.latest) this.kick();
    });
  }

  /** resolves once everything handed to `save` is written (tests) */
  async flushed(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async drain(): Promise<void> {
    while (this.latest) {
      const q = this.latest;
      this.latest = null;
      const print = fingerprint(q);
      if (print === this.lastSaved) continue;
      try {
        await this.store.saveQueue(queueToRecord(q));
        this.lastSaved = print;
        this.failed = null;
      } catch (e) {
        this.failed = messageOf(e); // the queue still runs in this tab; the next change tries again
      }
    }
  }
}

/** what is worth a write: everything but the time-based ETA of the running item */
const fingerprint = (q: RunQueue) => JSON.stringify({ ...q, items: q.items.map((i) => ({ ...i, etaMs: null })) });

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
