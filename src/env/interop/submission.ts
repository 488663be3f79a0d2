// TravelPlanner's JSON records <-> the lab's types: query objects (with `idx`), submission plans
// ({"idx", "query", "plan"}) and verdict lines. Pure (no file system).
import type {
  CommonsenseKey,
  HardKey,
  HouseRule,
  Level,
  LocalConstraint,
  Plan,
  PlanDay,
  Query,
  RoomTypeConstraint,
  TransportationConstraint,
  Verdicts,
} from '../types.ts';
import { COMMONSENSE_KEYS, HARD_KEYS } from '../types.ts';
import { parsePythonLiteral } from '../pythonLiteral.ts';

export class RecordError extends Error {}

/** A query as TravelPlanner's dataset writes it, plus the `idx` that ties plans to it. */
export type TravelPlannerQuery = Query & { idx: number };

export function toTravelPlannerQuery(query: Query, idx: number): TravelPlannerQuery {
  return { idx, ...query };
}

const HOUSE_RULES: readonly HouseRule[] = ['parties', 'smoking', 'children under 10', 'pets', 'visitors'];
const ROOM_TYPES: readonly RoomTypeConstraint[] = ['entire room', 'private room', 'shared room', 'not shared room'];
const TRANSPORT: readonly TransportationConstraint[] = ['no flight', 'no self-driving'];
const LEVELS: readonly Level[] = ['easy', 'medium', 'hard'];

/**
 * A TravelPlanner query object -> Query, validated. Accepts the Hugging Face form too, where
 * `date` and `local_constraint` are Python-literal strings ("['2022-03-16', …]", "{'house rule': None, …}").
 */
export function queryFromTravelPlanner(raw: unknown): TravelPlannerQuery {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new RecordError('a query must be a JSON object');
  const o = raw as Record<string, unknown>;
  const str = (k: string): string => {
    if (typeof o[k] !== 'string' || o[k] === '') throw new RecordError(`query needs a text "${k}"`);
    return o[k] as string;
  };
  const int = (k: string, allowed?: readonly number[]): number => {
    const v = o[k];
    if (typeof v !== 'number' || !Number.isInteger(v) || (allowed && !allowed.includes(v))) {
      throw new RecordError(
        `query "${k}" must be ${allowed ? `one of ${allowed.join(', ')}` : 'an integer'}, got ${JSON.stringify(v)}`,
      );
    }
    return v;
  };
  const literal = (v: unknown): unknown => (typeof v === 'string' ? parsePythonLiteral(v) : v);
  const date = literal(o.date);
  if (!Array.isArray(date) || !date.every((d) => typeof d === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(d))) {
    throw new RecordError('query "date" must be a list of YYYY-MM-DD dates');
  }
  const lc = literal(o.local_constraint);
  if (lc === null || typeof lc !== 'object' || Array.isArray(lc))
    throw new RecordError('query needs a "local_constraint" object');
  const c = lc as Record<string, unknown>;
  const oneOf = <T extends string>(k: string, allowed: readonly T[]): T | null => {
    const v = c[k] ?? null;
    if (v !== null && !allowed.includes(v as T))
      throw new RecordError(`local_constraint "${k}" must be null or one of ${allowed.join(', ')}`);
    return v as T | null;
  };
  const cuisine = c.cuisine ?? null;
  if (cuisine !== null && !(Array.isArray(cuisine) && cuisine.every((x) => typeof x === 'string'))) {
    throw new RecordError('local_constraint "cuisine" must be null or a list of cuisines');
  }
  const local_constraint: LocalConstraint = {
    'house rule': oneOf('house rule', HOUSE_RULES),
    cuisine: cuisine as string[] | null,
    'room type': oneOf('room type', ROOM_TYPES),
    transportation: oneOf('transportation', TRANSPORT),
  };
  const level = str('level') as Level;
  if (!LEVELS.includes(level)) throw new RecordError(`query "level" must be easy, medium or hard`);
  const days = int('days', [3, 5, 7]) as Query['days'];
  if (date.length !== days) throw new RecordError(`query has ${date.length} dates for ${days} days`);
  const budget = o.budget;
  if (typeof budget !== 'number' || !(budget >= 0)) throw new RecordError('query "budget" must be a number');
  return {
    idx: int('idx'),
    org: str('org'),
    dest: str('dest'),
    days,
    visiting_city_number: int('visiting_city_number', [1, 2, 3]) as Query['visiting_city_number'],
    date: date as string[],
    people_number: int('people_number'),
    local_constraint,
    budget,
    query: typeof o.query === 'string' ? o.query : '',
    level,
  };
}

export interface Submission {
  idx: number;
  query: string;
  plan: Plan | null;
}

export function toSubmission(idx: number, query: Query, plan: Plan | null): Submission {
  return { idx, query: query.query, plan };
}

const PLAN_TEXT_FIELDS = [
  'current_city',
  'transportation',
  'breakfast',
  'attraction',
  'lunch',
  'dinner',
  'accommodation',
] as const;

/**
 * A submission's `plan` -> Plan, or null when nothing was delivered (null, missing, or an empty
 * list). Lenient as the official script: `{}` days (padding) are dropped; a missing field becomes
 * "" (the official check reports a missing key as absent information; "" is absent to every
 * check too, except that a travel day's missing attraction is not flagged). A plan that is not a
 * list of objects, or a field that is not text, is an error.
 */
export function planFromSubmission(raw: unknown): Plan | null {
  if (raw === null || raw === undefined) return null;
  if (!Array.isArray(raw)) throw new RecordError('"plan" must be a list of day objects or null');
  const plan: PlanDay[] = [];
  raw.forEach((day, i) => {
    if (day === null || typeof day !== 'object' || Array.isArray(day))
      throw new RecordError(`plan day ${i + 1} is not an object`);
    const d = day as Record<string, unknown>;
    if (Object.keys(d).length === 0) return;
    const out = { days: typeof d.days === 'number' ? d.days : typeof d.day === 'number' ? d.day : i + 1 } as PlanDay;
    for (const f of PLAN_TEXT_FIELDS) {
      const v = d[f];
      if (v !== undefined && v !== null && typeof v !== 'string')
        throw new RecordError(`plan day ${i + 1} "${f}" is not text`);
      out[f] = (v as string | undefined) ?? '';
    }
    plan.push(out);
  });
  return plan.length > 0 ? plan : null;
}

/** One line of verdicts.jsonl / the eval command's output. */
export interface VerdictRecord {
  idx: number;
  commonsense: Record<CommonsenseKey, boolean | null>;
  hard: Record<HardKey, boolean | null> | null;
  final_pass: boolean;
  /** the reason of every check that failed, by TravelPlanner key */
  reasons: Partial<Record<CommonsenseKey | HardKey, string>>;
  cost: number | null;
}

export function toVerdictRecord(idx: number, v: Verdicts): VerdictRecord {
  const reasons: VerdictRecord['reasons'] = {};
  const commonsense = {} as VerdictRecord['commonsense'];
  for (const k of COMMONSENSE_KEYS) {
    commonsense[k] = v.commonsense[k].pass;
    if (v.commonsense[k].pass === false) reasons[k] = v.commonsense[k].reason;
  }
  let hard: VerdictRecord['hard'] = null;
  if (v.hard) {
    const h = v.hard;
    hard = {} as Record<HardKey, boolean | null>;
    for (const k of HARD_KEYS) {
      hard[k] = h[k].pass;
      if (h[k].pass === false) reasons[k] = h[k].reason;
    }
  }
  return { idx, commonsense, hard, final_pass: v.finalPass, reasons, cost: v.cost };
}
