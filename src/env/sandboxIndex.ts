// Database lookups with the official evaluation's semantics, cached per World.
//
// The official code filters pandas tables: `Name.str.contains(re.escape(name)) & City == city`,
// i.e. every row of that city whose name CONTAINS the plan's name, and then uses the first row.
// Here each (city, name) answer is memoised in a per-World cache (a WeakMap, so a dropped World
// frees its cache), which makes repeated evaluations against one World cheap.
import { extractBeforeParenthesis, flightNumberOf, parseNameCity } from './planParse.ts';
import type { NameCity } from './planParse.ts';
import type { Accommodation, Attraction, Drive, DriveMode, Flight, Restaurant, World } from './types.ts';
import { MAX_DRIVE_MINUTES } from './world.ts';

/** The rows of a city whose name contains the plan's name: the first one (table order) and how many. */
export interface NameMatch<T> {
  first: T | undefined;
  count: number;
}

const NO_MATCH: NameMatch<never> = { first: undefined, count: 0 };
/** Memo entries per city before it is cleared (model-written names are unbounded). */
const MEMO_LIMIT = 4096;

/** A plan item ("Name, City") read with `parseNameCity` and looked up: null name = unparsable. */
export interface ItemMatch<T> extends NameMatch<T> {
  item: NameCity | null;
}
/** Memo entries per table of whole item strings. */
const ITEM_MEMO_LIMIT = 65536;

export class CityTable<T extends { name: string }> {
  private readonly memo = new Map<string, Map<string, NameMatch<T>>>();
  /** whole plan strings -> their match: one hash lookup per item in the hot path */
  private readonly items = new Map<string, ItemMatch<T>>();
  constructor(private readonly rows: Map<string, T[]>) {}

  matchItem(value: string): ItemMatch<T> {
    let hit = this.items.get(value);
    if (hit === undefined) {
      const item = parseNameCity(value);
      const m = item === null ? NO_MATCH : this.match(item.name, item.city);
      hit = { item, first: m.first, count: m.count };
      if (this.items.size >= ITEM_MEMO_LIMIT) this.items.clear();
      this.items.set(value, hit);
    }
    return hit;
  }

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

/**
 * Everything the evaluator looks up in one World, built lazily and cached per World. A World must
 * not be mutated after its first evaluation (the caches would go stale).
 */
export class SandboxIndex {
  readonly restaurants: CityTable<Restaurant>;
  readonly accommodations: CityTable<Accommodation>;
  readonly attractions: CityTable<Attraction>;
  private flightsByNumber: Map<string, Flight[]> | null = null;
  private drivesFrom: Map<string, Map<string, Drive>> | null = null;
  private readonly cuisineTexts = new WeakMap<Restaurant, string>();
  private readonly houseRuleTexts = new WeakMap<Accommodation, string>();

  constructor(private readonly world: World) {
    this.restaurants = new CityTable(world.restaurants);
    this.accommodations = new CityTable(world.accommodations);
    this.attractions = new CityTable(world.attractions);
  }

  private readonly flightItems = new Map<string, FlightItem>();

  /** A transportation string's "Flight Number: X" and the flights carrying X, memoised per string. */
  flightItem(transportation: string): FlightItem {
    let hit = this.flightItems.get(transportation);
    if (hit === undefined) {
      const number = flightNumberOf(transportation);
      hit = { number, flights: number === null ? NO_FLIGHTS : this.flightsWithNumber(number) };
      if (this.flightItems.size >= ITEM_MEMO_LIMIT) this.flightItems.clear();
      this.flightItems.set(transportation, hit);
    }
    return hit;
  }

  /** Every flight carrying this number (any route, any date), in table order (Q10). */
  flightsWithNumber(flightNumber: string): readonly Flight[] {
    if (this.flightsByNumber === null) {
      const out = new Map<string, Flight[]>();
      for (const list of this.world.flights.values()) {
        for (const f of list) {
          const same = out.get(f.flightNumber);
          if (same) same.push(f);
          else out.set(f.flightNumber, [f]);
        }
      }
      this.flightsByNumber = out;
    }
    return this.flightsByNumber.get(flightNumber) ?? NO_FLIGHTS;
  }

  /**
   * `GoogleDistanceMatrix.run_for_evaluation(origin, destination, mode)['cost']` for city names
   * already without parentheses: self-driving ⌊km·0.05⌋, taxi ⌊km⌋ per vehicle; null when there
   * is no row or the drive takes a day or more (Q11). Python's `int()` truncates, as Math.trunc.
   */
  driveCost(origin: string, destination: string, mode: DriveMode): number | null {
    if (this.drivesFrom === null) {
      const out = new Map<string, Map<string, Drive>>();
      for (const [key, drive] of this.world.drives) {
        const bar = key.indexOf('|');
        const from = key.slice(0, bar);
        let inner = out.get(from);
        if (inner === undefined) out.set(from, (inner = new Map()));
        inner.set(key.slice(bar + 1), drive);
      }
      this.drivesFrom = out;
    }
    const drive = this.drivesFrom.get(origin)?.get(destination);
    if (drive === undefined || !(drive.durationMinutes < MAX_DRIVE_MINUTES)) return null;
    return mode === 'taxi' ? Math.trunc(drive.distanceKm) : Math.trunc(drive.distanceKm * 0.05);
  }

  /** The "Cuisines" cell as TravelPlanner stores it ("Chinese, Cafe"); the official checks substrings of it (Q6). */
  cuisineText(r: Restaurant): string {
    let text = this.cuisineTexts.get(r);
    if (text === undefined) this.cuisineTexts.set(r, (text = r.cuisines.join(', ')));
    return text;
  }

  /** The "house_rules" cell as TravelPlanner stores it ("No parties & No smoking"). */
  houseRuleText(a: Accommodation): string {
    let text = this.houseRuleTexts.get(a);
    if (text === undefined) this.houseRuleTexts.set(a, (text = a.houseRules.join(' & ')));
    return text;
  }
}

const NO_FLIGHTS: readonly Flight[] = [];

export interface FlightItem {
  /** null where the official `split('Flight Number: ')[1]` raises */
  number: string | null;
  flights: readonly Flight[];
}
const indexes = new WeakMap<World, SandboxIndex>();

export function sandboxIndex(world: World): SandboxIndex {
  let index = indexes.get(world);
  if (index === undefined) indexes.set(world, (index = new SandboxIndex(world)));
  return index;
}


/** `run_for_evaluation` with its own `extract_before_parenthesis` on both names. */
export function driveCost(world: World, origin: string, destination: string, mode: DriveMode): number | null {
  return sandboxIndex(world).driveCost(extractBeforeParenthesis(origin), extractBeforeParenthesis(destination), mode);
}
