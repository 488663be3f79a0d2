// The `real` world source: a World built from TravelPlanner's own rows, the
// reference information of its 45 training queries (train_ref_info.jsonl). Each line holds the
// database slices an agent would have fetched for one query; merged, they form a small real
// database. Real names may break the lab's "no name is a substring of another" invariant (the
// official evaluator matches names by substring); that is the benchmark's data, kept as is.
// Pure (no file system): the browser can build it from the raw text; Node loads the files in
// src/env/node/realData.ts.
import type { Accommodation, Attraction, Drive, Flight, Restaurant, World } from './types.ts';
import {
  accommodationFromRow,
  attractionFromRow,
  flightFromRow,
  parseDuration,
  parseKm,
  restaurantFromRow,
  RowError,
} from './interop/rows.ts';
import type { RawRow } from './interop/rows.ts';

/** One line of train_ref_info.jsonl: description -> rows, or a text answer. */
export type RefInfo = Record<string, RawRow[] | string>;

/** `citySet_with_states.txt` ("city<TAB>state" lines) -> city -> state, in file order. */
export function parseCitySet(text: string): Map<string, string> {
  const out = new Map<string, string>();
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    const parts = line.split('\t');
    if (parts.length !== 2 || !parts[0].trim() || !parts[1].trim())
      throw new Error(`city set line ${i + 1}: expected "city<TAB>state", got ${JSON.stringify(line)}`);
    out.set(parts[0].trim(), parts[1].trim());
  });
  return out;
}

export interface ParsedDrive {
  mode: 'self-driving' | 'taxi';
  drive: Drive;
  cost: number;
}

/**
 * "self-driving, from A to B, duration: 19 hours 6 mins, distance: 2,103 km, cost: 105" -> a drive;
 * null for "No valid information." (or the tool's "…, no valid information." form).
 */
export function parseDriveText(s: string): ParsedDrive | null {
  const t = s.trim();
  if (/no valid information\.?$/i.test(t)) return null;
  const m = /^(self-driving|taxi), from (.+?) to (.+), duration: (.+), distance: ([\d,.]+ km), cost: (\d+)$/i.exec(t);
  if (!m) throw new RowError(`cannot read drive text ${JSON.stringify(s)}`);
  return {
    mode: m[1].toLowerCase() as 'self-driving' | 'taxi',
    drive: { origin: m[2], destination: m[3], durationMinutes: parseDuration(m[4]), distanceKm: parseKm(m[5]) },
    cost: Number(m[6]),
  };
}

/** A world pieced together from rows, with duplicates (the same row seen in two queries) removed. */
export class WorldBuilder {
  private readonly seen = new Set<string>();
  /** dedupe: drop a row identical to one already added (the same slice seen by two queries); off for a database table,
   * kept as is */
  constructor(private readonly options: { dedupe: boolean } = { dedupe: true }) {}
  readonly restaurants = new Map<string, Restaurant[]>();
  readonly accommodations = new Map<string, Accommodation[]>();
  readonly attractions = new Map<string, Attraction[]>();
  readonly flights = new Map<string, Flight[]>();
  readonly drives = new Map<string, Drive>();

  private addOnce<T>(table: string, map: Map<string, T[]>, key: string, item: T): void {
    if (this.options.dedupe) {
      const id = `${table}\u0000${JSON.stringify(item)}`;
      if (this.seen.has(id)) return;
      this.seen.add(id);
    }
    const list = map.get(key);
    if (list) list.push(item);
    else map.set(key, [item]);
  }

  addRestaurant(r: Restaurant): void { this.addOnce('r', this.restaurants, r.city, r); }
  addAccommodation(a: Accommodation): void { this.addOnce('h', this.accommodations, a.city, a); }
  addAttraction(a: Attraction): void { this.addOnce('a', this.attractions, a.city, a); }
  addFlight(f: Flight): void { this.addOnce('f', this.flights, `${f.origin}|${f.dest}|${f.date}`, f); }
  addDrive(d: Drive): void {
    const key = `${d.origin}|${d.destination}`;
    const had = this.drives.get(key);
    if (had && !this.options.dedupe) return; // as the official tool, the first row of a pair wins
    if (had && (had.distanceKm !== d.distanceKm || had.durationMinutes !== d.durationMinutes)) {
      throw new RowError(`two different drives ${d.origin} -> ${d.destination}`);
    }
    this.drives.set(key, d);
  }

  /**
   * `stateOf` is the whole city set (the official evaluator checks cities against all of it);
   * `citiesByState` lists, per state, the cities that appear in some row, in city-set order.
   */
  build(source: World['source'], seed: number, cityStates: ReadonlyMap<string, string>): World {
    const withData = new Set<string>([
      ...this.restaurants.keys(),
      ...this.accommodations.keys(),
      ...this.attractions.keys(),
    ]);
    for (const list of this.flights.values()) for (const f of list) withData.add(f.origin).add(f.dest);
    for (const d of this.drives.values()) withData.add(d.origin).add(d.destination);
    const citiesByState = new Map<string, string[]>();
    for (const [city, state] of cityStates) {
      if (!withData.has(city)) continue;
      const list = citiesByState.get(state);
      if (list) list.push(city);
      else citiesByState.set(state, [city]);
    }
    return {
      source,
      seed,
      citiesByState,
      stateOf: new Map(cityStates),
      restaurants: this.restaurants,
      accommodations: this.accommodations,
      attractions: this.attractions,
      flights: this.flights,
      drives: this.drives,
    };
  }
}

const DESCRIPTION =
  /^(Attractions|Restaurants|Accommodations) in (.+)$|^Flight from (.+?) to (.+) on (\d{4}-\d{2}-\d{2})$|^(Self-driving|Taxi) from (.+?) to (.+)$/;

/**
 * Build the real world from train_ref_info.jsonl lines (raw text or parsed objects) and the city
 * set (`citySet_with_states.txt` text or a parsed map). Throws with the line and key on bad input.
 */
export function buildRealWorld(
  lines: readonly (string | RefInfo)[],
  citySet: string | ReadonlyMap<string, string>,
): World {
  const cityStates = typeof citySet === 'string' ? parseCitySet(citySet) : citySet;
  const b = new WorldBuilder();
  lines.forEach((line, i) => {
    if (typeof line === 'string' && line.trim() === '') return;
    let info: RefInfo;
    try {
      info = typeof line === 'string' ? (JSON.parse(line) as RefInfo) : line;
    } catch (e) {
      throw new Error(`reference line ${i + 1}: not JSON (${(e as Error).message})`, { cause: e });
    }
    for (const [key, value] of Object.entries(info)) {
      try {
        addEntry(b, key, value);
      } catch (e) {
        throw new Error(`reference line ${i + 1}, "${key}": ${(e as Error).message}`, { cause: e });
      }
    }
  });
  return b.build('real', 0, cityStates);
}

function addEntry(b: WorldBuilder, key: string, value: RawRow[] | string): void {
  const m = DESCRIPTION.exec(key);
  if (!m) throw new RowError('unknown kind of reference information');
  if (m[1]) {
    if (!Array.isArray(value)) return; // e.g. "There is no restaurant in this city."
    for (const row of value) {
      if (m[1] === 'Attractions') b.addAttraction(attractionFromRow(row));
      else if (m[1] === 'Restaurants') b.addRestaurant(restaurantFromRow(row));
      else b.addAccommodation(accommodationFromRow(row));
    }
  } else if (m[3]) {
    if (!Array.isArray(value)) return; // "There is no flight from A to B on D."
    for (const row of value) b.addFlight(flightFromRow(row));
  } else {
    if (typeof value !== 'string') throw new RowError('expected a text answer');
    const parsed = parseDriveText(value);
    if (parsed) b.addDrive(parsed.drive);
  }
}
