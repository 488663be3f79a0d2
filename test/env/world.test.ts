import { describe, expect, it } from 'vitest';
import { CITY_STATE_PAIRS, citiesOfStates, stateOfCity } from '../../src/env/data/citySet.ts';
import {
  ALL_CUISINES, HOUSE_RULES, MAX_DRIVE_MINUTES, ROOM_TYPES, WORLD_DATES, WORLD_SIZES,
  destinationStates, findNameConflicts, generateWorld, worldDates, worldFingerprint, worldSummary,
} from '../../src/env/world.ts';
import type { World, WorldSize } from '../../src/env/types.ts';

const SIZES: WorldSize[] = ['tiny', 'small', 'standard'];
const cache = new Map<string, World>();
function world(size: WorldSize, seed: number): World {
  const key = `${size}:${seed}`;
  if (!cache.has(key)) cache.set(key, generateWorld(size, seed));
  return cache.get(key)!;
}
const within = (x: number, [lo, hi]: [number, number]) => x >= lo && x <= hi;

describe('citySet', () => {
  it('embeds the 312 benchmark pairs with their states', () => {
    expect(CITY_STATE_PAIRS).toHaveLength(312);
    expect(CITY_STATE_PAIRS[0]).toEqual(['San Diego', 'California']);
    expect(citiesOfStates().get('Texas')).toHaveLength(23);
    expect(stateOfCity("Martha's Vineyard")).toBe('Massachusetts');
    expect(stateOfCity('Atlantis')).toBeUndefined();
    expect(new Set(CITY_STATE_PAIRS.map(([c]) => c)).size).toBe(312); // city names are unique
  });
});

describe('generateWorld', () => {
  it('is deterministic per seed and differs across seeds', () => {
    const a = generateWorld('small', 11);
    const b = generateWorld('small', 11);
    expect(worldFingerprint(a)).toBe(worldFingerprint(b));
    expect(worldSummary(a)).toEqual(worldSummary(b));
    expect([...a.flights.values()].slice(0, 50)).toEqual([...b.flights.values()].slice(0, 50));
    expect(worldFingerprint(generateWorld('small', 12))).not.toBe(worldFingerprint(a));
  });

  it('rejects an unknown size with a clear message', () => {
    expect(() => generateWorld('huge' as WorldSize, 1)).toThrow(/unknown world size 'huge'/);
  });

  for (const size of SIZES) {
    for (const seed of size === 'standard' ? [1, 2, 3] : [1, 2, 3, 4, 5, 6]) {
      it(`${size} seed ${seed}: sizes within the spec, real cities, every row well-formed`, () => {
        const w = world(size, seed);
        const spec = WORLD_SIZES[size];
        const dest = destinationStates(w);
        expect(dest.length).toBe(spec.destinationStates);
        let destCities = 0;
        for (const state of dest) {
          const n = w.citiesByState.get(state)!.length;
          expect(within(n, spec.citiesPerState)).toBe(true);
          destCities += n;
        }
        expect(w.stateOf.size).toBe(destCities + spec.originCities);
        for (const [city, state] of w.stateOf) {
          expect(stateOfCity(city)).toBe(state);
          expect(w.citiesByState.get(state)).toContain(city);
          const restaurants = w.restaurants.get(city)!;
          const stays = w.accommodations.get(city)!;
          const sights = w.attractions.get(city)!;
          expect(within(restaurants.length, spec.restaurants)).toBe(true);
          expect(within(stays.length, spec.accommodations)).toBe(true);
          expect(within(sights.length, spec.attractions)).toBe(true);
          for (const r of restaurants) {
            expect(r.city).toBe(city);
            expect(r.cuisines.length).toBeGreaterThanOrEqual(1);
            expect(r.cuisines.every((c) => (ALL_CUISINES as readonly string[]).includes(c))).toBe(true);
            expect(new Set(r.cuisines).size).toBe(r.cuisines.length);
            expect(r.averageCost).toBeGreaterThanOrEqual(8);
            expect(r.averageCost).toBeLessThanOrEqual(100);
            expect(r.rating === 0 || (r.rating >= 2.5 && r.rating <= 4.9)).toBe(true);
          }
          for (const a of stays) {
            expect(ROOM_TYPES).toContain(a.roomType);
            expect(a.houseRules.length).toBeLessThanOrEqual(3);
            expect(a.houseRules.every((h) => (HOUSE_RULES as readonly string[]).includes(h))).toBe(true);
            expect(a.minimumNights).toBeGreaterThanOrEqual(1);
            expect(a.maximumOccupancy).toBeGreaterThanOrEqual(1);
            expect(a.price).toBeGreaterThan(0);
          }
          // a bookable option for a short stay of a group exists in every city
          expect(stays.some((a) => a.roomType === 'Entire home/apt' && a.minimumNights === 1 && a.maximumOccupancy >= 4)).toBe(true);
          for (const s of sights) {
            expect(s.address).toContain(city);
            expect(Math.abs(s.latitude) <= 90 && Math.abs(s.longitude) <= 180).toBe(true);
            expect(s.phone === 'Unknown' || /^\(\d{3}\) \d{3}-\d{4}$/.test(s.phone)).toBe(true);
          }
        }
      });

      it(`${size} seed ${seed}: names are unique and none is a substring of another in its city`, () => {
        expect(findNameConflicts(world(size, seed))).toEqual([]);
      });
    }
  }

  it('many seeds: exact destination-state count and the naming rule always hold', () => {
    for (const [size, seeds] of [['tiny', 30], ['small', 5]] as const) {
      for (let seed = 100; seed < 100 + seeds; seed++) {
        const w = generateWorld(size, seed);
        expect(destinationStates(w).length, `${size} ${seed}`).toBe(WORLD_SIZES[size].destinationStates);
        expect(findNameConflicts(w), `${size} ${seed}`).toEqual([]);
      }
    }
  });

  it('findNameConflicts catches a repeated name, a substring and a comma', () => {
    const w = generateWorld('tiny', 5);
    const city = [...w.stateOf.keys()][0];
    const restaurants = w.restaurants.get(city)!;
    const base = restaurants[0].name;
    restaurants.push({ ...restaurants[0], name: `${base} Annex` });
    restaurants.push({ ...restaurants[0], name: 'Fish, Chips' });
    const otherCity = [...w.stateOf.keys()][1];
    w.attractions.get(otherCity)!.push({ ...w.attractions.get(otherCity)![0], name: base });
    const problems = findNameConflicts(w);
    expect(problems.some((p) => p.includes(`'${base}' is part of '${base} Annex'`))).toBe(true);
    expect(problems.some((p) => p.includes('appears twice'))).toBe(true);
    expect(problems.some((p) => p.includes('comma'))).toBe(true);
  });

  it('flights: unique numbers, TravelPlanner formats, keyed by route and date, within the date range', () => {
    const w = world('standard', 1);
    const numbers = new Set<string>();
    const dates = new Set(WORLD_DATES);
    let count = 0;
    const bad: string[] = []; // plain checks: ~70k rows are too many for one expect() each
    for (const [key, rows] of w.flights) {
      if (rows.length === 0) bad.push(`${key}: empty list stored`);
      for (const f of rows) {
        count++;
        numbers.add(f.flightNumber);
        const ok =
          key === `${f.origin}|${f.dest}|${f.date}` &&
          /^F\d{7}$/.test(f.flightNumber) &&
          /^\d+ hours \d{1,2} minutes$/.test(f.elapsed) &&
          /^([01]\d|2[0-3]):[0-5]\d$/.test(f.depTime) &&
          /^([01]\d|2[0-3]):[0-5]\d$/.test(f.arrTime) &&
          dates.has(f.date) &&
          f.price > 0 &&
          f.distance > 0;
        if (!ok) bad.push(`${key}: ${JSON.stringify(f)}`);
      }
    }
    expect(bad.slice(0, 5)).toEqual([]);
    expect(count).toBeGreaterThan(10_000);
    expect(numbers.size).toBe(count);
  });

  it('every pair of cities is reachable on every date, yet transport constraints bite', () => {
    for (const size of SIZES) {
      const w = world(size, 1);
      const cities = [...w.stateOf.keys()];
      let noDrive = 0;
      let noFlight = 0;
      for (const a of cities) {
        for (const b of cities) {
          if (a === b) continue;
          const drive = w.drives.get(`${a}|${b}`);
          if (drive === undefined) noDrive++;
          else expect(drive.durationMinutes).toBeLessThan(MAX_DRIVE_MINUTES);
          for (const date of WORLD_DATES) {
            const flights = w.flights.get(`${a}|${b}|${date}`);
            if (flights === undefined) noFlight++;
            if (drive === undefined) expect(flights, `${a} -> ${b} on ${date}`).toBeDefined();
          }
        }
      }
      if (size === 'standard') {
        expect(noDrive).toBeGreaterThan(0); // some pairs are too far to drive
        expect(noFlight).toBeGreaterThan(0); // some pairs have no flight on some dates
      }
    }
  });

  it('summarises counts that match the world and exposes its dates', () => {
    const w = world('tiny', 1);
    const s = worldSummary(w);
    expect(s.cities).toBe(w.stateOf.size);
    expect(s.states).toBe(w.citiesByState.size);
    expect(s.restaurants).toBe([...w.restaurants.values()].reduce((n, r) => n + r.length, 0));
    expect(s.flights).toBe([...w.flights.values()].reduce((n, r) => n + r.length, 0));
    expect(s.drives).toBe(w.drives.size);
    expect(s.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(worldDates(w)).toBe(WORLD_DATES);
    expect(WORLD_DATES).toHaveLength(31);
    expect([s.firstDate, s.lastDate]).toEqual(['2022-03-01', '2022-03-31']);
  });

  it('derives a loaded world’s dates from its flights, covering at least March 2022', () => {
    const w = generateWorld('tiny', 1);
    const flight = [...w.flights.values()][0][0];
    const real: World = { ...w, source: 'real', flights: new Map([['A|B|2022-04-02', [{ ...flight, date: '2022-04-02' }]]]) };
    const dates = worldDates(real);
    expect(dates[0]).toBe('2022-03-01');
    expect(dates.slice(-3)).toEqual(['2022-03-31', '2022-04-01', '2022-04-02']);
    expect(dates).toHaveLength(33);
  });
});
