import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { generateWorld, worldSummary } from '../../src/env/world.ts';
import { TABLE_KINDS, cachedWorldTable, filterRows, worldTable } from '../../src/sandbox/worldTables.ts';

const world = generateWorld('tiny', 1);

describe('worldTable', () => {
  it('lists every row of each kind, with as many cells as columns', () => {
    const s = worldSummary(world);
    const counts = { cities: s.cities, flights: s.flights, accommodations: s.accommodations, restaurants: s.restaurants, attractions: s.attractions, drives: s.drives };
    for (const kind of TABLE_KINDS) {
      const t = worldTable(world, kind);
      expect(t.rows.length, kind).toBe(counts[kind]);
      for (const r of t.rows) expect(r.length).toBe(t.columns.length);
    }
  });

  it('shows a hotel as TravelPlanner does (rules joined with &)', () => {
    const a = [...world.accommodations.values()].flat().find((x) => x.houseRules.length > 1);
    expect(a).toBeDefined();
    const row = worldTable(world, 'accommodations').rows.find((r) => r[0] === a!.name);
    expect(row?.[4]).toBe(a!.houseRules.join(' & '));
  });
});

it('cachedWorldTable builds a table once per world and kind', () => {
  const a = cachedWorldTable(world, 'restaurants');
  expect(cachedWorldTable(world, 'restaurants')).toBe(a);
  expect(a).toEqual(worldTable(world, 'restaurants'));
  expect(cachedWorldTable(generateWorld('tiny', 2), 'restaurants')).not.toBe(a);
});

describe('filterRows', () => {
  const flights = worldTable(world, 'flights');

  it('keeps rows holding every word, in any cell, ignoring case, up to the limit', () => {
    const f = flights.rows[5];
    const got = filterRows(flights, `${f[1].toUpperCase()}  ${f[3]}`, 3);
    expect(got.rows.length).toBeLessThanOrEqual(3);
    expect(got.matched).toBe(flights.rows.filter((r) => r.join(' ').includes(f[1]) && r.join(' ').includes(f[3])).length);
    for (const r of got.rows) expect(r.join(' ')).toContain(f[3]);
    expect(filterRows(flights, 'no such thing anywhere', 10)).toEqual({ rows: [], matched: 0 });
  });

  it('an empty filter matches all rows', () => {
    fc.assert(fc.property(fc.constantFrom('', ' ', '\t\n'), fc.nat(50), (text, limit) => {
      const got = filterRows(flights, text, limit);
      return got.matched === flights.rows.length && got.rows.length === Math.min(limit, flights.rows.length);
    }));
  });
});
