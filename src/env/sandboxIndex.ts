// Database lookups with the official evaluation's semantics, cached per World.
//
// The official code filters pandas tables: `Name.str.contains(re.escape(name)) & City == city`,
// i.e. every row of that city whose name CONTAINS the plan's name, and then uses the first row.
// Here each (city, name) answer is memoised in a per-World cache (a WeakMap, so a dropped World
// frees its cache), which makes repeated evaluations against one World cheap.
import { extractBeforeParenthesis } from './planParse.ts';
import type { Accommodation, Attraction, DriveMode, Flight, Restaurant, World } from './types.ts';

/** The rows of a city whose name contains the plan's name: the first one (table order) and how many. */
export interface NameMatch<T> {
  first: T | undefined;
  count: number;
}

const NO_MATCH: NameMatch<never> = { first: undefined, count: 0 };
/** Memo entries per city before it is cleared (model-written names are unbounded). */
const MEMO_LIMIT = 4096;

class CityTable<T extends { name: string }> {
  private readonly memo = new Map<string, Map<string, NameMatch<T>>>();
  constructor(private readonly rows: Map<string, T[]>) {}

  match(name: string, city: string): NameMatch<T> {
    const list = this.rows.get(city);
    if (list === undefined) return NO_MATCH;
    let perCity = this.memo.get(city);
    if (perCity === undefined) {
      perCity = new Map();
      this.memo.set(city, perCity);
    }
    let hit = perCity.get(name);
    if (hit === undefined) {
      let first: T | undefined;
      let count = 0;
      for (const row of list) {
        if (row.name.includes(name)) {
          if (count === 0) first = row;
          count++;
        }
      }
      hit = { first, count };
      if (perCity.size >= MEMO_LIMIT) perCity.clear();
      perCity.set(name, hit);
    }
    return hit;
  }
}

interface WorldIndex {
  restaurants: CityTable<Restaurant>;
  accommodations: CityTable<Accommodation>;
  attractions: CityTable<Attraction>;
  /** flight number -> flights with it, in table order (the official matches numbers across all dates) */
  flightsByNumber: Map<string, Flight[]>;
  cuisineText: WeakMap<Restaurant, string>;
  houseRuleText: WeakMap<Accommodation, string>;
}

const indexes = new WeakMap<World, WorldIndex>();

function indexOf(world: World): WorldIndex {
  let index = indexes.get(world);
  if (index === undefined) {
    index = {
      restaurants: new CityTable(world.restaurants),
      accommodations: new CityTable(world.accommodations),
      attractions: new CityTable(world.attractions),
      flightsByNumber: buildFlightNumberIndex(world),
      cuisineText: new WeakMap(),
      houseRuleText: new WeakMap(),
    };
    indexes.set(world, index);
  }
  return index;
}

function buildFlightNumberIndex(world: World): Map<string, Flight[]> {
  const out = new Map<string, Flight[]>();
  for (const list of world.flights.values()) {
    for (const f of list) {
      const same = out.get(f.flightNumber);
      if (same) same.push(f);
      else out.set(f.flightNumber, [f]);
    }
  }
  return out;
}

export function restaurantMatch(world: World, name: string, city: string): NameMatch<Restaurant> {
  return indexOf(world).restaurants.match(name, city);
}

export function accommodationMatch(world: World, name: string, city: string): NameMatch<Accommodation> {
  return indexOf(world).accommodations.match(name, city);
}

export function attractionMatch(world: World, name: string, city: string): NameMatch<Attraction> {
  return indexOf(world).attractions.match(name, city);
}

/** Every flight carrying this number (any route, any date), in table order. */
export function flightsWithNumber(world: World, flightNumber: string): readonly Flight[] {
  return indexOf(world).flightsByNumber.get(flightNumber) ?? [];
}

/** The "Cuisines" cell as TravelPlanner stores it ("Chinese, Cafe"); the official checks substrings of it. */
export function cuisineText(world: World, r: Restaurant): string {
  const cache = indexOf(world).cuisineText;
  let text = cache.get(r);
  if (text === undefined) {
    text = r.cuisines.join(', ');
    cache.set(r, text);
  }
  return text;
}

/** The "house_rules" cell as TravelPlanner stores it ("No parties & No smoking"). */
export function houseRuleText(world: World, a: Accommodation): string {
  const cache = indexOf(world).houseRuleText;
  let text = cache.get(a);
  if (text === undefined) {
    text = a.houseRules.join(' & ');
    cache.set(a, text);
  }
  return text;
}

/** A day of driving: the official tool has no answer when the duration text contains "day". */
export const MAX_DRIVE_MINUTES = 24 * 60;

/**
 * `GoogleDistanceMatrix.run_for_evaluation(origin, destination, mode)['cost']`: self-driving
 * ⌊km·0.05⌋, taxi ⌊km⌋ per vehicle; null when there is no row or the drive takes a day or more.
 * (Python's `int()` truncates; distances are non-negative, so it equals floor.)
 */
export function driveCost(world: World, origin: string, destination: string, mode: DriveMode): number | null {
  const drive = world.drives.get(`${extractBeforeParenthesis(origin)}|${extractBeforeParenthesis(destination)}`);
  if (drive === undefined || !(drive.durationMinutes < MAX_DRIVE_MINUTES)) return null;
  return mode === 'taxi' ? Math.trunc(drive.distanceKm) : Math.trunc(drive.distanceKm * 0.05);
}
