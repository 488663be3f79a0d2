// The scripted expert. It plans a trip, makes the tool calls a careful person would
// (the state's cities, each leg's options, each city's rooms, restaurants and sights), sometimes
// repeats a search, retries when a tool fails, and writes a TravelPlanner plan built only from
// what its own observations returned, so a policy can imitate it token for token. Its successful
// trajectories are the SFT data; its choices are sampled, not always the cheapest, so RL has room.

import { Rng } from './random.ts';
import { callTool } from './tools.ts';
import { planCost } from './evaluate.ts';
import { fillWithinBudget, legsOf } from './itinerary.ts';
import type { Catalog, FilledPlan } from './itinerary.ts';
import { chooseStructure } from './tripStructure.ts';
import type { PricedStructure } from './tripStructure.ts';
import type { Drive, DriveMode, Observation, Query, ToolCall, ToolStep, Trajectory, World } from './types.ts';

export interface TeachOptions {
  rng: Rng;
  /** probability that a tool call fails; 0 = the stable sandbox of the paper's teacher */
  failureRate?: number;
  /** probability of one redundant repeated search in the trajectory */
  redundantCallRate?: number;
  /** probability of also pricing self-driving on a flight leg, to compare */
  compareRate?: number;
  /** attempts per call before the teacher gives up on a failing tool */
  maxAttempts?: number;
}

type Store = {
  flights: Map<string, Observation & { kind: 'flights' }>;
  drives: Map<string, { drive: Drive; cost: number } | null>;
  accommodations: Map<string, Observation & { kind: 'accommodations' }>;
  restaurants: Map<string, Observation & { kind: 'restaurants' }>;
  attractions: Map<string, Observation & { kind: 'attractions' }>;
  cities: Map<string, string[]>;
};

function emptyStore(): Store {
  return {
    flights: new Map(),
    drives: new Map(),
    accommodations: new Map(),
    restaurants: new Map(),
    attractions: new Map(),
    cities: new Map(),
  };
}

/** Records one successful observation under its call's arguments. */
function remember(store: Store, call: ToolCall, obs: Observation): void {
  if (obs.kind === 'error') return;
  switch (call.tool) {
    case 'SearchFlight':
      if (obs.kind === 'flights')
        store.flights.set(`${call.args.departure}|${call.args.destination}|${call.args.date}`, obs);
      return;
    case 'GoogleDistanceMatrix':
      if (obs.kind === 'drive') {
        const known = obs.drive && obs.cost !== null ? { drive: obs.drive, cost: obs.cost } : null;
        store.drives.set(`${call.args.departure}|${call.args.destination}|${call.args.mode}`, known);
      }
      return;
    case 'SearchAccommodation':
      if (obs.kind === 'accommodations') store.accommodations.set(call.args.city, obs);
      return;
    case 'SearchRestaurant':
      if (obs.kind === 'restaurants') store.restaurants.set(call.args.city, obs);
      return;
    case 'SearchAttraction':
      if (obs.kind === 'attractions') store.attractions.set(call.args.city, obs);
      return;
    case 'SearchCity':
      if (obs.kind === 'cities') store.cities.set(call.args.state, obs.cities);
      return;
  }
}

function catalogOf(store: Store, fetch?: (call: ToolCall) => void): Catalog {
  const get = <T>(map: Map<string, T>, key: string, call: ToolCall): T | undefined => {
    if (!map.has(key) && fetch) fetch(call);
    return map.get(key);
  };
  return {
    flights: (departure, destination, date) =>
      get(store.flights, `${departure}|${destination}|${date}`, {
        tool: 'SearchFlight',
        args: { departure, destination, date },
      })?.rows ?? null,
    drive: (departure, destination, mode: DriveMode) =>
      get(store.drives, `${departure}|${destination}|${mode}`, {
        tool: 'GoogleDistanceMatrix',
        args: { departure, destination, mode },
      }) ?? null,
    accommodations: (city) =>
      get(store.accommodations, city, { tool: 'SearchAccommodation', args: { city } })?.rows ?? null,
    restaurants: (city) => get(store.restaurants, city, { tool: 'SearchRestaurant', args: { city } })?.rows ?? null,
    attractions: (city) => get(store.attractions, city, { tool: 'SearchAttraction', args: { city } })?.rows ?? null,
    cities: (state) => get(store.cities, state, { tool: 'SearchCity', args: { state } }) ?? null,
  };
}

const STABLE = { failureRate: 0, rng: new Rng(0) };

/** The world as the tools show it, without failures, asked lazily and memoized: what the teacher plans against. */
export function toolCatalog(world: World): Catalog {
  const store = emptyStore();
  return catalogOf(store, (call) => remember(store, call, callTool(world, call, STABLE)));
}

/** The world as a trajectory's own observations show it: what the teacher writes its plan from. */
export function observedCatalog(steps: readonly ToolStep[]): Catalog {
  const store = emptyStore();
  for (const s of steps) remember(store, s.call, s.observation);
  return catalogOf(store);
}

export interface TripPlan extends PricedStructure, FilledPlan {}

/**
 * Plans a trip for a query from the live tools: a structure whose cheapest fill fits the budget,
 * then a sampled fill within it. `budget: null` ignores the budget (the query generator prices
 * budgets from such a plan). Null when no valid plan exists.
 */
export function planTrip(
  world: World,
  query: Query,
  rng: Rng,
  budget: number | null,
  catalog = toolCatalog(world),
): TripPlan | null {
  const chosen = chooseStructure(catalog, query, rng, budget);
  if (!chosen) return null;
  const filled = fillWithinBudget(catalog, query, chosen.structure, rng, budget);
  return filled ? { ...chosen, ...filled } : null;
}

/**
 * The teacher's tool calls for a chosen structure, in the order a person walks the trip: the
 * state's cities (state trips), then leg by leg its transport search and, on arriving in a city,
 * that city's rooms, restaurants and sights; the trip home last. Keeping each city's searches next
 * to the leg that reaches it makes the episode read like the plan it ends in, which a small policy
 * imitates far more easily than all legs first (the order an earlier version used).
 */
function plannedCalls(query: Query, chosen: PricedStructure, rng: Rng, compareRate: number): ToolCall[] {
  const s = chosen.structure;
  const calls: ToolCall[] = [];
  if (query.days > 3) calls.push({ tool: 'SearchCity', args: { state: query.dest } });
  const canDrive = query.local_constraint.transportation !== 'no self-driving';
  legsOf(query, s).forEach((leg, k) => {
    const mode = s.legModes[k];
    const route = { departure: leg.from, destination: leg.to };
    if (s.family === 'air') {
      calls.push({ tool: 'SearchFlight', args: { ...route, date: leg.date } });
      if (mode === 'taxi') calls.push({ tool: 'GoogleDistanceMatrix', args: { ...route, mode: 'taxi' } });
      else if (canDrive && rng.chance(compareRate))
        calls.push({ tool: 'GoogleDistanceMatrix', args: { ...route, mode: 'self-driving' } });
    } else if (mode !== 'flight') {
      calls.push({ tool: 'GoogleDistanceMatrix', args: { ...route, mode } });
    }
    if (leg.to !== query.org) {
      calls.push({ tool: 'SearchAccommodation', args: { city: leg.to } });
      calls.push({ tool: 'SearchRestaurant', args: { city: leg.to } });
      calls.push({ tool: 'SearchAttraction', args: { city: leg.to } });
    }
  });
  return calls;
}

/**
 * One teacher episode for `query`, or null when the teacher cannot solve it (no plan within the
 * budget, or a tool that keeps failing past `maxAttempts`). Calls go through `callTool` with the
 * given failure rate; an injected failure is retried with the same call.
 */
export function teachTrajectory(world: World, query: Query, opts: TeachOptions): Trajectory | null {
  const { rng, failureRate = 0, redundantCallRate = 0.15, compareRate = 0.2, maxAttempts = 12 } = opts;
  if (!(failureRate >= 0 && failureRate < 1))
    throw new Error(`teacher failureRate must be in [0, 1), got ${failureRate}`);
  const toolRng = rng.fork(0x7001); // failures draw from their own stream, so they do not shift the teacher's choices
  const chosen = chooseStructure(toolCatalog(world), query, rng, query.budget);
  if (!chosen) return null;

  const calls = plannedCalls(query, chosen, rng, compareRate);
  if (rng.chance(redundantCallRate)) {
    // a repeated search, as a person re-checking a list does; placed somewhere after the original
    // but before the trip home, which stays the last search (the cue that the plan comes next)
    const i = rng.int(calls.length - 1);
    calls.splice(rng.between(i + 1, calls.length - 1), 0, calls[i]);
  }

  const steps: ToolStep[] = [];
  for (const call of calls) {
    for (let attempt = 1; ; attempt++) {
      const observation = callTool(world, call, { failureRate, rng: toolRng });
      steps.push({ call, observation });
      if (observation.kind !== 'error') break;
      if (!observation.failure) return null; // a malformed call is a teacher bug, never SFT data
      if (attempt >= maxAttempts) return null;
    }
  }

  const filled = fillWithinBudget(observedCatalog(steps), query, chosen.structure, rng, query.budget);
  if (!filled) return null;
  // the evaluator prices by TravelPlanner's name matching; never hand SFT a plan it would call over budget
  const cost = planCost(world, query, filled.plan);
  return cost !== null && cost <= query.budget ? { query, steps, plan: filled.plan } : null;
}
