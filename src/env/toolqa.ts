// The out-of-domain suite: short tool-QA questions answered with the same tools as
// travel planning but with a different output (one name or one number instead of a plan). They
// appear in SFT data, never in RL, so the suite measures what RL on plans does to a skill the SFT
// model had (the paper's finding T2). Questions and answers are structured (so the agent's token
// language can encode them) and carry a natural-language text for people.

import { Rng } from './random.ts';
import { callTool } from './tools.ts';
import { allowsHouseRule, matchesRoomType, servesCuisine } from './itinerary.ts';
import { dayText, moneyText } from './queryText.ts';
import type { DriveMode, HouseRule, Observation, RoomTypeConstraint, ToolCall, ToolStep, World } from './types.ts';

export type ToolQaQuestion =
  | { kind: 'cheapestFlight'; from: string; to: string; date: string }
  | {
      kind: 'accommodationUnder';
      city: string;
      houseRule: HouseRule | null;
      roomType: RoomTypeConstraint | null;
      maxPrice: number;
    }
  | { kind: 'bestRestaurant'; city: string; cuisine: string }
  | { kind: 'countAttractions'; city: string }
  | { kind: 'driveCost'; from: string; to: string; mode: DriveMode }
  | { kind: 'countCities'; state: string };
export type ToolQaKind = ToolQaQuestion['kind'];
export const TOOLQA_KINDS: readonly ToolQaKind[] = [
  'cheapestFlight',
  'accommodationUnder',
  'bestRestaurant',
  'countAttractions',
  'driveCost',
  'countCities',
];

/** A name from an observation (flight number, accommodation or restaurant name), or a number. */
export type ToolQaAnswer = { kind: 'name'; name: string } | { kind: 'number'; value: number };

export interface ToolQaTask {
  question: ToolQaQuestion;
  /** the question as a person would ask it */
  text: string;
  /** every correct answer (ties and any-of questions have several) */
  accepted: ToolQaAnswer[];
}

/** A teacher episode on a tool-QA task: its tool steps and its answer. */
export interface ToolQaEpisode {
  task: ToolQaTask;
  steps: ToolStep[];
  answer: ToolQaAnswer;
}

/** The one tool call that answers a question. */
export function toolQaCall(q: ToolQaQuestion): ToolCall {
  switch (q.kind) {
    case 'cheapestFlight':
      return { tool: 'SearchFlight', args: { departure: q.from, destination: q.to, date: q.date } };
    case 'accommodationUnder':
      return { tool: 'SearchAccommodation', args: { city: q.city } };
    case 'bestRestaurant':
      return { tool: 'SearchRestaurant', args: { city: q.city } };
    case 'countAttractions':
      return { tool: 'SearchAttraction', args: { city: q.city } };
    case 'driveCost':
      return { tool: 'GoogleDistanceMatrix', args: { departure: q.from, destination: q.to, mode: q.mode } };
    case 'countCities':
      return { tool: 'SearchCity', args: { state: q.state } };
  }
}

const names = (xs: string[]): ToolQaAnswer[] => [...new Set(xs)].map((name) => ({ kind: 'name', name }));

/** Every correct answer that an observation supports; empty when it supports none (or is an error). */
export function answersFrom(q: ToolQaQuestion, obs: Observation): ToolQaAnswer[] {
  switch (q.kind) {
    case 'cheapestFlight': {
      if (obs.kind !== 'flights' || obs.rows.length === 0) return [];
      const min = Math.min(...obs.rows.map((f) => f.price));
      return names(obs.rows.filter((f) => f.price === min).map((f) => f.flightNumber));
    }
    case 'accommodationUnder':
      if (obs.kind !== 'accommodations') return [];
      return names(
        obs.rows
          .filter((a) => a.price <= q.maxPrice && allowsHouseRule(a, q.houseRule) && matchesRoomType(a, q.roomType))
          .map((a) => a.name),
      );
    case 'bestRestaurant': {
      if (obs.kind !== 'restaurants') return [];
      const rows = obs.rows.filter((r) => servesCuisine(r, q.cuisine));
      if (rows.length === 0) return [];
      const best = Math.max(...rows.map((r) => r.rating));
      return names(rows.filter((r) => r.rating === best).map((r) => r.name));
    }
    case 'countAttractions':
      return obs.kind === 'attractions' ? [{ kind: 'number', value: obs.rows.length }] : [];
    case 'driveCost':
      return obs.kind === 'drive' && obs.cost !== null ? [{ kind: 'number', value: obs.cost }] : [];
    case 'countCities':
      return obs.kind === 'cities' ? [{ kind: 'number', value: obs.cities.length }] : [];
  }
}

const ROOM_PHRASE: Record<RoomTypeConstraint, string> = {
  'entire room': 'an entire home',
  'private room': 'a private room',
  'shared room': 'a shared room',
  'not shared room': 'a room that is not shared',
};
const RULE_PHRASE: Record<HouseRule, string> = {
  parties: 'allows parties',
  smoking: 'allows smoking',
  'children under 10': 'allows children under 10',
  pets: 'is pet-friendly',
  visitors: 'allows visitors',
};

export function toolQaText(q: ToolQaQuestion): string {
  switch (q.kind) {
    case 'cheapestFlight':
      return `What is the cheapest flight from ${q.from} to ${q.to} on ${dayText(q.date)}, ${q.date.slice(0, 4)}? Answer with its flight number.`;
    case 'accommodationUnder': {
      const what = q.roomType ? ROOM_PHRASE[q.roomType] : 'an accommodation';
      const rule = q.houseRule ? ` that ${RULE_PHRASE[q.houseRule]}` : '';
      return `Find ${what}${rule} in ${q.city} costing at most ${moneyText(q.maxPrice)} per night. Answer with its name.`;
    }
    case 'bestRestaurant':
      return `Which is the highest-rated restaurant serving ${q.cuisine} cuisine in ${q.city}? Answer with its name.`;
    case 'countAttractions':
      return `How many attractions are listed in ${q.city}?`;
    case 'driveCost':
      return q.mode === 'taxi'
        ? `How much does a taxi from ${q.from} to ${q.to} cost?`
        : `How much does self-driving from ${q.from} to ${q.to} cost?`;
    case 'countCities':
      return `How many cities in ${q.state} can be visited?`;
  }
}

const STABLE = { failureRate: 0, rng: new Rng(0) };

/** Draws one question of `kind` from the world, or null when this draw has no answer. */
function drawQuestion(world: World, kind: ToolQaKind, rng: Rng): ToolQaQuestion | null {
  const states = [...world.citiesByState.keys()];
  const cities = [...world.stateOf.keys()];
  if (cities.length < 2) return null;
  switch (kind) {
    case 'cheapestFlight': {
      const keys = [...world.flights.keys()];
      if (keys.length === 0) return null;
      const [from, to, date] = rng.pick(keys).split('|');
      return { kind, from, to, date };
    }
    case 'accommodationUnder': {
      const city = rng.pick(cities);
      const rows = world.accommodations.get(city) ?? [];
      if (rows.length === 0) return null;
      const target = rng.pick(rows); // a listing that answers, so the question is answerable
      const rule = rng.chance(0.6)
        ? rng.pick(
            (['parties', 'smoking', 'children under 10', 'pets', 'visitors'] as const).filter((r) =>
              allowsHouseRule(target, r),
            ),
          )
        : null;
      const roomTypes = (['entire room', 'private room', 'shared room', 'not shared room'] as const).filter((t) =>
        matchesRoomType(target, t),
      );
      const roomType = rule === null || rng.chance(0.5) ? rng.pick(roomTypes) : null;
      return {
        kind,
        city,
        houseRule: rule,
        roomType,
        maxPrice: Math.ceil((target.price * (1 + 0.3 * rng.next())) / 10) * 10,
      };
    }
    case 'bestRestaurant': {
      const city = rng.pick(cities);
      const rows = world.restaurants.get(city) ?? [];
      if (rows.length === 0) return null;
      const cuisine = rng.pick(rng.pick(rows).cuisines);
      return cuisine ? { kind, city, cuisine } : null;
    }
    case 'countAttractions':
      return { kind, city: rng.pick(cities) };
    case 'driveCost': {
      const keys = [...world.drives.keys()];
      if (keys.length === 0) return null;
      const [from, to] = rng.pick(keys).split('|');
      return { kind, from, to, mode: rng.pick(['self-driving', 'taxi'] as const) };
    }
    case 'countCities':
      return states.length ? { kind, state: rng.pick(states) } : null;
  }
}

/** Identity of a question, for deduplication and for keeping evaluation tasks out of SFT data. */
export function toolQaKey(q: ToolQaQuestion): string {
  return JSON.stringify(q);
}

/**
 * `n` distinct answerable tool-QA tasks, kinds drawn uniformly; gold answers come from the tools
 * themselves. `exclude` (keys from `toolQaKey`) keeps e.g. the OOD test tasks out of SFT tasks.
 */
export function generateToolQa(
  world: World,
  rng: Rng,
  n: number,
  exclude: ReadonlySet<string> = new Set(),
): ToolQaTask[] {
  if (!Number.isInteger(n) || n < 0) throw new Error(`generateToolQa: n must be a non-negative integer, got ${n}`);
  const out: ToolQaTask[] = [];
  const seen = new Set<string>(exclude);
  for (let draw = 0; out.length < n; draw++) {
    if (draw >= 50 * n + 100)
      throw new Error(`generateToolQa: only ${out.length} of ${n} distinct answerable questions in this world`);
    const question = drawQuestion(world, rng.pick(TOOLQA_KINDS), rng);
    if (!question) continue;
    const key = toolQaKey(question);
    if (seen.has(key)) continue;
    const accepted = answersFrom(question, callTool(world, toolQaCall(question), STABLE));
    if (accepted.length === 0) continue;
    seen.add(key);
    out.push({ question, text: toolQaText(question), accepted });
  }
  return out;
}

/**
 * The teacher on a tool-QA task: one call (retried after injected failures), then an answer read
 * from the observation (a random one among ties). Null if the tool keeps failing or nothing answers.
 */
export function teachToolQa(
  world: World,
  task: ToolQaTask,
  rng: Rng,
  opts: { failureRate?: number; maxAttempts?: number } = {},
): ToolQaEpisode | null {
  const { failureRate = 0, maxAttempts = 12 } = opts;
  const toolRng = rng.fork(0x7001);
  const call = toolQaCall(task.question);
  const steps: ToolStep[] = [];
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const observation = callTool(world, call, { failureRate, rng: toolRng });
    steps.push({ call, observation });
    if (observation.kind === 'error') {
      if (!observation.failure) return null;
      continue;
    }
    const answers = answersFrom(task.question, observation);
    return answers.length ? { task, steps, answer: rng.pick(answers) } : null;
  }
  return null;
}

/** 1 if the answer is one of the accepted ones (names exactly, numbers within 1e-6), else 0. */
export function scoreToolQa(task: ToolQaTask, answer: ToolQaAnswer | null): number {
  if (!answer) return 0;
  return task.accepted.some((a) =>
    a.kind === 'name'
      ? answer.kind === 'name' && answer.name.trim() === a.name
      : answer.kind === 'number' && Math.abs(answer.value - a.value) < 1e-6,
  )
    ? 1
    : 0;
}

