// TravelPlanner interop: a generated world written in TravelPlanner's database layout reads back
// as the same world, and the files follow the official readers' conventions exactly.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import fc from 'fast-check';
import { csvLine, parseCsvRecords } from '../../src/env/interop/csv.ts';
import { afterAll, describe, expect, it } from 'vitest';
import { generateWorld, worldFingerprint } from '../../src/env/world.ts';
import { DATABASE_FILES } from '../../src/env/interop/database.ts';
import { formatDuration, formatKm, parseDuration, parseKm } from '../../src/env/interop/rows.ts';
import { planFromSubmission, queryFromTravelPlanner } from '../../src/env/interop/submission.ts';
import { exportWorld, forEachCsvRow, loadWorldFromDir } from '../../src/env/node/interop.ts';
import { loadRealExamples, loadRealWorld } from '../../src/env/node/realData.ts';
import type { World } from '../../src/env/types.ts';

const tmp = mkdtempSync(join(tmpdir(), 'star-interop-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const HEADERS: Record<keyof typeof DATABASE_FILES, string | null> = {
  flights: 'Flight Number,Price,DepTime,ArrTime,ActualElapsedTime,FlightDate,OriginCityName,DestCityName,Distance',
  accommodations: 'NAME,price,room type,house_rules,minimum nights,maximum occupancy,review rate number,city',
  restaurants: 'Name,Average Cost,Cuisines,Aggregate Rating,City',
  attractions: 'Name,Latitude,Longitude,Address,Phone,Website,City',
  distances: 'origin,destination,cost,duration,distance',
  cities: null,
};

/** order-free view of a world, for deep equality "modulo ordering" */
function canonical(w: World) {
  const sortRows = (m: Map<string, unknown[]>) => [...m].map(([k, rows]) => [k, rows.map((r) => JSON.stringify(r)).sort()]).sort();
  return {
    source: w.source,
    seed: w.seed,
    stateOf: [...w.stateOf].sort(),
    citiesByState: [...w.citiesByState].map(([s, c]) => [s, [...c].sort()]).sort(),
    restaurants: sortRows(w.restaurants),
    accommodations: sortRows(w.accommodations),
    attractions: sortRows(w.attractions),
    flights: sortRows(w.flights),
    drives: [...w.drives].map(([k, d]) => [k, JSON.stringify(d)]).sort(),
  };
}

describe('export -> load round trip', () => {
  for (const [size, seed] of [['tiny', 3], ['tiny', 12]] as const) {
    it(`${size} world ${seed} comes back the same`, () => {
      const world = generateWorld(size, seed);
      const dir = join(tmp, `${size}-${seed}`);
      exportWorld(dir, world);
      const back = loadWorldFromDir(dir);
      expect(canonical(back)).toEqual(canonical(world));
      expect(worldFingerprint(back)).toBe(worldFingerprint(world)); // even the order survives
    });
  }

  it('the real world survives too (its names break the lab invariants; the rows do not change)', () => {
    const world = loadRealWorld();
    const dir = join(tmp, 'real');
    exportWorld(dir, world);
    const back = loadWorldFromDir(dir);
    const c = canonical(world);
    // a loaded folder lists every city of its city set under its state
    expect({ ...canonical(back), citiesByState: c.citiesByState }).toEqual(c);
  });
});

describe('database files', () => {
  const world = generateWorld('tiny', 5);
  const dir = join(tmp, 'files');
  exportWorld(dir, world);

  it('have the exact TravelPlanner paths and headers, and no empty cell', () => {
    for (const [table, rel] of Object.entries(DATABASE_FILES) as [keyof typeof DATABASE_FILES, string][]) {
      const text = readFileSync(join(dir, rel), 'utf8');
      const header = HEADERS[table];
      if (header === null) continue;
      expect(text.split('\n')[0], rel).toBe(header);
      const parsed = Papa.parse<string[]>(text, { delimiter: ',', skipEmptyLines: true });
      expect(parsed.errors, rel).toEqual([]);
      expect(parsed.data.length, rel).toBeGreaterThan(1);
      const width = header.split(',').length;
      const bad = parsed.data.filter((row) => row.length !== width || row.some((cell) => cell.trim() === ''));
      expect(bad, rel).toEqual([]);
    }
  });

  it('refuse a cell pandas would read as missing (the row would vanish for the official code)', () => {
    const w = generateWorld('tiny', 5);
    const [city, rows] = [...w.restaurants][0];
    w.restaurants.set(city, [...rows, { ...rows[0], name: 'NA' }]);
    expect(() => exportWorld(join(tmp, 'na'), w)).toThrow(/"Name" pandas would read as empty/);
  });

  it('write the city set as "city<TAB>state" lines with no trailing blank line', () => {
    const text = readFileSync(join(dir, DATABASE_FILES.cities), 'utf8');
    expect(text.endsWith('\n')).toBe(false);
    const lines = text.split('\n');
    expect(lines).toHaveLength(world.stateOf.size);
    for (const l of lines) expect(l.split('\t')).toHaveLength(2);
  });

  it('write distances as Google text, and cost as the self-driving cost', () => {
    const rows = Papa.parse<Record<string, string>>(readFileSync(join(dir, DATABASE_FILES.distances), 'utf8'), { header: true, delimiter: ',', skipEmptyLines: true }).data;
    for (const r of rows) {
      expect(r.duration).toMatch(/^(\d+ days? )?(\d+ hours? )?\d+ mins?$|^(\d+ days? )?\d+ hours?$/);
      expect(r.distance).toMatch(/^\d{1,3}(,\d{3})*(\.\d+)? km$/);
      expect(Number(r.cost)).toBe(Math.floor(parseKm(r.distance) * 0.05));
    }
  });
});

describe('text conventions', () => {
  it('durations and distances read back exactly', () => {
    for (const m of [1, 5, 59, 60, 61, 119, 1146, 1439, 1440, 1505, 3000]) expect(parseDuration(formatDuration(m))).toBe(m);
    expect(formatDuration(1146)).toBe('19 hours 6 mins');
    expect(formatDuration(61)).toBe('1 hour 1 min');
    expect(parseDuration('1 day 2 hours')).toBe(1560);
    expect(parseKm('850 m')).toBe(0.85);
    expect(formatKm(2103)).toBe('2,103 km');
    expect(formatKm(70.7)).toBe('70.7 km');
    expect(formatKm(1234567.5)).toBe('1,234,567.5 km');
    expect(() => parseDuration('soon')).toThrow(/cannot read duration/);
  });
});

describe('csv', () => {
  it('writes what it reads back, and what papaparse reads the same way (any text)', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.string({ unit: fc.constantFrom('a', 'b', ' ', ',', '"', '\n', '\r', 'é', ';') }), { minLength: 2, maxLength: 4 }), { minLength: 1, maxLength: 5 }), (records) => {
        const text = records.map((r) => csvLine(r)).join('\n') + '\n';
        const back: string[][] = [];
        parseCsvRecords(text, (cells) => back.push(cells));
        expect(back).toEqual(records);
        expect(Papa.parse<string[]>(text, { delimiter: ',', skipEmptyLines: false }).data.slice(0, records.length)).toEqual(records);
      }),
      { numRuns: 300 },
    );
  });

  it('reads \r\n line ends and skips blank lines; rejects a broken quote', () => {
    const rows: string[][] = [];
    parseCsvRecords('a,b\r\n\r\n"x, y",z\r\n', (c) => rows.push(c));
    expect(rows).toEqual([['a', 'b'], ['x, y', 'z']]);
    expect(() => parseCsvRecords('"open,b\n', () => {})).toThrow(/unterminated/);
    expect(() => parseCsvRecords('"a"b,c\n', () => {})).toThrow(/unexpected text/);
  });
});

describe('reading folders', () => {
  it('streams CSV in chunks without splitting quoted fields', () => {
    const path = join(tmp, 'quoted.csv');
    writeFileSync(path, 'Name,City\n"Joe, ""the"" Diner",A\n"two\nlines",B\nplain,C\n');
    for (const chunk of [3, 7, 64, 1 << 20]) {
      const rows: unknown[] = [];
      forEachCsvRow(path, (r) => rows.push(r), chunk);
      expect(rows, `chunk ${chunk}`).toEqual([{ Name: 'Joe, "the" Diner', City: 'A' }, { Name: 'two\nlines', City: 'B' }, { Name: 'plain', City: 'C' }]);
    }
  });

  it('skips rows with an empty cell and day-long drives, as the official readers do', () => {
    const world = generateWorld('tiny', 5);
    const dir = join(tmp, 'dropna');
    exportWorld(dir, world);
    const rest = join(dir, DATABASE_FILES.restaurants);
    writeFileSync(rest, readFileSync(rest, 'utf8') + 'Ghost Diner,,American,4.0,Nowhere\n');
    const dist = join(dir, DATABASE_FILES.distances);
    writeFileSync(dist, readFileSync(dist, 'utf8') + 'X,Y,40,1 day 2 hours,800 km\nX,Z,1,,\n');
    const back = loadWorldFromDir(dir);
    expect(back.restaurants.has('Nowhere')).toBe(false);
    expect(back.drives.has('X|Y')).toBe(false);
    expect(back.drives.has('X|Z')).toBe(false);
  });

  it('says what is wrong with a folder', () => {
    expect(() => loadWorldFromDir(join(tmp, 'nope'))).toThrow(/no database\/ folder/);
    const dir = join(tmp, 'bad');
    exportWorld(dir, generateWorld('tiny', 5));
    const acc = join(dir, DATABASE_FILES.accommodations);
    writeFileSync(acc, readFileSync(acc, 'utf8') + 'Odd Place,100,Castle,No pets,1,2,4.0,Somewhere\n');
    expect(() => loadWorldFromDir(dir)).toThrow(/clean_accommodations_2022.csv row \d+: unknown room type "Castle"/);
    const skipped: string[] = [];
    const world = loadWorldFromDir(dir, (path, row, reason) => skipped.push(`${path} ${row} ${reason}`));
    expect(skipped).toEqual([expect.stringMatching(/clean_accommodations_2022.csv \d+ unknown room type "Castle"/)]);
    expect(world.accommodations.has('Somewhere')).toBe(false);
  });
});

describe('records', () => {
  it('query objects round-trip, and the Hugging Face string form is accepted', () => {
    const q = loadRealExamples()[30].query;
    expect(queryFromTravelPlanner(JSON.parse(JSON.stringify({ idx: 4, ...q })))).toEqual({ idx: 4, ...q });
    const hf = { ...q, idx: 0, date: "['2022-03-20', '2022-03-21', '2022-03-22']", local_constraint: "{'house rule': 'pets', 'cuisine': None, 'room type': None, 'transportation': 'no flight'}" };
    const parsed = queryFromTravelPlanner(hf);
    expect(parsed.local_constraint).toEqual({ 'house rule': 'pets', cuisine: null, 'room type': null, transportation: 'no flight' });
    expect(() => queryFromTravelPlanner({ ...q, idx: 0, days: 4 })).toThrow(/"days" must be one of 3, 5, 7/);
  });

  it('submission plans: null/empty = undelivered, padding dropped, missing fields absent', () => {
    expect(planFromSubmission(null)).toBeNull();
    expect(planFromSubmission([{}, {}])).toBeNull();
    const plan = planFromSubmission([{ day: 1, current_city: 'A', transportation: '-', breakfast: 'X, A', lunch: '-', dinner: '-', accommodation: '-' }, {}])!;
    expect(plan).toHaveLength(1);
    expect(plan[0]).toMatchObject({ days: 1, attraction: '' });
    expect(() => planFromSubmission('a plan')).toThrow(/list of day objects/);
    expect(() => planFromSubmission([{ days: 1, breakfast: 3 }])).toThrow(/"breakfast" is not text/);
  });
});
