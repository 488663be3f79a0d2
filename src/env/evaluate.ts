// The evaluator: TravelPlanner's 8 commonsense and 5 hard checks, its cost formula
// and its aggregate metrics, on a lab World. Reimplemented from reading the official evaluation
// (OSU-NLP-Group/TravelPlanner: evaluation/eval.py, commonsense_constraint.py,
// hard_constraint.py, utils/func.py, tools/*/apis.py); no code copied.
//
// Two modes. `{ faithful: true }` (export / interop, the CLI `eval`) reproduces every quirk below
// so verdicts equal the official script's on an exported world. The default lab mode differs only
// where marked "lab:", and only by being STRICTER, so a plan the lab passes also passes officially
// (the teacher's plans stay valid when exported).
//
// QUIRKS of the official evaluation and what this evaluator does
//  Q1  Names match by substring: a plan's "Name, City" matches every row of City whose name
//      CONTAINS Name (pandas `str.contains`); the first row in table order prices it. "" matches
//      every row. Reproduced (both modes). World generators keep names substring-free per city.
//  Q2  is_valid_information_in_current_city: on a one-city day the city is a string, and the
//      official loops over its LETTERS — a meal passes if any letter of "Chicago" occurs in it,
//      transportation must contain every letter, accommodation the last letter (reported upstream
//      as OSU-NLP-Group/TravelPlanner#50). Faithful: reproduced. Lab: the whole city name must
//      occur (the evident intent; strictly stronger; it catches one of the 45 gold plans).
//  Q3  Attractions are `value.split(';')[:-1]`: the piece after the last ';' is never checked
//      ("A, X;B, X" checks only A). Faithful: reproduced. Lab: a non-blank last piece is checked too.
//  Q4  Minimum nights are enforced only when exactly one listing matches the name. Reproduced.
//  Q5  valid_cuisine skips meals in the origin city with a `continue` that jumps to the next DAY,
//      so that day's later meals are ignored too. Reproduced (both modes: differing would let
//      the lab pass plans the official fails).
//  Q6  Cuisine and house-rule tests are substring tests on the stored cells ("Chinese, Cafe",
//      "No parties & No smoking"). Reproduced.
//  Q7  An older official version tested house rule 'parities' (so 'parties' was never checked);
//      the current code tests 'parties'. We follow the current code.
//  Q8  valid_transportation is case-sensitive ('Flight', 'Self-driving'); the commonsense
//      conflict test is case-insensitive with taxi > self-driving > flight precedence; the
//      sandbox/cost code tests 'flight number' first. Reproduced, each where the official uses it.
//  Q9  is_reasonable_visiting_city checks the origin only when day 1 is "from A to B", and never
//      checks a 3-day trip's city against the query's destination (only 5/7-day states).
//      Faithful: reproduced. Lab: the loop must start at the origin and a 3-day trip must visit
//      the destination city.
//  Q10 Flights are found by number + origin + destination, ignoring the date; the cost uses the
//      first flight with that number on any route. Reproduced.
//  Q11 Drives with a duration of a day or more (Google's text contains "day") have no cost and
//      are invalid. Reproduced (durationMinutes ≥ 1440).
//  Q12 is_not_absent: meals may be '-' only on days whose current_city contains 'from '; a day
//      whose current_city contains 'to ' (even inside a word, "Pluto ") needs transportation;
//      the ≥ 50 % information ratio counts every truthy key of a day, 'days' and 'current_city'
//      included, against 6 per day; a JSON null field is not '' or '-' to it. Reproduced; lab
//      mode treats a null field as blank.
//  Q13 Only the first min(query.days, plan.length) days are read; extra days are ignored. A day
//      equal to {} or whose current_city is "You don't need to fill in the information for this
//      or later days." is not a planned day. Reproduced.
//  Q14 The cost skips items it cannot find (they cost 0); it only matters for plans whose hard
//      checks are gated off anyway. Reproduced (Verdicts.cost, planCost).
//  Q15 "Name, City" splits at the LAST comma, city parentheses dropped ("X, Rockford(Illinois)");
//      so "Nagai, Myrtle Beach; Cost: 19" has city "Myrtle Beach; Cost: 19" and fails the
//      sandbox. The from/to regex keeps a destination's trailing spaces. Reproduced exactly
//      (hand-written parsers in planParse.ts mirror the regexes, including Python's `\s`).
//  Q16 Where the official script crashes (a flight without "Flight Number: ", a "from" city it
//      cannot parse, a missing day field, an empty current city with an accommodation, a drive
//      with no cost inside the cost sum), this evaluator fails the check being run with a reason
//      (cost: null) and goes on: there is no official verdict to match there.
//  Q17 Delivery: a plan is delivered when it is a non-empty list. An undelivered plan's
//      commonsense checks are None officially and count as failures in every rate; here each
//      check is `pass: false` ("No plan was delivered") and `hard` is null.
//  Q18 Metrics (eval.py): micro rates count True results only (None is neither pass nor total);
//      commonsense micro = trues / (8 × plans); hard micro = trues / Σ constraints posed
//      (budget + the local constraints counted by level: none for easy, no transportation for
//      medium); macro and final pass count None as a pass, need the hard checks to have run,
//      and divide by all plans, undelivered included.
//  Q19 The official output spells the route key 'is_reasonalbe_visiting_city'; the lab uses
//      the correct spelling (COMMONSENSE_KEYS); interop writers map it.
//  Q20 No check compares people_number with an accommodation's maximum occupancy: a group that
//      does not fit books ⌈people / occupancy⌉ units (cost only). Reproduced.
import {
  checkAccommodation,
  checkAttractions,
  checkCurrentCity,
  checkNotAbsent,
  checkReasonableVisitingCity,
  checkRestaurants,
  checkSandbox,
  checkTransportation,
} from './commonsense.ts';
import { makeContext } from './evalContext.ts';
import {
  checkCost,
  checkCuisine,
  checkRoomRule,
  checkRoomType,
  checkTransportMode,
  costBreakdown,
  hardConstraintCount,
} from './hard.ts';
import { COMMONSENSE_KEYS, HARD_KEYS } from './types.ts';
import type { CheckResult, CommonsenseKey, EvalMetrics, HardKey, Plan, Query, Verdicts, World } from './types.ts';

export interface EvaluateOptions {
  /** reproduce every quirk of the official evaluation (export / interop); default false (lab mode) */
  faithful?: boolean;
}

const NOT_DELIVERED: CheckResult = { pass: false, reason: 'No plan was delivered' };

function isDelivered(plan: unknown): plan is readonly unknown[] {
  return Array.isArray(plan) && plan.length > 0;
}

/** A malformed query is the caller's bug (plans may be anything): say which field is wrong. */
function checkQuery(query: Query): void {
  const q = query as Partial<Query> | null;
  const problem =
    typeof q !== 'object' || q === null ? 'is not an object'
    : typeof q.org !== 'string' ? 'has no org'
    : typeof q.dest !== 'string' ? 'has no dest'
    : !Number.isInteger(q.days) || (q.days as number) < 1 ? 'has no positive integer days'
    : typeof q.people_number !== 'number' ? 'has no people_number'
    : typeof q.budget !== 'number' ? 'has no budget'
    : typeof q.local_constraint !== 'object' || q.local_constraint === null ? 'has no local_constraint'
    : null;
  if (problem !== null) throw new Error(`evaluatePlan: the query ${problem}: ${JSON.stringify(query)?.slice(0, 200)}`);
}

/**
 * Scores one plan for one query against a World. Never throws on a malformed plan: every
 * problem becomes a failed check with a reason. `plan` null or [] = not delivered. Throws a
 * clear Error for a malformed query (a caller bug).
 */
export function evaluatePlan(world: World, query: Query, plan: Plan | null, options: EvaluateOptions = {}): Verdicts {
  checkQuery(query);
  const hardCount = hardConstraintCount(query);
  if (!isDelivered(plan)) {
    const commonsense = {} as Record<CommonsenseKey, CheckResult>;
    for (const k of COMMONSENSE_KEYS) commonsense[k] = NOT_DELIVERED;
    return { delivered: false, commonsense, hard: null, finalPass: false, cost: null, hardConstraintCount: hardCount };
  }
  const ctx = makeContext(world, query, plan, options.faithful === true);
  const commonsense: Record<CommonsenseKey, CheckResult> = {
    is_reasonable_visiting_city: checkReasonableVisitingCity(ctx),
    is_valid_restaurants: checkRestaurants(ctx),
    is_valid_attractions: checkAttractions(ctx),
    is_valid_accommodation: checkAccommodation(ctx),
    is_valid_transportation: checkTransportation(ctx),
    is_valid_information_in_current_city: checkCurrentCity(ctx),
    is_valid_information_in_sandbox: checkSandbox(ctx),
    is_not_absent: checkNotAbsent(ctx),
  };
  const cost = costBreakdown(ctx);
  // eval.py runs the hard checks only for complete plans whose items all exist
  let hard: Record<HardKey, CheckResult> | null = null;
  if (commonsense.is_not_absent.pass && commonsense.is_valid_information_in_sandbox.pass) {
    hard = {
      valid_cost: checkCost(ctx, cost),
      valid_room_rule: checkRoomRule(ctx),
      valid_cuisine: checkCuisine(ctx),
      valid_room_type: checkRoomType(ctx),
      valid_transportation: checkTransportMode(ctx),
    };
  }
  return {
    delivered: true,
    commonsense,
    hard,
    finalPass: hard !== null && allPass(commonsense, COMMONSENSE_KEYS) && allPass(hard, HARD_KEYS),
    cost: cost === null ? null : cost.total,
    hardConstraintCount: hardCount,
  };
}

function allPass<K extends string>(results: Record<K, CheckResult>, keys: readonly K[]): boolean {
  for (const k of keys) if (results[k].pass === false) return false;
  return true;
}

/**
 * The plan's total cost by TravelPlanner's formula (see `costBreakdown` in hard.ts); null for an
 * undelivered plan or where the official code cannot price it. The teacher sets budgets with it.
 */
export function planCost(world: World, query: Query, plan: Plan | null): number | null {
  checkQuery(query);
  if (!isDelivered(plan)) return null;
  const cost = costBreakdown(makeContext(world, query, plan, true));
  return cost === null ? null : cost.total;
}

/**
 * TravelPlanner's metrics over a set of verdicts (one per query), as eval.py computes them (Q18).
 * `hardConstraintCount` comes from evaluatePlan; for hand-made verdicts without it, the count of
 * non-null hard results is used (1, the budget, when the hard checks did not run).
 */
export function aggregateMetrics(results: readonly Verdicts[]): EvalMetrics {
  const n = results.length;
  let delivered = 0;
  let commonsenseTrue = 0;
  let commonsenseAll = 0;
  let hardTrue = 0;
  let hardTotal = 0;
  let hardAll = 0;
  let final = 0;
  for (const v of results) {
    hardTotal +=
      v.hardConstraintCount ?? (v.hard === null ? 1 : HARD_KEYS.filter((k) => v.hard?.[k].pass !== null).length);
    if (!v.delivered) continue;
    delivered++;
    for (const k of COMMONSENSE_KEYS) if (v.commonsense[k].pass === true) commonsenseTrue++;
    if (v.hard === null) continue; // eval.py: macro counts only plans whose hard checks ran
    for (const k of HARD_KEYS) if (v.hard[k].pass === true) hardTrue++;
    const cs = allPass(v.commonsense, COMMONSENSE_KEYS);
    const hd = allPass(v.hard, HARD_KEYS);
    if (cs) commonsenseAll++;
    if (hd) hardAll++;
    if (cs && hd) final++;
  }
  const rate = (x: number, d: number) => (d > 0 ? x / d : 0);
  return {
    count: n,
    deliveryRate: rate(delivered, n),
    commonsenseMicro: rate(commonsenseTrue, COMMONSENSE_KEYS.length * n),
    commonsenseMacro: rate(commonsenseAll, n),
    hardMicro: rate(hardTrue, hardTotal),
    hardMacro: rate(hardAll, n),
    finalPass: rate(final, n),
  };
}
