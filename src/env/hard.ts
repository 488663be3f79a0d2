// TravelPlanner's 5 hard checks and its cost formula (evaluation/hard_constraint.py), with the
// official semantics (see QUIRKS in evaluate.ts) and reasons a person can read. A check whose
// constraint the query does not set answers null (the official None), which counts as a pass.
import { dayLabel, MEAL_SLOTS, quote } from './evalContext.ts';
import type { DayView, EvalContext } from './evalContext.ts';
import { isFilled, routeOf } from './planParse.ts';
import type { Accommodation } from './types.ts';
import type { CheckResult, HouseRule, Query } from './types.ts';

const pass = (reason: string): CheckResult => ({ pass: true, reason });
const fail = (reason: string): CheckResult => ({ pass: false, reason });
const notSet = (what: string): CheckResult => ({ pass: null, reason: `The query sets no ${what}` });

export interface CostBreakdown {
  total: number;
  transport: number;
  meals: number;
  stays: number;
}

/** "$1,234" (cents only when there are any). Hand-rolled: Intl formatting is ~50× slower. */
export function money(x: number): string {
  const cents = Math.round(Math.abs(x) * 100);
  let whole = String(Math.floor(cents / 100));
  for (let i = whole.length - 3; i > 0; i -= 3) whole = `${whole.slice(0, i)},${whole.slice(i)}`;
  const frac = cents % 100;
  return `${x < 0 ? '-' : ''}$${whole}${frac === 0 ? '' : `.${String(frac).padStart(2, '0').replace(/0$/, '')}`}`;
}

/**
 * `get_total_cost`: per day, in this order, transport (flight price × people; self-driving cost ×
 * ⌈people/5⌉ cars; taxi cost × ⌈people/4⌉ cars), breakfast, lunch, dinner (average cost × people)
 * and accommodation (price × ⌈people / maximum occupancy⌉ rooms), summed in the official order so
 * floating-point totals agree. Items not found in the database cost nothing (Q14). Null where the
 * official code crashes: a drive with no cost, a flight without "Flight Number: ", zero occupancy.
 */
export function costBreakdown(ctx: EvalContext): CostBreakdown | null {
  const { index, query } = ctx;
  const people = query.people_number;
  let total = 0;
  let transport = 0;
  let meals = 0;
  let stays = 0;
  for (const d of ctx.days) {
    const t = d.transportation;
    if (isFilled(t)) {
      const route = routeOf(t) ?? d.route;
      if (route !== null) {
        const lower = t.toLowerCase();
        if (lower.includes('flight number')) {
          const { number, flights } = index.flightItem(t);
          if (number === null) return null;
          if (flights.length > 0) {
            const c = flights[0].price * people;
            total += c;
            transport += c;
          }
        } else if (lower.includes('self-driving') || lower.includes('taxi')) {
          const mode = lower.includes('self-driving') ? 'self-driving' : 'taxi';
          const perCar = index.driveCost(route[0], route[1], mode);
          if (perCar === null) return null;
          const c = perCar * Math.ceil(people / (mode === 'self-driving' ? 5 : 4));
          total += c;
          transport += c;
        }
      }
    }
    for (const slot of MEAL_SLOTS) {
      const v = d[slot];
      if (!isFilled(v)) continue;
      const r = index.restaurants.matchItem(v).first;
      if (r !== undefined) {
        const c = r.averageCost * people;
        total += c;
        meals += c;
      }
    }
    if (isFilled(d.accommodation)) {
      const a = index.accommodations.matchItem(d.accommodation).first;
      if (a !== undefined) {
        if (!(a.maximumOccupancy > 0)) return null;
        const c = a.price * Math.ceil(people / a.maximumOccupancy);
        total += c;
        stays += c;
      }
    }
  }
  return { total, transport, meals, stays };
}

/** valid_cost: total cost ≤ budget. */
export function checkCost(ctx: EvalContext, cost: CostBreakdown | null): CheckResult {
  const budget = ctx.query.budget;
  if (cost === null) return fail('The total cost cannot be computed: a drive, flight or stay of the plan has no price');
  const parts = `transport ${money(cost.transport)}, meals ${money(cost.meals)}, stays ${money(cost.stays)}`;
  if (cost.total <= budget)
    return pass(`Total cost ${money(cost.total)} (${parts}) is within the budget of ${money(budget)}`);
  return fail(
    `Total cost ${money(cost.total)} (${parts}) exceeds the budget of ${money(budget)} by ${money(cost.total - budget)}`,
  );
}

/** The house rule a listing must NOT have for the query's need (Q7: 'parties', as in the current official code). */
const FORBIDDING_RULE: Record<HouseRule, string> = {
  smoking: 'No smoking',
  parties: 'No parties',
  'children under 10': 'No children under 10',
  visitors: 'No visitors',
  pets: 'No pets',
};

/** A filled accommodation day's first matching listing (the official `.values[0]`), if any. */
function stayOf(ctx: EvalContext, d: DayView): Accommodation | undefined {
  return isFilled(d.accommodation) ? ctx.index.accommodations.matchItem(d.accommodation).first : undefined;
}

/** valid_room_rule: no stay forbids what the query needs (smoking, parties, children under 10, visitors, pets). */
export function checkRoomRule(ctx: EvalContext): CheckResult {
  const rule = ctx.query.local_constraint['house rule'];
  if (rule === null || rule === undefined) return notSet('house rule');
  const forbidding = FORBIDDING_RULE[rule] as string | undefined;
  if (forbidding !== undefined) {
    for (const d of ctx.days) {
      const stay = stayOf(ctx, d);
      if (stay !== undefined && ctx.index.houseRuleText(stay).includes(forbidding))
        return fail(`${dayLabel(d)} stay '${stay.name}' says '${forbidding}', but the query needs ${rule} allowed`);
    }
  }
  return pass(`Every stay allows ${rule}`);
}

/** valid_room_type: every stay is of the requested type. */
export function checkRoomType(ctx: EvalContext): CheckResult {
  const wanted = ctx.query.local_constraint['room type'];
  if (wanted === null || wanted === undefined) return notSet('room type');
  for (const d of ctx.days) {
    const stay = stayOf(ctx, d);
    if (stay === undefined) continue;
    const type = stay.roomType;
    const bad =
      (wanted === 'not shared room' && type === 'Shared room') ||
      (wanted === 'shared room' && type !== 'Shared room') ||
      (wanted === 'private room' && type !== 'Private room') ||
      (wanted === 'entire room' && type !== 'Entire home/apt');
    if (bad)
      return fail(
        `${dayLabel(d)} stay '${stay.name}' is ${/^[aeiou]/i.test(type) ? 'an' : 'a'} ${type.toLowerCase()}, but the query asks for ${wanted}`,
      );
  }
  return pass(`Every stay is a ${wanted}`);
}

/**
 * valid_cuisine: every requested cuisine is served at some meal outside the origin city. The
 * official loop `continue`s to the next DAY when a meal is in the origin (Q5), skipping that
 * day's later meals; reproduced in both modes so a lab pass stays an official pass.
 */
export function checkCuisine(ctx: EvalContext): CheckResult {
  const wanted = ctx.query.local_constraint.cuisine;
  if (!wanted || wanted.length === 0) return notSet('cuisine');
  const found = new Map<string, string>();
  days: for (const d of ctx.days) {
    for (const slot of MEAL_SLOTS) {
      const v = d[slot];
      if (!isFilled(v)) continue;
      const m = ctx.index.restaurants.matchItem(v);
      if ((m.item === null ? '-' : m.item.city) === ctx.query.org) continue days;
      const r = m.first;
      if (r === undefined) continue;
      const text = ctx.index.cuisineText(r);
      for (const c of wanted)
        if (!found.has(c) && text.includes(c)) found.set(c, `day ${d.index + 1} ${slot} '${r.name}'`);
    }
  }
  const missing = wanted.find((c) => !found.has(c));
  if (missing !== undefined) return fail(`No meal outside ${ctx.query.org} serves ${missing} cuisine`);
  return pass(`Every requested cuisine is served: ${wanted.map((c) => `${c} at ${found.get(c)}`).join('; ')}`);
}

/** valid_transportation: no flight / no self-driving, by the official case-sensitive substring test. */
export function checkTransportMode(ctx: EvalContext): CheckResult {
  const rule = ctx.query.local_constraint.transportation;
  if (rule === null || rule === undefined) return notSet('transportation constraint');
  const banned = rule === 'no flight' ? 'Flight' : rule === 'no self-driving' ? 'Self-driving' : null;
  if (banned !== null) {
    for (const d of ctx.days) {
      const t = d.transportation;
      if (isFilled(t) && t.includes(banned))
        return fail(`${dayLabel(d)} transportation ${quote(t)} breaks the query's "${rule}"`);
    }
  }
  return pass(`No day breaks "${rule}"`);
}

/**
 * How many hard constraints a query poses, as eval.py counts its hard-micro denominator: the
 * budget always, plus each set local constraint, but only house rule / cuisine / room type for
 * `medium` queries and none for `easy` ones (the benchmark's level definitions).
 */
export function hardConstraintCount(query: Query): number {
  const lc = query.local_constraint;
  const set = (v: unknown) => v !== null && v !== undefined;
  if (query.level === 'easy') return 1;
  let n = 1 + Number(set(lc['house rule'])) + Number(set(lc.cuisine)) + Number(set(lc['room type']));
  if (query.level === 'hard') n += Number(set(lc.transportation));
  return n;
}
