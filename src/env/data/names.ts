// Word lists for the generated world's names. Names are built combinatorially ("The Copper Ladle",
// "Sunny loft near the river", "Riverside Botanical Garden") so thousands are available; the world
// generator rejects any that repeats or is a substring of another in the same city, because
// TravelPlanner's evaluation finds entries by substring. No name holds a comma or a semicolon:
// plans write "Name, City" and join attractions with ';'.
import type { Rng } from '../random.ts';
import type { RoomTypeValue } from '../types.ts';

const RESTAURANT_ADJECTIVES = [
  'Copper', 'Golden', 'Rustic', 'Silver', 'Blue', 'Crimson', 'Hidden', 'Lucky', 'Velvet', 'Iron',
  'Salty', 'Smoky', 'Wild', 'Little', 'Green', 'Amber', 'Jade', 'Olive', 'Saffron', 'Maple', 'Cedar',
  'Harbor', 'Urban', 'Midnight', 'Sunny', 'Humble', 'Twisted', 'Honest', 'Happy', 'Brass', 'Crooked',
  'Gilded', 'Painted', 'Stone', 'Oak', 'Willow', 'Juniper', 'Pepper', 'Coral', 'Scarlet',
] as const;
const RESTAURANT_NOUNS = [
  'Ladle', 'Spoon', 'Fork', 'Kettle', 'Skillet', 'Table', 'Lantern', 'Oven', 'Pot', 'Grill', 'Plate',
  'Bowl', 'Whisk', 'Barrel', 'Anchor', 'Hearth', 'Pantry', 'Goose', 'Fox', 'Rooster', 'Pelican', 'Lemon',
  'Radish', 'Fig', 'Acorn', 'Compass', 'Lighthouse', 'Windmill', 'Teapot', 'Cleaver',
] as const;
const RESTAURANT_OWNERS = [
  'Rosa', 'Marco', 'Mei', 'Lupe', 'Priya', 'Hank', 'Yuki', 'Omar', 'Elena', 'Dmitri', 'Nadia', 'Sal',
  'Ines', 'Theo', 'Ravi', 'Lucia', 'Jun', 'Bea', 'Otto', 'Farah', 'Gus', 'Noor', 'Carmen', 'Kenji',
] as const;
const RESTAURANT_PLACES = [
  'Kitchen', 'Bistro', 'Diner', 'Cantina', 'Trattoria', 'Brasserie', 'Eatery', 'Bakehouse', 'Noodle Bar',
  'Smokehouse', 'Tea House', 'Taqueria', 'Creperie', 'Oyster Bar', 'Curry House', 'Pizzeria', 'Grill House',
] as const;

/** "The Copper Ladle" or "Rosa's Trattoria" */
export function restaurantName(rng: Rng): string {
  if (rng.chance(0.6)) return `The ${rng.pick(RESTAURANT_ADJECTIVES)} ${rng.pick(RESTAURANT_NOUNS)}`;
  return `${rng.pick(RESTAURANT_OWNERS)}'s ${rng.pick(RESTAURANT_PLACES)}`;
}

const HOME_ADJECTIVES = [
  'Sunny', 'Cozy', 'Spacious', 'Charming', 'Modern', 'Quiet', 'Bright', 'Stylish', 'Rustic', 'Elegant',
  'Airy', 'Renovated', 'Historic', 'Peaceful', 'Colorful', 'Minimalist', 'Vintage', 'Luxury', 'Snug', 'Breezy',
] as const;
const ENTIRE_HOMES = [
  'loft', 'studio', 'apartment', 'cottage', 'bungalow', 'townhouse', 'condo', '2BR apartment',
  '3BR house', 'cabin', 'penthouse', 'duplex', 'guesthouse', 'farmhouse',
] as const;
const PRIVATE_ROOMS = ['bedroom', 'private room', 'guest room', 'master suite', 'attic room', 'garden room'] as const;
const SHARED_ROOMS = ['bunk', 'shared room', 'dorm bed', 'sofa bed', 'shared suite'] as const;
const HOSTS = [
  'home',
  'house',
  'flat',
  'hostel',
  'villa',
  'brownstone',
  'Victorian house',
  'craftsman bungalow',
] as const;
const HOME_PHRASES = [
  'near the river', 'by the park', 'with city views', 'close to downtown', 'steps from the beach',
  'with garden patio', 'in the historic district', 'near the university', 'with free parking',
  'off Main Street', 'by the lake', 'near the old mill', 'with rooftop deck', 'near the museums',
  'on a quiet street', 'with hot tub', 'near the train station', 'in the arts district',
] as const;

/** "Sunny loft near the river", "Quiet bedroom in craftsman house by the park", … */
export function accommodationName(rng: Rng, roomType: RoomTypeValue): string {
  const adjective = rng.pick(HOME_ADJECTIVES);
  const phrase = rng.pick(HOME_PHRASES);
  if (roomType === 'Entire home/apt') return `${adjective} ${rng.pick(ENTIRE_HOMES)} ${phrase}`;
  const room = roomType === 'Private room' ? rng.pick(PRIVATE_ROOMS) : rng.pick(SHARED_ROOMS);
  return `${adjective} ${room} in ${rng.pick(HOSTS)} ${phrase}`;
}

const ATTRACTION_PREFIXES = [
  'Riverside', 'Lakeview', 'Hillcrest', 'Old Town', 'Heritage', 'Pioneer', 'Founders', 'Liberty', 'Union',
  'Eagle Rock', 'Pine Ridge', 'Willow Creek', 'Bluebird', 'Sunset', 'Harbor', 'Granite', 'Cedar Grove',
  'Maple Hollow', 'Silver Falls', 'Red Bluff', 'Prairie', 'Canyon', 'Meadowbrook', 'Northgate', 'Bayfront',
] as const;
const ATTRACTION_KINDS = [
  'Botanical Garden', 'Art Museum', 'History Museum', 'Science Center', 'Park', 'Zoo', 'Aquarium',
  'Nature Preserve', 'Observatory', "Children's Museum", 'Sculpture Garden', 'State Park', 'Historic District',
  'Memorial', 'Lighthouse', 'Farmers Market', 'Arboretum', 'Playhouse', 'Boardwalk', 'Trailhead',
  'Railroad Museum', 'Music Hall', 'Conservatory', 'Plaza',
] as const;

/** "Riverside Botanical Garden", sometimes "<City> Art Museum" */
export function attractionName(rng: Rng, city: string): string {
  const kind = rng.pick(ATTRACTION_KINDS);
  if (rng.chance(0.25)) return `${city} ${kind}`;
  return `${rng.pick(ATTRACTION_PREFIXES)} ${kind}`;
}

const STREETS = [
  'Main', 'Oak', 'Pine', 'Maple', 'Cedar', 'Elm', 'Washington', 'Lake', 'Hill', 'Park', 'River', 'Church',
  'Market', 'Spring', 'Union', 'Franklin', 'Jefferson', 'Lincoln', 'Highland', 'Center',
] as const;
const STREET_SUFFIXES = ['St', 'Ave', 'Rd', 'Blvd', 'Dr', 'Ln', 'Way', 'Pkwy'] as const;

/** "737 N Main St, Rockford, IL 61103, USA"-like text, no state abbreviation outside the US */
export function streetAddress(rng: Rng, city: string, state: string, abbr: string, zipBase: number): string {
  const direction = rng.chance(0.3) ? `${rng.pick(['N', 'S', 'E', 'W'])} ` : '';
  const street = `${rng.between(1, 9999)} ${direction}${rng.pick(STREETS)} ${rng.pick(STREET_SUFFIXES)}`;
  if (abbr === '') return `${street}, ${city}, ${state}`;
  const zip = String(zipBase + rng.int(100)).padStart(5, '0');
  return `${street}, ${city}, ${abbr} ${zip}, USA`;
}

/** a web address from the attraction's name, e.g. "https://www.riversidebotanicalgarden.org/" */
export function website(rng: Rng, name: string): string {
  if (rng.chance(0.08)) return 'Unknown'; // the real table has "Unknown" cells too
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '');
  return `${rng.chance(0.5) ? 'https' : 'http'}://www.${slug}.${rng.pick(['org', 'com', 'gov'])}/`;
}
