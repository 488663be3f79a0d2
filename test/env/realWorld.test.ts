// The `real` world: TravelPlanner's own rows from train_ref_info.jsonl, merged into one World.
import { describe, expect, it } from 'vitest';
import { loadCitySet, loadRealExamples, loadRealWorld } from '../../src/env/node/realData.ts';
import { buildRealWorld, parseDriveText } from '../../src/env/realWorld.ts';
import { selfDrivingCost, taxiCost } from '../../src/env/interop/rows.ts';

const world = loadRealWorld();
const examples = loadRealExamples();

describe('real world', () => {
  it('is the merged, de-duplicated reference rows', () => {
    expect(world.source).toBe('real');
    const count = (m: Map<string, unknown[]>) => [...m.values()].reduce((n, l) => n + l.length, 0);
    expect(count(world.restaurants)).toBe(1989);
    expect(count(world.accommodations)).toBe(790);
    expect(count(world.attractions)).toBe(1282);
    expect(count(world.flights)).toBe(313);
    expect(world.drives.size).toBe(123);
    expect(world.stateOf.size).toBe(312); // the whole city set, as the official evaluator's map
    expect(world.stateOf.get('Rockford')).toBe('Illinois');
    expect(world.citiesByState.get('Illinois')).toContain('Rockford');
    // origin cities appear through their flights
    expect(world.citiesByState.get('Saint Petersburg')).toEqual(['St. Petersburg']);
  });

  it('finds every reference row of every query', () => {
    for (const { index, refInfo } of examples) {
      for (const [key, value] of Object.entries(refInfo)) {
        const m = /^(Restaurants|Accommodations|Attractions) in (.+)$/.exec(key);
        if (m && Array.isArray(value)) {
          const table = m[1] === 'Restaurants' ? world.restaurants : m[1] === 'Accommodations' ? world.accommodations : world.attractions;
          expect(table.get(m[2])?.length, `line ${index} ${key}`).toBe(value.length);
        }
        const f = /^Flight from (.+?) to (.+) on (\S+)$/.exec(key);
        if (f) expect(world.flights.get(`${f[1]}|${f[2]}|${f[3]}`)?.length ?? 0, key).toBe(Array.isArray(value) ? value.length : 0);
        const d = /^(Self-driving|Taxi) from (.+?) to (.+)$/.exec(key);
        if (d && typeof value === 'string') {
          const parsed = parseDriveText(value);
          expect(world.drives.get(`${d[2]}|${d[3]}`) ?? null, key).toEqual(parsed?.drive ?? null);
          // TravelPlanner's costs are ⌊km·0.05⌋ self-driving and ⌊km⌋ taxi: the lab's formula reproduces every one
          if (parsed) expect(parsed.cost, value).toBe(parsed.mode === 'taxi' ? taxiCost(parsed.drive.distanceKm) : selfDrivingCost(parsed.drive.distanceKm));
        }
      }
    }
  });

  it('splits house rules and cuisines into lists', () => {
    const acc = world.accommodations.get('Rockford')!.find((a) => a.name === 'Private Room in a two bedroom apt.')!;
    expect(acc).toMatchObject({ price: 210, roomType: 'Private room', houseRules: ['No visitors', 'No smoking'], minimumNights: 1, maximumOccupancy: 2, rating: 4 });
    const r = world.restaurants.get('Rockford')!.find((x) => x.name === 'Coco Bambu')!;
    expect(r.cuisines).toEqual(['Tea', 'French', 'Bakery', 'BBQ', 'Cafe']);
  });

  it('reads drive texts, including decimals and "no valid information"', () => {
    expect(parseDriveText('self-driving, from A to B, duration: 19 hours 6 mins, distance: 2,103 km, cost: 105')).toEqual({
      mode: 'self-driving', cost: 105, drive: { origin: 'A', destination: 'B', durationMinutes: 1146, distanceKm: 2103 },
    });
    expect(parseDriveText('taxi, from A to B, duration: 56 mins, distance: 70.7 km, cost: 70')?.drive.distanceKm).toBe(70.7);
    expect(parseDriveText('No valid information.')).toBeNull();
    expect(() => parseDriveText('self-driving, somewhere')).toThrow(/cannot read/);
  });

  it('names the line and key of a bad row', () => {
    const cities = loadCitySet();
    expect(() => buildRealWorld(['{"Accommodations in X": [{"NAME": "a", "price": 1}]}'], cities)).toThrow(/line 1, "Accommodations in X": missing "room type"/);
    expect(() => buildRealWorld(['not json'], cities)).toThrow(/line 1: not JSON/);
  });
});
