import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/env/random.ts';
import { generateWorld } from '../../src/env/world.ts';
import { generateQuery } from '../../src/env/queries.ts';
import { observedCatalog, planTrip, teachTrajectory } from '../../src/env/teacher.ts';
import { fillPlan } from '../../src/env/itinerary.ts';
import { evaluatePlan, planCost } from '../../src/env/evaluate.ts';
import type { Level, Query, World } from '../../src/env/types.ts';
import { planViolations } from './planRules.ts';
import { loadRealExamples, loadRealWorld } from '../../src/env/node/realData.ts';

const LEVELS: Level[] = ['easy', 'medium', 'hard'];

function queriesFor(world: World, seed: number, n: number): Query[] {
  const rng = new Rng(seed);
  const out: Query[] = [];
  for (let i = 0; out.length < n && i < 20 * n; i++) {
    const q = generateQuery(world, LEVELS[i % 3], rng.fork(i));
    if (q) out.push(q);
  }
  return out;
}

describe('teacher', () => {
  for (const size of ['tiny', 'small'] as const) {
    for (const seed of [1, 2, 3]) {
      it(`every plan is valid and built from its own observations (${size}, world seed ${seed})`, () => {
        const world = generateWorld(size, seed);
        const queries = queriesFor(world, 100 + seed, 24);
        expect(queries.length).toBe(24);
        queries.forEach((q, i) => {
          const t = teachTrajectory(world, q, { rng: new Rng(i) });
          expect(t, `teacher failed on ${q.query}`).not.toBeNull();
          expect(t!.steps.every((s) => s.observation.kind !== 'error')).toBe(true);
          expect(planViolations(world, q, t!.plan!, t!.steps), q.query).toEqual([]);
          for (const faithful of [false, true]) {
            const v = evaluatePlan(world, q, t!.plan, { faithful });
            const failed = [...Object.entries(v.commonsense), ...Object.entries(v.hard ?? {})].filter(([, r]) => r.pass === false);
            expect(failed, q.query).toEqual([]);
            expect(v.finalPass).toBe(true);
          }
          // a sensible order: SearchCity first for state trips, then leg by leg (transport, then the
          // city it reaches), the trip home last
          if (q.days > 3) expect(t!.steps[0].call.tool).toBe('SearchCity');
          expect(['SearchFlight', 'GoogleDistanceMatrix']).toContain(t!.steps[q.days > 3 ? 1 : 0].call.tool);
          const last = t!.steps[t!.steps.length - 1].call;
          expect(['SearchFlight', 'GoogleDistanceMatrix']).toContain(last.tool);
          expect((last.args as { destination: string }).destination).toBe(q.org);
          const firstCitySearch = t!.steps.findIndex((x) => x.call.tool === 'SearchAccommodation');
          const firstCity = (t!.steps[firstCitySearch].call.args as { city: string }).city;
          const legIn = t!.steps.findIndex((x) => (x.call.args as { destination?: string }).destination === firstCity);
          expect(legIn).toBeGreaterThanOrEqual(0);
          expect(t!.steps.slice(legIn + 1, firstCitySearch).every((x) => x.call.tool === 'GoogleDistanceMatrix')).toBe(true);
        });
      });
    }
  }

  it('the rule checker itself catches broken plans', () => {
    const world = generateWorld('tiny', 9);
    const [q] = queriesFor(world, 17, 1);
    const t = teachTrajectory(world, q, { rng: new Rng(1) })!;
    const plan = t.plan!;
    const full = plan.findIndex((d) => d.transportation === '-');
    const dupMeal = plan.map((d) => ({ ...d }));
    dupMeal[full].lunch = dupMeal[full].breakfast;
    expect(planViolations(world, q, dupMeal, t.steps).join()).toMatch(/repeated/);
    const noHome = plan.map((d) => ({ ...d }));
    noHome[noHome.length - 1].current_city = `from ${q.dest} to Nowhere`;
    expect(planViolations(world, q, noHome, t.steps).join()).toMatch(/origin/);
    const unseen = plan.map((d) => ({ ...d }));
    expect(planViolations(world, q, unseen, t.steps.filter((s) => s.call.tool !== 'SearchRestaurant')).join()).toMatch(/never observed/);
    expect(planViolations(world, { ...q, budget: 1 }, plan, t.steps).join()).toMatch(/over budget/);
  });

  it('retries after injected failures and still writes a valid plan', () => {
    const world = generateWorld('small', 4);
    const queries = queriesFor(world, 7, 15);
    let failures = 0;
    for (const [i, q] of queries.entries()) {
      const t = teachTrajectory(world, q, { rng: new Rng(i), failureRate: 0.3 });
      expect(t).not.toBeNull();
      const steps = t!.steps;
      steps.forEach((s, k) => {
        if (s.observation.kind === 'error') {
          expect(s.observation.failure).toBe(true);
          failures++;
          expect(steps[k + 1].call).toEqual(s.call); // the same call again
        }
      });
      expect(steps[steps.length - 1].observation.kind).not.toBe('error');
      expect(planViolations(world, q, t!.plan!, steps)).toEqual([]);
      expect(evaluatePlan(world, q, t!.plan).finalPass).toBe(true);
    }
    expect(failures).toBeGreaterThan(10);
  });

  it('is deterministic for a seed, and a stable sandbox has no failures', () => {
    const world = generateWorld('tiny', 5);
    const [q] = queriesFor(world, 3, 1);
    const a = teachTrajectory(world, q, { rng: new Rng(42), failureRate: 0.2 });
    const b = teachTrajectory(world, q, { rng: new Rng(42), failureRate: 0.2 });
    expect(a).toEqual(b);
  });

  it('samples among valid plans instead of always the cheapest', () => {
    const world = generateWorld('small', 6);
    const queries = queriesFor(world, 11, 6);
    let aboveCheapest = 0;
    let distinctTotal = 0;
    for (const q of queries) {
      const plans = new Set<string>();
      for (let s = 0; s < 8; s++) {
        const t = teachTrajectory(world, q, { rng: new Rng(s) })!;
        plans.add(JSON.stringify(t.plan));
        const chosen = planTrip(world, q, new Rng(s), q.budget)!;
        expect(planCost(world, q, chosen.plan)).toBe(chosen.cost); // the planner prices plans as the evaluator does
        const cheapest = fillPlan(observedCatalog(t.steps), q, chosen.structure, null);
        if (cheapest && chosen.cost > cheapest.cost) aboveCheapest++;
      }
      distinctTotal += plans.size;
    }
    expect(distinctTotal).toBeGreaterThan(queries.length * 3);
    expect(aboveCheapest).toBeGreaterThan(10);
  });

  it('sometimes makes a redundant repeated search', () => {
    const world = generateWorld('tiny', 7);
    const queries = queriesFor(world, 13, 20);
    let repeats = 0;
    for (const [i, q] of queries.entries()) {
      const t = teachTrajectory(world, q, { rng: new Rng(i), redundantCallRate: 0.5 })!;
      const keys = t.steps.map((s) => JSON.stringify(s.call));
      if (new Set(keys).size < keys.length) repeats++;
      expect(planViolations(world, q, t.plan!, t.steps)).toEqual([]);
    }
    expect(repeats).toBeGreaterThan(3);
  });

  it("solves all 45 real TravelPlanner queries within their real budgets on the real world's rows", () => {
    const world = loadRealWorld();
    const examples = loadRealExamples();
    expect(examples.length).toBe(45);
    for (const ex of examples) {
      const t = teachTrajectory(world, ex.query, { rng: new Rng(ex.index), failureRate: 0.1 });
      expect(t, ex.query.query).not.toBeNull();
      for (const faithful of [false, true]) expect(evaluatePlan(world, ex.query, t!.plan, { faithful }).finalPass, ex.query.query).toBe(true);
      expect(planViolations(world, ex.query, t!.plan!, t!.steps), ex.query.query).toEqual([]);
    }
  });

  it('gives up (null) when no plan fits the budget, and rejects a bad failure rate', () => {
    const world = generateWorld('tiny', 8);
    const [q] = queriesFor(world, 5, 1);
    expect(teachTrajectory(world, { ...q, budget: 10 }, { rng: new Rng(1) })).toBeNull();
    expect(() => teachTrajectory(world, q, { rng: new Rng(1), failureRate: 1.5 })).toThrow(/failureRate/);
  });
});
