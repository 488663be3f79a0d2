// The lessons' runs. A lesson's sitting (a "session") runs one or two arms; each arm is an ordinary run in
// the store, tagged with the lesson, the session and the learner's prediction (records.ts LessonTag), so
// the prediction is kept with the run and the Runs view lists it like any other. The first arm trains on
// the Lab's worker (LabState.start), so the page's own recovery resumes it after a closed tab or a crash;
// the second runs beside it in a worker of its own where the machine has the cores (4 or more), else on
// the Lab's worker once the first has finished. This keeps a session going: after a reload the page
// resumes one arm by itself, and this resumes its sibling (an arm that died before its first checkpoint
// starts again); when an arm finishes, the next one starts.
// Nothing here touches tfjs.
import { untrack } from 'svelte';
import { armConfig, isSmokeRun, lessonById, LESSONS, SIZE_KEYS, type Lesson } from '../../lessons/lessons.ts';
import type { LabConfig } from '../../lab/config.ts';
import { configFromRecord } from '../../lab/urlState.ts';
import { LabStore } from '../../store/labStore.ts';
import type { LessonTag, MetricPoint, RunRecord } from '../../store/records.ts';
import type { RunProgress, StartRequest, WorkerEvent } from '../../worker/api.ts';
import { createTrainingWorker, type TrainingWorkerHandle } from '../../worker/client.ts';
import type { LabState } from '../labState.svelte.ts';
import type { ArmState } from '../../lessons/sittingState.ts';

/** cores from which the two arms train side by side, one worker each */
export const PARALLEL_CORES = 4;

export interface Session {
  id: string;
  lesson: Lesson;
  prediction: string;
  /** the arm keys this sitting runs, in order */
  arms: string[];
  /** the arm's run, by arm key */
  runs: Record<string, RunRecord>;
  createdAt: number;
}

export type { ArmState };

const TERMINAL = new Set(['completed', 'failed', 'stopped', 'interrupted']);

export class LessonRuns {
  /** each run's metric points as last read from the store (or streamed by the second worker) */
  points = $state.raw<Record<string, MetricPoint[]>>({});
  /** the second worker's run, while it has one */
  companionProgress = $state.raw<RunProgress | null>(null);
  error = $state<string | null>(null);
  /** a start or resume is being prepared */
  busy = $state(false);
  private companion: TrainingWorkerHandle | null = null;
  private store: LabStore | null = null;
  /** sessions being continued right now (so two triggers do not start an arm twice, and the page says "resuming") */
  private continuing = $state<Record<string, boolean>>({});
  /** sessions whose next arm is about to start, an arm having just finished */
  private handingOver = $state<Record<string, boolean>>({});
  /** until the page has resumed what it could after a load: a sitting that was training is being resumed, not
   * stopped */
  private settling = $state(true);
  /** the last status seen of each run on the Lab's worker (progress arrives a few times a second) */
  private lastLabStatus: Record<string, string> = {};

  constructor(readonly lab: LabState) {
    void lab.booted.then(() => this.afterBoot());
    $effect.root(() => {
      $effect(() => {
        const progress = this.lab.progress;
        untrack(() => void this.onLabProgress(progress));
      });
    });
  }

  get cores(): number {
    return typeof navigator !== 'undefined' ? navigator.hardwareConcurrency || 1 : 1;
  }

  /** two workers at once pay only from PARALLEL_CORES cores: below, the arms take turns */
  get parallel(): boolean {
    return this.cores >= PARALLEL_CORES;
  }

  /** the stored sessions of a lesson, newest first; with `smoke`, only those of that size */
  sessions(lessonId: string, smoke?: boolean): Session[] {
    const lesson = lessonById(lessonId);
    if (!lesson) return [];
    const byId: Record<string, Session> = {};
    for (const run of this.lab.runs) {
      const tag = run.lesson;
      if (!tag || tag.id !== lessonId) continue;
      const s = (byId[tag.session] ??= {
        id: tag.session,
        lesson,
        prediction: tag.prediction,
        arms: tag.arms,
        runs: {},
        createdAt: run.createdAt,
      });
      // an arm started again (its first run died before a checkpoint) is its newest run
      if (!s.runs[tag.arm] || s.runs[tag.arm].createdAt < run.createdAt) s.runs[tag.arm] = run;
      s.createdAt = Math.min(s.createdAt, run.createdAt);
    }
    return Object.values(byId)
      .filter((s) => smoke === undefined || Object.values(s.runs).some((r) => isSmokeRun(r.config) === smoke))
      .sort((a, b) => b.createdAt - a.createdAt);
  }

  /** the page is resuming or continuing this sitting by itself right now (its halted arms are about to train) */
  resuming(session: Session): boolean {
    if (this.continuing[session.id] || this.handingOver[session.id]) return true;
    // an arm has just finished on the Lab's worker and its sibling has not started: onLabProgress starts it a tick
    // later
    const p = this.lab.progress;
    if (
      p?.status === 'completed' &&
      this.error === null &&
      Object.values(session.runs).some((r) => r.id === p.runId) &&
      session.arms.some((a) => !session.runs[a])
    )
      return true;
    // after a load: a run that was training when the page closed (running, or marked interrupted) is resumed by the
    // page
    return (
      this.settling && Object.values(session.runs).some((r) => r.status === 'running' || r.status === 'interrupted')
    );
  }

  /** the live progress of a run (on the Lab's worker or the second one), or null */
  progressOf(runId: string | undefined): RunProgress | null {
    if (!runId) return null;
    if (this.lab.progress?.runId === runId) return this.lab.progress;
    if (this.companionProgress?.runId === runId) return this.companionProgress;
    return null;
  }

  armState(session: Session, arm: string): ArmState {
    const run = session.runs[arm];
    if (!run) return 'missing';
    const live = this.progressOf(run.id);
    const status = live?.status ?? run.status;
    if (status === 'running' || status === 'paused') return live ? 'live' : 'halted';
    if (status === 'completed') return 'done';
    if (status === 'failed') return 'failed';
    return 'halted';
  }

  /** Starts a sitting: the first arm now, the second beside it (4+ cores) or after it. `which`: both arms or the first
   * alone. */
  async start(
    lesson: Lesson,
    prediction: string,
    which: 'both' | 'first',
    size: Partial<LabConfig> = {},
  ): Promise<void> {
    if (this.busy) return;
    if (this.lab.running || this.lab.starting) {
      this.error =
        'A run is training in the Lab: a lesson needs the trainer. Wait for it to finish, or stop it in the Lab.';
      return;
    }
    this.busy = true;
    this.error = null;
    try {
      const session = `les-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 5)}`;
      const seed = 100 + Math.floor(Math.random() * 99_000); // never one of the committed seeds (1, 2, …)
      const arms = which === 'both' ? lesson.arms.map((a) => a.key) : [lesson.arms[0].key];
      const tag = (arm: string): LessonTag => ({ id: lesson.id, session, arm, prediction, arms });
      const first = await this.startOnLab(armConfig(lesson.arms[0], seed, size), tag(arms[0]));
      if (first && arms.length > 1 && this.parallel) {
        await this.startOnCompanion(
          {
            config: this.nextConfig(lesson, 1, seed, size),
            startingPoint: { kind: 'shipped', scale: lesson.arms[1].config.scale ?? 'm' },
          },
          tag(arms[1]),
        );
      }
    } finally {
      this.busy = false;
    }
  }

  /** Continues a sitting: resumes its halted arms from their checkpoints and starts the arms not started yet. */
  async continueSession(session: Session): Promise<void> {
    if (this.continuing[session.id]) return;
    this.continuing = { ...this.continuing, [session.id]: true };
    this.error = null;
    try {
      for (const [i, arm] of session.arms.entries()) {
        const state = this.armState(session, arm);
        if (state === 'done' || state === 'live' || state === 'failed') continue;
        const labFree = !this.lab.running && !this.lab.starting;
        const companionFree = !this.companionProgress || TERMINAL.has(this.companionProgress.status);
        const run = session.runs[arm];
        // one arm at a time on the Lab's worker; a second one beside it on the second worker (4+ cores)
        const onLab = labFree;
        if (!onLab && !(this.parallel && companionFree)) break;
        if (run && (await this.hasCheckpoint(run.id))) {
          if (onLab) await this.lab.start(run.id);
          else await this.startOnCompanion({ config: configFromRecord(run.config).config, resumeRunId: run.id });
        } else if (run) {
          // it died before its first checkpoint: nothing to resume, so the arm starts again (same config, same seed)
          const config = configFromRecord(run.config).config;
          const tag: LessonTag = {
            id: session.lesson.id,
            session: session.id,
            arm,
            prediction: session.prediction,
            arms: session.arms,
          };
          const fresh = onLab
            ? await this.startOnLab(config, tag)
            : await this.startOnCompanion({ config, startingPoint: { kind: 'shipped', scale: config.scale } }, tag);
          if (fresh) await this.lab.deleteRun(run.id);
        } else {
          const before = Object.values(session.runs)[0];
          const seed = before ? configFromRecord(before.config).config.seed : 100 + Math.floor(Math.random() * 99_000);
          const size = before ? sizeOf(configFromRecord(before.config).config) : {};
          const tag: LessonTag = {
            id: session.lesson.id,
            session: session.id,
            arm,
            prediction: session.prediction,
            arms: session.arms,
          };
          const config =
            i === 0 ? armConfig(session.lesson.arms[0], seed, size) : this.nextConfig(session.lesson, i, seed, size);
          if (onLab) await this.startOnLab(config, tag);
          else await this.startOnCompanion({ config, startingPoint: { kind: 'shipped', scale: config.scale } }, tag);
        }
        if (!this.parallel) break; // the rest follows when this one finishes
      }
    } catch (e) {
      this.error = messageOf(e);
    } finally {
      const { [session.id]: _done, ...rest } = this.continuing;
      this.continuing = rest;
    }
  }

  /** pauses, resumes or stops the sitting's live arms (and nothing else the page may be training) */
  pause(session: Session): void {
    this.onWorkers(session, (api) => void api.pause());
  }

  resume(session: Session): void {
    this.onWorkers(session, (api) => void api.resume());
  }

  stop(session: Session): void {
    this.onWorkers(session, (api) => void api.stop());
  }

  private onWorkers(
    session: Session,
    act: (api: { pause(): unknown; resume(): unknown; stop(): unknown }) => void,
  ): void {
    const ids = Object.values(session.runs).map((r) => r.id);
    if (this.lab.progress && ids.includes(this.lab.progress.runId))
      act({ pause: this.lab.pause, resume: this.lab.resume, stop: this.lab.stop });
    if (this.companion && this.companionProgress && ids.includes(this.companionProgress.runId)) act(this.companion.api);
  }

  /** reads a run's points from the store (the page polls the runs it shows) */
  async loadPoints(runId: string): Promise<void> {
    const points = await this.lab.runPoints(runId);
    const known = this.points[runId];
    if (known && known.length === points.length && known.at(-1)?.step === points.at(-1)?.step) return;
    this.points = { ...this.points, [runId]: points };
  }

  /** the config of the session's i-th arm: the lesson's, the first arm's size, and the seed (a new one where only the
   * seed differs) */
  private nextConfig(lesson: Lesson, i: number, seed: number, size: Partial<LabConfig>): LabConfig {
    return armConfig(lesson.arms[i], lesson.seedsOnly ? seed + i : seed, size);
  }

  private async startOnLab(config: LabConfig, tag: LessonTag): Promise<string | null> {
    const runId = await this.lab.start(undefined, config);
    if (!runId) {
      this.error = this.lab.actionError ?? 'The run did not start.';
      return null;
    }
    await this.tag(runId, tag);
    return runId;
  }

  private async startOnCompanion(request: StartRequest, tag?: LessonTag): Promise<string | null> {
    try {
      if (!this.companion) {
        const worker = createTrainingWorker((message) => {
          if (this.companion !== worker) return;
          this.companion = null;
          this.companionProgress = this.companionProgress ? { ...this.companionProgress, status: 'interrupted' } : null;
          this.error = `The second arm's worker crashed (${message}); resume the lesson to continue it from its checkpoint.`;
        });
        this.companion = worker;
        await worker.api.init({ forceBackend: this.lab.recovery.forceBackend });
      }
      const worker = this.companion;
      const runId = await worker.api.start(
        request,
        worker.listen((events) => this.onCompanionEvents(events)),
      );
      this.companionProgress = {
        runId,
        status: 'running',
        step: 0,
        totalSteps: request.config.steps,
        etaMs: null,
        meanStepMs: null,
      };
      if (tag) await this.tag(runId, tag);
      else await this.lab.refreshRuns();
      return runId;
    } catch (e) {
      this.error = `The second arm did not start: ${messageOf(e)}`;
      return null;
    }
  }

  private onCompanionEvents(events: WorkerEvent[]): void {
    for (const event of events) {
      if (event.type === 'points') {
        const known = this.points[event.runId] ?? [];
        const last = known.at(-1)?.step ?? -1;
        this.points = { ...this.points, [event.runId]: known.concat(event.points.filter((p) => p.step > last)) };
        continue;
      }
      const before = this.companionProgress;
      this.companionProgress = event.progress;
      if (before?.status !== event.progress.status) {
        void this.lab.refreshRuns();
        if (TERMINAL.has(event.progress.status)) {
          // the run is stored; the worker's memory goes back to the page
          this.companion?.terminate();
          this.companion = null;
          void this.loadPoints(event.progress.runId);
        }
      }
    }
  }

  /** After a reload the page resumed what it could: a sitting one of whose arms it resumed (or tried to: the arm had
   *  no checkpoint yet) goes on — its other arms are resumed or started again beside or after it. */
  private async afterBoot(): Promise<void> {
    try {
      for (const lesson of LESSONS) {
        const session = this.sessions(lesson.id)[0];
        if (!session) continue;
        const ids = Object.values(session.runs).map((r) => r.id);
        const resumed = this.lab.running && ids.includes(this.lab.progress?.runId ?? '');
        const triedTo = ids.some((id) => this.lab.recovery.notice?.includes(id));
        if (resumed || triedTo) await this.continueSession(session);
      }
    } finally {
      this.settling = false;
    }
  }

  /** the Lab's run changed status: a lesson's arm finished, so the sitting's next arm starts */
  private async onLabProgress(progress: RunProgress | null): Promise<void> {
    if (!progress || this.lastLabStatus[progress.runId] === progress.status) return;
    this.lastLabStatus[progress.runId] = progress.status;
    if (this.busy) return; // start() is placing the arms itself
    const tag = this.lab.runs.find((r) => r.id === progress.runId)?.lesson;
    if (!tag || tag.arms.length < 2) return;
    if (progress.status !== 'completed') return;
    // from the arm's end to the next arm's start the sitting is handing over, not stopped
    this.handingOver = { ...this.handingOver, [tag.session]: true };
    try {
      await this.lab.refreshRuns();
      const session = this.sessions(tag.id).find((s) => s.id === tag.session);
      if (!session) return;
      const pending = session.arms.some(
        (a) =>
          this.armState(session, a) === 'missing' ||
          (this.armState(session, a) === 'halted' && session.runs[a]?.status === 'interrupted'),
      );
      if (pending) await this.continueSession(session);
    } finally {
      const { [tag.session]: _done, ...rest } = this.handingOver;
      this.handingOver = rest;
    }
  }

  private async hasCheckpoint(runId: string): Promise<boolean> {
    try {
      this.store ??= await LabStore.open();
      return (await this.store.checkpointSteps(runId)).length > 0;
    } catch {
      return true; // the store will say what is wrong when the resume reads it
    }
  }

  private async tag(runId: string, tag: LessonTag): Promise<void> {
    try {
      this.store ??= await LabStore.open();
      await this.store.updateRun(runId, { lesson: tag });
    } catch (e) {
      this.error = `The run started, but its lesson (and your prediction) could not be stored with it: ${messageOf(e)}`;
    }
    await this.lab.refreshRuns();
  }
}

/** the size settings of a run (those a smoke size may change) */
function sizeOf(config: LabConfig): Partial<LabConfig> {
  return Object.fromEntries(SIZE_KEYS.map((k) => [k, config[k]])) as Partial<LabConfig>;
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

const instances = new WeakMap<LabState, LessonRuns>();

/** one per page (it outlives the Lessons view, as the runs do) */
export function lessonRunsFor(lab: LabState): LessonRuns {
  let runs = instances.get(lab);
  if (!runs) instances.set(lab, (runs = new LessonRuns(lab)));
  return runs;
}
