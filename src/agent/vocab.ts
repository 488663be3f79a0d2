// The agent's token language: one fixed vocabulary shared by every world, so a
// checkpoint trained on one world can act in another. Names of restaurants, hotels, attractions
// and flights never get tokens: each observation lists its rows as local references #1…#K and
// the plan points at them, so the vocabulary stays at a few hundred tokens.
//
// | group       | tokens                                                                     | count |
// |-------------|----------------------------------------------------------------------------|-------|
// | structural  | <pad> <bos> <eos> <q> </q> <call> </call> <obs> </obs> <plan> </plan>        |       |
// |             | <day> <err> <fail> <none> <from> <to> <date> <people> <budget> <visit>     |       |
// |             | <rule> <room> <cuisine> <transport> <not> <t> <go> <bf> <at> <lu> <di> <ac> |       |
// |             | <qa> </qa> <ans> -                                                         | 37    |
// | tools       | SearchFlight GoogleDistanceMatrix SearchAccommodation SearchRestaurant     |       |
// |             | SearchAttraction SearchCity                                                | 6     |
// | modes       | flight self-driving taxi                                                   | 3     |
// | room types  | entire private shared                                                      | 3     |
// | house rules | parties smoking children pets visitors                                     | 5     |
// | cuisines    | the 15 TravelPlanner cuisines (Chinese … Fast Food, BBQ)                   | 15    |
// | QA kinds    | qa:cheapestFlight qa:accommodationUnder qa:bestRestaurant qa:countAttractions | 6  |
// |             | qa:driveCost qa:countCities (grammar in toolqaCodec.ts)                    |       |
// | numbers     | n0 … n99: base-100 digits, most significant first (253 → n2 n53)           | 100   |
// | day offsets | d+0 … d+9: a date as days after the episode's base date (query.date[0])    | 10    |
// | local refs  | #1 … #40: the k-th row of an observation                                   | 40    |
// | states      | state:<name> for the 64 states of TravelPlanner's city set                 | 64    |
// | cities      | city:<name> for its 312 cities                                             | 312   |
// | total       |                                                                            | 601   |
//
// Grammar (one episode; ? = optional, * = repeated; [mask] = loss mask of the span):
//   <bos> <q> ORG <to> DEST <day> n <visit> n <date> yy mm dd <people> n <budget> NUM CONSTRAINTS* </q>   [0]
//   ( <call> TOOL ARGS </call> [1]   <obs> OBSERVATION </obs> [0] )*
//   <plan> ( <day> (<go> TRANS)? <bf> ITEM <at> ITEM+ <lu> ITEM <di> ITEM <ac> ITEM )* </plan> <eos>      [1]
// where d+0 … d+(days-1) name the query's dates, NUM is 1+ number tokens,
//   CONSTRAINTS: <rule> RULE | <room> (<not>)? ROOMTYPE | <cuisine> CUISINE+ | <transport> <not> MODE
//   ARGS: SearchFlight A B d+k | GoogleDistanceMatrix A B MODE | Search{Accommodation,Restaurant,
//         Attraction} CITY | SearchCity STATE
//   OBSERVATION rows (rows beyond #40 are dropped: see encode.ts):
//     flights        #k PRICE <t> depHour arrHour
//     drive          MODE COST | <none>
//     accommodations #k PRICE ROOMTYPE RULE* minNights maxOccupancy     (RULE = the house forbids it)
//     restaurants    #k COST CUISINE* RATING         (RATING = round(10·rating), one number token)
//     attractions    #k
//     cities         CITY*
//     error          <err> (<fail> for an injected, retryable failure)
//   TRANS: flight #k | self-driving | taxi;   ITEM: - | (<from>)? #k
// A plan names no city: everything it says is a reference to something the calls observed. The
// trip starts in the query's origin; `<go> TRANS` travels the leg the calls searched from where the
// trip is — the destination of the latest successful search of that mode leaving the current city
// (for a flight, one on that day's date first) — and `<day>` alone stays put. An item `#k` is the
// k-th row of the latest successful observation of its kind (restaurants, attractions,
// accommodations) for the day's city — the arrival city on a travel day — and `<from> #k` one in the
// city the day left (breakfast before a flight, the last day's sights). A flight ref resolves in the
// leg's SearchFlight on that day's date, else on any date. So names come back exactly from the tool
// rows, and the plan cannot disagree with the calls about where the trip goes.
// Why: a first version restated every city ("<from> A B", "city:X #k"). 1,200 SFT steps of preset s
// learned its grammar but not to copy cities consistently: no plan resolved, most naming a leg the
// calls never searched. Naming destinations only (~30 % shorter) still failed the same way after 150
// steps (the model wrote the most frequent city); references leave the plan no city to copy.
// The language cannot say a route that jumps, a leg it did not search, or an item outside the day's
// cities; the teacher never writes one (encodePlan refuses them with the reason).
// Measured at `standard` size (500 teacher trajectories, bench key agent.len.*): 3-day 162–353 tokens
// (median 217), 5-day 311–464 (386), 7-day 456–658 (median 528, p95 642): a 7-day trip fits 1,024.
// The #40 cap never bites at `standard` (≤ 15 rows per list); a `real`-world list can be longer.
// Tool-QA episodes use  <bos> <qa> KIND ARGS </qa> (calls, observations)* <ans> ANSWER <eos>
// (grammar in toolqaCodec.ts).
import { CITY_STATE_PAIRS } from '../env/data/citySet.ts';

export const MAX_REFS = 40;
export const MAX_DAY_OFFSET = 9;
export const NUMBER_BASE = 100;

export const STRUCTURAL = [
  '<pad>', '<bos>', '<eos>', '<q>', '</q>', '<call>', '</call>', '<obs>', '</obs>', '<plan>', '</plan>',
  '<day>', '<err>', '<fail>', '<none>', '<from>', '<to>', '<date>', '<people>', '<budget>', '<visit>',
  '<rule>', '<room>', '<cuisine>', '<transport>', '<not>', '<t>', '<go>', '<bf>', '<at>', '<lu>', '<di>', '<ac>',
  '<qa>', '</qa>', '<ans>', '-',
] as const;
export const TOOLS = [
  'SearchFlight', 'GoogleDistanceMatrix', 'SearchAccommodation', 'SearchRestaurant', 'SearchAttraction', 'SearchCity',
] as const;
export const MODES = ['flight', 'self-driving', 'taxi'] as const;
export const ROOM_TYPES = ['entire', 'private', 'shared'] as const;
export const HOUSE_RULES = ['parties', 'smoking', 'children', 'pets', 'visitors'] as const;
export const CUISINES = [
  'Chinese', 'American', 'Italian', 'Mexican', 'Indian', 'Mediterranean', 'French',
  'Seafood', 'Tea', 'Fast Food', 'BBQ', 'Bakery', 'Desserts', 'Cafe', 'Pizza',
] as const;
/** tool-QA question kinds; their argument and answer grammar is in encode.ts */
export const QA_KINDS = [
  'qa:cheapestFlight',
  'qa:accommodationUnder',
  'qa:bestRestaurant',
  'qa:countAttractions',
  'qa:driveCost',
  'qa:countCities',
] as const;

export interface Vocab {
  tokens: string[];
  size: number;
  id(token: string): number;
  /** id or -1 */
  tryId(token: string): number;
  token(id: number): string;
  cities: readonly string[];
  states: readonly string[];
}

/** Builds the vocabulary from a fixed city/state table (the default is TravelPlanner's 312 cities). */
export function buildVocab(pairs: readonly (readonly [string, string])[]): Vocab {
  const cities = [...new Set(pairs.map((p) => p[0]))];
  const states = [...new Set(pairs.map((p) => p[1]))];
  const tokens: string[] = [
    ...STRUCTURAL, ...TOOLS, ...MODES, ...ROOM_TYPES, ...HOUSE_RULES, ...CUISINES, ...QA_KINDS,
    ...Array.from({ length: NUMBER_BASE }, (_, i) => `n${i}`),
    ...Array.from({ length: MAX_DAY_OFFSET + 1 }, (_, i) => `d+${i}`),
    ...Array.from({ length: MAX_REFS }, (_, i) => `#${i + 1}`),
    ...states.map((s) => `state:${s}`),
    ...cities.map((c) => `city:${c}`),
  ];
  const index = new Map<string, number>();
  tokens.forEach((t, i) => {
    if (index.has(t)) throw new Error(`vocab: duplicate token ${t}`);
    index.set(t, i);
  });
  return {
    tokens,
    size: tokens.length,
    cities,
    states,
    id(token) {
      const i = index.get(token);
      if (i === undefined) throw new Error(`vocab: no token "${token}"`);
      return i;
    },
    tryId: (token) => index.get(token) ?? -1,
    token(id) {
      if (!(id >= 0 && id < tokens.length)) throw new Error(`vocab: id ${id} out of range`);
      return tokens[id];
    },
  };
}

export const VOCAB: Vocab = buildVocab(CITY_STATE_PAIRS);
export const PAD = VOCAB.id('<pad>');

/** base-100 digits, most significant first; rejects what the language cannot say */
export function numberTokens(n: number): string[] {
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`token language: cannot encode number ${n} (non-negative integers only)`);
  const digits: string[] = [];
  let v = n;
  do {
    digits.unshift(`n${v % NUMBER_BASE}`);
    v = Math.floor(v / NUMBER_BASE);
  } while (v > 0);
  return digits;
}

export function refToken(k: number): string {
  if (!(Number.isInteger(k) && k >= 1 && k <= MAX_REFS))
    throw new Error(`token language: ref #${k} outside #1…#${MAX_REFS}`);
  return `#${k}`;
}

/** 1-based ref index of a token, or 0 */
export function refIndex(token: string): number {
  return token.startsWith('#') ? Number(token.slice(1)) || 0 : 0;
}

/** Renders ids as readable text (for logs, the UI and error messages). */
export function detokenize(ids: readonly number[], vocab: Vocab = VOCAB): string {
  return ids.map((i) => (i >= 0 && i < vocab.size ? vocab.tokens[i] : `?${i}`)).join(' ');
}
