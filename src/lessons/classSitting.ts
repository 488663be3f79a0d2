// A class sitting on one machine: the laptop at the projector runs k fresh seeds an arm of
// a lesson — as many runs at once as its cores allow, else one after another — and each finished run joins
// the class view as if its result link had been pasted. This file decides what to run, how many at once and,
// from the stored runs, what each planned run has become (finished, training, to resume from its checkpoint,
// to start again, not started); src/ui/lessons/classSitting.svelte.ts runs that on training workers. Several
// seeds in one program (one model batching seeds, src/model/seedStack.ts) is another piece of work, not this.
// Pure: no DOM, no tfjs.
import type { LabConfig } from '../lab/config.ts';
import { armConfig, type Lesson } from './lessons.ts';
import { settingKey } from './lessonReference.ts';

/** the most seeds an arm one sitting runs: 30 × 2 runs of 40 steps is already a night on a laptop */
export const MAX_SITTING_SEEDS = 30;

/** logical cores one run takes: its trainer keeps one busy (wasm trains on one thread here), the page, the
 *  store and the browser need the other — the lesson's two arms go side by side from 4 cores the same way */
export const CORES_PER_RUN = 2;

/** the runs a machine with `cores` logical cores trains at once (at least one, at most what is planned) */
export function runsAtOnce(cores: number, planned: number): number {
  const c = Number.isFinite(cores) && cores >= 1 ? Math.floor(cores) : 1;
  return Math.max(1, Math.min(Math.max(1, planned), Math.floor(c / CORES_PER_RUN)));
}

/** the seed arm `arm` runs for a sitting seed: a learner's arms share one; lesson 5's arms (one setting) take seed +
 * arm, as a learner's sitting does */
export function armSeed(lesson: Lesson, seed: number, arm: number): number {
  return lesson.seedsOnly ? seed + arm : seed;
}

/**
 * k fresh sitting seeds (100 or more, never a committed seed) whose runs' seeds are all distinct and none in
 * `taken` (the seeds already in the class): the class would refuse a run whose seed it holds, and two runs of
 * one setting and seed are one run twice. Throws on a k outside 1…MAX_SITTING_SEEDS.
 */
export function drawSittingSeeds(
  lesson: Lesson,
  k: number,
  taken: Iterable<number>,
  random: () => number = Math.random,
): number[] {
  if (!Number.isInteger(k) || k < 1 || k > MAX_SITTING_SEEDS)
    throw new Error(`seeds an arm: a whole number from 1 to ${MAX_SITTING_SEEDS}, not ${k}`);
  const used = new Set(taken);
  const out: number[] = [];
  for (let tries = 0; out.length < k; tries++) {
    if (tries > 100_000) throw new Error('no fresh seeds left to draw');
    const seed = 100 + Math.floor(random() * 99_000);
    const runs = lesson.arms.map((_, i) => armSeed(lesson, seed, i));
    if (runs.some((s) => used.has(s))) continue;
    runs.forEach((s) => used.add(s));
    out.push(seed);
  }
  return out;
}

export interface PlannedRun {
  /** `<arm>:<seed>`: one planned run */
  key: string;
  arm: string;
  armIndex: number;
  /** the run's own seed (armSeed) */
  seed: number;
  config: LabConfig;
  /** settingKey(config): a stored run of this setting and seed is this run */
  setting: string;
}

/** the sitting's runs: every arm of each seed, seed by seed, so the class's test forms from the first seeds on */
export function plannedRuns(lesson: Lesson, seeds: readonly number[], size: Partial<LabConfig> = {}): PlannedRun[] {
  return seeds.flatMap((s) => lesson.arms.map((arm, i) => {
    const seed = armSeed(lesson, s, i);
    const config = armConfig(arm, seed, size);
    return { key: `${arm.key}:${seed}`, arm: arm.key, armIndex: i, seed, config, setting: settingKey(config) };
  }));
}

/** a stored run as the sitting reads it */
export interface StoredRunView {
  id: string;
  config: LabConfig;
  status: string;
  createdAt: number;
  /** it has a checkpoint to resume from (unknown: true; the resume says what is wrong) */
  hasCheckpoint: boolean;
}

export type PlannedState =
  | { kind: 'done'; runId: string }
  /** training on a worker of this page right now */
  | { kind: 'live'; runId: string }
  /** stopped or cut off (a reload) after a checkpoint: resumed from it */
  | { kind: 'resume'; runId: string }
  /** cut off before its first checkpoint: started again (same seed), the dead run deleted */
  | { kind: 'restart'; runId: string }
  | { kind: 'failed'; runId: string }
  | { kind: 'start' };

/**
 * What each planned run has become, from the stored runs (matched by setting and seed: a run of that setting
 * and seed is that run, whoever started it) and the runs training now (`live`). A finished one counts even if a
 * newer copy exists; else the newest.
 */
export function plannedStates(
  plan: readonly PlannedRun[],
  stored: readonly StoredRunView[],
  live: ReadonlySet<string>,
): PlannedState[] {
  return plan.map((p): PlannedState => {
    const mine = stored
      .filter((r) => r.config.seed === p.seed && sameSetting(r.config, p))
      .sort((a, b) => b.createdAt - a.createdAt);
    const done = mine.find((r) => r.status === 'completed');
    if (done) return { kind: 'done', runId: done.id };
    const run = mine[0];
    if (!run) return { kind: 'start' };
    if (live.has(run.id)) return { kind: 'live', runId: run.id };
    if (run.status === 'failed') return { kind: 'failed', runId: run.id };
    return run.hasCheckpoint ? { kind: 'resume', runId: run.id } : { kind: 'restart', runId: run.id };
  });
}

/** a stored run's config is the planned run's setting: an RL run stores the world it trained in, its starting
 *  point's (the shipped checkpoint's), whatever the planned config's worldSize said — so that one is not compared */
function sameSetting(stored: LabConfig, p: PlannedRun): boolean {
  return settingKey({ ...stored, worldSize: p.config.worldSize }) === p.setting;
}

/** the planned runs (their indices) to start or resume now on `free` workers, in plan order */
export function nextToRun(states: readonly PlannedState[], free: number): number[] {
  const out: number[] = [];
  states.forEach((s, i) => {
    if (out.length < free && (s.kind === 'start' || s.kind === 'resume' || s.kind === 'restart')) out.push(i);
  });
  return out;
}

export interface SittingCounts {
  planned: number;
  done: number;
  live: number;
  failed: number;
  /** not started, or waiting to be resumed or started again */
  waiting: number;
}

export function sittingCounts(states: readonly PlannedState[]): SittingCounts {
  const n = (k: PlannedState['kind'][]) => states.filter((s) => k.includes(s.kind)).length;
  return {
    planned: states.length,
    done: n(['done']),
    live: n(['live']),
    failed: n(['failed']),
    waiting: n(['start', 'resume', 'restart']),
  };
}

/** a class's sitting as its ClassStore record keeps it */
export interface KeptSitting {
  seeds: readonly number[];
  smoke: boolean;
  /** the Seeds an arm it last ran with */
  seedsAnArm?: number;
  /** it was running on this machine when last kept: a reload reopens and continues it */
  running?: boolean;
}

export const DEFAULT_SEEDS_AN_ARM = 2;

/** the Seeds an arm a class opens with: its sitting's last k (an older record: the seeds it holds), else the default */
export function keptSeedsAnArm(sitting: KeptSitting | null | undefined): number {
  const k = sitting?.seedsAnArm ?? sitting?.seeds.length;
  return k && Number.isInteger(k) ? Math.min(MAX_SITTING_SEEDS, Math.max(1, k)) : DEFAULT_SEEDS_AN_ARM;
}

/**
 * The kept class a class view opens by itself: the newest whose sitting was running when the page closed
 * (a reload must lose nothing) — unless the address carries a code that class lacks, i.e. another class's link.
 */
export function classToReopen<C extends { codes: readonly string[]; updatedAt: number; sitting?: KeptSitting }>(
  kept: readonly C[],
  addressCodes: readonly string[],
): C | null {
  const running = kept.filter((c) => c.sitting?.running).sort((a, b) => b.updatedAt - a.updatedAt)[0];
  if (!running) return null;
  const have = new Set(running.codes);
  return addressCodes.every((code) => have.has(code)) ? running : null;
}
