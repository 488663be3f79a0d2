// Query generation: TravelPlanner's query fields with Agent-STAR's level rules,
// a budget priced from the world, a feasibility check by the teacher, and natural-language text
// in TravelPlanner's style; plus the dataset builder with disjoint train / validation / test splits.
//
// Levels (Agent-STAR's generator): easy = budget only; medium = exactly one of house rule /
// cuisine / room type; hard = a transportation constraint plus exactly two of the other three.

import { Rng } from './random.ts';
import { planTrip } from './teacher.ts';
import { planCost } from './evaluate.ts';
import { allowsHouseRule, matchesRoomType, servesCuisine } from './itinerary.ts';
import { queryText } from './queryText.ts';
import { worldDates } from './world.ts';
import type {
  HouseRule,
  Level,
  LocalConstraint,
  Query,
  RoomTypeConstraint,
  TransportationConstraint,
  World,
} from './types.ts';

export const LEVELS: readonly Level[] = ['easy', 'medium', 'hard'];
export const HOUSE_RULES: readonly HouseRule[] = ['parties', 'smoking', 'children under 10', 'pets', 'visitors'];
export const ROOM_TYPES: readonly RoomTypeConstraint[] = [
  'entire room',
  'private room',
  'shared room',
  'not shared room',
];
export const CUISINES: readonly string[] = [
  'Chinese',
  'American',
  'Italian',
  'Mexican',
  'Indian',
  'Mediterranean',
  'French',
];
export const TRANSPORTATIONS: readonly TransportationConstraint[] = ['no flight', 'no self-driving'];

/** Budget slack over the teacher's sampled plan: below 1 the cheapest plans are needed, above it there is room. */
const SLACK_MIN = 0.9;
const SLACK_MAX = 1.3;

function addDays(iso: string, n: number): string {
  const d = new Date(`${iso}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/** `days` consecutive dates inside the world's range, or null when the range is too short. */
function pickDates(world: World, days: number, rng: Rng): string[] | null {
  const all = worldDates(world);
  const have = new Set(all);
  const starts = all.filter((d) => {
    for (let i = 1; i < days; i++) if (!have.has(addDays(d, i))) return false;
    return true;
  });
  if (starts.length === 0) return null;
  const start = rng.pick(starts);
  return Array.from({ length: days }, (_, i) => addDays(start, i));
}

/** Constraint kinds a level carries (transportation is added separately for hard). */
function constraintKinds(level: Level, rng: Rng): ('house rule' | 'cuisine' | 'room type')[] {
  const kinds = ['house rule', 'cuisine', 'room type'] as const;
  if (level === 'easy') return [];
  return rng.sample(kinds, level === 'medium' ? 1 : 2);
}

function roundTo100(x: number): number {
  return Math.max(100, Math.round(x / 100) * 100);
}

/**
 * One query at `level`, or null when this draw is infeasible (the caller draws again). The trip
 * is drawn (origin, destination, dates, party, constraints that the destination can satisfy), the
 * teacher plans it without a budget, and the budget is that plan's cost × a slack in [0.9, 1.3],
 * rounded to $100 like TravelPlanner's, never below the cheapest plan of the chosen structure.
 */
export function generateQuery(world: World, level: Level, rng: Rng): Query | null {
  if (!LEVELS.includes(level)) throw new Error(`unknown level "${String(level)}" (expected easy, medium or hard)`);
  const days = rng.pick([3, 5, 7] as const);
  const visiting = days === 3 ? 1 : days === 5 ? 2 : 3;
  const states = [...world.citiesByState.entries()];

  // a destination city needs somewhere to sleep, eat and visit (origin-only cities have none)
  const visitable = (c: string) =>
    !!world.accommodations.get(c)?.length && !!world.restaurants.get(c)?.length && !!world.attractions.get(c)?.length;
  let dest: string;
  let destCities: string[];
  if (days === 3) {
    const all = states.flatMap(([, cs]) => cs.filter(visitable));
    if (all.length === 0) return null;
    dest = rng.pick(all);
    destCities = [dest];
  } else {
    const big = states.filter(([, cs]) => cs.filter(visitable).length >= visiting);
    if (big.length === 0) return null;
    [dest, destCities] = rng.pick(big);
  }
  const destState = days === 3 ? world.stateOf.get(dest) : dest;
  const origins = states.filter(([s]) => s !== destState).flatMap(([, cs]) => cs);
  if (origins.length === 0) return null;
  const org = rng.pick(origins);
  const date = pickDates(world, days, rng);
  if (!date) return null;
  // TravelPlanner's easy queries are mostly solo trips; medium and hard are groups of up to 8
  const people = level === 'easy' ? (rng.chance(0.6) ? 1 : rng.between(2, 4)) : rng.between(1, 8);

  const lc: LocalConstraint = { 'house rule': null, cuisine: null, 'room type': null, transportation: null };
  const rooms = destCities.flatMap((c) => world.accommodations.get(c) ?? []);
  const restaurants = destCities.flatMap((c) => world.restaurants.get(c) ?? []);
  for (const kind of constraintKinds(level, rng)) {
    if (kind === 'house rule') {
      const ok = HOUSE_RULES.filter((r) => rooms.some((a) => allowsHouseRule(a, r)));
      if (ok.length === 0) return null;
      lc['house rule'] = rng.pick(ok);
    } else if (kind === 'room type') {
      const ok = ROOM_TYPES.filter((t) => rooms.some((a) => matchesRoomType(a, t)));
      if (ok.length === 0) return null;
      lc['room type'] = rng.pick(ok);
    } else {
      const ok = CUISINES.filter((c) => restaurants.some((r) => servesCuisine(r, c)));
      if (ok.length === 0) return null;
      lc.cuisine = rng.sample(ok, rng.between(1, Math.min(3, ok.length)));
    }
  }
  if (level === 'hard') lc.transportation = rng.pick(TRANSPORTATIONS);

  const draft: Query = {
    org,
    dest,
    days,
    visiting_city_number: visiting,
    date,
    people_number: people,
    local_constraint: lc,
    budget: 0,
    query: '',
    level,
  };
  const priced = planTrip(world, draft, rng, null);
  if (!priced) return null;
  // the evaluator's price (TravelPlanner's formula and name matching); equal to the planner's own on generated worlds
  const cost = planCost(world, draft, priced.plan) ?? priced.cost;
  const slack = SLACK_MIN + (SLACK_MAX - SLACK_MIN) * rng.next();
  const budget = Math.max(roundTo100(cost * slack), Math.ceil(priced.minCost / 100) * 100);
  const query: Query = { ...draft, budget };
  // feasibility by construction: the teacher must find a plan within the final budget
  const check = planTrip(world, query, rng.fork(1), budget);
  if (!check || (planCost(world, query, check.plan) ?? Infinity) > budget) return null;
  return { ...query, query: queryText(query, rng) };
}

/** Identity of a query for deduplication and split disjointness (the budget and wording are not part of it). */
export function queryKey(q: Query): string {
  const lc = q.local_constraint;
  const cuisine = lc.cuisine ? [...lc.cuisine].sort().join('+') : '-';
  return [
    q.org,
    q.dest,
    q.days,
    q.date[0],
    q.people_number,
    lc['house rule'] ?? '-',
    cuisine,
    lc['room type'] ?? '-',
    lc.transportation ?? '-',
  ].join('|');
}

export interface DatasetOptions {
  /** number of training queries (the paper's data-size axis: 100 … 2K) */
  size: number;
  /** easy : medium : hard weights of the training split, e.g. [4, 3, 3] */
  mix: readonly [number, number, number];
  seed: number;
  /** held-out validation queries (default 100), always at the paper's 4:3:3 mix */
  validationSize?: number;
  /** held-out test queries (default 200), always at the paper's 4:3:3 mix */
  testSize?: number;
  /** more validation queries, drawn after the training split and appended to the validation split
   *  (default 0): the split grows without changing which training queries are drawn */
  validationExtension?: number;
  /** more test queries, drawn after the validation extension and appended to the test split (default 0) */
  testExtension?: number;
  /** query keys the training split must not hold (another dataset's held-out queries, e.g. RL training
   *  beside an SFT checkpoint's grown splits): a training query with one of them is replaced, in its
   *  place, by a query of the same level from a stream of its own; every other training query stays */
  exclude?: Iterable<string>;
}

export interface Dataset {
  train: Query[];
  validation: Query[];
  test: Query[];
}

export const HELD_OUT_MIX: readonly [number, number, number] = [4, 3, 3];

/** held-out queries per split the lab judges RL on (a 95 % interval of
 *  about ±5 points on a success rate needs ≥ 300) */
export const GROWN_HELD_OUT = 300;

/**
 * The extensions that grow a dataset's validation and test splits to GROWN_HELD_OUT each (none for a
 * split already that large). The first `validationSize` validation queries stay the ones the dataset
 * always had, and the training split is unchanged, so checkpoints trained on it and figures measured
 * on its first queries stay valid.
 */
export function grownHeldOut(
  validationSize: number,
  testSize: number,
): { validationExtension: number; testExtension: number } {
  return {
    validationExtension: Math.max(0, GROWN_HELD_OUT - validationSize),
    testExtension: Math.max(0, GROWN_HELD_OUT - testSize),
  };
}

/** Integer counts per level proportional to `mix` (largest remainder), summing to `n`. */
export function levelCounts(n: number, mix: readonly number[]): [number, number, number] {
  if (mix.length !== 3 || mix.some((w) => !(w >= 0) || !Number.isFinite(w)) || mix.every((w) => w === 0)) {
    throw new Error(`mix must be three non-negative weights [easy, medium, hard], not all 0; got [${mix.join(', ')}]`);
  }
  const total = mix[0] + mix[1] + mix[2];
  const exact = mix.map((w) => (n * w) / total);
  const counts = exact.map(Math.floor) as [number, number, number];
  const order = [0, 1, 2].sort((a, b) => exact[b] - counts[b] - (exact[a] - counts[a]) || a - b);
  for (let i = 0; counts[0] + counts[1] + counts[2] < n; i++) counts[order[i % 3]]++;
  return counts;
}

function generateSplit(
  world: World,
  n: number,
  mix: readonly number[],
  rng: Rng,
  seen: Set<string>,
  name: string,
): Query[] {
  return rng.shuffle(generateLevels(world, levelCounts(n, mix), rng, seen, name));
}

/** counts[i] new distinct feasible queries of level LEVELS[i], in level order, each key added to `seen` */
function generateLevels(world: World, counts: readonly number[], rng: Rng, seen: Set<string>, name: string): Query[] {
  const out: Query[] = [];
  LEVELS.forEach((level, li) => {
    let made = 0;
    const maxDraws = 30 * counts[li] + 60;
    for (let draw = 0; made < counts[li]; draw++) {
      if (draw >= maxDraws) {
        throw new Error(
          `${name}: only ${made} of ${counts[li]} distinct feasible ${level} queries after ${maxDraws} draws; this world is too small for that many`,
        );
      }
      const q = generateQuery(world, level, rng.fork(draw * 3 + li));
      if (!q) continue;
      const key = queryKey(q);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(q);
      made++;
    }
  });
  return out;
}

/** `queries` with each one whose key is in `exclude` replaced in place by a new query of its level
 *  (distinct from `seen` and `exclude`); the same array when none is */
function replaceExcluded(
  world: World,
  queries: Query[],
  exclude: ReadonlySet<string>,
  rng: Rng,
  seen: Set<string>,
): Query[] {
  const hit = queries.flatMap((q, i) => (exclude.has(queryKey(q)) ? [i] : []));
  if (hit.length === 0) return queries;
  for (const key of exclude) seen.add(key);
  const counts = LEVELS.map((level) => hit.filter((i) => queries[i].level === level).length);
  const fresh = generateLevels(world, counts, rng, seen, 'train (replacing held-out queries)');
  const out = queries.slice();
  for (const i of hit)
    out[i] = fresh.splice(
      fresh.findIndex((q) => q.level === queries[i].level),
      1,
    )[0];
  return out;
}

/**
 * Train / validation / test queries for a world. The held-out splits are drawn first, from their
 * own seeded streams and always at 4:3:3, so for one world and seed they are the same whatever the
 * training size and mix (data-size and data-mix runs are scored on the same test set). Splits are
 * disjoint and duplicate-free by `queryKey` (same trip, party and constraints).
 *
 * Extensions (validationExtension, testExtension) are drawn after the training split, from streams of
 * their own, skipping every query drawn before them: the training split and the first validationSize /
 * testSize held-out queries are exactly those of the same call without extensions. They depend on the
 * training split, so a dataset's grown held-out splits are those of its own training size and mix.
 */
export function buildDataset(world: World, opts: DatasetOptions): Dataset {
  const { size, mix, seed, validationSize = 100, testSize = 200, validationExtension = 0, testExtension = 0 } = opts;
  for (const [k, v] of [['size', size], ['validationSize', validationSize], ['testSize', testSize],
    ['validationExtension', validationExtension], ['testExtension', testExtension]] as const) {
    if (!Number.isInteger(v) || v < 0) throw new Error(`buildDataset: ${k} must be a non-negative integer, got ${v}`);
  }
  const seen = new Set<string>();
  const test = generateSplit(world, testSize, HELD_OUT_MIX, new Rng(seed).fork(0x7e57), seen, 'test');
  const validation = generateSplit(world, validationSize, HELD_OUT_MIX, new Rng(seed).fork(0x0a1d), seen, 'validation');
  const drawn = generateSplit(world, size, mix, new Rng(seed).fork(0x7a1e), seen, 'train');
  const train = replaceExcluded(world, drawn, new Set(opts.exclude ?? []), new Rng(seed).fork(0x7a1f), seen);
  const moreValidation = generateSplit(
    world,
    validationExtension,
    HELD_OUT_MIX,
    new Rng(seed).fork(0x0a1e),
    seen,
    'validation extension',
  );
  const moreTest = generateSplit(
    world,
    testExtension,
    HELD_OUT_MIX,
    new Rng(seed).fork(0x7e58),
    seen,
    'test extension',
  );
  return { train, validation: validation.concat(moreValidation), test: test.concat(moreTest) };
}
