// Evaluator throughput (target: ≥ 20,000 plan evaluations/s on one core at `standard`).
// Plans are the teacher's (all valid) plus as many mutated copies that break a rule each (a meal
// from another city, a repeated restaurant, a missing field, an unknown name, a wrong flight), so
// both the passing path and the early-failure paths are timed, on one standard world.
import { evaluatePlan } from '../src/env/evaluate.ts';
import { generateQuery } from '../src/env/queries.ts';
import { Rng } from '../src/env/random.ts';
import { planTrip } from '../src/env/teacher.ts';
import type { Plan, PlanDay, Query, World } from '../src/env/types.ts';
import { generateWorld } from '../src/env/world.ts';
import { opsPerSecond } from './harness.ts';
import type { BenchSuite } from './harness.ts';

const LEVELS = ['easy', 'medium', 'hard'] as const;

/** A copy of `plan` with one plausible mistake, chosen by `kind`. */
function mutate(world: World, plan: Plan, kind: number, rng: Rng): Plan {
  const out: PlanDay[] = plan.map((d) => ({ ...d }));
  const day = out[rng.int(out.length)];
  switch (kind % 5) {
    case 0: {
      // a restaurant of some other city
      const cities = [...world.restaurants.keys()];
      const other = world.restaurants.get(cities[rng.int(cities.length)])![0];
      day.lunch = `${other.name}, ${other.city}`;
      break;
    }
    case 1:
      day.dinner = out[0].lunch !== '-' ? out[0].lunch : out[0].dinner; // a repeated restaurant
      break;
    case 2:
      day.breakfast = '-'; // missing information
      break;
    case 3:
      day.accommodation = day.accommodation === '-' ? 'Nowhere Inn, Nowhere' : `Grand ${day.accommodation}`; // not in the sandbox
      break;
    default:
      out[0].transportation = out[0].transportation.replace(/F\d+/, 'F0000000'); // a flight that does not exist
  }
  return out;
}

export const evaluatorSuite: BenchSuite = {
  name: 'evaluator',
  async run(report, { quick }) {
    const world = generateWorld('standard', 1);
    const rng = new Rng(11);
    const cases: { query: Query; plan: Plan }[] = [];
    for (let i = 0; cases.length < (quick ? 60 : 300) && i < 2000; i++) {
      const query = generateQuery(world, LEVELS[i % 3], rng.fork(i));
      if (!query) continue;
      const trip = planTrip(world, query, rng.fork(10_000 + i), query.budget);
      if (!trip) continue;
      cases.push({ query, plan: trip.plan });
      cases.push({ query, plan: mutate(world, trip.plan, i, rng.fork(20_000 + i)) });
    }
    const minMs = quick ? 200 : 1500;
    // warm up both modes first: JIT tiers and the World's lookup caches settle before timing
    opsPerSecond(() => {
      for (const c of cases) {
        evaluatePlan(world, c.query, c.plan);
        evaluatePlan(world, c.query, c.plan, { faithful: true });
      }
    }, quick ? 100 : 500);
    for (const faithful of [false, true]) {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const perS = opsPerSecond(() => {
        for (const c of cases) evaluatePlan(world, c.query, c.plan, { faithful });
      }, minMs, cases.length);
      // CPU time makes the single-core figure robust to other processes sharing the machine
      const cpu = process.cpuUsage(cpu0);
      const perCpuS = (perS * (performance.now() - t0)) / 1000 / ((cpu.user + cpu.system) / 1e6);
      const note = `${cases.length} plans (half broken), standard world${faithful ? ', faithful mode' : ''}`;
      report(faithful ? 'evaluator.faithful_plans_per_s' : 'evaluator.plans_per_s', perS, 'plans/s', note);
      report(
        faithful ? 'evaluator.faithful_plans_per_cpu_s' : 'evaluator.plans_per_cpu_s',
        perCpuS,
        'plans/cpu-s',
        'per second of CPU time',
      );
    }
    const teacherPlans = cases.filter((_, i) => i % 2 === 0);
    const passing = teacherPlans.filter((c) => evaluatePlan(world, c.query, c.plan).finalPass).length;
    report(
      'evaluator.teacher_plans_pass',
      passing / teacherPlans.length,
      'fraction',
      'teacher plans passing every check (should be 1)',
    );
  },
};
