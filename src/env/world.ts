// The seeded world generator: a TravelPlanner-schema database over real city and state
// names. Geography is approximate but real (data/geography.ts), so what a trip can use looks like the
// benchmark: short hops are driven, not flown; cross-country pairs are flown, not driven; islands fly.
// Every pair of cities is reachable on every date (a pair with no drive has a flight every day),
// while many pairs lack a flight on some dates and many are too far to drive, so the
// transportation constraints of hard queries bite.
import { Rng } from './random.ts';
import type { Accommodation, Attraction, Drive, Flight, Restaurant, RoomTypeValue, World, WorldSize } from './types.ts';
import { citiesOfStates } from './data/citySet.ts';
import { cityLocation, hashString, haversineKm, sameLandmass, stateGeo } from './data/geography.ts';
import { accommodationName, attractionName, restaurantName, streetAddress, website } from './data/names.ts';

/** The cuisines a query's cuisine constraint may ask for (TravelPlanner's seven). */
export const CONSTRAINT_CUISINES = [
  'Chinese',
  'American',
  'Italian',
  'Mexican',
  'Indian',
  'Mediterranean',
  'French',
] as const;
/** Every cuisine a restaurant may list (the benchmark's set). */
export const ALL_CUISINES = [
  ...CONSTRAINT_CUISINES, 'Cafe', 'Bakery', 'BBQ', 'Seafood', 'Pizza', 'Fast Food', 'Desserts', 'Tea',
] as const;
/** House rules as the accommodations table writes them (joined with " & "). */
export const HOUSE_RULES = ['No parties', 'No smoking', 'No children under 10', 'No pets', 'No visitors'] as const;
export const ROOM_TYPES: readonly RoomTypeValue[] = ['Entire home/apt', 'Private room', 'Shared room'];

/** The dates a generated world has flights for: March 2022, as TravelPlanner's queries. */
export const WORLD_DATES: readonly string[] = Array.from(
  { length: 31 },
  (_, i) => `2022-03-${String(i + 1).padStart(2, '0')}`,
);

/** A drive of this long or longer has no answer ("No valid information."): TravelPlanner drops any duration that reads
 * "1 day …". */
export const MAX_DRIVE_MINUTES = 24 * 60;

export interface WorldSizeSpec {
  /** states a 5/7-day query may target (each gets ≥ 3 cities) */
  destinationStates: number;
  citiesPerState: [number, number];
  /** extra cities, anywhere, that only serve as trip origins */
  originCities: number;
  restaurants: [number, number];
  accommodations: [number, number];
  attractions: [number, number];
}

export const WORLD_SIZES: Readonly<Record<WorldSize, WorldSizeSpec>> = {
  tiny: {
    destinationStates: 2,
    citiesPerState: [3, 3],
    originCities: 3,
    restaurants: [5, 8],
    accommodations: [3, 5],
    attractions: [3, 5],
  },
  small: {
    destinationStates: 4,
    citiesPerState: [3, 4],
    originCities: 6,
    restaurants: [5, 12],
    accommodations: [3, 6],
    attractions: [3, 6],
  },
  standard: {
    destinationStates: 8,
    citiesPerState: [3, 5],
    originCities: 16,
    restaurants: [5, 15],
    accommodations: [3, 8],
    attractions: [3, 8],
  },
};

export function generateWorld(size: WorldSize, seed: number): World {
  const spec = WORLD_SIZES[size];
  if (!spec) throw new Error(`unknown world size '${String(size)}' (expected tiny, small or standard)`);
  const rng = new Rng(seed);
  // Independent streams: changing how POIs are drawn must not reshuffle the flights.
  const cityRng = rng.fork(1);
  const poiRng = rng.fork(2);
  const transportRng = rng.fork(3);

  const world: World = {
    source: size,
    seed,
    citiesByState: new Map(),
    stateOf: new Map(),
    restaurants: new Map(),
    accommodations: new Map(),
    attractions: new Map(),
    flights: new Map(),
    drives: new Map(),
  };
  for (const [city, state] of pickCities(spec, cityRng)) {
    const list = world.citiesByState.get(state);
    if (list) list.push(city);
    else world.citiesByState.set(state, [city]);
    world.stateOf.set(city, state);
  }
  const usedNames = new Set<string>(); // lower-cased, world-wide
  for (const [city, state] of world.stateOf) {
    const cityNames: string[] = []; // lower-cased, for the substring rule
    const name = (make: () => string) => uniqueName(make, usedNames, cityNames, city);
    world.restaurants.set(city, makeRestaurants(city, spec, poiRng, name));
    world.accommodations.set(city, makeAccommodations(city, spec, poiRng, name));
    world.attractions.set(city, makeAttractions(city, state, spec, poiRng, name));
  }
  makeTransport(world, transportRng);
  return world;
}

/** Destination states (≥ 3 cities, in the US) first, then origin-only cities from anywhere else. */
function pickCities(spec: WorldSizeSpec, rng: Rng): [string, string][] {
  const all = citiesOfStates();
  const eligible = [...all.keys()].filter(
    (s) => all.get(s)!.length >= 3 && stateGeo(s).abbr !== '' && stateGeo(s).landmass !== 'island',
  );
  const picked: [string, string][] = [];
  const destStates = rng.sample(eligible, spec.destinationStates);
  for (const state of destStates) {
    const k = rng.between(spec.citiesPerState[0], spec.citiesPerState[1]);
    for (const city of rng.sample(all.get(state)!, k)) picked.push([city, state]);
  }
  const others: [string, string][] = [];
  for (const [state, cities] of all)
    if (!destStates.includes(state)) for (const city of cities) others.push([city, state]);
  // At most two origins per state, so an origin state never looks like a (≥ 3-city) destination state.
  const perState = new Map<string, number>();
  const target = picked.length + spec.originCities;
  for (const [city, state] of rng.shuffle(others)) {
    if (picked.length === target) break;
    const n = perState.get(state) ?? 0;
    if (n >= 2) continue;
    perState.set(state, n + 1);
    picked.push([city, state]);
  }
  return picked;
}

/**
 * Draws names until one is new world-wide and neither contains nor is contained in another name of
 * the same city (case-insensitive): TravelPlanner's evaluation finds entries by substring.
 */
function uniqueName(make: () => string, used: Set<string>, cityNames: string[], city: string): string {
  for (let attempt = 0; attempt < 500; attempt++) {
    const candidate = make();
    const lower = candidate.toLowerCase();
    if (used.has(lower) || lower === city.toLowerCase()) continue;
    if (cityNames.some((other) => other.includes(lower) || lower.includes(other))) continue;
    used.add(lower);
    cityNames.push(lower);
    return candidate;
  }
  throw new Error(`world generator ran out of names in ${city}`); // word lists too small: a bug, not bad input
}

// Average cost bands per person (dollars) by cuisine; a restaurant costs like its priciest cuisine.
const CUISINE_COST: Record<string, [number, number]> = {
  'Fast Food': [8, 22], Cafe: [10, 30], Tea: [8, 25], Bakery: [8, 28], Desserts: [8, 28], Pizza: [12, 35],
  Chinese: [12, 45], Mexican: [12, 40], Indian: [14, 45], American: [15, 55], BBQ: [18, 55],
  Mediterranean: [20, 65], Italian: [20, 75], Seafood: [25, 85], French: [35, 100],
};

function makeRestaurants(
  city: string,
  spec: WorldSizeSpec,
  rng: Rng,
  name: (make: () => string) => string,
): Restaurant[] {
  const n = rng.between(spec.restaurants[0], spec.restaurants[1]);
  const rows: Restaurant[] = [];
  for (let i = 0; i < n; i++) {
    const first = rng.chance(0.6) ? rng.pick(CONSTRAINT_CUISINES) : rng.pick(ALL_CUISINES);
    const cuisines = [
      first,
      ...rng.sample(
        ALL_CUISINES.filter((c) => c !== first),
        rng.between(0, 3),
      ),
    ];
    let band: [number, number] = [8, 22];
    for (const c of cuisines) if (CUISINE_COST[c][1] > band[1]) band = CUISINE_COST[c];
    rows.push({
      name: name(() => restaurantName(rng)),
      averageCost: rng.between(band[0], band[1]),
      cuisines,
      rating: rng.chance(0.1) ? 0 : rng.between(25, 49) / 10, // 0.0 = not yet rated, as in the real table
      city,
    });
  }
  // Every city serves each constraint cuisine somewhere, so a cuisine constraint is rarely infeasible.
  for (const cuisine of CONSTRAINT_CUISINES) {
    if (rows.some((r) => r.cuisines.includes(cuisine))) continue;
    const room = rows.filter((r) => r.cuisines.length < 5);
    if (room.length > 0) rng.pick(room).cuisines.push(cuisine);
  }
  return rows;
}

/** flights per route on a day it is flown: mostly one, as in TravelPlanner's table */
const FLIGHTS_PER_DAY: [number, number][] = [[1, 60], [2, 30], [3, 10]];
const MIN_NIGHTS: [number, number][] = [[1, 35], [2, 25], [3, 15], [4, 8], [5, 5], [7, 5], [10, 3], [14, 2], [30, 2]];

function weighted(rng: Rng, table: [number, number][]): number {
  let total = 0;
  for (const [, w] of table) total += w;
  let r = rng.next() * total;
  for (const [value, w] of table) if ((r -= w) < 0) return value;
  return table[table.length - 1][0];
}

function makeAccommodations(
  city: string,
  spec: WorldSizeSpec,
  rng: Rng,
  name: (make: () => string) => string,
): Accommodation[] {
  const n = rng.between(spec.accommodations[0], spec.accommodations[1]);
  const rows: Accommodation[] = [];
  for (let i = 0; i < n; i++) {
    // The first two are a bookable entire home and a private room, so most stays have an option.
    const roomType: RoomTypeValue =
      i === 0
        ? 'Entire home/apt'
        : i === 1
          ? 'Private room'
          : rng.chance(0.5)
            ? 'Entire home/apt'
            : rng.chance(0.7)
              ? 'Private room'
              : 'Shared room';
    const occupancy =
      roomType === 'Entire home/apt'
        ? rng.between(i === 0 ? 4 : 2, 8)
        : roomType === 'Private room'
          ? rng.between(1, 3)
          : rng.between(1, 2);
    const base =
      roomType === 'Entire home/apt'
        ? 50 + 35 * occupancy
        : roomType === 'Private room'
          ? 45 + 25 * occupancy
          : 20 + 15 * occupancy;
    const ruleCount = weighted(rng, [
      [0, 35],
      [1, 35],
      [2, 20],
      [3, 10],
    ]);
    rows.push({
      name: name(() => accommodationName(rng, roomType)),
      price: Math.round(base * (0.6 + rng.next() * 1.2)),
      roomType,
      houseRules: rng.sample(HOUSE_RULES, ruleCount),
      minimumNights: i === 0 ? 1 : weighted(rng, MIN_NIGHTS),
      maximumOccupancy: occupancy,
      rating: rng.between(1, 5),
      city,
    });
  }
  return rng.shuffle(rows);
}

function makeAttractions(
  city: string,
  state: string,
  spec: WorldSizeSpec,
  rng: Rng,
  name: (make: () => string) => string,
): Attraction[] {
  const n = rng.between(spec.attractions[0], spec.attractions[1]);
  const center = cityLocation(city, state);
  const geo = stateGeo(state);
  const areaCode = 201 + (hashString(city, 3) % 780);
  const zipBase = 10000 + (hashString(city, 4) % 89000);
  const rows: Attraction[] = [];
  for (let i = 0; i < n; i++) {
    const attraction = name(() => attractionName(rng, city));
    rows.push({
      name: attraction,
      latitude: round6(center.lat + (rng.next() - 0.5) * 0.1),
      longitude: round6(center.lon + (rng.next() - 0.5) * 0.1),
      address: streetAddress(rng, city, state, geo.abbr, zipBase),
      phone: rng.chance(0.05)
        ? 'Unknown'
        : `(${areaCode}) ${rng.between(200, 999)}-${String(rng.int(10000)).padStart(4, '0')}`,
      website: website(rng, attraction),
      city,
    });
  }
  return rows;
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** Drives for every pair on the same landmass within a day; flights per date by distance. */
function makeTransport(world: World, rng: Rng): void {
  const cities = [...world.stateOf.keys()];
  const where = cities.map((c) => cityLocation(c, world.stateOf.get(c)!));
  // Flight numbers: an affine map of a counter onto 7 digits (unique, but not sequential-looking).
  const NUMBERS = 9_000_000;
  const offset = rng.int(NUMBERS);
  let flightCount = 0;
  for (let a = 0; a < cities.length; a++) {
    for (let b = 0; b < cities.length; b++) {
      if (a === b) continue;
      const [from, to] = [cities[a], cities[b]];
      const km = haversineKm(where[a], where[b]);
      const pairSalt = hashString(a < b ? `${from}|${to}` : `${to}|${from}`); // symmetric route shape
      let drive: Drive | null = null;
      if (sameLandmass(from, world.stateOf.get(from)!, to, world.stateOf.get(to)!)) {
        const roadFactor = 1.15 + ((pairSalt % 1000) / 1000) * 0.25;
        const roadKm = Math.max(12, km * roadFactor * (0.99 + rng.next() * 0.02));
        const kmh = 85 + ((pairSalt >>> 10) % 25) + rng.next() * 2;
        const minutes = Math.max(10, Math.round((roadKm / kmh) * 60));
        if (minutes < MAX_DRIVE_MINUTES) { // TravelPlanner has no answer for a drive of a day or more
          drive = {
            origin: from,
            destination: to,
            durationMinutes: minutes,
            distanceKm: roadKm < 100 ? Math.round(roadKm * 10) / 10 : Math.round(roadKm),
          };
          world.drives.set(`${from}|${to}`, drive);
        }
      }
      // Short hops rarely fly; a pair you cannot drive always has a flight, so it stays reachable.
      const flyChance = drive === null ? 1 : drive.distanceKm < 300 ? 0.15 : 0.75;
      const miles = Math.max(30, Math.round(km / 1.609));
      const elapsedBase = 25 + miles / 8.5;
      const fareBase = 60 + miles * 0.18;
      for (const date of WORLD_DATES) {
        if (!rng.chance(flyChance)) continue;
        const count = weighted(rng, FLIGHTS_PER_DAY);
        const rows: Flight[] = [];
        for (let k = 0; k < count; k++) {
          const elapsed = Math.max(25, Math.round(elapsedBase + (rng.next() - 0.5) * 30));
          const dep = rng.between(300, Math.max(300, 1410 - elapsed)); // 05:00 onwards, landing the same day when possible
          const number = ((flightCount++ * 3_141_593 + offset) % NUMBERS) + 1_000_000; // the multiplier is coprime to NUMBERS
          rows.push({
            flightNumber: `F${number}`,
            price: Math.max(35, Math.round(fareBase * (0.6 + rng.next() * 0.9))),
            depTime: CLOCK[dep],
            arrTime: CLOCK[(dep + elapsed) % 1440],
            elapsed: elapsedText(elapsed),
            date,
            origin: from,
            dest: to,
            distance: miles,
          });
        }
        rows.sort((x, y) => (x.depTime < y.depTime ? -1 : x.depTime > y.depTime ? 1 : 0));
        world.flights.set(`${from}|${to}|${date}`, rows);
      }
    }
  }
}

// Shared strings: ~100k flights at `standard` size, so re-creating "15:40" for each is GC churn.
const CLOCK = Array.from(
  { length: 1440 },
  (_, m) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`,
);
const ELAPSED: string[] = [];
/** TravelPlanner's ActualElapsedTime text: always "H hours M minutes", "0 hours 36 minutes" included */
function elapsedText(minutes: number): string {
  return (ELAPSED[minutes] ??= `${Math.floor(minutes / 60)} hours ${minutes % 60} minutes`);
}

// ---------------------------------------------------------------------------------------------
// Facts about any world (generated or loaded from TravelPlanner's real rows).

const datesCache = new WeakMap<World, readonly string[]>();

/**
 * The dates a world answers flight searches for: `WORLD_DATES` for a generated world; for one loaded
 * from TravelPlanner's rows, every day from its first to its last flight date, widened to all of
 * March 2022 (every benchmark query is dated in that month, including trips with no flight rows).
 */
export function worldDates(world: World): readonly string[] {
  if (world.source !== 'real') return WORLD_DATES;
  let dates = datesCache.get(world);
  if (dates === undefined) {
    let first = WORLD_DATES[0];
    let last = WORLD_DATES[WORLD_DATES.length - 1];
    for (const key of world.flights.keys()) {
      const date = key.slice(key.lastIndexOf('|') + 1);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) continue;
      if (date < first) first = date;
      if (date > last) last = date;
    }
    dates = dayRange(first, last);
    datesCache.set(world, dates);
  }
  return dates;
}

function dayRange(first: string, last: string): string[] {
  const out: string[] = [];
  const end = Date.parse(`${last}T00:00:00Z`);
  for (let t = Date.parse(`${first}T00:00:00Z`); t <= end && out.length < 3660; t += 86_400_000)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/** States a 5/7-day query may target: those with at least `minCities` cities in this world. */
export function destinationStates(world: World, minCities = 3): string[] {
  return [...world.citiesByState].filter(([, cities]) => cities.length >= minCities).map(([state]) => state);
}

export interface WorldSummary {
  source: World['source'];
  seed: number;
  cities: number;
  states: number;
  destinationStates: number;
  restaurants: number;
  accommodations: number;
  attractions: number;
  flights: number;
  /** (origin, destination, date) triples with at least one flight */
  flightRoutes: number;
  drives: number;
  firstDate: string;
  lastDate: string;
  fingerprint: string;
}

export function worldSummary(world: World): WorldSummary {
  const total = (m: Map<string, unknown[]>) => {
    let n = 0;
    for (const rows of m.values()) n += rows.length;
    return n;
  };
  const dates = worldDates(world);
  return {
    source: world.source,
    seed: world.seed,
    cities: world.stateOf.size,
    states: world.citiesByState.size,
    destinationStates: destinationStates(world).length,
    restaurants: total(world.restaurants),
    accommodations: total(world.accommodations),
    attractions: total(world.attractions),
    flights: total(world.flights),
    flightRoutes: world.flights.size,
    drives: world.drives.size,
    firstDate: dates[0] ?? '',
    lastDate: dates[dates.length - 1] ?? '',
    fingerprint: worldFingerprint(world),
  };
}

const fingerprintCache = new WeakMap<World, string>();

/**
 * A stable hash of a world's content (two FNV-1a streams over every row, in map order), so a run can
 * record which world it used and a reload can tell if it changed. Cached per world object.
 */
export function worldFingerprint(world: World): string {
  const cached = fingerprintCache.get(world);
  if (cached !== undefined) return cached;
  let h1 = 0x811c9dc5;
  let h2 = 0x9747b28c;
  const feed = (text: string) => {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    }
    h1 = Math.imul(h1 ^ 10, 0x01000193); // row separator
    h2 = Math.imul(h2 ^ 10, 0x5bd1e995);
  };
  for (const [city, state] of world.stateOf) feed(`${city}\t${state}`);
  for (const rows of world.restaurants.values())
    for (const r of rows) feed(`${r.name}\t${r.averageCost}\t${r.cuisines.join(',')}\t${r.rating}\t${r.city}`);
  for (const rows of world.accommodations.values())
    for (const a of rows)
      feed(
        `${a.name}\t${a.price}\t${a.roomType}\t${a.houseRules.join('&')}\t${a.minimumNights}\t${a.maximumOccupancy}\t${a.rating}\t${a.city}`,
      );
  for (const rows of world.attractions.values())
    for (const a of rows)
      feed(`${a.name}\t${a.latitude}\t${a.longitude}\t${a.address}\t${a.phone}\t${a.website}\t${a.city}`);
  for (const rows of world.flights.values())
    for (const f of rows)
      feed(
        `${f.flightNumber}\t${f.price}\t${f.depTime}\t${f.arrTime}\t${f.elapsed}\t${f.date}\t${f.origin}\t${f.dest}\t${f.distance}`,
      );
  for (const d of world.drives.values()) feed(`${d.origin}\t${d.destination}\t${d.durationMinutes}\t${d.distanceKm}`);
  const hex = (h: number) => (h >>> 0).toString(16).padStart(8, '0');
  const fingerprint = hex(h1) + hex(h2);
  fingerprintCache.set(world, fingerprint);
  return fingerprint;
}

/**
 * Every breach of the naming rules: a restaurant, accommodation or attraction name used twice in the
 * world, or one name contained in another of the same city (case-insensitive). Empty = valid.
 */
export function findNameConflicts(world: World): string[] {
  const problems: string[] = [];
  const seen = new Map<string, string>(); // lower-cased name -> city
  for (const city of world.stateOf.keys()) {
    const names = [
      ...(world.restaurants.get(city) ?? []).map((r) => r.name),
      ...(world.accommodations.get(city) ?? []).map((a) => a.name),
      ...(world.attractions.get(city) ?? []).map((a) => a.name),
    ];
    const lower = names.map((n) => n.toLowerCase());
    for (let i = 0; i < names.length; i++) {
      const other = seen.get(lower[i]);
      if (other !== undefined) problems.push(`'${names[i]}' appears twice (${other} and ${city})`);
      else seen.set(lower[i], city);
      for (let j = 0; j < names.length; j++) {
        if (i !== j && lower[j].includes(lower[i]) && lower[i] !== lower[j])
          problems.push(`'${names[i]}' is part of '${names[j]}' in ${city}`);
      }
      if (/[,;]/.test(names[i])) problems.push(`'${names[i]}' in ${city} holds a comma or semicolon`);
    }
  }
  return problems;
}
