// A class sitting on this machine: the laptop at the projector trains k fresh seeds an arm
// of a lesson for a class — runsAtOnce(cores) at a time, each on a training worker of its own (the worker the
// lesson's second arm uses), one after another on a machine below 4 cores — and the class view adds each
// finished run as if its result link had been pasted. What to run and what each planned run has become is
// src/lessons/classSitting.ts; the runs are ordinary stored runs (listed in Runs), found again by setting and
// seed, so a run the page resumed by itself after a reload (on the Lab's worker) still counts. Nothing here
// touches tfjs.
import { SvelteSet } from 'svelte/reactivity';
import type { LabConfig } from '../../lab/config.ts';
import { configFromRecord } from '../../lab/urlState.ts';
import {
  nextToRun,
  plannedRuns,
  plannedStates,
  runsAtOnce,
  sittingCounts,
  type PlannedRun,
  type PlannedState,
  type SittingCounts,
  type StoredRunView,
} from '../../lessons/classSitting.ts';
import type { Lesson } from '../../lessons/lessons.ts';
import { LabStore } from '../../store/labStore.ts';
import type { RunProgress, WorkerEvent } from '../../worker/api.ts';
import { createTrainingWorker, type TrainingWorkerHandle } from '../../worker/client.ts';
import type { LabState } from '../labState.svelte.ts';

const TERMINAL = new Set(['completed', 'failed', 'stopped', 'interrupted']);

export interface Sitting {
  classId: string;
  lesson: Lesson;
  seeds: number[];
  size: Partial<LabConfig>;
  plan: PlannedRun[];
}

export class ClassSittingRunner {
  /** the sitting this page runs (or last ran) */
  sitting = $state.raw<Sitting | null>(null);
  /** it is being run: finished runs make room for the next */
  active = $state(false);
  /** each pool worker's run, by run id */
  progress = $state.raw<Record<string, RunProgress>>({});
  error = $state<string | null>(null);
  /** grows when a planned run ends, so the class view collects it */
  ended = $state(0);
  /** the pool: each worker with the run it trains (null while it starts) */
  private workers: { handle: TrainingWorkerHandle; runId: string | null }[] = [];
  private store: LabStore | null = null;
  private pumping = false;
  private again = false;

  constructor(readonly lab: LabState) {}

  get cores(): number {
    return typeof navigator !== 'undefined' ? navigator.hardwareConcurrency || 1 : 1;
  }

  /** runs at once for a plan of `planned` runs on this machine */
  atOnce(planned: number): number {
    return runsAtOnce(this.cores, planned);
  }

  /** the runs training now: the pool's, and the Lab's (a run the page resumed by itself after a reload) */
  get liveRunIds(): Set<string> {
    const ids = Object.values(this.progress).filter((p) => !TERMINAL.has(p.status)).map((p) => p.runId);
    if (this.lab.running && this.lab.progress) ids.push(this.lab.progress.runId);
    return new SvelteSet(ids);
  }

  /** what each planned run of `s` has become, as the page shows it (a stopped run: waiting) */
  states(s: Sitting): PlannedState[] {
    return plannedStates(s.plan, this.lab.runs.map((r) => view(r, true)), this.liveRunIds);
  }

  counts(s: Sitting): SittingCounts {
    return sittingCounts(this.states(s));
  }

  /** Runs (or continues) a sitting of `lesson` for class `classId`: its seeds at `size`. */
  run(classId: string, lesson: Lesson, seeds: number[], size: Partial<LabConfig>): void {
    const sitting = { classId, lesson, seeds, size, plan: plannedRuns(lesson, seeds, size) };
    // the Lab's own run would share the cores (a run of this sitting the page resumed there counts as one of its own)
    if ((this.lab.running || this.lab.starting) && !this.states(sitting).some((x) => x.kind === 'live')) {
      this.error =
        'A run is training in the Lab: the class sitting needs the cores. Wait for it to finish, or stop it in the Lab.';
      return;
    }
    this.sitting = sitting;
    this.error = null;
    this.active = true;
    void this.pump();
  }

  /** stops the sitting's runs (each keeps its checkpoint: Continue resumes it) */
  stop(): void {
    this.active = false;
    for (const w of this.workers) void w.handle.api.stop();
  }

  /** starts (or resumes) planned runs on free workers until the plan is done or the machine is full */
  private async pump(): Promise<void> {
    if (this.pumping) {
      this.again = true; // a run ended while this one was placing others: look again when it is done
      return;
    }
    this.pumping = true;
    try {
      do {
        this.again = false;
        const s = this.sitting;
        if (!s || !this.active) return;
        await this.lab.refreshRuns();
        const states = await this.checkedStates(s);
        const left = states.filter((x) => x.kind !== 'done' && x.kind !== 'failed').length;
        if (!left) {
          this.active = false;
          return;
        }
        const busy =
          this.workers.length +
          (this.lab.running && states.some((x) => x.kind === 'live' && x.runId === this.lab.progress?.runId) ? 1 : 0);
        const picks = nextToRun(states, this.atOnce(s.plan.length) - busy);
        for (const i of picks) await this.startOne(s.plan[i], states[i]);
      } while (this.again);
    } catch (e) {
      this.error = messageOf(e);
      this.active = false;
    } finally {
      this.pumping = false;
    }
  }

  /** the planned states with each unfinished run's checkpoint looked up (resume or start again) */
  private async checkedStates(s: Sitting): Promise<PlannedState[]> {
    this.store ??= await LabStore.open();
    const views: StoredRunView[] = [];
    for (const r of this.lab.runs) {
      const v = view(r, true);
      // only an unfinished run of a planned seed needs its checkpoints read (unreadable: resumed, and the resume says
      // why)
      if (r.status !== 'completed' && r.status !== 'failed' && s.plan.some((p) => p.seed === v.config.seed)) {
        v.hasCheckpoint = (await this.store.checkpointSteps(r.id).catch(() => [0])).length > 0;
      }
      views.push(v);
    }
    return plannedStates(s.plan, views, this.liveRunIds);
  }

  private async startOne(p: PlannedRun, state: PlannedState): Promise<void> {
    const worker = createTrainingWorker((message) => {
      this.release(worker);
      this.error = `A worker of the class sitting crashed (${message}); Continue resumes its run from its checkpoint.`;
      this.active = false;
    });
    const slot = { handle: worker, runId: null as string | null };
    this.workers.push(slot);
    try {
      await worker.api.init({ forceBackend: this.lab.recovery.forceBackend });
      const listener = worker.listen((events) => this.onEvents(worker, events));
      const request = state.kind === 'resume'
        ? { config: p.config, resumeRunId: state.runId }
        : { config: p.config, startingPoint: { kind: 'shipped' as const, scale: p.config.scale } };
      const runId = await worker.api.start(request, listener);
      slot.runId = runId;
      this.progress = {
        ...this.progress,
        [runId]: { runId, status: 'running', step: 0, totalSteps: p.config.steps, etaMs: null, meanStepMs: null },
      };
      // a run cut off before its first checkpoint had nothing to resume: it started again, the dead one goes
      if (state.kind === 'restart') await this.lab.deleteRun(state.runId);
      else await this.lab.refreshRuns();
    } catch (e) {
      this.release(worker);
      throw new Error(`the ${p.arm} run of seed ${p.seed} did not start: ${messageOf(e)}`, { cause: e });
    }
  }

  private onEvents(worker: TrainingWorkerHandle, events: WorkerEvent[]): void {
    for (const event of events) {
      if (event.type !== 'progress') continue;
      const before = this.progress[event.progress.runId];
      this.progress = { ...this.progress, [event.progress.runId]: event.progress };
      if (before?.status !== event.progress.status && TERMINAL.has(event.progress.status)) {
        // the run is stored; the worker's memory goes back to the page, and the next run takes its place
        this.release(worker);
        void this.lab.refreshRuns().then(() => {
          this.ended++;
          void this.pump();
        });
      }
    }
  }

  private release(worker: TrainingWorkerHandle): void {
    if (!this.workers.some((w) => w.handle === worker)) return;
    this.workers = this.workers.filter((w) => w.handle !== worker);
    worker.terminate();
  }
}

/** a stored run as the plan reads it */
function view(r: LabState['runs'][number], hasCheckpoint: boolean): StoredRunView {
  return {
    id: r.id,
    config: configFromRecord(r.config).config,
    status: r.status,
    createdAt: r.createdAt,
    hasCheckpoint,
  };
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

const instances = new WeakMap<LabState, ClassSittingRunner>();

/** one per page (it outlives the class view, as its runs do) */
export function classSittingFor(lab: LabState): ClassSittingRunner {
  let runner = instances.get(lab);
  if (!runner) instances.set(lab, (runner = new ClassSittingRunner(lab)));
  return runner;
}
