// Natural-language wording of a query in TravelPlanner's style (its 45 real queries vary the
// phrasing of the same few facts). Every fact of the structured query is stated: origin,
// destination (a city, or N cities in a state), length, dates, party size, budget and each local
// constraint, so a reader (or a parser) can recover the structured query from the text alone.

import type { Rng } from './random.ts';
import type { HouseRule, Query, RoomTypeConstraint, TransportationConstraint } from './types.ts';

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'];

function ordinal(n: number): string {
  const s = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${s}`;
}

/** "March 16th" */
export function dayText(iso: string): string {
  const [, m, d] = iso.split('-').map(Number);
  return `${MONTHS[m - 1]} ${ordinal(d)}`;
}

/** "March 16th to March 18th, 2022" */
export function dateRangeText(dates: readonly string[]): string {
  const first = dates[0];
  const last = dates[dates.length - 1];
  return `${dayText(first)} to ${dayText(last)}, ${first.slice(0, 4)}`;
}

/** "$1,700" */
export function moneyText(x: number): string {
  return `$${Math.round(x).toLocaleString('en-US')}`;
}

interface Voice {
  we: string; // I / we
  We: string;
  our: string; // my / our
  party: string; // "a single person" / "a group of 4" / "2 people"
}

function voiceOf(q: Query, rng: Rng): Voice {
  const n = q.people_number;
  if (n === 1)
    return { we: 'I', We: 'I', our: 'my', party: rng.pick(['a single person', 'one person', 'a solo traveler']) };
  const party = rng.pick([`a group of ${n}`, `${n} people`, n <= 8 ? `${NUMBER_WORDS[n]} people` : `${n} people`]);
  return { we: 'we', We: 'We', our: 'our', party };
}

function opening(q: Query, v: Voice, rng: Rng): string {
  const range = dateRangeText(q.date);
  if (q.days === 3) {
    return rng.pick([
      `Please help me plan a trip from ${q.org} to ${q.dest} spanning 3 days from ${range}. The travel should be planned for ${v.party}.`,
      `Can you provide a travel plan for ${v.party} departing from ${q.org} to ${q.dest} for 3 days, from ${range}?`,
      `Please design a travel plan departing from ${q.org} and heading to ${q.dest} for 3 days, from ${range}, for ${v.party}.`,
      `Could you create a 3-day itinerary for ${v.party}, starting in ${q.org} and heading to ${q.dest} from ${range}?`,
      `Craft a 3-day travel plan from ${q.org} to ${q.dest} for ${v.party}, from ${range}.`,
    ]);
  }
  const n = q.visiting_city_number;
  const span = q.days === 7 && rng.chance(0.3) ? 'one-week' : `${q.days}-day`;
  return rng.pick([
    `Could you help create a ${span} travel itinerary for ${v.party}, departing from ${q.org} and visiting ${n} cities in ${q.dest} from ${range}?`,
    `Please help me plan a ${span} trip for ${v.party}, departing from ${q.org} and visiting ${n} cities in ${q.dest} from ${range}.`,
    `We need a ${span} travel plan for ${v.party}, taking off from ${q.org} and visiting ${n} different cities in ${q.dest} from ${range}.`,
    `Can you devise a travel plan for ${v.party} that departs from ${q.org} and covers ${n} cities in ${q.dest}? The ${span} trip runs from ${range}.`,
    `Could you formulate a ${span} trip plan for ${v.party}, starting in ${q.org} and touring ${n} cities in ${q.dest} from ${range}?`,
  ]);
}

function budgetSentence(q: Query, v: Voice, rng: Rng): string {
  const b = moneyText(q.budget);
  return rng.pick([
    `The budget for this trip is ${b}.`,
    `${v.We} have a budget of ${b}.`,
    `${v.our[0].toUpperCase()}${v.our.slice(1)} budget is set at ${b}.`,
    `The entire travel budget is ${b}.`,
  ]);
}

function houseRuleSentence(rule: HouseRule, v: Voice, rng: Rng): string {
  switch (rule) {
    case 'parties':
      return rng.pick([
        `${v.We} require accommodations where parties are allowed.`,
        `The accommodations must allow parties.`,
      ]);
    case 'smoking':
      return rng.pick([
        `${v.We} require accommodations where smoking is permissible.`,
        `The accommodations must allow smoking.`,
      ]);
    case 'children under 10':
      return rng.pick([
        `Since ${v.we} will be traveling with young children, the accommodations must be suitable for children under 10.`,
        `The accommodations must allow children under 10.`,
      ]);
    case 'pets':
      return rng.pick([
        `${v.We} will be bringing pets, so pet-friendly accommodations are a must.`,
        `The accommodations must allow pets.`,
      ]);
    case 'visitors':
      return rng.pick([
        `${v.We} require accommodations that allow visitors.`,
        `The accommodations must permit visitors.`,
      ]);
  }
}

function roomTypeSentence(t: RoomTypeConstraint, v: Voice, rng: Rng): string {
  switch (t) {
    case 'entire room':
      return rng.pick([
        `${v.We} would like to rent entire rooms for ${v.our} stay.`,
        `The accommodations should be entire rooms.`,
      ]);
    case 'private room':
      return rng.pick([
        `${v.We} would prefer to have private rooms for ${v.our} stay.`,
        `The accommodations should be private rooms.`,
      ]);
    case 'shared room':
      return rng.pick([`${v.We} would like to stay in shared rooms.`, `The accommodations should be shared rooms.`]);
    case 'not shared room':
      return rng.pick([
        `${v.We} do not want shared rooms for ${v.our} stay.`,
        `The accommodations should not be shared rooms.`,
      ]);
  }
}

function listText(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function cuisineSentence(cuisines: readonly string[], v: Voice, rng: Rng): string {
  const c = listText(cuisines);
  const noun = cuisines.length === 1 ? 'cuisine' : 'cuisines';
  return rng.pick([
    `${v.We} would love to try ${c} ${noun} during the trip.`,
    `As for food, ${v.we} would like to experience ${c} ${noun}.`,
    `In terms of meals, ${v.we} prefer ${c} ${noun}.`,
  ]);
}

function transportationSentence(t: TransportationConstraint, v: Voice, rng: Rng): string {
  if (t === 'no flight') {
    return rng.pick([
      `${v.We} would prefer a journey that does not involve flying.`,
      `${v.We} will not be taking any flights.`,
    ]);
  }
  return rng.pick([
    `${v.We} do not plan on self-driving for this trip.`,
    `The transportation should not involve self-driving.`,
  ]);
}

/** The query's natural-language text; every structured field is stated. */
export function queryText(q: Query, rng: Rng): string {
  const v = voiceOf(q, rng);
  const lc = q.local_constraint;
  const parts = [opening(q, v, rng), budgetSentence(q, v, rng)];
  const extra: string[] = [];
  if (lc['house rule']) extra.push(houseRuleSentence(lc['house rule'], v, rng));
  if (lc['room type']) extra.push(roomTypeSentence(lc['room type'], v, rng));
  if (lc.cuisine && lc.cuisine.length > 0) extra.push(cuisineSentence(lc.cuisine, v, rng));
  if (lc.transportation) extra.push(transportationSentence(lc.transportation, v, rng));
  return [...parts, ...rng.shuffle(extra)].join(' ');
}
