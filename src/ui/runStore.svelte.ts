// The page's side of the store (IndexedDB, src/store/labStore.ts): its connection, the stored runs it lists,
// the records it had to skip, and the run queue kept across reloads (queueSaver.ts). The page's other parts read
// runs, metrics and episodes through it; only it writes these fields. The worker writes the runs themselves.
import { LabStore } from '../store/labStore.ts';
import { decodeRunBundle, encodeRunBundle } from '../store/runBundle.ts';
import type { EpisodeRecord, MetricPoint, RunRecord } from '../store/records.ts';
import { configFromRecord } from '../lab/urlState.ts';
import type { RunQueue } from '../lab/runQueue.ts';
import { runLink, runResultOf } from '../lessons/runResultCode.ts';
import { settingKey } from '../lessons/lessonReference.ts';
import { BUILD } from './build.ts';
import { QueueSaver } from './queueSaver.ts';

export class RunStore {
  /** newest first */
  runs = $state.raw<RunRecord[]>([]);
  /** the stored runs have been read once (or the store could not open): before, an empty list means "not read yet" */
  runsListed = $state(false);
  /** records in the store that failed validation (listed, not shown) */
  skippedRecords = $state<string[]>([]);
  error = $state<string | null>(null);
  #store: LabStore | null = null;
  /** set once the stored queue has been read, so nothing overwrites it before */
  #queueSaver: QueueSaver | null = null;

  /** the store is open (it may fail to: a private window, a blocked database) */
  get ready(): boolean {
    return this.#store !== null;
  }

  /**
   * Opens the store and lists its runs; `then` reads what else the boot needs from it. A failure of either is
   * the store's error, shown on the page. The list counts as read afterwards, even when it could not be.
   */
  async open(then: () => Promise<void>): Promise<void> {
    try {
      this.#store = await LabStore.open();
      await this.refreshRuns();
      await then();
    } catch (e) {
      this.error = messageOf(e);
    }
    this.runsListed = true;
  }

  async refreshRuns(): Promise<void> {
    if (!this.#store) return;
    try {
      const { items, skipped } = await this.#store.listRuns();
      this.runs = items;
      this.skippedRecords = skipped.map((s) => `${s.store} ${s.key}: ${s.reason}`);
    } catch (e) {
      this.error = messageOf(e);
    }
  }

  /** a stored run's metric points and the records skipped reading them (undefined when the store is not open) */
  async readMetrics(runId: string): Promise<{ items: MetricPoint[]; skipped: string[] } | undefined> {
    const result = await this.#store?.readMetrics(runId);
    return result && { items: result.items, skipped: result.skipped.map((s) => `${s.store} ${s.key}: ${s.reason}`) };
  }

  /** Shows the records a read skipped in place of the list's. */
  noteSkipped(skipped: string[]): void {
    this.skippedRecords = skipped;
  }

  /** a stored run's metric points (empty when the store is not open) */
  async runPoints(runId: string): Promise<MetricPoint[]> {
    return (await this.readMetrics(runId))?.items ?? [];
  }

  /** the steps a run has checkpoints at, oldest first (none when they cannot be read) */
  async checkpointSteps(runId: string): Promise<number[]> {
    return (await this.#store?.checkpointSteps(runId).catch(() => [])) ?? [];
  }

  /** a run's stored episodes (null when they cannot be read) */
  async readEpisodes(runId: string): Promise<EpisodeRecord[] | null> {
    return (await this.#store?.readEpisodes(runId).catch(() => null))?.items ?? null;
  }

  /** the steps of a run that have stored episodes */
  async episodeSteps(runId: string): Promise<number[]> {
    return (await this.#store?.episodeSteps(runId)) ?? [];
  }

  async episodesAt(runId: string, step: number): Promise<EpisodeRecord[]> {
    return (await this.#store?.readEpisodesAt(runId, step))?.items ?? [];
  }

  async deleteRun(runId: string): Promise<void> {
    await this.#store?.deleteRun(runId);
  }

  /** Keeps only each run's newest checkpoint; the number deleted (throws when the store is not open). */
  async pruneCheckpoints(): Promise<number> {
    if (!this.#store) throw new Error('The store is not open.');
    return this.#store.pruneCheckpoints();
  }

  /** a stored run's result link (`#run=<code>`, src/lessons/runResultCode.ts); null until it has an evaluation */
  async runShareLink(runId: string): Promise<string | null> {
    const run = this.runs.find((r) => r.id === runId);
    if (!run) throw new Error(`Run ${runId} is not in this browser's store.`);
    const config = configFromRecord(run.config).config;
    const result = runResultOf({
      setting: settingKey(config), seed: config.seed, kind: run.kind, status: run.status, backend: run.backend,
      build: BUILD, steps: run.summary.steps, totalSteps: run.summary.totalSteps, last: run.summary.last,
      points: await this.runPoints(runId),
    });
    return result && runLink(`${location.origin}${location.pathname}`, result);
  }

  /** a stored run as bundle text (src/store/runBundle.ts) */
  async exportRunBundle(runId: string): Promise<string> {
    const bundle = await this.#store?.readRunBundle(runId);
    if (!bundle) throw new Error(`Run ${runId} is not in this browser's store.`);
    return encodeRunBundle(bundle);
  }

  /**
   * Checks a bundle's text and stores the run (all or nothing); returns the id it got, or the id of the
   * same run already stored (`already`: nothing was written). Throws the reason when it is refused.
   */
  async importRunBundle(text: string): Promise<{ id: string; already: boolean }> {
    if (!this.#store) throw new Error('The store is not open, so nothing can be imported.');
    const imported = await this.#store.importRunBundle(await decodeRunBundle(text));
    await this.refreshRuns();
    return imported;
  }

  // ---- the run queue kept across reloads -------------------------------------------------------------

  /** The queue a previous page left (a notice when some of it was unreadable); from now on saveQueue keeps it. */
  async loadQueue(): Promise<{ queue: RunQueue; notice: string | null } | null> {
    if (!this.#store) return null;
    const saver = new QueueSaver(this.#store);
    const loaded = await saver.load();
    this.#queueSaver = saver;
    return loaded;
  }

  /** Writes the queue (coalesced, in the background); nothing before loadQueue or after stopSavingQueue. */
  saveQueue(queue: RunQueue): void {
    this.#queueSaver?.save(queue);
  }

  /** Another tab runs the stored queue: this one leaves the stored record alone. */
  stopSavingQueue(): void {
    this.#queueSaver = null;
  }
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
