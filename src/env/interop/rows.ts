// TravelPlanner database rows <-> the lab's World types. One place knows the benchmark's exact
// column names and text conventions, used both to read the real rows (train_ref_info.jsonl, the
// official CSV database) and to write an exported database the official code can read.
// Pure: no file system here (the browser bundle may import it).
import type { Accommodation, Attraction, Drive, Flight, Restaurant, RoomTypeValue } from '../types.ts';

/** A row as it comes from JSON (numbers) or CSV (strings). */
export type RawRow = Record<string, unknown>;

export const FLIGHT_COLUMNS = [
  'Flight Number',
  'Price',
  'DepTime',
  'ArrTime',
  'ActualElapsedTime',
  'FlightDate',
  'OriginCityName',
  'DestCityName',
  'Distance',
] as const;
export const ACCOMMODATION_COLUMNS = [
  'NAME', 'price', 'room type', 'house_rules', 'minimum nights', 'maximum occupancy', 'review rate number', 'city',
] as const;
export const RESTAURANT_COLUMNS = ['Name', 'Average Cost', 'Cuisines', 'Aggregate Rating', 'City'] as const;
export const ATTRACTION_COLUMNS = ['Name', 'Latitude', 'Longitude', 'Address', 'Phone', 'Website', 'City'] as const;
/** The order of the official distance.csv header (pandas reads columns by name, so order is cosmetic). */
export const DISTANCE_COLUMNS = ['origin', 'destination', 'cost', 'duration', 'distance'] as const;

export class RowError extends Error {}

const ROOM_TYPES: readonly RoomTypeValue[] = ['Entire home/apt', 'Private room', 'Shared room'];

function text(row: RawRow, col: string): string {
  const v = row[col];
  if (v === undefined || v === null || (typeof v === 'number' && Number.isNaN(v)))
    throw new RowError(`missing "${col}"`);
  const s = String(v).trim();
  if (s === '') throw new RowError(`empty "${col}"`);
  return s;
}

function num(row: RawRow, col: string): number {
  const v = row[col];
  const n = typeof v === 'number' ? v : Number(text(row, col));
  if (!Number.isFinite(n)) throw new RowError(`"${col}" is not a number: ${JSON.stringify(v)}`);
  return n;
}

/** True when every listed column holds a value: the official readers call pandas `dropna()`, so a row with an empty
 * cell does not exist for them. */
export function rowIsComplete(row: RawRow, columns: readonly string[]): boolean {
  return columns.every((c) => {
    const v = row[c];
    return v !== undefined && v !== null && !(typeof v === 'number' && Number.isNaN(v)) && String(v).trim() !== '';
  });
}

export function flightFromRow(row: RawRow): Flight {
  return {
    flightNumber: text(row, 'Flight Number'),
    price: num(row, 'Price'),
    depTime: text(row, 'DepTime'),
    arrTime: text(row, 'ArrTime'),
    elapsed: text(row, 'ActualElapsedTime'),
    date: text(row, 'FlightDate'),
    origin: text(row, 'OriginCityName'),
    dest: text(row, 'DestCityName'),
    distance: num(row, 'Distance'),
  };
}

export function restaurantFromRow(row: RawRow): Restaurant {
  return {
    name: text(row, 'Name'),
    averageCost: num(row, 'Average Cost'),
    cuisines: splitList(text(row, 'Cuisines'), ','),
    rating: num(row, 'Aggregate Rating'),
    city: text(row, 'City'),
  };
}

export function accommodationFromRow(row: RawRow): Accommodation {
  const roomType = text(row, 'room type');
  if (!ROOM_TYPES.includes(roomType as RoomTypeValue)) throw new RowError(`unknown room type "${roomType}"`);
  return {
    name: text(row, 'NAME'),
    price: num(row, 'price'),
    roomType: roomType as RoomTypeValue,
    houseRules: splitList(text(row, 'house_rules'), '&'),
    minimumNights: num(row, 'minimum nights'),
    maximumOccupancy: num(row, 'maximum occupancy'),
    rating: num(row, 'review rate number'),
    city: text(row, 'city'),
  };
}

export function attractionFromRow(row: RawRow): Attraction {
  return {
    name: text(row, 'Name'),
    latitude: num(row, 'Latitude'),
    longitude: num(row, 'Longitude'),
    address: text(row, 'Address'),
    phone: text(row, 'Phone'),
    website: text(row, 'Website'),
    city: text(row, 'City'),
  };
}

/** A distance.csv row, or null when the official tool would answer "no valid information" (empty duration/distance). */
export function driveFromRow(row: RawRow): Drive | null {
  if (!rowIsComplete(row, ['origin', 'destination', 'duration', 'distance'])) return null;
  return {
    origin: text(row, 'origin'),
    destination: text(row, 'destination'),
    durationMinutes: parseDuration(text(row, 'duration')),
    distanceKm: parseKm(text(row, 'distance')),
  };
}

/**
 * An empty list is written as "-" (TravelPlanner's "nothing" mark): an empty cell would make the
 * official readers drop the whole row, and "-" holds no "No …" rule and no cuisine, so the
 * official substring checks read it as "no rules" / "no cuisine".
 */
export const EMPTY_LIST = '-';

function splitList(s: string, sep: string): string[] {
  if (s === EMPTY_LIST) return [];
  return s.split(sep).map((x) => x.trim()).filter((x) => x !== '');
}

function joinList(items: readonly string[], sep: string): string {
  return items.length > 0 ? items.join(sep) : EMPTY_LIST;
}

// ---------------------------------------------------------------------------------------------
// Lab types -> rows (every cell filled: the official readers drop rows with an empty cell).

export function flightToRow(f: Flight): Record<(typeof FLIGHT_COLUMNS)[number], string> {
  return {
    'Flight Number': f.flightNumber,
    Price: String(f.price),
    DepTime: f.depTime,
    ArrTime: f.arrTime,
    ActualElapsedTime: f.elapsed,
    FlightDate: f.date,
    OriginCityName: f.origin,
    DestCityName: f.dest,
    Distance: String(f.distance),
  };
}

export function accommodationToRow(a: Accommodation): Record<(typeof ACCOMMODATION_COLUMNS)[number], string> {
  return {
    NAME: a.name,
    price: String(a.price),
    'room type': a.roomType,
    house_rules: joinList(a.houseRules, ' & '),
    'minimum nights': String(a.minimumNights),
    'maximum occupancy': String(a.maximumOccupancy),
    'review rate number': String(a.rating),
    city: a.city,
  };
}

export function restaurantToRow(r: Restaurant): Record<(typeof RESTAURANT_COLUMNS)[number], string> {
  return {
    Name: r.name,
    'Average Cost': String(r.averageCost),
    Cuisines: joinList(r.cuisines, ', '),
    'Aggregate Rating': String(r.rating),
    City: r.city,
  };
}

export function attractionToRow(a: Attraction): Record<(typeof ATTRACTION_COLUMNS)[number], string> {
  return {
    Name: a.name,
    Latitude: String(a.latitude),
    Longitude: String(a.longitude),
    Address: a.address,
    Phone: a.phone,
    Website: a.website,
    City: a.city,
  };
}

export function driveToRow(d: Drive): Record<(typeof DISTANCE_COLUMNS)[number], string> {
  // The official tool ignores `cost` and recomputes it from the distance per mode; we fill it with
  // the self-driving cost so the cell is never empty.
  return {
    origin: d.origin,
    destination: d.destination,
    cost: String(selfDrivingCost(d.distanceKm)),
    duration: formatDuration(d.durationMinutes),
    distance: formatKm(d.distanceKm),
  };
}

// ---------------------------------------------------------------------------------------------
// Google Distance Matrix text conventions ("19 hours 6 mins", "1 day 2 hours", "2,103 km").

/** TravelPlanner's costs: self-driving ⌊km·0.05⌋ per car, taxi ⌊km⌋ per car. */
export function selfDrivingCost(km: number): number {
  return Math.floor(km * 0.05);
}
export function taxiCost(km: number): number {
  return Math.floor(km);
}

const UNIT_MINUTES: Record<string, number> = { day: 1440, hour: 60, min: 1 };

/** "19 hours 6 mins" | "1 hour 1 min" | "45 mins" | "1 day 2 hours" -> minutes */
export function parseDuration(s: string): number {
  const parts = [...s.matchAll(/(\d+)\s*(day|hour|min)s?/g)];
  const leftover = s.replace(/(\d+)\s*(day|hour|min)s?/g, '').trim();
  if (parts.length === 0 || leftover !== '') throw new RowError(`cannot read duration "${s}"`);
  return parts.reduce((sum, m) => sum + Number(m[1]) * UNIT_MINUTES[m[2]], 0);
}

/**
 * minutes -> Google's text. Drives of a day or more keep their minutes ("1 day 2 hours 5 mins";
 * Google itself would drop them), so the export is lossless; the official tool only looks for
 * "day" in the text and answers "no valid information" for such drives either way.
 */
export function formatDuration(minutes: number): string {
  if (!Number.isInteger(minutes) || minutes < 0) throw new RowError(`bad duration ${minutes} min`);
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const mins = minutes % 60;
  const parts: string[] = [];
  const unit = (n: number, u: string) => `${n} ${u}${n === 1 ? '' : 's'}`;
  if (days > 0) parts.push(unit(days, 'day'));
  if (hours > 0) parts.push(unit(hours, 'hour'));
  if (mins > 0 || parts.length === 0) parts.push(unit(mins, 'min'));
  return parts.join(' ');
}

/** "2,103 km" -> 2103; Google writes very short distances in metres ("850 m" -> 0.85) */
export function parseKm(s: string): number {
  const m = /^([\d,]+(?:\.\d+)?)\s*(km|m)$/.exec(s.trim());
  if (!m) throw new RowError(`cannot read distance "${s}"`);
  const n = Number(m[1].replace(/,/g, ''));
  return m[2] === 'm' ? n / 1000 : n;
}

/** 2103 -> "2,103 km" */
export function formatKm(km: number): string {
  const [int, frac] = String(km).split('.');
  return `${int.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${frac ? '.' + frac : ''} km`;
}
