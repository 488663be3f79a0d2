// Trip structures: which cities in which order, how many nights in each, and which
// transport family, for a query. The teacher picks one whose cheapest fill fits the budget, then
// `fillPlan` (itinerary.ts) turns it into a plan.

import type { Rng } from './random.ts';
import { fillPlan } from './itinerary.ts';
import type { Catalog, LegMode, TransportFamily, TripStructure } from './itinerary.ts';
import type { Query } from './types.ts';

/** the ordered compositions of `total` nights into `parts` stays of at least one night */
export function nightSplits(total: number, parts: number): number[][] {
  if (parts === 1) return total >= 1 ? [[total]] : [];
  const out: number[][] = [];
  for (let first = 1; first <= total - (parts - 1); first++) {
    for (const rest of nightSplits(total - first, parts - 1)) out.push([first, ...rest]);
  }
  return out;
}

const FAMILY_WEIGHT: Record<TransportFamily, number> = { air: 0.6, 'self-driving': 0.25, taxi: 0.15 };

export function allowedFamilies(query: Query): TransportFamily[] {
  const t = query.local_constraint.transportation;
  if (t === 'no flight') return ['self-driving', 'taxi'];
  if (t === 'no self-driving') return ['air', 'taxi'];
  return ['air', 'self-driving', 'taxi'];
}

/**
 * Candidate structures for a query: city orders × night splits × transport families. Sampled mode
 * takes up to `maxOrders` orders with one split each (mostly the even one); exhaustive mode takes
 * every order and every split, so it finds any structure that exists.
 */
export function candidateStructures(
  catalog: Catalog,
  query: Query,
  rng: Rng,
  exhaustive = false,
  maxOrders = 24,
): TripStructure[] {
  const n = query.visiting_city_number;
  let orders: string[][];
  if (query.days === 3) orders = [[query.dest]];
  else {
    const pool = (catalog.cities(query.dest) ?? []).filter((c) => c !== query.org);
    orders = [];
    const perms = (prefix: string[]) => {
      if (prefix.length === n) return void orders.push(prefix);
      for (const c of pool) if (!prefix.includes(c)) perms([...prefix, c]);
    };
    perms([]);
    if (!exhaustive && orders.length > maxOrders) orders = rng.sample(orders, maxOrders);
  }
  const splits = nightSplits(query.days - 1, n);
  const canonical = splits.find((sp) => sp.every((x) => x === sp[0])) ?? splits[0];
  const out: TripStructure[] = [];
  for (const cities of orders) {
    // mostly the even split TravelPlanner's gold plans use; sometimes an uneven one
    for (const nights of exhaustive ? splits : [rng.chance(0.7) ? canonical : rng.pick(splits)]) {
      const stops = [query.org, ...cities, query.org];
      for (const family of allowedFamilies(query)) {
        const legModes: LegMode[] = [];
        let ok = true;
        for (let k = 0; k + 1 < stops.length && ok; k++) {
          if (family !== 'air') {
            ok = catalog.drive(stops[k], stops[k + 1], family) !== null;
            legModes.push(family);
            continue;
          }
          const day = nights.slice(0, k).reduce((a, b) => a + b, 0);
          if ((catalog.flights(stops[k], stops[k + 1], query.date[day]) ?? []).length > 0) legModes.push('flight');
          else if (catalog.drive(stops[k], stops[k + 1], 'taxi')) legModes.push('taxi');
          else ok = false;
        }
        if (ok) out.push({ cities, nights, legModes, family });
      }
    }
  }
  return out;
}

export interface PricedStructure {
  structure: TripStructure;
  /** cost of the cheapest fill: a plan within any budget ≥ this exists */
  minCost: number;
}

/**
 * Picks a structure whose cheapest fill fits the budget: a transport family by weight (among those
 * with a feasible structure), then a uniformly random feasible structure within it. Candidates are
 * priced lazily in random order, so the first feasible one is a uniform pick and most are never
 * filled. The exhaustive pass runs only when the sample has nothing feasible.
 */
export function chooseStructure(
  catalog: Catalog,
  query: Query,
  rng: Rng,
  budget: number | null,
): PricedStructure | null {
  const price = (s: TripStructure): PricedStructure | null => {
    const cheapest = fillPlan(catalog, query, s, null);
    return cheapest && (budget === null || cheapest.cost <= budget) ? { structure: s, minCost: cheapest.cost } : null;
  };
  for (const exhaustive of [false, true]) {
    const byFamily = new Map<TransportFamily, TripStructure[]>();
    for (const s of candidateStructures(catalog, query, rng, exhaustive)) {
      const list = byFamily.get(s.family) ?? [];
      list.push(s);
      byFamily.set(s.family, list);
    }
    while (byFamily.size > 0) {
      const families = [...byFamily.keys()];
      let u = rng.next() * families.reduce((a, f) => a + FAMILY_WEIGHT[f], 0);
      let family = families[families.length - 1];
      for (const f of families) {
        u -= FAMILY_WEIGHT[f];
        if (u < 0) {
          family = f;
          break;
        }
      }
      for (const s of rng.shuffle(byFamily.get(family)!)) {
        const priced = price(s);
        if (priced) return priced;
      }
      byFamily.delete(family); // nothing feasible by this family: try the others
    }
  }
  return null;
}
