// A World <-> TravelPlanner's database folder (the layout its tools and evaluation read with
// pandas): exact file paths, exact column names, and no empty cells (the official readers call
// `dropna()`, so a row with an empty cell silently vanishes for them). Pure: the caller supplies
// and stores the file texts (Node: src/env/node/interop.ts), so a browser could export too.
import type { World, WorldSource } from '../types.ts';
import { WorldBuilder, parseCitySet } from '../realWorld.ts';
import {
  ACCOMMODATION_COLUMNS, ATTRACTION_COLUMNS, DISTANCE_COLUMNS, FLIGHT_COLUMNS, RESTAURANT_COLUMNS,
  accommodationFromRow, accommodationToRow, attractionFromRow, attractionToRow, driveFromRow, driveToRow,
  flightFromRow, flightToRow, restaurantFromRow, restaurantToRow, rowIsComplete, RowError,
} from './rows.ts';
import type { RawRow } from './rows.ts';
import { csvLine, parseCsvRows } from './csv.ts';

/** Paths relative to the export folder, as TravelPlanner's code expects them under `../database/`. */
export const DATABASE_FILES = {
  flights: 'database/flights/clean_Flights_2022.csv',
  accommodations: 'database/accommodations/clean_accommodations_2022.csv',
  restaurants: 'database/restaurants/clean_restaurant_2022.csv',
  attractions: 'database/attractions/attractions.csv',
  distances: 'database/googleDistanceMatrix/distance.csv',
  cities: 'database/background/citySet_with_states.txt',
} as const;

/** Not part of TravelPlanner's layout: records which lab world the folder holds (source, seed). */
export const WORLD_MANIFEST_FILE = 'star_lab_world.json';

/** Cell texts pandas' read_csv turns into NaN by default (so `dropna()` would drop the row). */
const PANDAS_NA = new Set([
  '',
  '#N/A',
  '#N/A N/A',
  '#NA',
  '-1.#IND',
  '-1.#QNAN',
  '-NaN',
  '-nan',
  '1.#IND',
  '1.#QNAN',
  '<NA>',
  'N/A',
  'NA',
  'NULL',
  'NaN',
  'None',
  'n/a',
  'nan',
  'null',
]);

function csv<C extends string>(columns: readonly C[], rows: Iterable<Record<C, string>>): string {
  const data: string[] = [];
  for (const row of rows) {
    const cells = columns.map((c) => row[c]);
    const empty = columns.find((c, i) => cells[i] === undefined || PANDAS_NA.has(cells[i].trim()));
    if (empty !== undefined)
      throw new Error(`cannot export a row whose "${empty}" pandas would read as empty: ${JSON.stringify(row)}`);
    data.push(csvLine(cells));
  }
  return [csvLine(columns), ...data].join('\n') + '\n';
}

function* values<T>(m: Map<string, T[]>): Generator<T> {
  for (const rows of m.values()) yield* rows;
}

function* mapRows<T, R>(items: Iterable<T>, f: (t: T) => R): Generator<R> {
  for (const t of items) yield f(t);
}

/** Every database file of a world: relative path -> text. */
export function worldToDatabaseFiles(world: World): Map<string, string> {
  const files = new Map<string, string>();
  files.set(DATABASE_FILES.flights, csv(FLIGHT_COLUMNS, mapRows(values(world.flights), flightToRow)));
  files.set(
    DATABASE_FILES.accommodations,
    csv(ACCOMMODATION_COLUMNS, mapRows(values(world.accommodations), accommodationToRow)),
  );
  files.set(DATABASE_FILES.restaurants, csv(RESTAURANT_COLUMNS, mapRows(values(world.restaurants), restaurantToRow)));
  files.set(DATABASE_FILES.attractions, csv(ATTRACTION_COLUMNS, mapRows(values(world.attractions), attractionToRow)));
  files.set(DATABASE_FILES.distances, csv(DISTANCE_COLUMNS, mapRows(world.drives.values(), driveToRow)));
  // the official reader splits on "\n" and then on "\t", so no trailing newline (an empty last line would break it)
  files.set(DATABASE_FILES.cities, [...world.stateOf].map(([city, state]) => `${city}\t${state}`).join('\n'));
  files.set(WORLD_MANIFEST_FILE, JSON.stringify({ source: world.source, seed: world.seed }) + '\n');
  return files;
}

/** Reads one database file's rows; Node streams large files (the real flights table is hundreds of MB). */
export type RowSource = (relativePath: string, onRow: (row: RawRow) => void) => void;
/** Reads a small text file, or returns null when it does not exist. */
export type TextSource = (relativePath: string) => string | null;

/** Parse CSV text into header-keyed rows (a RowSource helper for callers that hold the text). */
export function csvRows(text: string, onRow: (row: RawRow) => void): void {
  parseCsvRows(text, onRow);
}

/** Called for a row the lab's types cannot hold (e.g. a room type other than the three); the row is left out. */
export type SkipRow = (path: string, row: number, reason: string) => void;

/**
 * A World from a TravelPlanner database folder. As the official readers do, rows with an empty
 * cell are skipped, and a drive whose duration is a day or more is "no valid information".
 * `stateOf` is the city set file; `citiesByState` groups all of its cities. A row that cannot be
 * read is an error naming its file and row, unless `onSkip` is given: then it is reported and
 * left out (for the real database, whose odd rows should not stop a whole evaluation).
 */
export function worldFromDatabaseFiles(readRows: RowSource, readText: TextSource, onSkip?: SkipRow): World {
  const cityText = readText(DATABASE_FILES.cities);
  if (cityText === null) throw new Error(`missing ${DATABASE_FILES.cities}`);
  const cityStates = parseCitySet(cityText);
  const b = new WorldBuilder({ dedupe: false });
  const table = <T>(path: string, columns: readonly string[], from: (r: RawRow) => T, add: (t: T) => void) => {
    let line = 1;
    readRows(path, (row) => {
      line++;
      if (!rowIsComplete(row, columns)) return;
      let item: T;
      try {
        item = from(row);
      } catch (e) {
        if (!(e instanceof RowError) || !onSkip)
          throw new Error(`${path} row ${line}: ${(e as Error).message}`, { cause: e });
        onSkip(path, line, e.message);
        return;
      }
      add(item);
    });
  };
  table(DATABASE_FILES.flights, FLIGHT_COLUMNS, flightFromRow, (f) => b.addFlight(f));
  table(DATABASE_FILES.accommodations, ACCOMMODATION_COLUMNS, accommodationFromRow, (a) => b.addAccommodation(a));
  table(DATABASE_FILES.restaurants, RESTAURANT_COLUMNS, restaurantFromRow, (r) => b.addRestaurant(r));
  table(DATABASE_FILES.attractions, ATTRACTION_COLUMNS, attractionFromRow, (a) => b.addAttraction(a));
  // the official tool answers "no valid information" when the duration text mentions a day
  const drive = (row: RawRow) => (/day/.test(String(row.duration ?? '')) ? null : driveFromRow(row));
  table(DATABASE_FILES.distances, ['origin', 'destination'], drive, (d) => {
    if (d) b.addDrive(d);
  });

  let source: WorldSource = 'real';
  let seed = 0;
  const manifest = readText(WORLD_MANIFEST_FILE);
  if (manifest !== null) {
    let m: { source?: WorldSource; seed?: number };
    try {
      m = JSON.parse(manifest) as typeof m;
    } catch (e) {
      throw new Error(`${WORLD_MANIFEST_FILE} is not JSON (${(e as Error).message})`, { cause: e });
    }
    if (m.source) source = m.source;
    if (typeof m.seed === 'number') seed = m.seed;
  }
  const citiesByState = new Map<string, string[]>();
  for (const [city, state] of cityStates) {
    const list = citiesByState.get(state);
    if (list) list.push(city);
    else citiesByState.set(state, [city]);
  }
  return { ...b.build(source, seed, cityStates), citiesByState };
}
