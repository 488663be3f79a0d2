// The 45 real TravelPlanner training queries (std_travelplanner.jsonl): their natural-language
// text -> the structured Query fields, and their gold plans (Python literals) -> the lab's Plan.
// The benchmark phrases queries freely ("a pair", "week-long", "between March 9th and 13th"), so
// the parser reads each field from cues rather than from one template, and fails loudly (with
// the query text) when a field is missing or contradicts another, never guessing silently — except
// people_number, which defaults to 1 when the text never mentions travellers (as TravelPlanner does).
// Pure: no file system (Node loads the files in src/env/node/realData.ts).
import type {
  HouseRule,
  Level,
  LocalConstraint,
  Plan,
  PlanDay,
  Query,
  RoomTypeConstraint,
  TransportationConstraint,
} from './types.ts';
import { parsePythonLiteral } from './pythonLiteral.ts';

export class QueryParseError extends Error {}

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
const NUMBER_WORDS: Record<string, number> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, a: 1, single: 1,
};
const NUM = String.raw`(\d+|one|two|three|four|five|six|seven|eight|nine|ten)`;
const CUISINES = ['Chinese', 'American', 'Italian', 'Mexican', 'Indian', 'Mediterranean', 'French'];

function toNumber(s: string): number {
  const n = /^\d+$/.test(s) ? Number(s) : NUMBER_WORDS[s.toLowerCase()];
  if (n === undefined) throw new QueryParseError(`not a number: ${s}`);
  return n;
}

/** Parse one natural-language query. `cityStates` is the city set (city -> state). */
export function parseRealQuery(text: string, cityStates: ReadonlyMap<string, string>): Query {
  const q = text.trim();
  const fail = (what: string): never => {
    throw new QueryParseError(`${what} in query: ${JSON.stringify(q)}`);
  };

  // --- budget: the one dollar amount
  const dollars = [...q.matchAll(/\$\s?([\d,]+)/g)];
  if (dollars.length !== 1) fail(`expected one dollar amount, found ${dollars.length}`);
  const budget = Number(dollars[0][1].replace(/,/g, ''));

  // --- dates
  const date = parseDateRange(q, fail);
  const span = date.length;

  // --- days: an explicit "3 days" / "5-day" / "week" must agree with the date range
  let days = span;
  const explicit = new RegExp(String.raw`\b${NUM}[- ]days?\b`, 'i').exec(q);
  const week = /\b(a|one)[- ]week\b|\bweek-long\b|\bweek\b/i.test(q);
  if (explicit) days = toNumber(explicit[1]);
  else if (week) days = 7;
  if (days !== span) fail(`the stated length (${days} days) and the dates (${span} days) disagree`);
  if (days !== 3 && days !== 5 && days !== 7) fail(`a trip lasts 3, 5 or 7 days, not ${days}`);

  // --- places: every city or state name in the text, in order
  const mentions = findPlaces(q, cityStates);
  const originCue =
    /(?:\bfrom|\bdepart(?:ing|s)?(?: from)?|\bleaving(?: from)?|\bstart(?:ing|s)? (?:in|from)|\bsetting off from|\bbeginning in|\btaking off from|\boriginating from)\s+$/i;
  const orgMention =
    mentions.find((m) => cityStates.has(m.name) && originCue.test(q.slice(Math.max(0, m.index - 30), m.index))) ??
    mentions.find((m) => cityStates.has(m.name));
  if (!orgMention) fail('no origin city');
  const org = orgMention!.name;
  const states = new Set(cityStates.values());
  const after = mentions.filter((m) => m !== orgMention && m.name !== org);
  const destMention = days === 3 ? after.find((m) => cityStates.has(m.name)) : after.find((m) => states.has(m.name));
  if (!destMention) fail(days === 3 ? 'no destination city' : 'no destination state');
  const dest = destMention!.name;

  // --- visiting_city_number: 1 for a 3-day trip, else the stated "N (different) cities"
  let visiting = 1;
  if (days !== 3) {
    const m = new RegExp(String.raw`\b${NUM} (?:[a-z]+ )?cities\b`, 'i').exec(q);
    visiting = m ? toNumber(m[1]) : days === 5 ? 2 : 3;
    if (visiting !== (days === 5 ? 2 : 3)) fail(`${visiting} cities in ${days} days`);
  }

  const people_number = parsePeople(q);
  const local_constraint = parseLocalConstraint(q, fail);
  return {
    org,
    dest,
    days: days as Query['days'],
    visiting_city_number: visiting as Query['visiting_city_number'],
    date,
    people_number,
    local_constraint,
    budget,
    query: q,
    level: levelOf(local_constraint),
  };
}

/** easy = budget only; medium = one local constraint; hard = two or more (TravelPlanner's hard queries carry three). */
export function levelOf(c: LocalConstraint): Level {
  const n = [c['house rule'], c.cuisine, c['room type'], c.transportation].filter((v) => v !== null).length;
  return n === 0 ? 'easy' : n === 1 ? 'medium' : 'hard';
}

interface Mention {
  name: string;
  index: number;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const placeRegexCache = new WeakMap<ReadonlyMap<string, string>, RegExp>();

/** Every city or state name in the text, longest match first, left to right. */
function findPlaces(q: string, cityStates: ReadonlyMap<string, string>): Mention[] {
  let re = placeRegexCache.get(cityStates);
  if (!re) {
    const names = [...new Set([...cityStates.keys(), ...cityStates.values()])].sort((a, b) => b.length - a.length);
    re = new RegExp(String.raw`(?<![\w.])(?:${names.map(escapeRegExp).join('|')})(?![\w])`, 'g');
    placeRegexCache.set(cityStates, re);
  }
  return [...q.matchAll(re)].map((m) => ({ name: m[0], index: m.index }));
}

function parseDateRange(q: string, fail: (what: string) => never): string[] {
  const year = /\b(20\d\d)\b/.exec(q);
  if (!year) fail('no year');
  const month = MONTHS.join('|');
  // "March 16th" | "the 23rd of March" | a bare "13th" (month taken from its neighbour)
  const re = new RegExp(
    String.raw`\b(${month})\s+(\d{1,2})(?:st|nd|rd|th)?\b|\b(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)(?:\s+of\s+(${month}))?\b`,
    'g',
  );
  const found = [...q.matchAll(re)].map((m) => ({
    day: Number(m[2] ?? m[3]),
    month: (m[1] ?? m[4]) as string | undefined,
  }));
  if (found.length !== 2) fail(`expected a start and an end date, found ${found.length}`);
  const [a, b] = found;
  a.month ??= b.month;
  b.month ??= a.month;
  if (!a.month || !b.month) fail('no month');
  const y = Number(year![1]);
  const start = Date.UTC(y, MONTHS.indexOf(a.month!), a.day);
  const end = Date.UTC(y, MONTHS.indexOf(b.month!), b.day);
  const n = Math.round((end - start) / 86_400_000) + 1;
  if (!(n >= 1 && n <= 31)) fail('the end date is not after the start date');
  return Array.from({ length: n }, (_, i) => new Date(start + i * 86_400_000).toISOString().slice(0, 10));
}

function parsePeople(q: string): number {
  const patterns: RegExp[] = [
    new RegExp(String.raw`\b(?:group|party) of ${NUM}\b`, 'i'),
    new RegExp(
      String.raw`\b${NUM}(?:[- ]| separate | different )?(?:people|persons?|individuals|travell?ers|adults)\b`,
      'i',
    ),
    new RegExp(
      String.raw`\bfor ${NUM}\b(?![- ](?:days?|weeks?|nights?|cities|different|separate|distinct|unique))`,
      'i',
    ),
  ];
  for (const re of patterns) {
    const m = re.exec(q);
    if (m) return toNumber(m[1]);
  }
  if (/\b(a pair|a couple)\b/i.test(q)) return 2;
  if (/\b(solo|alone|single[- ]person|single traveller|single traveler|myself)\b/i.test(q)) return 1;
  return 1; // the text does not say: one traveller
}

function parseLocalConstraint(q: string, fail: (what: string) => never): LocalConstraint {
  const sentences = q.split(/(?<=[.?!])\s+/);

  const rules: HouseRule[] = [];
  if (/\bparties\b/i.test(q)) rules.push('parties');
  if (/\bsmoking\b/i.test(q)) rules.push('smoking');
  if (/\bchildren under (?:the age of )?10\b/i.test(q)) rules.push('children under 10');
  if (/\bpets?\b|\bpet-friendly\b/i.test(q)) rules.push('pets');
  if (/\bvisitors\b/i.test(q)) rules.push('visitors');
  if (rules.length > 1) fail(`more than one house rule (${rules.join(', ')})`);

  const cuisines = CUISINES.map((c) => ({ c, at: q.search(new RegExp(String.raw`\b${c}\b`)) }))
    .filter((x) => x.at >= 0)
    .sort((x, y) => x.at - y.at)
    .map((x) => x.c);

  const negated = /\b(not|no|non|avoid|without|never)\b|n't\b/i;
  let room: RoomTypeConstraint | null = null;
  const sharedSentence = sentences.find((s) => /\b(?:non-)?shared rooms?\b|\bshared accommodations?\b/i.test(s));
  if (/\bentire (?:rooms?|homes?|apartments?|places?)\b/i.test(q)) room = 'entire room';
  else if (/\bprivate rooms?\b/i.test(q)) room = 'private room';
  else if (sharedSentence) room = negated.test(sharedSentence) ? 'not shared room' : 'shared room';

  let transport: TransportationConstraint | null = null;
  for (const s of sentences) {
    const flight = /\b(fly|flying|flights?)\b/i.test(s);
    const drive = /\bself-driv(?:e|ing)\b|\bdrive ourselves\b|\bdrive myself\b/i.test(s);
    if (!flight && !drive) continue;
    if (!negated.test(s)) continue;
    const t: TransportationConstraint = flight ? 'no flight' : 'no self-driving';
    if (flight && drive) fail('a sentence names both flights and self-driving');
    if (transport && transport !== t) fail('two different transportation constraints');
    transport = t;
  }

  return {
    'house rule': rules[0] ?? null,
    cuisine: cuisines.length ? cuisines : null,
    'room type': room,
    transportation: transport,
  };
}

// ---------------------------------------------------------------------------------------------
// std_travelplanner.jsonl lines and gold plans

export interface StdExample {
  /** the natural-language query (the user message after its last `Query:`) */
  queryText: string;
  /** the gold plan as written (a Python literal) */
  goldPlanText: string;
}

/** One std_travelplanner.jsonl line ({"messages": [system, user, assistant]}). */
export function parseStdLine(line: string): StdExample {
  const obj = JSON.parse(line) as { messages?: { role: string; content: string }[] };
  const messages = obj.messages;
  if (!Array.isArray(messages)) throw new QueryParseError('no "messages" array');
  const user = messages.find((m) => m.role === 'user');
  const assistant = messages.find((m) => m.role === 'assistant');
  if (!user || !assistant) throw new QueryParseError('needs a user and an assistant message');
  const at = user.content.lastIndexOf('Query:');
  if (at < 0) throw new QueryParseError('the user message has no "Query:"');
  return { queryText: user.content.slice(at + 'Query:'.length).trim(), goldPlanText: assistant.content };
}

const PLAN_FIELDS = [
  'current_city',
  'transportation',
  'breakfast',
  'attraction',
  'lunch',
  'dinner',
  'accommodation',
] as const;

/** A gold plan (Python-literal list of day dicts, `{}` padding to 7 days) -> the lab's Plan, without the padding. */
export function parseGoldPlan(text: string): Plan {
  const value = parsePythonLiteral(text.trim());
  if (!Array.isArray(value)) throw new QueryParseError('a gold plan is a list of days');
  const plan: PlanDay[] = [];
  value.forEach((day, i) => {
    if (day === null || typeof day !== 'object' || Array.isArray(day))
      throw new QueryParseError(`day ${i + 1} is not a dict`);
    if (Object.keys(day).length === 0) return; // padding
    if (typeof day.days !== 'number') throw new QueryParseError(`day ${i + 1} has no "days" number`);
    const out = { days: day.days } as PlanDay;
    for (const f of PLAN_FIELDS) {
      const v = day[f];
      if (typeof v !== 'string') throw new QueryParseError(`day ${i + 1} has no "${f}" text`);
      out[f] = v;
    }
    plan.push(out);
  });
  return plan;
}
