// Rule-breaking variants of plans (scripts/mutatePlans.ts; the veRL export's parity test): each variant
// applies 1–2 random edits to a plan (blank or delete a field, move an item to another city, a random
// flight or drive, a repeated item, a dropped day, a truncated text). Seeded: the same plans, world and
// seed give the same variants.
import { Rng } from './random.ts';
import type { World } from './types.ts';

type Day = Record<string, unknown>;

/** A plan as a submission line carries it: `idx` ties it to its query. */
export interface PlanRecord {
  idx: number;
  query: string;
  plan: Day[] | null;
}

const FIELDS = ['current_city', 'transportation', 'breakfast', 'attraction', 'lunch', 'dinner', 'accommodation'];

export function mutatePlans(world: World, plans: readonly PlanRecord[], count: number, seed: number): PlanRecord[] {
  const rng = new Rng(seed);
  const pool: Record<string, unknown[]> = {};
  for (const p of plans) for (const d of p.plan ?? []) for (const f of FIELDS) (pool[f] ??= []).push(d[f]);
  const cities = [...world.stateOf.keys()];
  const restaurants = [...world.restaurants.values()].flat();
  const rooms = [...world.accommodations.values()].flat();
  const sights = [...world.attractions.values()].flat();
  const flights = [...world.flights.values()].flat();

  const edits: ((plan: Day[], d: Day, f: string) => void)[] = [
    (_, d, f) => void (d[f] = '-'),
    (_, d, f) => void delete d[f],
    (_, d, f) => void (d[f] = rng.pick(pool[f])),
    (_, d) => {
      const r = rng.pick(restaurants);
      d[rng.pick(['breakfast', 'lunch', 'dinner'])] = `${r.name}, ${r.city}`;
    },
    (_, d) => {
      const a = rng.pick(rooms);
      d.accommodation = `${a.name}, ${a.city}`;
    },
    (_, d) => {
      const a = rng.pick(sights);
      d.attraction = `${a.name}, ${a.city};`;
    },
    (_, d) => {
      const x = rng.pick(flights);
      d.transportation = `Flight Number: ${x.flightNumber}, from ${x.origin} to ${x.dest}, Departure Time: ${x.depTime}, Arrival Time: ${x.arrTime}`;
    },
    (_, d) => {
      d.transportation = `${rng.pick(['Self-driving', 'Taxi'])}, from ${rng.pick(cities)} to ${rng.pick(cities)}, duration: 1 hour, distance: 100 km, cost: 5`;
    },
    (_, d) => {
      d.current_city = rng.chance(0.5) ? rng.pick(cities) : `from ${rng.pick(cities)} to ${rng.pick(cities)}`;
    },
    (plan) => void plan.splice(rng.int(plan.length), 1),
    (plan, d, f) => void (d[f] = plan[rng.int(plan.length)][f]),
    (_, d, f) => void (d[f] = String(d[f] ?? '').slice(0, rng.int(12))),
  ];

  const out: PlanRecord[] = [];
  const delivered = plans.filter((p) => p.plan);
  for (let k = 0; k < count; k++) {
    const base = rng.pick(delivered);
    const plan = structuredClone(base.plan!);
    for (let m = rng.between(1, 2); m > 0 && plan.length > 0; m--)
      rng.pick(edits)(plan, plan[rng.int(plan.length)], rng.pick(FIELDS));
    out.push({ idx: base.idx, query: base.query, plan: plan.length ? plan : null });
  }
  return out;
}
