// Playing the agent by hand (the Sandbox view): calling a tool with arguments picked from the
// world, seeing its observation both as TravelPlanner's text and as the tokens the policy reads,
// writing a plan and scoring it with the same evaluator and rewards training uses. Pure: the view
// only renders what these return.
import type { Observation, Plan, PlanDay, Query, ToolName, ToolStep, Verdicts, World } from '../env/types.ts';
import { COMMONSENSE_KEYS, HARD_KEYS } from '../env/types.ts';
import { TOOL_ARGUMENTS, callTool, parseToolCall } from '../env/tools.ts';
import { renderObservation } from '../env/render.ts';
import { worldDates } from '../env/world.ts';
import { evaluatePlan } from '../env/evaluate.ts';
import {
  curriculumReward,
  curriculumStage,
  macroReward,
  successReward,
  sumReward,
  type CurriculumStage,
  type RewardKind,
} from '../env/rewards.ts';
import { parseGoldPlan } from '../env/realQueries.ts';
import { teachTrajectory } from '../env/teacher.ts';
import { Rng } from '../env/random.ts';
import { PLAN_FIELDS } from '../env/evalContext.ts';
import { observationTokens } from '../agent/encode.ts';

// ---- the tool console ----------------------------------------------------------------------

export interface ArgumentField {
  name: string;
  /** the valid values (cities, states, dates, modes) */
  choices: readonly string[];
}

const sorted = (xs: Iterable<string>) => [...xs].sort((a, b) => a.localeCompare(b));

/** A tool's arguments with the values this world accepts for each. */
export function argumentFields(world: World, tool: ToolName): ArgumentField[] {
  const cities = sorted(world.stateOf.keys());
  const choices: Record<string, readonly string[]> = {
    departure: cities, destination: cities, city: cities,
    state: sorted(world.citiesByState.keys()), date: worldDates(world), mode: ['self-driving', 'taxi'],
  };
  return TOOL_ARGUMENTS[tool].map((name) => ({ name, choices: choices[name] ?? [] }));
}

/** A first guess at the arguments from the query (its origin, its destination, its first date). */
export function defaultArguments(world: World, tool: ToolName, query: Query | null): Record<string, string> {
  const fields = argumentFields(world, tool);
  const destCity =
    query && world.stateOf.has(query.dest) ? query.dest : world.citiesByState.get(query?.dest ?? '')?.[0];
  const guess: Record<string, string | undefined> = {
    departure: query?.org,
    destination: destCity,
    city: destCity,
    state:
      query && world.citiesByState.has(query.dest) ? query.dest : query ? world.stateOf.get(query.dest) : undefined,
    date: query?.date[0],
    mode: 'self-driving',
  };
  const out: Record<string, string> = {};
  for (const f of fields) {
    const g = guess[f.name];
    out[f.name] = g !== undefined && f.choices.includes(g) ? g : (f.choices[0] ?? '');
  }
  return out;
}

export interface HandCall {
  /** e.g. `SearchFlight(Boston, Chicago, 2022-03-04)` */
  call: string;
  /** the observation as TravelPlanner's text */
  text: string;
  /** the observation as the policy reads it: its tokens (rows as local references #1…#k) */
  tokens: string;
  error: boolean;
  /** the call and its observation (null when the call did not parse) */
  step: ToolStep | null;
}

/** Calls a tool as the rollout loop does (callTool, the same failure injection); never throws. */
export function runHandCall(
  world: World,
  tool: string,
  args: Record<string, string>,
  options: { failureRate?: number; rng?: Rng } = {},
): HandCall {
  const call = `${tool}(${Object.values(args).join(', ')})`;
  const parsed = parseToolCall(tool, args);
  if ('error' in parsed) {
    const observation: Observation = { kind: 'error', message: parsed.error, failure: false };
    return { call, text: parsed.error, tokens: observationTokens(observation).join(' '), error: true, step: null };
  }
  const observation = callTool(world, parsed, options);
  return {
    call,
    text: renderObservation(observation),
    tokens: observationTokens(observation).join(' '),
    error: observation.kind === 'error',
    step: { call: parsed, observation },
  };
}

// ---- the plan ------------------------------------------------------------------------------

/** An empty plan of the query's length: every field "-" but the city, which the user writes. */
export function blankPlan(query: Query): Plan {
  return Array.from({ length: query.days }, (_, i) => {
    const day = { days: i + 1 } as PlanDay;
    for (const f of PLAN_FIELDS) day[f] = f === 'current_city' ? '' : '-';
    return day;
  });
}

/** The plan as TravelPlanner's JSON (what its evaluation reads). */
export function planToText(plan: Plan): string {
  return JSON.stringify(plan, null, 2);
}

export type PlanParse = { ok: true; plan: Plan } | { ok: false; error: string };

/** Reads a plan written as JSON or as a Python literal (TravelPlanner's gold plans); says what is wrong. */
export function parsePlanText(text: string): PlanParse {
  if (!text.trim())
    return {
      ok: false,
      error: 'The plan is empty: write one day object per day, e.g. [{"days": 1, "current_city": "from A to B", …}].',
    };
  try {
    const plan = parseGoldPlan(text);
    if (!plan.length) return { ok: false, error: 'The plan has no days.' };
    return { ok: true, plan };
  } catch (e) {
    return { ok: false, error: `The plan cannot be read: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** A plan the teacher writes for the query (its calls too), or null when it finds none in a few tries. */
export function teacherPlan(world: World, query: Query, seed: number): { plan: Plan; steps: ToolStep[] } | null {
  for (let attempt = 0; attempt < 8; attempt++) {
    const t = teachTrajectory(world, query, { rng: new Rng(seed).fork(attempt) });
    if (t?.plan) return { plan: t.plan, steps: t.steps };
  }
  return null;
}

// ---- scoring -------------------------------------------------------------------------------

export interface CheckRow {
  kind: 'commonsense' | 'hard';
  key: string;
  /** 'pass' | 'fail' | 'n/a' (not applicable counts as a pass) | 'not checked' (hard checks gated off) */
  verdict: 'pass' | 'fail' | 'n/a' | 'not checked';
  reason: string;
}

export interface RewardRow {
  kind: RewardKind;
  value: number;
  /** the curriculum's current rung */
  stage?: CurriculumStage;
}

export interface PlanScore {
  verdicts: Verdicts;
  checks: CheckRow[];
  rewards: RewardRow[];
}

/** Scores a plan with evaluatePlan and the four rewards; `progress` places the curriculum in training. */
export function scorePlan(
  world: World,
  query: Query,
  plan: Plan | null,
  progress: number,
  switchPoints: readonly [number, number],
): PlanScore {
  const verdicts = evaluatePlan(world, query, plan);
  const checks: CheckRow[] = COMMONSENSE_KEYS.map((key) => {
    const r = verdicts.commonsense[key];
    return { kind: 'commonsense', key, verdict: r.pass === null ? 'n/a' : r.pass ? 'pass' : 'fail', reason: r.reason };
  });
  for (const key of HARD_KEYS) {
    const r = verdicts.hard?.[key];
    checks.push(
      r
        ? { kind: 'hard', key, verdict: r.pass === null ? 'n/a' : r.pass ? 'pass' : 'fail', reason: r.reason }
        : {
            kind: 'hard',
            key,
            verdict: 'not checked',
            reason: verdicts.delivered
              ? 'Hard constraints are checked only when the plan is complete and everything in it exists in the sandbox.'
              : 'No plan was delivered.',
          },
    );
  }
  const stage = curriculumStage(progress, switchPoints);
  const rewards: RewardRow[] = [
    { kind: 'sum', value: sumReward(verdicts) },
    { kind: 'macro', value: macroReward(verdicts) },
    { kind: 'success', value: successReward(verdicts) },
    { kind: 'curriculum', value: curriculumReward(verdicts, progress, switchPoints), stage },
  ];
  return { verdicts, checks, rewards };
}
