// The teacher's planning core: fill a trip structure (which cities, how many nights
// each, how to travel: see tripStructure.ts) with flights, rooms, meals and sights so that
// TravelPlanner's commonsense and hard checks all pass, and render it in TravelPlanner's format.
//
// Everything here reads the world through a `Catalog`, never the World itself, so the same code
// plans from the live tools (to choose a structure and to price queries) and from a trajectory's
// own observations (so every name in the teacher's plan appeared in one of its observations).

import type { Rng } from './random.ts';
import type {
  Accommodation,
  Attraction,
  Drive,
  DriveMode,
  Flight,
  HouseRule,
  Plan,
  PlanDay,
  Query,
  Restaurant,
  RoomTypeConstraint,
} from './types.ts';

/** What the planner may know: each lookup answers rows, or null when it is not known. */
export interface Catalog {
  flights(from: string, to: string, date: string): Flight[] | null;
  drive(from: string, to: string, mode: DriveMode): { drive: Drive; cost: number } | null;
  accommodations(city: string): Accommodation[] | null;
  restaurants(city: string): Restaurant[] | null;
  attractions(city: string): Attraction[] | null;
  cities(state: string): string[] | null;
}

export type LegMode = 'flight' | DriveMode;
/** A transport family never mixes what TravelPlanner calls conflicting (flight+self-driving, taxi+self-driving). */
export type TransportFamily = 'air' | 'self-driving' | 'taxi';

export interface TripStructure {
  cities: string[]; // visiting order, org excluded
  nights: number[]; // nights per city, sum = days - 1
  legModes: LegMode[]; // one per leg: org→c1, c1→c2, …, cn→org
  family: TransportFamily;
}

export interface Leg {
  from: string;
  to: string;
  day: number; // 0-based day index
  date: string;
}

export interface FilledPlan {
  plan: Plan;
  cost: number;
}

/** How the filler picks: null = deterministic cheapest (and no optional items). */
export interface Picker {
  rng: Rng;
  /** 0 = uniform among valid choices; larger = biased toward the cheapest */
  thrift: number;
}

const BREAKFAST = 8 * 60;
const LUNCH = 12 * 60 + 30;
const DINNER = 19 * 60;
const MEALS = [
  ['breakfast', BREAKFAST],
  ['lunch', LUNCH],
  ['dinner', DINNER],
] as const;
type MealKey = (typeof MEALS)[number][0];

export function legsOf(query: Query, s: TripStructure): Leg[] {
  const stops = [query.org, ...s.cities, query.org];
  const legs: Leg[] = [];
  let day = 0;
  for (let k = 0; k + 1 < stops.length; k++) {
    legs.push({ from: stops[k], to: stops[k + 1], day, date: query.date[day] });
    day += s.nights[k] ?? 0;
  }
  return legs;
}

export function peopleCost(kind: LegMode, unitCost: number, people: number): number {
  if (kind === 'flight') return unitCost * people;
  return unitCost * Math.ceil(people / (kind === 'self-driving' ? 5 : 4));
}

export function roomsNeeded(people: number, a: Accommodation): number {
  return Math.ceil(people / Math.max(1, a.maximumOccupancy));
}

export function allowsHouseRule(a: Accommodation, rule: HouseRule | null): boolean {
  return rule === null || !a.houseRules.includes(`No ${rule}`);
}

export function matchesRoomType(a: Accommodation, want: RoomTypeConstraint | null): boolean {
  switch (want) {
    case null:
      return true;
    case 'entire room':
      return a.roomType === 'Entire home/apt';
    case 'private room':
      return a.roomType === 'Private room';
    case 'shared room':
      return a.roomType === 'Shared room';
    case 'not shared room':
      return a.roomType !== 'Shared room';
  }
}

/** TravelPlanner tests a cuisine by substring of the comma-joined Cuisines cell. */
export function servesCuisine(r: Restaurant, cuisine: string): boolean {
  return r.cuisines.join(', ').includes(cuisine);
}

function minutesOf(hhmm: string): number {
  const m = /^(\d{1,2}):(\d{2})$/.exec(hhmm.trim());
  return m ? Number(m[1]) * 60 + Number(m[2]) : 12 * 60;
}

export function durationText(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = Math.round(minutes % 60);
  return h > 0 ? `${h} hours ${m} mins` : `${m} mins`;
}

export function transportText(
  mode: LegMode,
  leg: Leg,
  flight: Flight | null,
  drive: { drive: Drive; cost: number } | null,
): string {
  if (mode === 'flight' && flight) {
    return `Flight Number: ${flight.flightNumber}, from ${leg.from} to ${leg.to}, Departure Time: ${flight.depTime}, Arrival Time: ${flight.arrTime}`;
  }
  if (!drive) throw new Error(`no ${mode} information for ${leg.from} → ${leg.to}`);
  const km = Math.round(drive.drive.distanceKm).toLocaleString('en-US');
  const label = mode === 'self-driving' ? 'Self-driving' : 'Taxi';
  return `${label}, from ${leg.from} to ${leg.to}, duration: ${durationText(drive.drive.durationMinutes)}, distance: ${km} km, cost: ${drive.cost}`;
}

function pickIndex(n: number, pick: Picker | null): number {
  if (!pick || n <= 1) return 0;
  return Math.min(n - 1, Math.floor(n * Math.pow(pick.rng.next(), 1 + pick.thrift)));
}

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

interface MealSlot {
  day: number;
  meal: MealKey;
  city: string;
  required: boolean;
}

/**
 * Fills a structure into a plan, or null when the catalog cannot support it (a missing leg, no
 * valid room, too few restaurants or sights, an uncoverable cuisine). With `pick = null` the fill
 * is deterministic and cheapest-first with only the required items (plus any travel-day meal a
 * wanted cuisine needs), so its cost is the floor the query generator prices budgets against.
 */
export function fillPlan(catalog: Catalog, query: Query, s: TripStructure, pick: Picker | null): FilledPlan | null {
  const people = query.people_number;
  const lc = query.local_constraint;
  const legs = legsOf(query, s);
  const lastDay = query.days - 1;
  let cost = 0;

  // 1. transport: one choice per leg, and its departure / arrival minutes for meal timing
  const legText: string[] = [];
  const legTimes: [number, number][] = [];
  for (let k = 0; k < legs.length; k++) {
    const leg = legs[k];
    const mode = s.legModes[k];
    if (mode === 'flight') {
      const rows = (catalog.flights(leg.from, leg.to, leg.date) ?? [])
        .slice()
        .sort(
          (a, b) =>
            a.price - b.price || a.depTime.localeCompare(b.depTime) || a.flightNumber.localeCompare(b.flightNumber),
        );
      if (rows.length === 0) return null;
      const f = rows[pickIndex(rows.length, pick)];
      cost += peopleCost('flight', f.price, people);
      legText.push(transportText('flight', leg, f, null));
      const dep = minutesOf(f.depTime);
      let arr = minutesOf(f.arrTime);
      if (arr < dep) arr += 24 * 60;
      legTimes.push([dep, arr]);
    } else {
      const d = catalog.drive(leg.from, leg.to, mode);
      if (!d) return null;
      cost += peopleCost(mode, d.cost, people);
      legText.push(transportText(mode, leg, null, d));
      const dep = k === 0 ? 8 * 60 : k === legs.length - 1 ? 15 * 60 : 10 * 60;
      legTimes.push([dep, dep + d.drive.durationMinutes]);
    }
  }

  // 2. one accommodation per stay, valid for the house rule, room type and minimum nights
  const stayName: string[] = [];
  for (let k = 0; k < s.cities.length; k++) {
    const city = s.cities[k];
    const nights = s.nights[k];
    const valid = (catalog.accommodations(city) ?? [])
      .filter(
        (a) => allowsHouseRule(a, lc['house rule']) && matchesRoomType(a, lc['room type']) && a.minimumNights <= nights,
      )
      .map((a) => ({ a, total: a.price * roomsNeeded(people, a) * nights }))
      .sort((x, y) => x.total - y.total || byName(x.a, y.a));
    if (valid.length === 0) return null;
    const chosen = valid[pickIndex(valid.length, pick)];
    cost += chosen.total;
    stayName.push(`${chosen.a.name}, ${city}`);
  }

  // day layout: which leg (if any) happens on each day, and where each night is spent
  const legOnDay = new Map<number, number>();
  legs.forEach((l, k) => legOnDay.set(l.day, k));
  const stayOfNight: number[] = [];
  s.nights.forEach((n, k) => {
    for (let i = 0; i < n; i++) stayOfNight.push(k);
  });

  // 3. meal slots: full days need all three meals; travel days eat before leaving or after arriving
  const slots: MealSlot[] = [];
  for (let d = 0; d < query.days; d++) {
    const k = legOnDay.get(d);
    if (k === undefined) {
      const city = s.cities[stayOfNight[d - 1]];
      for (const [meal] of MEALS) slots.push({ day: d, meal, city, required: true });
      continue;
    }
    const leg = legs[k];
    const [dep, arr] = legTimes[k];
    for (const [meal, at] of MEALS) {
      if (leg.from !== query.org && at + 60 <= dep) slots.push({ day: d, meal, city: leg.from, required: false });
      else if (leg.to !== query.org && at >= arr + 30 && arr < 24 * 60)
        slots.push({ day: d, meal, city: leg.to, required: false });
    }
  }
  // the cheapest fill keeps optional slots only for cuisines; a sampled one keeps most of them
  const kept = pick ? slots.filter((sl) => sl.required || pick.rng.chance(0.85)) : slots;
  const assigned: (Restaurant | null)[] = kept.map(() => null);
  const used = new Set<string>();
  const sortedRestaurants = (city: string) =>
    (catalog.restaurants(city) ?? [])
      .filter((r) => !used.has(`${r.name}|${city}`))
      .sort((a, b) => a.averageCost - b.averageCost || byName(a, b));
  const assign = (i: number, r: Restaurant) => {
    assigned[i] = r;
    used.add(`${r.name}|${kept[i].city}`);
    cost += r.averageCost * people;
  };

  // cuisines first: each wanted cuisine served at least once outside the origin city
  const wanted = lc.cuisine ?? [];
  const covered = new Set<string>();
  for (const c of pick ? pick.rng.shuffle(wanted) : wanted) {
    if (covered.has(c)) continue;
    const options: { r: Restaurant; slot: number }[] = [];
    const seenCity = new Set<string>();
    for (let i = 0; i < kept.length; i++) {
      const city = kept[i].city;
      if (assigned[i] || city === query.org || seenCity.has(city)) continue;
      seenCity.add(city);
      // the city's first free slot, required ones first so optional slots stay optional
      const free = kept.map((sl, j) => ({ sl, j })).filter(({ sl, j }) => sl.city === city && !assigned[j]);
      const slot = (free.find((f) => f.sl.required) ?? free[0]).j;
      for (const r of sortedRestaurants(city)) if (servesCuisine(r, c)) options.push({ r, slot });
    }
    if (options.length === 0) return null;
    // cheapest first; the deterministic fill prefers a restaurant covering more wanted cuisines, as meal slots may be
    // scarce
    const newCover = (r: Restaurant) =>
      pick ? 0 : wanted.filter((w) => !covered.has(w) && servesCuisine(r, w)).length;
    options.sort((a, b) => newCover(b.r) - newCover(a.r) || a.r.averageCost - b.r.averageCost || byName(a.r, b.r));
    const o = options[pickIndex(options.length, pick)];
    assign(o.slot, o.r);
    for (const w of wanted) if (servesCuisine(o.r, w)) covered.add(w);
  }
  for (let i = 0; i < kept.length; i++) {
    if (assigned[i] || (!pick && !kept[i].required)) continue;
    const options = sortedRestaurants(kept[i].city);
    if (options.length === 0) {
      if (kept[i].required) return null;
      continue;
    }
    assign(i, options[pickIndex(options.length, pick)]);
  }

  // 4. attractions: at least one per full day, never repeated; travel days may add one
  const usedSights = new Set<string>();
  const sightsFor = (city: string): string[] => {
    const free = (catalog.attractions(city) ?? []).filter((a) => !usedSights.has(`${a.name}|${city}`)).sort(byName);
    return [...new Set(free.map((a) => a.name))]; // real rows repeat some names
  };
  const dayAttractions: string[][] = [];
  for (let d = 0; d < query.days; d++) {
    const k = legOnDay.get(d);
    const names: string[] = [];
    let city: string | null = null;
    let want = 0;
    if (k === undefined) {
      city = s.cities[stayOfNight[d - 1]];
      want = pick ? pick.rng.between(1, 3) : 1;
    } else if (pick && pick.rng.chance(0.5)) {
      const leg = legs[k];
      const [dep, arr] = legTimes[k];
      if (leg.to !== query.org && arr <= 15 * 60) city = leg.to;
      else if (leg.from !== query.org && dep >= 14 * 60) city = leg.from;
      want = city ? 1 : 0;
    }
    if (city) {
      const free = sightsFor(city);
      const n = Math.min(want, free.length);
      if (k === undefined && n === 0) return null;
      const chosen = pick ? pick.rng.sample(free, n) : free.slice(0, n);
      for (const name of chosen) {
        usedSights.add(`${name}|${city}`);
        names.push(`${name}, ${city}`);
      }
    }
    dayAttractions.push(names);
  }

  // 5. render TravelPlanner's day rows
  const plan: Plan = [];
  for (let d = 0; d < query.days; d++) {
    const k = legOnDay.get(d);
    const meal = (m: MealKey) => {
      const i = kept.findIndex((sl) => sl.day === d && sl.meal === m);
      const r = i >= 0 ? assigned[i] : null;
      return r ? `${r.name}, ${kept[i].city}` : '-';
    };
    const row: PlanDay = {
      days: d + 1,
      current_city: k === undefined ? s.cities[stayOfNight[d - 1]] : `from ${legs[k].from} to ${legs[k].to}`,
      transportation: k === undefined ? '-' : legText[k],
      breakfast: meal('breakfast'),
      attraction: dayAttractions[d].length ? dayAttractions[d].map((a) => `${a};`).join('') : '-',
      lunch: meal('lunch'),
      dinner: meal('dinner'),
      accommodation: d < lastDay ? stayName[stayOfNight[d]] : '-',
    };
    plan.push(row);
  }
  return { plan, cost };
}

/** Thrift levels tried in turn when a sampled plan is over budget; the cheapest fill comes last. */
const THRIFT_LADDER = [0, 1, 3, 8];

/** A sampled plan within `budget` (null = no budget), else the cheapest fill if that fits, else null. */
export function fillWithinBudget(
  catalog: Catalog,
  query: Query,
  s: TripStructure,
  rng: Rng,
  budget: number | null,
): FilledPlan | null {
  for (const thrift of THRIFT_LADDER) {
    const filled = fillPlan(catalog, query, s, { rng, thrift });
    if (filled && (budget === null || filled.cost <= budget)) return filled;
  }
  const cheapest = fillPlan(catalog, query, s, null);
  return cheapest && (budget === null || cheapest.cost <= budget) ? cheapest : null;
}
