// The official evaluation's quirks (QUIRKS in src/env/evaluate.ts), each pinned on the hand-made
// world, plus malformed plans that must never throw.
import { describe, expect, it } from 'vitest';
import { evaluatePlan, planCost } from '../../src/env/evaluate.ts';
import { hardConstraintCount } from '../../src/env/hard.ts';
import { COMMONSENSE_KEYS } from '../../src/env/types.ts';
import type { Plan, PlanDay, Query } from '../../src/env/types.ts';
import { austinPlan, austinQuery, makeEvalWorld } from './fixtures/evalWorld.ts';

const world = makeEvalWorld();
const faithful = { faithful: true };

function edit(plan: PlanDay[], day: number, patch: Partial<Record<keyof PlanDay, unknown>>): PlanDay[] {
  return plan.map((d, i) => (i === day - 1 ? ({ ...d, ...patch } as PlanDay) : d));
}
const failing = (q: Query, plan: Plan, opts = {}) => {
  const v = evaluatePlan(world, q, plan, opts);
  return [...COMMONSENSE_KEYS.filter((k) => v.commonsense[k].pass === false)];
};

describe('quirks reproduced in both modes', () => {
  it('Q4: minimum nights are only enforced when exactly one listing matches', () => {
    // "e" is a substring of all three Austin listings: the rule is skipped, the first (the loft, min 2) is priced
    const plan = edit(edit(austinPlan(), 1, { accommodation: 'e, Austin' }), 2, { accommodation: 'Eastside Room, Austin' });
    for (const opts of [{}, faithful]) {
      const v = evaluatePlan(world, austinQuery(), plan, opts);
      expect(v.commonsense.is_valid_accommodation.pass).toBe(true);
      expect(v.finalPass).toBe(true);
      expect(v.cost).toBe(1956 - 200 + 80);
    }
    const exact = edit(plan, 1, { accommodation: 'Congress Ave Loft, Austin' });
    expect(evaluatePlan(world, austinQuery(), exact).commonsense.is_valid_accommodation.pass).toBe(false);
  });
  it("Q5: a meal in the origin city makes valid_cuisine skip the rest of that day's meals", () => {
    const q = austinQuery({ level: 'medium', local_constraint: { 'house rule': null, cuisine: ['Mexican'], 'room type': null, transportation: null } });
    expect(evaluatePlan(world, q, austinPlan()).hard!.valid_cuisine.pass).toBe(true); // Taco Palace, day 1 lunch
    const plan = edit(austinPlan(), 1, { breakfast: 'Beacon Bagels, Boston' });
    for (const opts of [{}, faithful]) {
      const v = evaluatePlan(world, q, plan, opts);
      expect(v.hard!.valid_cuisine).toEqual({ pass: false, reason: 'No meal outside Boston serves Mexican cuisine' });
      expect(failing(q, plan, opts)).toEqual([]);
    }
  });
  it("Q7: house rule 'parties' is checked (current official code)", () => {
    const q = austinQuery({ level: 'medium', local_constraint: { 'house rule': 'parties', cuisine: null, 'room type': null, transportation: null } });
    const plan = edit(edit(austinPlan(), 1, { accommodation: 'Eastside Room, Austin' }), 2, { accommodation: 'Eastside Room, Austin' });
    expect(evaluatePlan(world, q, plan, faithful).hard!.valid_room_rule.reason).toBe("Day 1 stay 'Eastside Room' says 'No parties', but the query needs parties allowed");
  });
  it('Q16: a lower-case "flight number" cannot be looked up (the official script raises)', () => {
    const q = austinQuery({ level: 'hard', local_constraint: { 'house rule': null, cuisine: null, 'room type': null, transportation: 'no flight' } });
    const lower = austinPlan().map((d) => ({ ...d, transportation: d.transportation.replace('Flight Number', 'flight number') }));
    const v = evaluatePlan(world, q, lower, faithful);
    // 'flight number' (lower case) has no 'Flight Number: ' to look up: the sandbox check fails first
    expect(v.commonsense.is_valid_information_in_sandbox.reason).toMatch(/has no 'Flight Number: ' to look up/);
    expect(v.hard).toBeNull();
  });
  it('Q11: a drive of a day or more does not exist', () => {
    const plan = edit(austinPlan(), 1, { transportation: 'Self-driving, from Boston to Houston' });
    const v = evaluatePlan(world, austinQuery(), plan, faithful);
    expect(v.commonsense.is_valid_information_in_sandbox.reason).toBe('Day 1 self-driving from Boston to Houston is not in the database (no drive of less than a day)');
  });
  it('a taxi with no route anywhere on the day is invalid (the official looks up "-" to "-")', () => {
    const plan = edit(austinPlan(), 2, { transportation: 'Taxi' });
    const v = evaluatePlan(world, austinQuery(), plan, faithful);
    expect(v.commonsense.is_valid_information_in_sandbox.reason).toBe('Day 2 taxi from - to - is not in the database (no drive of less than a day)');
  });
  it('Q13: days past query.days are ignored; the "not needed" filler is not a planned day', () => {
    const longer = [...austinPlan(), { days: 4, current_city: 'nonsense' } as unknown as PlanDay];
    expect(evaluatePlan(world, austinQuery(), longer).finalPass).toBe(true);
    const filler = edit(austinPlan(), 3, { current_city: "You don't need to fill in the information for this or later days." });
    expect(evaluatePlan(world, austinQuery(), filler).commonsense.is_not_absent.reason).toBe("The plan fills 2 of the trip's 3 days");
  });
  it('Q20: a party larger than a listing books several units (cost only)', () => {
    expect(planCost(world, austinQuery({ people_number: 9 }), austinPlan())).toBe(620 * 9 + 158 * 9 + 200 * 3 * 2);
  });
});

describe('Q12: JSON null fields', () => {
  const plan = edit(austinPlan(), 3, { transportation: null });
  it('faithful: a null is not blank, so a travel day without transportation passes is_not_absent', () => {
    const v = evaluatePlan(world, austinQuery(), plan, faithful);
    expect(v.commonsense.is_not_absent.pass).toBe(true);
    expect(v.cost).toBe(1956 - 640);
  });
  it('lab: a null is blank', () => {
    expect(evaluatePlan(world, austinQuery(), plan).commonsense.is_not_absent.reason).toBe("Day 3 travels ('from Austin to Boston') but has no transportation");
  });
});

describe('malformed plans never throw', () => {
  const q = austinQuery();
  const cases: [string, unknown][] = [
    ['a day without an attraction key', edit(austinPlan(), 1, { attraction: undefined }).map((d) => JSON.parse(JSON.stringify(d)) as PlanDay)],
    ['a day that is a string', ['day one', ...austinPlan().slice(1)]],
    ['a day that is {}', [{}, ...austinPlan().slice(1)]],
    ['numbers for strings', edit(austinPlan(), 2, { breakfast: 42 })],
    ['an unreadable "from" day', edit(austinPlan(), 1, { current_city: 'from Boston' })],
    ['an empty current city with a stay', edit(austinPlan(), 2, { current_city: '' })],
    ['a one-day plan', austinPlan().slice(0, 1)],
  ];
  for (const [name, plan] of cases) {
    it(name, () => {
      for (const opts of [{}, faithful]) {
        const v = evaluatePlan(world, q, plan as Plan, opts);
        expect(v.delivered).toBe(true);
        expect(v.finalPass).toBe(false);
        for (const k of COMMONSENSE_KEYS) expect(typeof v.commonsense[k].reason).toBe('string');
      }
    });
  }
  it('names the missing field', () => {
    const plan = edit(austinPlan(), 1, { attraction: undefined }).map((d) => JSON.parse(JSON.stringify(d)) as PlanDay);
    expect(evaluatePlan(world, q, plan).commonsense.is_not_absent.reason).toBe('Day 1 has no attraction field');
  });
  it('an unreadable "from A to B" fails the route with a reason', () => {
    const plan = edit(austinPlan(), 1, { current_city: 'from Boston' });
    expect(evaluatePlan(world, q, plan).commonsense.is_reasonable_visiting_city.reason).toBe("Day 1 current_city 'from Boston' cannot be read as 'from A to B'");
  });
});

describe('hardConstraintCount (eval.py hard-micro denominator)', () => {
  const lc = { 'house rule': 'pets', cuisine: ['Chinese'], 'room type': 'private room', transportation: 'no flight' } as const;
  it('counts by level as eval.py does', () => {
    expect(hardConstraintCount(austinQuery())).toBe(1);
    expect(hardConstraintCount(austinQuery({ level: 'medium', local_constraint: { ...lc, cuisine: null, 'room type': null, transportation: null } }))).toBe(2);
    // medium never counts a transportation constraint; hard counts all four
    expect(hardConstraintCount(austinQuery({ level: 'medium', local_constraint: { ...lc, cuisine: null, 'room type': null } }))).toBe(2);
    expect(hardConstraintCount(austinQuery({ level: 'hard', local_constraint: { ...lc, cuisine: [...lc.cuisine] } }))).toBe(5);
  });
});

describe('a malformed query', () => {
  it('is a clear error naming the field', () => {
    const bad = { ...austinQuery(), local_constraint: undefined } as unknown as Query;
    expect(() => evaluatePlan(world, bad, austinPlan())).toThrow(/the query has no local_constraint/);
    expect(() => planCost(world, { ...austinQuery(), days: 0 } as unknown as Query, austinPlan())).toThrow(/no positive integer days/);
  });
});
