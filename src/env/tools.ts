// The six TravelPlanner tools over a World, with seeded failure injection.
// `callTool` is the hot path of every rollout (target ≥ 200k calls/s on one core): it validates,
// does one hash lookup and returns the world's stored rows without copying (callers must not
// mutate them). It never throws: a bad call is an error observation with `failure: false`, an
// injected transient error has `failure: true` (retrying the same call may succeed).
import { Rng } from './random.ts';
import type { DriveMode, Observation, ToolCall, ToolName, World } from './types.ts';
import { worldDates } from './world.ts';

export const TOOL_NAMES: readonly ToolName[] = [
  'SearchFlight', 'GoogleDistanceMatrix', 'SearchAccommodation', 'SearchRestaurant', 'SearchAttraction', 'SearchCity',
];

/** Each tool's arguments, in TravelPlanner's order. */
export const TOOL_ARGUMENTS: Readonly<Record<ToolName, readonly string[]>> = {
  SearchFlight: ['departure', 'destination', 'date'],
  GoogleDistanceMatrix: ['departure', 'destination', 'mode'],
  SearchAccommodation: ['city'],
  SearchRestaurant: ['city'],
  SearchAttraction: ['city'],
  SearchCity: ['state'],
};

export interface CallToolOptions {
  /** probability in [0, 1] that the call fails transiently instead of answering */
  failureRate?: number;
  /** the failure draw's source; without one, a per-world stream seeded by the world's seed */
  rng?: Rng;
}

// Transient errors a real tool backend gives; the agent should retry rather than give up.
const FAILURE_MESSAGES = [
  'is temporarily unavailable (HTTP 503). Please retry.',
  'timed out after 10 s. Please retry.',
  'hit a rate limit (HTTP 429). Please retry.',
];

const defaultRngs = new WeakMap<World, Rng>();
function defaultRng(world: World): Rng {
  let rng = defaultRngs.get(world);
  if (rng === undefined) defaultRngs.set(world, (rng = new Rng(world.seed ^ 0x5eed)));
  return rng;
}

// The date check runs on every flight search: keep the last world's date set at hand.
let datesWorld: World | null = null;
let dateSet: Set<string> = new Set();
function validDate(world: World, date: string): boolean {
  if (world !== datesWorld) {
    datesWorld = world;
    dateSet = new Set(worldDates(world));
  }
  return dateSet.has(date);
}

const DATE_FORMAT = /^\d{4}-\d{2}-\d{2}$/;
const EMPTY: never[] = [];
Object.freeze(EMPTY);

function invalid(message: string): Observation {
  return { kind: 'error', message, failure: false };
}

function unknownCity(world: World, city: string): Observation {
  return invalid(
    `'${city}' is not a city in this world (${world.stateOf.size} cities). Use SearchCity with a state to list its cities.`,
  );
}

function badDate(world: World, date: string): Observation {
  if (!DATE_FORMAT.test(date)) return invalid(`Date '${date}' is not in YYYY-MM-DD form (e.g. 2022-03-16).`);
  const dates = worldDates(world);
  return invalid(
    `There is no flight data for ${date}: this world's dates run from ${dates[0]} to ${dates[dates.length - 1]}.`,
  );
}

export function callTool(world: World, call: ToolCall, options?: CallToolOptions): Observation {
  const rate = options?.failureRate;
  if (rate !== undefined && rate > 0) {
    const rng = options?.rng ?? defaultRng(world);
    // One draw per call whatever the arguments, so a run's failure pattern depends only on its seed.
    if (rng.next() < rate) {
      const tool = typeof call === 'object' && call !== null && typeof call.tool === 'string' ? call.tool : 'The tool';
      return { kind: 'error', message: `${tool} ${FAILURE_MESSAGES[rng.int(FAILURE_MESSAGES.length)]}`, failure: true };
    }
  }
  if (typeof call !== 'object' || call === null) return invalid('A tool call must be an object { tool, args }.');
  const args = call.args as Record<string, unknown> | null | undefined;
  if (typeof args !== 'object' || args === null) {
    if (!(TOOL_NAMES as readonly unknown[]).includes(call.tool)) return unknownTool(call.tool);
    return invalid(`${call.tool} needs an arguments object.`);
  }
  switch (call.tool) {
    case 'SearchFlight': {
      const { departure, destination, date } = args;
      if (typeof departure !== 'string' || typeof destination !== 'string' || typeof date !== 'string')
        return invalid('SearchFlight needs departure, destination and date as text.');
      if (!world.stateOf.has(departure)) return unknownCity(world, departure);
      if (!world.stateOf.has(destination)) return unknownCity(world, destination);
      if (!validDate(world, date)) return badDate(world, date);
      const rows = world.flights.get(`${departure}|${destination}|${date}`) ?? EMPTY;
      return { kind: 'flights', rows, departure, destination, date };
    }
    case 'GoogleDistanceMatrix': {
      const { departure, destination, mode } = args;
      if (typeof departure !== 'string' || typeof destination !== 'string' || typeof mode !== 'string')
        return invalid('GoogleDistanceMatrix needs departure, destination and mode as text.');
      if (mode !== 'self-driving' && mode !== 'taxi')
        return invalid(`Mode '${mode}' is not one of self-driving, taxi.`);
      if (!world.stateOf.has(departure)) return unknownCity(world, departure);
      if (!world.stateOf.has(destination)) return unknownCity(world, destination);
      const drive = world.drives.get(`${departure}|${destination}`) ?? null;
      // TravelPlanner's costs: self-driving ⌊km·0.05⌋ per car, a taxi ⌊km⌋.
      const cost =
        drive === null ? null : mode === 'taxi' ? Math.floor(drive.distanceKm) : Math.floor(drive.distanceKm * 0.05);
      return { kind: 'drive', mode, drive, cost };
    }
    case 'SearchAccommodation':
    case 'SearchRestaurant':
    case 'SearchAttraction': {
      const city = args.city;
      if (typeof city !== 'string') return invalid(`${call.tool} needs a city as text.`);
      if (!world.stateOf.has(city)) return unknownCity(world, city);
      if (call.tool === 'SearchAccommodation')
        return { kind: 'accommodations', rows: world.accommodations.get(city) ?? EMPTY };
      if (call.tool === 'SearchRestaurant') return { kind: 'restaurants', rows: world.restaurants.get(city) ?? EMPTY };
      return { kind: 'attractions', rows: world.attractions.get(city) ?? EMPTY };
    }
    case 'SearchCity': {
      const state = args.state;
      if (typeof state !== 'string') return invalid('SearchCity needs a state as text.');
      const cities = world.citiesByState.get(state);
      if (cities === undefined)
        return invalid(`'${state}' is not a state in this world (${world.citiesByState.size} states).`);
      return { kind: 'cities', cities };
    }
    default:
      return unknownTool((call as { tool: unknown }).tool);
  }
}

function unknownTool(tool: unknown): Observation {
  const shown = typeof tool === 'string' ? `'${tool}'` : `of type ${tool === null ? 'null' : typeof tool}`; // String() can throw on hostile objects
  return invalid(`Unknown tool ${shown}. Tools: ${TOOL_NAMES.join(', ')}.`);
}

// ---------------------------------------------------------------------------------------------
// Untrusted input (a policy's decoded call, a user's form, a JSON file) -> a typed ToolCall.

// TravelPlanner's own tool and argument names, accepted as synonyms.
const TOOL_ALIASES = new Map<string, ToolName>(Object.entries({
  FlightSearch: 'SearchFlight', DistanceMatrix: 'GoogleDistanceMatrix', AccommodationSearch: 'SearchAccommodation',
  RestaurantSearch: 'SearchRestaurant', AttractionSearch: 'SearchAttraction', CitySearch: 'SearchCity',
}) as [string, ToolName][]); // a Map: untrusted names like 'toString' must not reach Object's prototype
const ARG_ALIASES = new Map<string, string>([
  ['origin', 'departure'],
  ['departure city', 'departure'],
  ['destination city', 'destination'],
  ['origin city', 'departure'],
]);
const MODES = new Map<string, DriveMode>([
  ['self-driving', 'self-driving'],
  ['self driving', 'self-driving'],
  ['selfdriving', 'self-driving'],
  ['driving', 'self-driving'],
  ['taxi', 'taxi'],
]);

export function parseToolCall(name: string, args: Record<string, unknown>): ToolCall | { error: string } {
  if (typeof name !== 'string') return { error: 'The tool name must be text.' };
  const trimmed = name.trim();
  const tool = (TOOL_NAMES as readonly string[]).includes(trimmed) ? (trimmed as ToolName) : TOOL_ALIASES.get(trimmed);
  if (tool === undefined) return { error: `Unknown tool '${name}'. Tools: ${TOOL_NAMES.join(', ')}.` };
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    return { error: `${tool} needs an arguments object.` };
  const expected = TOOL_ARGUMENTS[tool];
  const values: Record<string, string> = {};
  for (const [rawKey, value] of Object.entries(args)) {
    const lowered = rawKey.trim().toLowerCase();
    const key = ARG_ALIASES.get(lowered) ?? lowered;
    if (!expected.includes(key))
      return { error: `${tool} has no argument '${rawKey}' (it takes ${expected.join(', ')}).` };
    if (typeof value !== 'string')
      return { error: `${tool}: '${key}' must be text, got ${value === null ? 'null' : typeof value}.` };
    if (key in values) return { error: `${tool}: '${key}' is given twice.` };
    values[key] = value.trim();
  }
  const missing = expected.filter((k) => !(k in values) || values[k] === '');
  if (missing.length > 0)
    return { error: `${tool} is missing ${missing.join(', ')} (it takes ${expected.join(', ')}).` };
  switch (tool) {
    case 'SearchFlight':
      return { tool, args: { departure: values.departure, destination: values.destination, date: values.date } };
    case 'GoogleDistanceMatrix': {
      const mode = MODES.get(values.mode.toLowerCase());
      if (mode === undefined)
        return { error: `GoogleDistanceMatrix: mode '${values.mode}' is not one of self-driving, taxi.` };
      return { tool, args: { departure: values.departure, destination: values.destination, mode } };
    }
    case 'SearchCity':
      return { tool, args: { state: values.state } };
    default:
      return { tool, args: { city: values.city } };
  }
}
