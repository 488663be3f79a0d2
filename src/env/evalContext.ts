// What every check of the evaluator reads: the query, the World, and the plan's days, read once.
//
// Plans arrive from JSON (other models' submissions, the agent's decoder), so a day may lack a
// field or hold a non-string; the official code would crash there, the lab must not. A missing
// field reads as '' and is remembered, so `is_not_absent` can still fail it by name.
import { routeOf } from './planParse.ts';
import { sandboxIndex } from './sandboxIndex.ts';
import type { SandboxIndex } from './sandboxIndex.ts';
import type { Query, World } from './types.ts';

export const PLAN_FIELDS = [
  'current_city',
  'transportation',
  'breakfast',
  'attraction',
  'lunch',
  'dinner',
  'accommodation',
] as const;
export type PlanField = (typeof PLAN_FIELDS)[number];
export const MEAL_SLOTS = ['breakfast', 'lunch', 'dinner'] as const;

/** The official "day is not needed" filler: such a day does not count as a planned day. */
export const UNUSED_DAY_TEXT = "You don't need to fill in the information for this or later days.";

export interface DayView extends Record<PlanField, string> {
  /** 0-based position in the plan */
  index: number;
  /** the day as given (an object), or null when it was not an object */
  raw: Record<string, unknown> | null;
  /** fields the day does not have */
  missing: PlanField[];
  /** current_city contains "from" (the official test, case-sensitive) */
  hasFrom: boolean;
  /** [A, B] of "from A to B" with parentheses removed; null when no "from" or unparsable */
  route: readonly [string, string] | null;
}

export interface EvalContext {
  world: World;
  /** the World's cached lookups */
  index: SandboxIndex;
  query: Query;
  /** reproduce every quirk of the official evaluation (export / interop mode) */
  faithful: boolean;
  /** the first min(query.days, plan.length) days: the official code never looks further */
  days: DayView[];
}

function fieldText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  return String(v);
}

export function readDay(value: unknown, index: number): DayView {
  const raw =
    typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  const missing: PlanField[] = [];
  const current_city = fieldOf(raw, 'current_city', missing);
  const hasFrom = current_city.includes('from');
  return {
    index,
    raw,
    current_city,
    transportation: fieldOf(raw, 'transportation', missing),
    breakfast: fieldOf(raw, 'breakfast', missing),
    attraction: fieldOf(raw, 'attraction', missing),
    lunch: fieldOf(raw, 'lunch', missing),
    dinner: fieldOf(raw, 'dinner', missing),
    accommodation: fieldOf(raw, 'accommodation', missing),
    missing,
    hasFrom,
    route: hasFrom ? routeOf(current_city) : null,
  };
}

function fieldOf(raw: Record<string, unknown> | null, f: PlanField, missing: PlanField[]): string {
  if (raw === null || !(f in raw)) {
    missing.push(f);
    return '';
  }
  return fieldText(raw[f]);
}

export function makeContext(world: World, query: Query, plan: readonly unknown[], faithful: boolean): EvalContext {
  const n = Math.min(query.days, plan.length);
  const days: DayView[] = new Array(n);
  for (let i = 0; i < n; i++) days[i] = readDay(plan[i], i);
  return { world, index: sandboxIndex(world), query, faithful, days };
}

/** A plan value shown in a reason: quoted, cut short if long. */
export function quote(value: string): string {
  return `'${value.length > 90 ? value.slice(0, 87) + '...' : value}'`;
}

export function dayLabel(day: DayView): string {
  return `Day ${day.index + 1}`;
}
