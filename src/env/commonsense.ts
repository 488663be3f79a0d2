// TravelPlanner's 8 commonsense checks (evaluation/commonsense_constraint.py), one function each,
// with the official semantics (see QUIRKS in evaluate.ts) and reasons a person can read.
// Each check returns at its first failure, in the official order, as the official code does.
import { dayLabel, MEAL_SLOTS, quote, UNUSED_DAY_TEXT } from './evalContext.ts';
import type { DayView, EvalContext, PlanField } from './evalContext.ts';
import {
  attractionItems,
  extractBeforeParenthesis,
  isFilled,
  parseNameCity,
  pyStrip,
  routeOf,
  sandboxTransportMode,
  transportKind,
} from './planParse.ts';
import type { TransportKind } from './planParse.ts';
import type { ItemMatch } from './sandboxIndex.ts';
import type { CheckResult } from './types.ts';

const pass = (reason: string): CheckResult => ({ pass: true, reason });
const fail = (reason: string): CheckResult => ({ pass: false, reason });

function unreadableRoute(d: DayView): CheckResult {
  return fail(`${dayLabel(d)} current_city ${quote(d.current_city)} cannot be read as 'from A to B'`);
}

/** "A → B → B → A" shown as "A → B → A". */
function routeText(cities: readonly string[]): string {
  return cities.filter((c, i) => i === 0 || c !== cities[i - 1]).join(' → ');
}

/** `is_valid_city_sequence`: why the route is not a sequence of contiguous stays, or null. */
function citySequenceProblem(cities: readonly string[]): string | null {
  const n = cities.length;
  if (n < 3) return `the route ${routeText(cities)} has fewer than 3 stops`;
  const visited = new Set<string>();
  let i = 0;
  while (i < n) {
    const city = cities[i];
    if (visited.has(city) && i !== 0 && i !== n - 1) return `${city} is visited again after the route left it`;
    let count = 0;
    while (i < n && cities[i] === city) {
      count++;
      i++;
    }
    if (count === 1 && i - 1 > 0 && i - 1 < n - 1)
      return `the route breaks at ${city}: it is reached, but the next day does not continue from it`;
    visited.add(city);
  }
  return null;
}

/** is_reasonable_visiting_city: a closed loop from the origin, each city one contiguous stay, in the destination
 * state. */
export function checkReasonableVisitingCity(ctx: EvalContext): CheckResult {
  const { query, world } = ctx;
  const cities: string[] = [];
  for (const d of ctx.days) {
    if (d.hasFrom) {
      if (d.route === null) return unreadableRoute(d);
      const [a, b] = d.route;
      if (d.index === 0 && a !== query.org)
        return fail(`Day 1 starts from ${a}, but the trip starts from ${query.org}`);
      cities.push(a, b);
    } else {
      cities.push(extractBeforeParenthesis(d.current_city));
    }
  }
  const route = routeText(cities);
  // Lab mode (Q9): the loop must start at the origin, also when day 1 is not a travel day
  if (!ctx.faithful && cities[0] !== query.org)
    return fail(`The route ${route} does not start at the origin ${query.org}`);
  if (cities[0] !== cities[cities.length - 1])
    return fail(`The route ${route} does not return to ${cities[0]}: the trip is not a closed loop`);
  const problem = citySequenceProblem(cities);
  if (problem !== null) return fail(`The city sequence is invalid: ${problem}`);
  for (let i = 0; i < cities.length; i++) {
    const city = cities[i];
    const state = world.stateOf.get(city);
    if (state === undefined) return fail(`${quote(city)} on the route ${route} is not a city of the database`);
    const middle = i !== 0 && i !== cities.length - 1;
    if (middle && query.days > 3 && state !== query.dest)
      return fail(`${city} is in ${state}, not in the destination state ${query.dest}`);
    // Lab mode (Q9): a 3-day trip goes to the destination city itself
    if (middle && !ctx.faithful && query.days === 3 && city !== query.dest)
      return fail(`${city} is not the destination ${query.dest}`);
  }
  return pass(`The route ${route} is a closed loop of contiguous stays`);
}

/** is_valid_restaurants: no restaurant string appears twice among all meals. */
export function checkRestaurants(ctx: EvalContext): CheckResult {
  const seen = new Map<string, string>();
  for (const d of ctx.days) {
    for (const slot of MEAL_SLOTS) {
      const v = d[slot];
      if (!isFilled(v)) continue;
      const before = seen.get(v);
      if (before !== undefined) return fail(`${dayLabel(d)} ${slot} ${quote(v)} was already chosen for ${before}`);
      seen.set(v, `day ${d.index + 1} ${slot}`);
    }
  }
  return pass(`No restaurant is chosen twice (${seen.size} meals)`);
}

/** is_valid_attractions: no attraction string appears twice. */
export function checkAttractions(ctx: EvalContext): CheckResult {
  const seen = new Map<string, number>();
  for (const d of ctx.days) {
    if (!isFilled(d.attraction)) continue;
    for (const a of attractionItems(d.attraction, ctx.faithful)) {
      const before = seen.get(a);
      if (before !== undefined)
        return fail(`${dayLabel(d)} attraction ${quote(a)} was already visited on day ${before}`);
      seen.set(a, d.index + 1);
    }
  }
  return pass(`No attraction is visited twice (${seen.size} visits)`);
}

/** is_valid_accommodation: each stay lasts at least the listing's minimum nights. */
export function checkAccommodation(ctx: EvalContext): CheckResult {
  for (const d of ctx.days)
    if (d.missing.includes('accommodation')) return fail(`${dayLabel(d)} has no accommodation field`);
  const days = ctx.days;
  for (let start = 0; start < days.length; ) {
    const v = days[start].accommodation;
    let end = start + 1;
    while (end < days.length && days[end].accommodation === v) end++;
    const nights = end - start;
    if (v !== '-' && v !== '') {
      const m = ctx.index.accommodations.matchItem(v);
      // Q4: the official enforces the rule only when exactly one listing matches the name
      if (m.count === 1 && m.first !== undefined && nights < m.first.minimumNights) {
        const span = nights === 1 ? `day ${start + 1} only` : `days ${start + 1}–${end}`;
        return fail(
          `${quote(v)} is booked for ${nights} night${nights === 1 ? '' : 's'} (${span}), but its minimum stay is ${m.first.minimumNights} nights`,
        );
      }
    }
    start = end;
  }
  return pass('Every stay meets its minimum nights');
}

/** is_valid_transportation: day 1 has transportation, and self-driving is not mixed with flights or taxis. */
export function checkTransportation(ctx: EvalContext): CheckResult {
  const first = ctx.days[0];
  if (first === undefined || !isFilled(first.transportation))
    return fail(`Day 1 has no transportation, but the trip must begin by leaving ${ctx.query.org}`);
  const firstDay = new Map<TransportKind, number>();
  for (const d of ctx.days) {
    if (!isFilled(d.transportation)) continue;
    const kind = transportKind(d.transportation);
    if (kind !== null && !firstDay.has(kind)) firstDay.set(kind, d.index + 1);
  }
  const drive = firstDay.get('Self-driving');
  const flight = firstDay.get('Flight');
  const taxi = firstDay.get('Taxi');
  if (drive !== undefined && flight !== undefined)
    return fail(`Self-driving (day ${drive}) and flights (day ${flight}) conflict: the car cannot be left behind`);
  if (drive !== undefined && taxi !== undefined)
    return fail(`Taxi (day ${taxi}) and self-driving (day ${drive}) conflict: the car cannot be left behind`);
  const kinds = [...firstDay.keys()].map((k) => k.toLowerCase());
  return pass(`Transportation is consistent (${kinds.join(', ') || 'none named'})`);
}

function placeOf(v: string): string {
  const nc = parseNameCity(v);
  return nc === null ? `${quote(v)} names no city` : `'${nc.name}' is in ${nc.city || 'no city'}`;
}

function mentionsAny(value: string, cities: readonly string[]): boolean {
  for (const c of cities) if (value.includes(c)) return true;
  return false;
}

/** is_valid_information_in_current_city: what a day names is in the city (or the two cities) of that day. */
export function checkCurrentCity(ctx: EvalContext): CheckResult {
  for (const d of ctx.days) {
    let cities: readonly string[];
    let where: string;
    if (d.hasFrom) {
      if (d.route === null) return unreadableRoute(d);
      cities = d.route;
      where = `the day travels from ${d.route[0]} to ${d.route[1]}`;
    } else {
      const city = extractBeforeParenthesis(d.current_city);
      // Q2: the official iterates the one-city day's name letter by letter (a string, not a list)
      if (ctx.faithful) cities = Array.from(city);
      else if (pyStrip(city) === '') return fail(`${dayLabel(d)} has no current city`);
      else cities = [city];
      where = `the day is spent in ${city || 'no city'}`;
    }
    const dl = dayLabel(d);
    const t = d.transportation;
    if (isFilled(t)) {
      for (const c of cities)
        if (!t.includes(c)) return fail(`${dl} transportation ${quote(t)} does not mention ${c}, but ${where}`);
    }
    for (const slot of MEAL_SLOTS) {
      const v = d[slot];
      if (isFilled(v) && !mentionsAny(v, cities)) return fail(`${dl} ${slot} ${placeOf(v)}, but ${where}`);
    }
    if (isFilled(d.attraction)) {
      for (const a of attractionItems(d.attraction, ctx.faithful)) {
        if (!mentionsAny(a, cities)) return fail(`${dl} attraction ${placeOf(a)}, but ${where}`);
      }
    }
    const acc = d.accommodation;
    if (isFilled(acc)) {
      const night = cities[cities.length - 1];
      if (night === undefined) return fail(`${dl} has an accommodation but no current city`); // official: IndexError
      if (!acc.includes(night))
        return fail(`${dl} accommodation ${placeOf(acc)}, but the night is spent in ${d.route ? d.route[1] : night}`);
    }
  }
  return pass("Every transportation, meal, attraction and stay is in the day's city");
}

/** is_valid_information_in_sandbox: every flight, drive, restaurant, attraction and stay exists in the database. */
export function checkSandbox(ctx: EvalContext): CheckResult {
  const { index } = ctx;
  for (const d of ctx.days) {
    const dl = dayLabel(d);
    const t = d.transportation;
    if (isFilled(t)) {
      const mode = sandboxTransportMode(t);
      if (mode !== null) {
        const ft = extractFromToOrDay(t, d);
        if (mode === 'flight') {
          // official: ValueError / IndexError (the run stops); here the day fails
          if (ft === null) return fail(`${dl} flight ${quote(t)} names no 'from A to B' route`);
          const { number, flights } = index.flightItem(t);
          if (number === null) return fail(`${dl} transportation ${quote(t)} has no 'Flight Number: ' to look up`);
          const [org, dst] = ft;
          if (!flights.some((f) => f.origin === org && f.dest === dst)) {
            const other = flights.length > 0 ? ` (${number} flies ${flights[0].origin} to ${flights[0].dest})` : '';
            return fail(`${dl} flight ${quote(number)} from ${org} to ${dst} is not in the database${other}`);
          }
        } else {
          const [org, dst] = ft ?? ['-', '-'];
          if (index.driveCost(org, dst, mode) === null)
            return fail(`${dl} ${mode} from ${org} to ${dst} is not in the database (no drive of less than a day)`);
        }
      }
    }
    for (const slot of MEAL_SLOTS) {
      const v = d[slot];
      if (!isFilled(v)) continue;
      const problem = missingItem(v, index.restaurants.matchItem(v), 'restaurant');
      if (problem !== null) return fail(`${dl} ${slot} ${problem}`);
    }
    if (isFilled(d.attraction)) {
      for (const a of attractionItems(d.attraction, ctx.faithful)) {
        const problem = missingItem(a, index.attractions.matchItem(a), 'attraction');
        if (problem !== null) return fail(`${dl} attraction ${problem}`);
      }
    }
    if (isFilled(d.accommodation)) {
      const problem = missingItem(d.accommodation, index.accommodations.matchItem(d.accommodation), 'accommodation');
      if (problem !== null) return fail(`${dl} accommodation ${problem}`);
    }
  }
  return pass('Every flight, drive, restaurant, attraction and stay exists in the database');
}

/** The transportation's own "from A to B", else the day's (the official fallback), parentheses removed. */
function extractFromToOrDay(t: string, d: DayView): readonly [string, string] | null {
  return routeOf(t) ?? d.route;
}

function missingItem(v: string, m: ItemMatch<unknown>, kind: string): string | null {
  const nc = m.item;
  if (nc === null) return `${quote(v)} cannot be read as 'Name, City'`;
  if (m.count === 0)
    return `'${nc.name}' is not ${kind === 'restaurant' ? 'a' : 'an'} ${kind} in ${nc.city === '' ? 'an unnamed city' : nc.city} in the database`;
  return null;
}

/** '' or '-'. Q12: a JSON null is neither to the official test; the lab counts it as blank. */
function isBlank(ctx: EvalContext, d: DayView, f: PlanField): boolean {
  const v = d[f];
  return (v === '' || v === '-') && (!ctx.faithful || d.raw === null || d.raw[f] !== null);
}

/** Python truthiness of a JSON value, with the official `!= '-'` test. */
function filledValue(v: unknown): boolean {
  if (v === '-' || v === null || v === undefined || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

/** is_not_absent: the right number of days and cities, and every needed field filled. */
export function checkNotAbsent(ctx: EvalContext): CheckResult {
  const { query } = ctx;
  let planned = 0;
  for (const d of ctx.days)
    if (d.raw !== null && Object.keys(d.raw).length > 0 && d.current_city !== UNUSED_DAY_TEXT) planned++;
  if (planned !== query.days) return fail(`The plan fills ${planned} of the trip's ${query.days} days`);

  const visited = new Set<string>();
  for (const d of ctx.days) {
    if (d.hasFrom) {
      if (d.route === null) return unreadableRoute(d);
      if (d.index === 0 && d.route[0] !== query.org)
        return fail(`Day 1 starts from ${d.route[0]}, not from the origin ${query.org}`);
      visited.add(d.route[0]).add(d.route[1]);
    } else {
      visited.add(extractBeforeParenthesis(d.current_city));
    }
  }
  visited.delete(query.org);
  if (visited.size !== query.visiting_city_number) {
    const list = visited.size > 0 ? ` (${[...visited].join(', ')})` : '';
    return fail(
      `The plan visits ${visited.size} cit${visited.size === 1 ? 'y' : 'ies'}${list}, but the query asks for ${query.visiting_city_number}`,
    );
  }

  const order: PlanField[] = ['transportation', 'breakfast', 'lunch', 'dinner', 'attraction', 'accommodation'];
  let filled = 0;
  for (const d of ctx.days) {
    const dl = dayLabel(d);
    for (const f of order) if (d.missing.includes(f)) return fail(`${dl} has no ${f} field`);
    const cc = d.current_city;
    if ((cc.includes('from ') || cc.includes('to ')) && isBlank(ctx, d, 'transportation'))
      return fail(`${dl} travels (${quote(cc)}) but has no transportation`);
    if (!cc.includes('from ') && !cc.includes(' to ') && isBlank(ctx, d, 'attraction'))
      return fail(`${dl} is spent in ${cc || 'no city'} but has no attraction`);
    if (d.index !== query.days - 1 && isBlank(ctx, d, 'accommodation'))
      return fail(`${dl} has no accommodation, but the trip goes on`);
    if (!cc.includes('from ')) {
      for (const meal of MEAL_SLOTS)
        if (isBlank(ctx, d, meal)) return fail(`${dl} has no ${meal}, and it is not a travel day`);
    }
    if (d.raw !== null) for (const k in d.raw) if (filledValue(d.raw[k])) filled++;
  }
  const needed = 6 * query.days;
  if (filled / needed < 0.5) return fail(`Only ${filled} of ${needed} pieces of information are filled (under half)`);
  return pass(`All ${query.days} days are complete: transportation, meals, attractions and stays`);
}
