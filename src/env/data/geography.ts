// Rough geography for the benchmark's "states", so generated distances, flight times and drive
// feasibility look like the real ones (Texas–California is a long day's drive, New York–California
// is not, Hawaii's islands are flights only). Values are approximate centroids in degrees and a
// spread (how far a state's cities scatter from the centroid); they shape the world, not geodesy.

export interface StateGeo {
  lat: number;
  lon: number;
  /** cities scatter up to this many degrees from the centroid */
  spread: number;
  /** cities drive to each other only on the same landmass; 'island' = every city is its own island */
  landmass: string;
  /** postal abbreviation for addresses ('' outside the US) */
  abbr: string;
}

const NA = 'north-america';

export const STATE_GEO: Readonly<Record<string, StateGeo>> = {
  Texas: { lat: 31.0, lon: -99.0, spread: 4.5, landmass: NA, abbr: 'TX' },
  California: { lat: 37.0, lon: -119.5, spread: 4.5, landmass: NA, abbr: 'CA' },
  'New York': { lat: 42.9, lon: -75.5, spread: 2, landmass: NA, abbr: 'NY' },
  Florida: { lat: 28.5, lon: -82.0, spread: 3, landmass: NA, abbr: 'FL' },
  Alaska: { lat: 62.0, lon: -152.0, spread: 8, landmass: NA, abbr: 'AK' },
  Michigan: { lat: 44.3, lon: -85.4, spread: 2.5, landmass: NA, abbr: 'MI' },
  Wisconsin: { lat: 44.6, lon: -89.8, spread: 2, landmass: NA, abbr: 'WI' },
  Virginia: { lat: 37.5, lon: -78.8, spread: 2, landmass: NA, abbr: 'VA' },
  Pennsylvania: { lat: 40.9, lon: -77.8, spread: 2, landmass: NA, abbr: 'PA' },
  Minnesota: { lat: 46.3, lon: -94.3, spread: 2.5, landmass: NA, abbr: 'MN' },
  Washington: { lat: 47.4, lon: -120.5, spread: 2.5, landmass: NA, abbr: 'WA' },
  'North Carolina': { lat: 35.5, lon: -79.4, spread: 2.5, landmass: NA, abbr: 'NC' },
  Montana: { lat: 47.0, lon: -109.6, spread: 4, landmass: NA, abbr: 'MT' },
  Illinois: { lat: 40.0, lon: -89.2, spread: 2.2, landmass: NA, abbr: 'IL' },
  Utah: { lat: 39.3, lon: -111.7, spread: 2.2, landmass: NA, abbr: 'UT' },
  Ohio: { lat: 40.3, lon: -82.8, spread: 1.8, landmass: NA, abbr: 'OH' },
  Iowa: { lat: 42.0, lon: -93.5, spread: 2, landmass: NA, abbr: 'IA' },
  Idaho: { lat: 44.4, lon: -114.6, spread: 2.5, landmass: NA, abbr: 'ID' },
  Colorado: { lat: 39.0, lon: -105.5, spread: 2.5, landmass: NA, abbr: 'CO' },
  Tennessee: { lat: 35.8, lon: -86.3, spread: 2, landmass: NA, abbr: 'TN' },
  'South Carolina': { lat: 33.9, lon: -80.9, spread: 1.5, landmass: NA, abbr: 'SC' },
  Oregon: { lat: 43.9, lon: -120.6, spread: 2.5, landmass: NA, abbr: 'OR' },
  Missouri: { lat: 38.4, lon: -92.5, spread: 2, landmass: NA, abbr: 'MO' },
  Indiana: { lat: 39.9, lon: -86.3, spread: 1.5, landmass: NA, abbr: 'IN' },
  Hawaii: { lat: 20.8, lon: -156.3, spread: 1.5, landmass: 'island', abbr: 'HI' },
  Georgia: { lat: 32.7, lon: -83.4, spread: 2, landmass: NA, abbr: 'GA' },
  Arizona: { lat: 34.2, lon: -111.7, spread: 2.5, landmass: NA, abbr: 'AZ' },
  Wyoming: { lat: 43.0, lon: -107.5, spread: 2.5, landmass: NA, abbr: 'WY' },
  'North Dakota': { lat: 47.5, lon: -100.5, spread: 2.5, landmass: NA, abbr: 'ND' },
  Nebraska: { lat: 41.5, lon: -99.8, spread: 2.5, landmass: NA, abbr: 'NE' },
  Massachusetts: { lat: 42.3, lon: -71.8, spread: 0.8, landmass: NA, abbr: 'MA' },
  Louisiana: { lat: 31.0, lon: -92.0, spread: 1.8, landmass: NA, abbr: 'LA' },
  Kentucky: { lat: 37.5, lon: -85.3, spread: 2, landmass: NA, abbr: 'KY' },
  England: { lat: 52.5, lon: -1.5, spread: 1.5, landmass: 'britain', abbr: '' },
  Oklahoma: { lat: 35.5, lon: -97.5, spread: 2, landmass: NA, abbr: 'OK' },
  'New Mexico': { lat: 34.4, lon: -106.1, spread: 2.5, landmass: NA, abbr: 'NM' },
  'New Jersey': { lat: 40.1, lon: -74.6, spread: 0.8, landmass: NA, abbr: 'NJ' },
  Mississippi: { lat: 32.7, lon: -89.7, spread: 1.8, landmass: NA, abbr: 'MS' },
  Maryland: { lat: 39.0, lon: -76.8, spread: 0.8, landmass: NA, abbr: 'MD' },
  Kansas: { lat: 38.5, lon: -98.4, spread: 2.5, landmass: NA, abbr: 'KS' },
  Alabama: { lat: 32.8, lon: -86.8, spread: 1.8, landmass: NA, abbr: 'AL' },
  Victoria: { lat: -37.0, lon: 144.5, spread: 2, landmass: 'australia', abbr: '' },
  'South Dakota': { lat: 44.4, lon: -100.2, spread: 2.5, landmass: NA, abbr: 'SD' },
  Ontario: { lat: 48.0, lon: -84.5, spread: 3, landmass: NA, abbr: '' },
  Nevada: { lat: 39.3, lon: -116.6, spread: 3, landmass: NA, abbr: 'NV' },
  Maine: { lat: 45.3, lon: -69.2, spread: 1.5, landmass: NA, abbr: 'ME' },
  Arkansas: { lat: 34.9, lon: -92.4, spread: 1.8, landmass: NA, abbr: 'AR' },
  'West Virginia': { lat: 38.6, lon: -80.6, spread: 1, landmass: NA, abbr: 'WV' },
  Wallonia: { lat: 50.4, lon: 4.6, spread: 0.5, landmass: 'europe', abbr: '' },
  Tuscany: { lat: 43.4, lon: 11.1, spread: 0.5, landmass: 'europe', abbr: '' },
  'St. Thomas': { lat: 18.34, lon: -64.93, spread: 0.05, landmass: 'island', abbr: 'VI' },
  'St. Croix': { lat: 17.73, lon: -64.75, spread: 0.05, landmass: 'island', abbr: 'VI' },
  Scotland: { lat: 57.0, lon: -3.5, spread: 1, landmass: 'britain', abbr: '' },
  'San Juan': { lat: 18.45, lon: -66.1, spread: 0.1, landmass: 'puerto-rico', abbr: 'PR' },
  Saipan: { lat: 15.2, lon: 145.75, spread: 0.05, landmass: 'island', abbr: 'MP' },
  'Saint Petersburg': { lat: 59.9, lon: 30.3, spread: 0.2, landmass: 'europe', abbr: '' },
  'Rhode Island': { lat: 41.7, lon: -71.5, spread: 0.3, landmass: NA, abbr: 'RI' },
  Ponce: { lat: 18.0, lon: -66.6, spread: 0.1, landmass: 'puerto-rico', abbr: 'PR' },
  'New Hampshire': { lat: 43.7, lon: -71.6, spread: 0.8, landmass: NA, abbr: 'NH' },
  'Eastern District': { lat: -14.3, lon: -170.7, spread: 0.05, landmass: 'island', abbr: 'AS' },
  'District of Columbia': { lat: 38.9, lon: -77.0, spread: 0.05, landmass: NA, abbr: 'DC' },
  Connecticut: { lat: 41.6, lon: -72.7, spread: 0.5, landmass: NA, abbr: 'CT' },
  'Alexandria Governorate': { lat: 31.2, lon: 29.9, spread: 0.3, landmass: 'africa', abbr: '' },
  Aguadilla: { lat: 18.43, lon: -67.15, spread: 0.05, landmass: 'puerto-rico', abbr: 'PR' },
};

const FALLBACK: StateGeo = { lat: 39.8, lon: -98.6, spread: 10, landmass: 'island', abbr: '' };

export function stateGeo(state: string): StateGeo {
  return STATE_GEO[state] ?? FALLBACK;
}

/** A stable 32-bit hash of a string (FNV-1a), so a city's location does not depend on the world seed. */
export function hashString(text: string, salt = 0): number {
  let h = (0x811c9dc5 ^ salt) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Where a city lies: its state's centroid plus a name-seeded offset within the state's spread. */
export function cityLocation(city: string, state: string): { lat: number; lon: number } {
  const geo = stateGeo(state);
  const angle = (hashString(city, 1) / 0x100000000) * 2 * Math.PI;
  const radius = Math.sqrt(hashString(city, 2) / 0x100000000) * geo.spread;
  const lat = geo.lat + radius * Math.sin(angle) * 0.7; // states are wider than tall
  const lon = geo.lon + (radius * Math.cos(angle)) / Math.max(0.3, Math.cos((geo.lat * Math.PI) / 180));
  return { lat, lon };
}

/** Great-circle distance in km. */
export function haversineKm(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Whether two cities share a road network (same landmass; every 'island' city stands alone). */
export function sameLandmass(cityA: string, stateA: string, cityB: string, stateB: string): boolean {
  const a = stateGeo(stateA).landmass;
  const b = stateGeo(stateB).landmass;
  if (a === 'island' || b === 'island') return cityA === cityB;
  return a === b;
}
