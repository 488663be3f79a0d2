// The world as tables a person can browse (the Sandbox view): one table per kind of row, the
// columns in TravelPlanner's terms, every cell already text so filtering is one substring test.
import type { World } from '../env/types.ts';

export const TABLE_KINDS = ['cities', 'flights', 'accommodations', 'restaurants', 'attractions', 'drives'] as const;
export type TableKind = (typeof TABLE_KINDS)[number];

export const TABLE_LABELS: Readonly<Record<TableKind, string>> = {
  cities: 'Cities',
  flights: 'Flights',
  accommodations: 'Hotels',
  restaurants: 'Restaurants',
  attractions: 'Attractions',
  drives: 'Distances',
};

export interface WorldTable {
  kind: TableKind;
  columns: readonly string[];
  rows: readonly (readonly string[])[];
}

const byText = (a: readonly string[], b: readonly string[]) => a.join('\u0000').localeCompare(b.join('\u0000'));

function rowsOf<T>(m: Map<string, T[]>, row: (item: T) => string[]): string[][] {
  const out: string[][] = [];
  for (const items of m.values()) for (const item of items) out.push(row(item));
  return out;
}

/** One kind of the world's rows as text, sorted (flights by route then date then time). */
export function worldTable(world: World, kind: TableKind): WorldTable {
  switch (kind) {
    case 'cities': {
      const rows = [...world.stateOf].map(([city, state]) => [
        city,
        state,
        String(world.accommodations.get(city)?.length ?? 0),
        String(world.restaurants.get(city)?.length ?? 0),
        String(world.attractions.get(city)?.length ?? 0),
      ]);
      return { kind, columns: ['City', 'State', 'Hotels', 'Restaurants', 'Attractions'], rows: rows.sort(byText) };
    }
    case 'flights':
      return {
        kind,
        columns: ['Flight', 'From', 'To', 'Date', 'Departs', 'Arrives', 'Duration', 'Price', 'Miles'],
        rows: rowsOf(world.flights, (f) => [
          f.flightNumber,
          f.origin,
          f.dest,
          f.date,
          f.depTime,
          f.arrTime,
          f.elapsed,
          `$${f.price}`,
          String(f.distance),
        ]).sort((a, b) => byText([a[1], a[2], a[3], a[4]], [b[1], b[2], b[3], b[4]])),
      };
    case 'accommodations':
      return {
        kind,
        columns: ['Name', 'City', 'Room type', 'Price/night', 'House rules', 'Min nights', 'Max guests', 'Rating'],
        rows: rowsOf(world.accommodations, (a) => [
          a.name,
          a.city,
          a.roomType,
          `$${a.price}`,
          a.houseRules.join(' & ') || '-',
          String(a.minimumNights),
          String(a.maximumOccupancy),
          a.rating.toFixed(1),
        ]).sort((a, b) => byText([a[1], a[0]], [b[1], b[0]])),
      };
    case 'restaurants':
      return {
        kind,
        columns: ['Name', 'City', 'Cuisines', 'Average cost', 'Rating'],
        rows: rowsOf(world.restaurants, (r) => [
          r.name,
          r.city,
          r.cuisines.join(', '),
          `$${r.averageCost}`,
          r.rating.toFixed(1),
        ]).sort((a, b) => byText([a[1], a[0]], [b[1], b[0]])),
      };
    case 'attractions':
      return {
        kind,
        columns: ['Name', 'City', 'Address', 'Phone', 'Website'],
        rows: rowsOf(world.attractions, (a) => [a.name, a.city, a.address, a.phone, a.website]).sort((a, b) =>
          byText([a[1], a[0]], [b[1], b[0]]),
        ),
      };
    case 'drives':
      return {
        kind,
        columns: ['From', 'To', 'Duration (min)', 'Distance (km)'],
        rows: [...world.drives.values()]
          .map((d) => [d.origin, d.destination, String(d.durationMinutes), String(d.distanceKm)])
          .sort(byText),
      };
  }
}

const tableCache = new WeakMap<World, Map<TableKind, WorldTable>>();

/** worldTable, built once per world and kind (a page filters the same table on every keystroke) */
export function cachedWorldTable(world: World, kind: TableKind): WorldTable {
  let byKind = tableCache.get(world);
  if (!byKind) tableCache.set(world, (byKind = new Map()));
  let table = byKind.get(kind);
  if (!table) byKind.set(kind, (table = worldTable(world, kind)));
  return table;
}

export interface FilteredRows {
  rows: readonly (readonly string[])[];
  /** rows matching the filter, of which `rows` holds the first `limit` */
  matched: number;
}

/**
 * Rows whose cells contain every word of `filter` (case-insensitive, in any cell), at most `limit`
 * of them: a flight table at standard size has tens of thousands of rows, too many for the DOM.
 */
export function filterRows(table: WorldTable, filter: string, limit: number): FilteredRows {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const rows: (readonly string[])[] = [];
  let matched = 0;
  for (const row of table.rows) {
    if (words.length) {
      const text = row.join(' ').toLowerCase();
      if (!words.every((w) => text.includes(w))) continue;
    }
    if (matched < limit) rows.push(row);
    matched++;
  }
  return { rows, matched };
}
