// The evaluator against hand-made plans on a hand-made World: for each of the 13 checks a plan
// that breaks exactly that rule; a fully valid plan; undelivered plans; costs and metrics worked
// out by hand (numbers in test/env/fixtures/evalWorld.ts).
import { describe, expect, it } from 'vitest';
import { aggregateMetrics, evaluatePlan, planCost } from '../../src/env/evaluate.ts';
import { COMMONSENSE_KEYS, HARD_KEYS } from '../../src/env/types.ts';
import type { CommonsenseKey, HardKey, PlanDay, Query, Verdicts } from '../../src/env/types.ts';
import { austinPlan, austinQuery, FLIGHT_OUT, makeEvalWorld, texasPlan, texasQuery } from './fixtures/evalWorld.ts';

const world = makeEvalWorld();

function edit(plan: PlanDay[], day: number, patch: Partial<PlanDay>): PlanDay[] {
  return plan.map((d, i) => (i === day - 1 ? { ...d, ...patch } : d));
}

/** Every check passes (or is null), except `broken`, which fails with a reason matching `reason`. */
function expectOnlyBroken(v: Verdicts, broken: CommonsenseKey | HardKey, reason: RegExp, hardGated = false): void {
  expect(v.delivered).toBe(true);
  for (const k of COMMONSENSE_KEYS) {
    if (k === broken) {
      expect(v.commonsense[k].pass, k).toBe(false);
      expect(v.commonsense[k].reason).toMatch(reason);
    } else expect(v.commonsense[k].pass, `${k}: ${v.commonsense[k].reason}`).not.toBe(false);
  }
  if (hardGated) expect(v.hard).toBeNull();
  else {
    expect(v.hard).not.toBeNull();
    for (const k of HARD_KEYS) {
      const r = v.hard![k];
      if (k === broken) {
        expect(r.pass, k).toBe(false);
        expect(r.reason).toMatch(reason);
      } else expect(r.pass, `${k}: ${r.reason}`).not.toBe(false);
    }
  }
  expect(v.finalPass).toBe(false);
}

function expectAllPass(v: Verdicts): void {
  for (const k of COMMONSENSE_KEYS) expect(v.commonsense[k].pass, `${k}: ${v.commonsense[k].reason}`).toBe(true);
  expect(v.hard).not.toBeNull();
  for (const k of HARD_KEYS) expect(v.hard![k].pass, `${k}: ${v.hard![k].reason}`).not.toBe(false);
  expect(v.finalPass).toBe(true);
  for (const k of COMMONSENSE_KEYS) expect(v.commonsense[k].reason.length).toBeGreaterThan(10);
}

const both = [{ faithful: false }, { faithful: true }] as const;

describe('valid plans', () => {
  for (const opts of both) {
    it(`a 3-day plan passes everything (faithful=${opts.faithful})`, () => {
      const v = evaluatePlan(world, austinQuery(), austinPlan(), opts);
      expectAllPass(v);
      expect(v.cost).toBe(1956);
      expect(v.hardConstraintCount).toBe(1);
      expect(v.hard!.valid_room_rule.pass).toBeNull();
      expect(v.hard!.valid_cost.reason).toMatch(/\$1,956.*within the budget of \$2,000/);
    });
    it(`a 5-day two-city plan passes everything (faithful=${opts.faithful})`, () => {
      const v = evaluatePlan(world, texasQuery(), texasPlan(), opts);
      expectAllPass(v);
      expect(v.cost).toBe(2683);
    });
    it(`a plan passing every constraint of a hard query (faithful=${opts.faithful})`, () => {
      const q = austinQuery({
        level: 'hard',
        local_constraint: { 'house rule': 'parties', cuisine: ['Indian', 'French'], 'room type': 'entire room', transportation: 'no self-driving' },
      });
      const v = evaluatePlan(world, q, austinPlan(), opts);
      expectAllPass(v);
      expect(v.hardConstraintCount).toBe(5);
      for (const k of HARD_KEYS) expect(v.hard![k].pass).toBe(true);
      expect(v.hard!.valid_cuisine.reason).toMatch(/Indian at day 1 dinner 'Curry Corner'/);
    });
  }
});

describe('each commonsense check, broken alone', () => {
  for (const opts of both) {
    const q = austinQuery();
    it(`is_reasonable_visiting_city: no way home (faithful=${opts.faithful})`, () => {
      const plan = edit(austinPlan(), 3, { current_city: 'Austin', transportation: '-', dinner: 'Brisket Barn, Austin' });
      expectOnlyBroken(evaluatePlan(world, q, plan, opts), 'is_reasonable_visiting_city', /Boston → Austin does not return to Boston/);
    });
    it(`is_reasonable_visiting_city: a city outside the destination state (faithful=${opts.faithful})`, () => {
      // the same valid 5-day Texas plan, for a query whose destination state is Illinois
      expectAllPass(evaluatePlan(world, texasQuery(), texasPlan(), opts));
      const v = evaluatePlan(world, texasQuery({ dest: 'Illinois' }), texasPlan(), opts);
      expectOnlyBroken(v, 'is_reasonable_visiting_city', /Austin is in Texas, not in the destination state Illinois/);
    });
    it(`is_valid_restaurants: a restaurant twice (faithful=${opts.faithful})`, () => {
      const plan = edit(austinPlan(), 2, { dinner: 'Taco Palace, Austin' });
      expectOnlyBroken(evaluatePlan(world, q, plan, opts), 'is_valid_restaurants', /Day 2 dinner 'Taco Palace, Austin' was already chosen for day 1 lunch/);
    });
    it(`is_valid_attractions: an attraction twice (faithful=${opts.faithful})`, () => {
      const plan = edit(austinPlan(), 2, { attraction: 'Zilker Park, Austin;Texas State Capitol, Austin;' });
      expectOnlyBroken(evaluatePlan(world, q, plan, opts), 'is_valid_attractions', /Day 2 attraction 'Texas State Capitol, Austin' was already visited on day 1/);
    });
    it(`is_valid_accommodation: one night where two are required (faithful=${opts.faithful})`, () => {
      const plan = edit(austinPlan(), 2, { accommodation: 'Eastside Room, Austin' });
      expectOnlyBroken(evaluatePlan(world, q, plan, opts), 'is_valid_accommodation', /'Congress Ave Loft, Austin' is booked for 1 night \(day 1 only\), but its minimum stay is 2 nights/);
    });
    it(`is_valid_transportation: flight out, self-driving back (faithful=${opts.faithful})`, () => {
      const plan = edit(austinPlan(), 3, { transportation: 'Self-driving, from Austin to Boston, Duration: 23 hours, Distance: 2,900 km, Cost: 145' });
      const v = evaluatePlan(world, q, plan, opts);
      expectOnlyBroken(v, 'is_valid_transportation', /Self-driving \(day 3\) and flights \(day 1\) conflict/);
      expect(v.cost).toBe(1956 - 640 + 145);
    });
    it(`is_valid_information_in_current_city: dinner in another city on a travel day (faithful=${opts.faithful})`, () => {
      const plan = edit(austinPlan(), 1, { dinner: 'Pecan Lodge, Dallas' });
      expectOnlyBroken(evaluatePlan(world, q, plan, opts), 'is_valid_information_in_current_city', /Day 1 dinner 'Pecan Lodge' is in Dallas, but the day travels from Boston to Austin/);
    });
    it(`is_valid_information_in_sandbox: a restaurant that does not exist (faithful=${opts.faithful})`, () => {
      const plan = edit(austinPlan(), 2, { lunch: 'Phantom Diner, Austin' });
      expectOnlyBroken(evaluatePlan(world, q, plan, opts), 'is_valid_information_in_sandbox', /Day 2 lunch 'Phantom Diner' is not a restaurant in Austin/, true);
    });
    it(`is_not_absent: a missing breakfast on a full day (faithful=${opts.faithful})`, () => {
      const plan = edit(austinPlan(), 2, { breakfast: '-' });
      expectOnlyBroken(evaluatePlan(world, q, plan, opts), 'is_not_absent', /Day 2 has no breakfast, and it is not a travel day/, true);
    });
  }
});

describe('each hard check, broken alone', () => {
  const plan = austinPlan();
  const constrained = (lc: Partial<Query['local_constraint']>, level: Query['level'] = 'medium') =>
    austinQuery({ level, local_constraint: { 'house rule': null, cuisine: null, 'room type': null, transportation: null, ...lc } });
  for (const opts of both) {
    it(`valid_cost: $1,956 over a $1,900 budget (faithful=${opts.faithful})`, () => {
      expectOnlyBroken(evaluatePlan(world, austinQuery({ budget: 1900 }), plan, opts), 'valid_cost', /\$1,956 .* exceeds the budget of \$1,900 by \$56/);
    });
    it(`valid_room_rule: smoking in a no-smoking loft (faithful=${opts.faithful})`, () => {
      expectOnlyBroken(evaluatePlan(world, constrained({ 'house rule': 'smoking' }), plan, opts), 'valid_room_rule', /Day 1 stay 'Congress Ave Loft' says 'No smoking'/);
    });
    it(`valid_cuisine: no American meal (faithful=${opts.faithful})`, () => {
      expectOnlyBroken(evaluatePlan(world, constrained({ cuisine: ['Indian', 'American'] }), plan, opts), 'valid_cuisine', /serves American cuisine/);
    });
    it(`valid_room_type: an entire home where a shared room was asked (faithful=${opts.faithful})`, () => {
      expectOnlyBroken(evaluatePlan(world, constrained({ 'room type': 'shared room' }), plan, opts), 'valid_room_type', /'Congress Ave Loft' is an entire home\/apt, but the query asks for shared room/);
    });
    it(`valid_transportation: flights under "no flight" (faithful=${opts.faithful})`, () => {
      expectOnlyBroken(evaluatePlan(world, constrained({ transportation: 'no flight' }, 'hard'), plan, opts), 'valid_transportation', /Day 1 transportation 'Flight Number: F100.*breaks the query's "no flight"/);
    });
  }
});

describe('undelivered plans', () => {
  for (const plan of [null, []]) {
    it(`${JSON.stringify(plan)} is not delivered and fails everything`, () => {
      const v = evaluatePlan(world, austinQuery(), plan);
      expect(v.delivered).toBe(false);
      expect(v.hard).toBeNull();
      expect(v.finalPass).toBe(false);
      expect(v.cost).toBeNull();
      for (const k of COMMONSENSE_KEYS) expect(v.commonsense[k]).toEqual({ pass: false, reason: 'No plan was delivered' });
    });
  }
});

describe('planCost', () => {
  it('matches the hand-computed totals', () => {
    expect(planCost(world, austinQuery(), austinPlan())).toBe(1956);
    // 5 people: flights 620 × 5 = 3,100; meals 158 × 5 = 790; loft ⌈5/4⌉ = 2 units × 200 × 2 nights = 800
    expect(planCost(world, austinQuery({ people_number: 5 }), austinPlan())).toBe(4690);
    // 6 people self-driving back: ⌈6/5⌉ = 2 cars × ⌊2900 × 0.05⌋ = 290, instead of the 320 × 6 flight
    const drive = edit(austinPlan(), 3, { transportation: 'Self-driving, from Austin to Boston' });
    expect(planCost(world, austinQuery({ people_number: 6 }), drive)).toBe(300 * 6 + 290 + 158 * 6 + 200 * 2 * 2);
    // taxi: ⌈6/4⌉ = 2 cars × 2,900
    const taxi = edit(austinPlan(), 3, { transportation: 'Taxi, from Austin to Boston' });
    expect(planCost(world, austinQuery({ people_number: 6 }), taxi)).toBe(300 * 6 + 5800 + 158 * 6 + 800);
  });
  it('is null where the official code cannot price the plan', () => {
    expect(planCost(world, austinQuery(), null)).toBeNull();
    // a drive of more than a day has no cost
    const far = edit(austinPlan(), 1, { current_city: 'from Boston to Houston', transportation: 'Self-driving, from Boston to Houston' });
    expect(planCost(world, austinQuery(), far)).toBeNull();
  });
  it('skips what it cannot find (an unknown restaurant costs nothing)', () => {
    const plan = edit(austinPlan(), 2, { lunch: 'Phantom Diner, Austin' });
    expect(planCost(world, austinQuery(), plan)).toBe(1956 - 18 * 2);
  });
});

describe('aggregateMetrics', () => {
  it("matches TravelPlanner's definitions on a hand-computed set", () => {
    const results = [
      evaluatePlan(world, austinQuery(), austinPlan()), // all pass: 8 cs, hard 1/1
      evaluatePlan(world, austinQuery(), edit(austinPlan(), 2, { dinner: 'Taco Palace, Austin' })), // 7 cs, hard 1/1
      evaluatePlan(world, austinQuery(), edit(austinPlan(), 2, { lunch: 'Phantom Diner, Austin' })), // 7 cs, hard gated, 0/1
      evaluatePlan(world, austinQuery(), null), // 0 cs, 0/1
      evaluatePlan(world, austinQuery({ level: 'medium', local_constraint: { 'house rule': 'smoking', cuisine: null, 'room type': null, transportation: null } }), austinPlan()), // 8 cs, hard 1/2
    ];
    const m = aggregateMetrics(results);
    expect(m.count).toBe(5);
    expect(m.deliveryRate).toBeCloseTo(4 / 5, 12);
    expect(m.commonsenseMicro).toBeCloseTo(30 / 40, 12);
    expect(m.commonsenseMacro).toBeCloseTo(2 / 5, 12);
    expect(m.hardMicro).toBeCloseTo(3 / 6, 12);
    expect(m.hardMacro).toBeCloseTo(2 / 5, 12);
    expect(m.finalPass).toBeCloseTo(1 / 5, 12);
  });
  it('is all zeros for no plans', () => {
    expect(aggregateMetrics([])).toEqual({ count: 0, deliveryRate: 0, commonsenseMicro: 0, commonsenseMacro: 0, hardMicro: 0, hardMacro: 0, finalPass: 0 });
  });
});

describe('faithful quirks vs lab mode', () => {
  it('Q2: a one-city day is compared letter by letter officially', () => {
    // "Pecan Lodge, Dallas" shares the letter 's' with "Austin": the official check passes it
    const plan = edit(austinPlan(), 2, { lunch: 'Pecan Lodge, Dallas' });
    const lab = evaluatePlan(world, austinQuery(), plan);
    expect(lab.commonsense.is_valid_information_in_current_city.pass).toBe(false);
    expect(lab.commonsense.is_valid_information_in_current_city.reason).toBe("Day 2 lunch 'Pecan Lodge' is in Dallas, but the day is spent in Austin");
    const official = evaluatePlan(world, austinQuery(), plan, { faithful: true });
    expect(official.commonsense.is_valid_information_in_current_city.pass).toBe(true);
  });
  it('Q3: the piece after the last ";" is not checked officially', () => {
    const plan = edit(austinPlan(), 2, { attraction: 'Zilker Park, Austin;Nowhere Museum, Austin' });
    expect(evaluatePlan(world, austinQuery(), plan, { faithful: true }).commonsense.is_valid_information_in_sandbox.pass).toBe(true);
    const lab = evaluatePlan(world, austinQuery(), plan).commonsense.is_valid_information_in_sandbox;
    expect(lab).toEqual({ pass: false, reason: "Day 2 attraction 'Nowhere Museum' is not an attraction in Austin in the database" });
  });
  it('Q9: a 3-day trip to the wrong city passes officially', () => {
    const dallas: PlanDay[] = [
      { days: 1, current_city: 'from Boston to Dallas', transportation: 'Flight Number: F200, from Boston to Dallas', breakfast: '-', attraction: 'Reunion Tower, Dallas;', lunch: 'Pecan Lodge, Dallas', dinner: 'Trinity Noodles, Dallas', accommodation: 'Uptown Flat, Dallas' },
      { days: 2, current_city: 'Dallas', transportation: '-', breakfast: 'Deep Ellum Deli, Dallas', attraction: 'Dallas Arboretum, Dallas;', lunch: 'Mockingbird Diner, Dallas', dinner: 'Uptown Bistro, Dallas', accommodation: 'Uptown Flat, Dallas' },
      { days: 3, current_city: 'from Dallas to Boston', transportation: 'Flight Number: F201, from Dallas to Boston', breakfast: '-', attraction: '-', lunch: '-', dinner: '-', accommodation: '-' },
    ];
    expect(evaluatePlan(world, austinQuery(), dallas, { faithful: true }).finalPass).toBe(true);
    const lab = evaluatePlan(world, austinQuery(), dallas);
    expectOnlyBroken(lab, 'is_reasonable_visiting_city', /Dallas is not the destination Austin/);
  });
  it('Q10: a flight is found by number and route, whatever its date', () => {
    const plan = edit(austinPlan(), 1, { transportation: FLIGHT_OUT.replace('F100', 'F101') });
    const v = evaluatePlan(world, austinQuery(), plan, { faithful: true });
    expect(v.commonsense.is_valid_information_in_sandbox.reason).toBe("Day 1 flight 'F101' from Boston to Austin is not in the database (F101 flies Austin to Boston)");
  });
});
