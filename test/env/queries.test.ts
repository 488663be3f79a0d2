import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/env/random.ts';
import { generateWorld } from '../../src/env/world.ts';
import { buildDataset, generateQuery, GROWN_HELD_OUT, grownHeldOut, levelCounts, queryKey } from '../../src/env/queries.ts';
import { createHash } from 'node:crypto';
import { dateRangeText, moneyText } from '../../src/env/queryText.ts';
import { planTrip } from '../../src/env/teacher.ts';
import { fillPlan } from '../../src/env/itinerary.ts';
import { chooseStructure } from '../../src/env/tripStructure.ts';
import { toolCatalog } from '../../src/env/teacher.ts';
import { evaluatePlan } from '../../src/env/evaluate.ts';
import { parseRealQuery } from '../../src/env/realQueries.ts';
import type { Level, Query, World } from '../../src/env/types.ts';

const LEVELS: Level[] = ['easy', 'medium', 'hard'];

function sample(world: World, seed: number, perLevel: number): Query[] {
  const rng = new Rng(seed);
  const out: Query[] = [];
  for (const level of LEVELS) {
    let made = 0;
    for (let i = 0; made < perLevel && i < 30 * perLevel; i++) {
      const q = generateQuery(world, level, rng.fork(i));
      if (q) {
        out.push(q);
        made++;
      }
    }
    expect(made, `${level} queries`).toBe(perLevel);
  }
  return out;
}

const addDay = (iso: string) => new Date(Date.parse(`${iso}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

describe('generateQuery', () => {
  for (const size of ['tiny', 'small'] as const) {
    it(`every query follows the level rules and TravelPlanner's fields (${size})`, () => {
      const world = generateWorld(size, 21);
      for (const q of sample(world, 5, 25)) {
        const lc = q.local_constraint;
        const others = [lc['house rule'], lc.cuisine, lc['room type']].filter((x) => x !== null).length;
        if (q.level === 'easy') expect([others, lc.transportation]).toEqual([0, null]);
        if (q.level === 'medium') expect([others, lc.transportation]).toEqual([1, null]);
        if (q.level === 'hard') {
          expect(others).toBe(2);
          expect(['no flight', 'no self-driving']).toContain(lc.transportation);
        }
        if (lc.cuisine) expect(lc.cuisine.length).toBeGreaterThan(0);

        expect(q.visiting_city_number).toBe({ 3: 1, 5: 2, 7: 3 }[q.days]);
        if (q.days === 3) expect(world.stateOf.has(q.dest)).toBe(true);
        else expect(world.citiesByState.has(q.dest)).toBe(true);
        const destState = q.days === 3 ? world.stateOf.get(q.dest) : q.dest;
        expect(world.stateOf.get(q.org)).not.toBe(destState);
        expect(q.date.length).toBe(q.days);
        for (let i = 1; i < q.days; i++) expect(q.date[i]).toBe(addDay(q.date[i - 1]));
        expect(q.people_number).toBeGreaterThanOrEqual(1);
        expect(q.people_number).toBeLessThanOrEqual(8);
        expect(q.budget % 100).toBe(0);

        // the text states every field
        for (const s of [q.org, q.dest, dateRangeText(q.date), moneyText(q.budget)]) expect(q.query).toContain(s);
        if (q.days > 3) expect(q.query).toContain(`${q.visiting_city_number}`);
        if (q.people_number === 1) expect(q.query).toMatch(/single person|one person|solo/);
        else expect(q.query).toMatch(new RegExp(`\\b(${q.people_number}|${['', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'][q.people_number]})\\b`));
        const rule = lc['house rule'];
        if (rule) expect(q.query).toContain(rule === 'pets' ? 'pet' : rule);
        const rt = lc['room type'];
        if (rt) expect(q.query).toMatch(rt === 'not shared room' ? /not .*shared rooms|not want shared/ : new RegExp(rt.split(' ')[0]));
        for (const c of lc.cuisine ?? []) expect(q.query).toContain(c);
        if (lc.transportation === 'no flight') expect(q.query).toMatch(/fly|flights/);
        if (lc.transportation === 'no self-driving') expect(q.query).toContain('self-driving');
      }
    });
  }

  it("the text alone gives back every structured field (read by the parser of TravelPlanner's real queries)", () => {
    const world = generateWorld('small', 24);
    for (const q of sample(world, 8, 40)) {
      const parsed = parseRealQuery(q.query, world.stateOf);
      expect(parsed, q.query).toEqual(q);
    }
  });

  it('every query is feasible: a teacher plan within budget passes the evaluator', () => {
    const world = generateWorld('small', 22);
    for (const [i, q] of sample(world, 6, 10).entries()) {
      const p = planTrip(world, q, new Rng(i), q.budget);
      expect(p).not.toBeNull();
      expect(evaluatePlan(world, q, p!.plan).finalPass).toBe(true);
    }
  });

  it('budgets are feasible but not loose: a plan sampled without regard to cost often exceeds them', () => {
    const world = generateWorld('small', 23);
    const queries = sample(world, 7, 20);
    let over = 0;
    for (const [i, q] of queries.entries()) {
      const rng = new Rng(1000 + i);
      const s = chooseStructure(toolCatalog(world), q, rng, null)!;
      const free = fillPlan(toolCatalog(world), q, s.structure, { rng, thrift: 0 });
      if (free && free.cost > q.budget) over++;
    }
    expect(over / queries.length).toBeGreaterThan(0.2);
    expect(over / queries.length).toBeLessThan(0.95);
  });

  it('rejects an unknown level with a clear error', () => {
    expect(() => generateQuery(generateWorld('tiny', 1), 'expert' as Level, new Rng(1))).toThrow(/unknown level/);
  });
});

describe('buildDataset', () => {
  const world = generateWorld('tiny', 30);

  it('has the requested size and mix, and disjoint duplicate-free splits', () => {
    const ds = buildDataset(world, { size: 50, mix: [4, 3, 3], seed: 1, validationSize: 20, testSize: 30 });
    const count = (qs: Query[]) => LEVELS.map((l) => qs.filter((q) => q.level === l).length);
    expect(count(ds.train)).toEqual([20, 15, 15]);
    expect(count(ds.validation)).toEqual([8, 6, 6]);
    expect(count(ds.test)).toEqual([12, 9, 9]);
    const keys = [...ds.train, ...ds.validation, ...ds.test].map(queryKey);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('keeps the held-out splits fixed across training size and mix, and is deterministic', () => {
    const a = buildDataset(world, { size: 20, mix: [4, 3, 3], seed: 2, validationSize: 10, testSize: 15 });
    const b = buildDataset(world, { size: 40, mix: [0, 0, 1], seed: 2, validationSize: 10, testSize: 15 });
    expect(b.test).toEqual(a.test);
    expect(b.validation).toEqual(a.validation);
    expect(b.train.every((q) => q.level === 'hard')).toBe(true);
    expect(buildDataset(world, { size: 20, mix: [4, 3, 3], seed: 2, validationSize: 10, testSize: 15 })).toEqual(a);
    const c = buildDataset(world, { size: 20, mix: [4, 3, 3], seed: 3, validationSize: 10, testSize: 15 });
    expect(c.test).not.toEqual(a.test);
  });

  it('splits counts by largest remainder and rejects bad options', () => {
    expect(levelCounts(7, [4, 3, 3])).toEqual([3, 2, 2]);
    expect(levelCounts(10, [1, 1, 1])).toEqual([4, 3, 3]);
    expect(levelCounts(5, [0, 1, 0])).toEqual([0, 5, 0]);
    expect(() => levelCounts(5, [0, 0, 0])).toThrow(/mix/);
    expect(() => buildDataset(world, { size: -1, mix: [4, 3, 3], seed: 1 })).toThrow(/size/);
    expect(() => buildDataset(world, { size: 5, mix: [1, -1, 3] as [number, number, number], seed: 1, testSize: 0, validationSize: 0 })).toThrow(/mix/);
  });
});

describe('grown held-out splits', () => {
  const sha = (x: unknown) => createHash('sha256').update(JSON.stringify(x)).digest('hex');
  const count = (qs: Query[]) => LEVELS.map((l) => qs.filter((q) => q.level === l).length);

  it("leave the shipped checkpoints' SFT training split and first 100 held-out queries as they were", () => {
    // the shipped cards' data: world tiny seed 1, 1000 training queries at 4:3:3, validation 100 after test 100.
    // These hashes were taken before the extensions existed: a change here invalidates public/checkpoints.
    const world = generateWorld('tiny', 1);
    const ds = buildDataset(world, { size: 1000, mix: [4, 3, 3], seed: 1, validationSize: 100, testSize: 100, ...grownHeldOut(100, 100) });
    expect(sha(ds.train)).toBe('5589d65bd6ca28413914d84cbaf7be0627b0d8d932dd1c2704d9cde8b0e4ecc6');
    expect(sha(ds.validation.slice(0, 100))).toBe('4ccce9ec577f6b78e585a00f89b09a4cb18e1fc6d8b8e52a355323f1a066c2db');
    expect(sha(ds.test.slice(0, 100))).toBe('8666def51d5eb6039c2c641aebd36449ad315f9981a186e66ca792e5cb5ceb1b');
    expect(GROWN_HELD_OUT).toBe(300);
    expect(ds.validation).toHaveLength(300);
    expect(ds.test).toHaveLength(300);
    expect(count(ds.validation)).toEqual([120, 90, 90]); // 4:3:3 as a whole, as the first 100 are
    expect(count(ds.test)).toEqual([120, 90, 90]);
    const keys = [...ds.train, ...ds.validation, ...ds.test].map(queryKey);
    expect(new Set(keys).size).toBe(keys.length);
  }, 60_000);

  it('grownHeldOut tops each split up to GROWN_HELD_OUT, never down', () => {
    expect(grownHeldOut(100, 100)).toEqual({ validationExtension: 200, testExtension: 200 });
    expect(grownHeldOut(2, 0)).toEqual({ validationExtension: 298, testExtension: 300 });
    expect(grownHeldOut(400, 300)).toEqual({ validationExtension: 0, testExtension: 0 });
  });

  it('extensions keep the training split and the first held-out queries, and are disjoint from all of them', () => {
    const world = generateWorld('tiny', 30);
    const base = { size: 30, mix: [4, 3, 3] as const, seed: 5, validationSize: 6, testSize: 4 };
    const plain = buildDataset(world, base);
    const grown = buildDataset(world, { ...base, validationExtension: 10, testExtension: 7 });
    expect(grown.train).toEqual(plain.train);
    expect(grown.validation.slice(0, 6)).toEqual(plain.validation);
    expect(grown.test.slice(0, 4)).toEqual(plain.test);
    expect([grown.validation.length, grown.test.length]).toEqual([16, 11]);
    const keys = [...grown.train, ...grown.validation, ...grown.test].map(queryKey);
    expect(new Set(keys).size).toBe(keys.length);
    expect(() => buildDataset(world, { ...base, validationExtension: -1 })).toThrow(/validationExtension/);
  });

  it('exclude replaces only the training queries it names, in place and at their level', () => {
    const world = generateWorld('tiny', 30);
    const base = { size: 30, mix: [1, 1, 1] as const, seed: 6, validationSize: 3, testSize: 3 };
    const plain = buildDataset(world, base);
    const named = [plain.train[2], plain.train[7], plain.train[20]];
    const other = buildDataset(world, { ...base, exclude: [...named.map(queryKey), 'not|a|key'] });
    expect(other.validation).toEqual(plain.validation);
    expect(other.test).toEqual(plain.test);
    other.train.forEach((q, i) => {
      if ([2, 7, 20].includes(i)) {
        expect(q.level).toBe(plain.train[i].level);
        expect(queryKey(q)).not.toBe(queryKey(plain.train[i]));
      } else {
        expect(q).toEqual(plain.train[i]);
      }
    });
    const keys = [...other.train, ...other.validation, ...other.test].map(queryKey);
    expect(new Set(keys).size).toBe(keys.length);
    expect(buildDataset(world, { ...base, exclude: ['not|a|key'] })).toEqual(plain);
  });
});
