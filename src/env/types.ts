// The shared vocabulary of the TravelPlanner sandbox. Every other layer (agent, rl,
// lab, cli, ui) talks to the environment through these types, so they mirror TravelPlanner's own
// field names wherever the benchmark has one (queries and plans keep its exact JSON keys, so they
// can be exported and scored by the official evaluation unchanged).

/** World sizes: `tiny` for unit tests, `small`/`standard` for the lab, `real` from TravelPlanner rows. */
export type WorldSize = 'tiny' | 'small' | 'standard';
export type WorldSource = WorldSize | 'real';

export interface Flight {
  flightNumber: string; // "F3573659"
  price: number; // per person, dollars
  depTime: string; // "15:40"
  arrTime: string; // "17:04"
  elapsed: string; // "2 hours 24 minutes" (TravelPlanner's ActualElapsedTime text)
  date: string; // "2022-03-16"
  origin: string; // city name
  dest: string; // city name
  distance: number; // miles
}

export interface Restaurant {
  name: string;
  averageCost: number; // per person, dollars
  cuisines: string[]; // e.g. ["Chinese", "Cafe"]; TravelPlanner stores them comma-joined
  rating: number;
  city: string;
}

export interface Accommodation {
  name: string;
  price: number; // per night for the whole listing, dollars
  roomType: RoomTypeValue; // TravelPlanner's "room type" column
  houseRules: string[]; // e.g. ["No parties", "No smoking"]; TravelPlanner joins them with " & "
  minimumNights: number;
  maximumOccupancy: number;
  rating: number;
  city: string;
}

export interface Attraction {
  name: string;
  latitude: number;
  longitude: number;
  address: string;
  phone: string;
  website: string;
  city: string;
}

/** Ground distance between two cities; cost depends on the mode. */
export interface Drive {
  origin: string;
  destination: string;
  durationMinutes: number;
  distanceKm: number;
}

export type RoomTypeValue = 'Entire home/apt' | 'Private room' | 'Shared room';

/**
 * A TravelPlanner database. Lookups are by exact city name; `flights` is keyed by
 * `${origin}|${dest}|${date}` and `drives` by `${origin}|${destination}` so that a tool call is a
 * hash lookup (the benchmark target is ≥ 200k tool calls/s).
 */
export interface World {
  source: WorldSource;
  seed: number;
  /** state -> cities in it (only cities with data) */
  citiesByState: Map<string, string[]>;
  /** city -> state */
  stateOf: Map<string, string>;
  restaurants: Map<string, Restaurant[]>;
  accommodations: Map<string, Accommodation[]>;
  attractions: Map<string, Attraction[]>;
  flights: Map<string, Flight[]>;
  drives: Map<string, Drive>;
}

// ---------------------------------------------------------------------------------------------
// Queries: TravelPlanner's query object, with its exact keys.

export type HouseRule = 'parties' | 'smoking' | 'children under 10' | 'pets' | 'visitors';
export type RoomTypeConstraint = 'entire room' | 'private room' | 'shared room' | 'not shared room';
export type TransportationConstraint = 'no flight' | 'no self-driving';
export type Level = 'easy' | 'medium' | 'hard';

export interface LocalConstraint {
  'house rule': HouseRule | null;
  cuisine: string[] | null; // subset of Chinese, American, Italian, Mexican, Indian, Mediterranean, French
  'room type': RoomTypeConstraint | null;
  transportation: TransportationConstraint | null;
}

export interface Query {
  org: string;
  dest: string; // a city for 3-day trips, a state for 5/7-day trips
  days: 3 | 5 | 7;
  visiting_city_number: 1 | 2 | 3;
  date: string[]; // one "YYYY-MM-DD" per day
  people_number: number;
  local_constraint: LocalConstraint;
  budget: number;
  query: string; // the natural-language request
  level: Level;
}

// ---------------------------------------------------------------------------------------------
// Plans: TravelPlanner's submission format, one object per day, every field a string ("-" = none).

export interface PlanDay {
  days: number;
  current_city: string; // "from A to B" on travel days, else "B"
  transportation: string; // "Flight Number: F123, from A to B, Departure Time: …" | "Self-driving, from A to B, …" | "Taxi, …" | "-"
  breakfast: string; // "Name, City" | "-"
  attraction: string; // "Name, City;Name, City;" | "-"
  lunch: string;
  dinner: string;
  accommodation: string; // "Name, City" | "-"
}
export type Plan = PlanDay[];

// ---------------------------------------------------------------------------------------------
// Tools. Arguments keep TravelPlanner's names.

export type ToolName =
  | 'SearchFlight'
  | 'GoogleDistanceMatrix'
  | 'SearchAccommodation'
  | 'SearchRestaurant'
  | 'SearchAttraction'
  | 'SearchCity';

export type DriveMode = 'self-driving' | 'taxi';

export type ToolCall =
  | { tool: 'SearchFlight'; args: { departure: string; destination: string; date: string } }
  | { tool: 'GoogleDistanceMatrix'; args: { departure: string; destination: string; mode: DriveMode } }
  | { tool: 'SearchAccommodation'; args: { city: string } }
  | { tool: 'SearchRestaurant'; args: { city: string } }
  | { tool: 'SearchAttraction'; args: { city: string } }
  | { tool: 'SearchCity'; args: { state: string } };

/**
 * What a tool answers. Structured (so the agent's token language can list rows as local
 * references #1…#k) and renderable to TravelPlanner's text by the tools module.
 * `error` covers injected failures (`failure: true`, retrying may help) and bad calls.
 */
export type Observation =
  // departure/destination/date echo the search, so an empty answer renders as TravelPlanner's "There is no flight from
  // A to B on D."
  | { kind: 'flights'; rows: Flight[]; departure?: string; destination?: string; date?: string }
  | { kind: 'drive'; mode: DriveMode; drive: Drive | null; cost: number | null }
  | { kind: 'accommodations'; rows: Accommodation[] }
  | { kind: 'restaurants'; rows: Restaurant[] }
  | { kind: 'attractions'; rows: Attraction[] }
  | { kind: 'cities'; cities: string[] }
  | { kind: 'error'; message: string; failure: boolean };

export interface ToolStep {
  call: ToolCall;
  observation: Observation;
}

/** A teacher (or policy) episode: the query, the tool calls it made and the plan it wrote. */
export interface Trajectory {
  query: Query;
  steps: ToolStep[];
  plan: Plan | null; // null = not delivered
}

// ---------------------------------------------------------------------------------------------
// Evaluation: TravelPlanner's 8 commonsense and 5 hard checks, with its exact keys.

export const COMMONSENSE_KEYS = [
  'is_reasonable_visiting_city',
  'is_valid_restaurants',
  'is_valid_attractions',
  'is_valid_accommodation',
  'is_valid_transportation',
  'is_valid_information_in_current_city',
  'is_valid_information_in_sandbox',
  'is_not_absent',
] as const;
export type CommonsenseKey = (typeof COMMONSENSE_KEYS)[number];

export const HARD_KEYS = [
  'valid_cost',
  'valid_room_rule',
  'valid_cuisine',
  'valid_room_type',
  'valid_transportation',
] as const;
export type HardKey = (typeof HARD_KEYS)[number];

/** One check's result. `pass: null` = not applicable (TravelPlanner's None), which counts as a pass. */
export interface CheckResult {
  pass: boolean | null;
  /** a sentence a person can read, e.g. "Day 2 lunch 'X' is in Boston, but the day is spent in Chicago" */
  reason: string;
}

export interface Verdicts {
  /** a plan was delivered (non-empty and parseable) */
  delivered: boolean;
  commonsense: Record<CommonsenseKey, CheckResult>;
  /** null when the hard checks are gated off (not delivered, or completeness / within-sandbox failed) */
  hard: Record<HardKey, CheckResult> | null;
  /** all commonsense and all hard checks pass */
  finalPass: boolean;
  /** the plan's total cost by TravelPlanner's formula (null when it cannot be computed) */
  cost: number | null;
  /**
   * how many hard constraints the query poses (budget + its local constraints, counted by level
   * as eval.py does): this plan's share of the hard-micro denominator. Set by evaluatePlan.
   */
  hardConstraintCount?: number;
}

/** TravelPlanner's aggregate metrics over a set of plans, as fractions in [0, 1]. */
export interface EvalMetrics {
  count: number;
  deliveryRate: number;
  commonsenseMicro: number;
  commonsenseMacro: number;
  hardMicro: number;
  hardMacro: number;
  finalPass: number;
}
