// Episodes to tokens and back (the grammar is documented once, in vocab.ts). Encoding is exact:
// every name a plan needs comes back from the observation rows through a local reference, and the
// same resolver is used to encode and to decode, so decodePlan(encode(traj)) === traj.plan.
import type { DriveMode, Observation, Query, ToolCall, ToolName, ToolStep, Trajectory } from '../env/types.ts';
import { MAX_DAY_OFFSET, MAX_REFS, VOCAB, numberTokens, refToken, type Vocab } from './vocab.ts';
import { encodePlan } from './plan.ts';

export interface EncodedEpisode {
  tokens: number[];
  /** 1 on policy tokens (calls, plan or answer, <eos>), 0 on <bos>, the query and observations */
  lossMask: number[];
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: string };
export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const err = <T>(error: string): Result<T> => ({ ok: false, error });

export const cityToken = (c: string): string => `city:${c}`;
export const stateToken = (s: string): string => `state:${s}`;

// ---------------------------------------------------------------------------------------------
// Dates: calls name dates as offsets from the episode's base date (a query's first day).

export function addDays(date: string, k: number): string {
  const t = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(t)) throw new Error(`token language: bad date "${date}"`);
  return new Date(t + k * 86_400_000).toISOString().slice(0, 10);
}

export function dayOffset(base: string, date: string): number {
  const a = Date.parse(`${base}T00:00:00Z`);
  const b = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(a) || Number.isNaN(b))
    throw new Error(`token language: bad date "${Number.isNaN(a) ? base : date}"`);
  return Math.round((b - a) / 86_400_000);
}

function dateOffsetToken(base: string, date: string): string {
  const k = dayOffset(base, date);
  if (k < 0 || k > MAX_DAY_OFFSET)
    throw new Error(`token language: date ${date} is ${k} days from ${base} (d+0…d+${MAX_DAY_OFFSET})`);
  return `d+${k}`;
}

// ---------------------------------------------------------------------------------------------
// Query

const ROOM_CONSTRAINT: Record<string, string[]> = {
  'entire room': ['entire'],
  'private room': ['private'],
  'shared room': ['shared'],
  'not shared room': ['<not>', 'shared'],
};
const RULE_TOKEN: Record<string, string> = {
  parties: 'parties', smoking: 'smoking', 'children under 10': 'children', pets: 'pets', visitors: 'visitors',
};

export function queryTokens(q: Query, vocab: Vocab = VOCAB): string[] {
  const [yy, mm, dd] = q.date[0].split('-').map(Number);
  const destTok = vocab.tryId(stateToken(q.dest)) >= 0 && q.days !== 3 ? stateToken(q.dest) : cityToken(q.dest);
  const t = [
    '<q>',
    cityToken(q.org),
    '<to>',
    destTok,
    '<day>',
    ...numberTokens(q.days),
    '<visit>',
    ...numberTokens(q.visiting_city_number),
    '<date>',
    ...numberTokens(yy % 100),
    ...numberTokens(mm),
    ...numberTokens(dd),
    '<people>',
    ...numberTokens(q.people_number),
    '<budget>',
    ...numberTokens(Math.round(q.budget)),
  ];
  const lc = q.local_constraint;
  if (lc['house rule']) t.push('<rule>', RULE_TOKEN[lc['house rule']]);
  if (lc['room type']) t.push('<room>', ...ROOM_CONSTRAINT[lc['room type']]);
  if (lc.cuisine && lc.cuisine.length > 0) t.push('<cuisine>', ...lc.cuisine);
  if (lc.transportation) t.push('<transport>', '<not>', lc.transportation === 'no flight' ? 'flight' : 'self-driving');
  t.push('</q>');
  return t;
}

// ---------------------------------------------------------------------------------------------
// Calls

export function callTokens(call: ToolCall, baseDate: string): string[] {
  switch (call.tool) {
    case 'SearchFlight':
      return [
        '<call>',
        call.tool,
        cityToken(call.args.departure),
        cityToken(call.args.destination),
        dateOffsetToken(baseDate, call.args.date),
        '</call>',
      ];
    case 'GoogleDistanceMatrix':
      return [
        '<call>',
        call.tool,
        cityToken(call.args.departure),
        cityToken(call.args.destination),
        call.args.mode,
        '</call>',
      ];
    case 'SearchCity':
      return ['<call>', call.tool, stateToken(call.args.state), '</call>'];
    default:
      return ['<call>', call.tool, cityToken(call.args.city), '</call>'];
  }
}

const CITY_TOOLS: readonly ToolName[] = ['SearchAccommodation', 'SearchRestaurant', 'SearchAttraction'];

/**
 * Parses a generated call (`<call> … </call>`, the brackets optional) back to a ToolCall.
 * Errors say what was expected where, e.g. `SearchFlight: argument 3 must be a day offset d+k, got "city:Boston"`.
 */
export function parseCallTokens(ids: readonly number[], baseDate: string, vocab: Vocab = VOCAB): Result<ToolCall> {
  let t = ids.map((i) => (i >= 0 && i < vocab.size ? vocab.tokens[i] : `?${i}`));
  if (t[0] === '<call>') t = t.slice(1);
  if (t[t.length - 1] === '</call>') t = t.slice(0, -1);
  if (t.length === 0) return err('empty call');
  const tool = t[0] as ToolName;
  const args = t.slice(1);
  const city = (k: number): string | null => (args[k]?.startsWith('city:') ? args[k].slice(5) : null);
  const need = (n: number): string | null =>
    args.length === n ? null : `${tool}: expected ${n} argument(s), got ${args.length} (${args.join(' ') || 'none'})`;
  const bad = (k: number, what: string): Result<ToolCall> =>
    err(`${tool}: argument ${k + 1} must be ${what}, got "${args[k]}"`);
  switch (tool) {
    case 'SearchFlight':
    case 'GoogleDistanceMatrix': {
      const n = need(3);
      if (n) return err(n);
      const departure = city(0);
      const destination = city(1);
      if (!departure) return bad(0, 'a city');
      if (!destination) return bad(1, 'a city');
      if (tool === 'SearchFlight') {
        const m = /^d\+(\d+)$/.exec(args[2]);
        if (!m) return bad(2, 'a day offset d+k');
        return ok({ tool, args: { departure, destination, date: addDays(baseDate, Number(m[1])) } });
      }
      if (args[2] !== 'self-driving' && args[2] !== 'taxi') return bad(2, 'self-driving or taxi');
      return ok({ tool, args: { departure, destination, mode: args[2] as DriveMode } });
    }
    case 'SearchCity': {
      const n = need(1);
      if (n) return err(n);
      if (!args[0].startsWith('state:')) return bad(0, 'a state');
      return ok({ tool, args: { state: args[0].slice(6) } });
    }
    default: {
      if (!CITY_TOOLS.includes(tool))
        return err(
          `unknown tool "${t[0]}" (expected one of SearchFlight, GoogleDistanceMatrix, SearchAccommodation, SearchRestaurant, SearchAttraction, SearchCity)`,
        );
      const n = need(1);
      if (n) return err(n);
      const c = city(0);
      if (!c) return bad(0, 'a city');
      return ok({ tool, args: { city: c } } as ToolCall);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Observations: one compact row per item, numbered #1…#k (rows past MAX_REFS are dropped).

const ROOM_TOKEN: Record<string, string> = {
  'Entire home/apt': 'entire',
  'Private room': 'private',
  'Shared room': 'shared',
};
const houseRuleToken = (rule: string): string | null => {
  const r = rule.replace(/^No /i, '').toLowerCase();
  return r.startsWith('children') ? 'children' : ['parties', 'smoking', 'pets', 'visitors'].includes(r) ? r : null;
};
const hourOf = (hhmm: string): number => Math.min(23, Math.max(0, Number.parseInt(hhmm, 10) || 0));
const money = (x: number): string[] => numberTokens(Math.max(0, Math.round(x)));

export function observationTokens(obs: Observation, vocab: Vocab = VOCAB): string[] {
  const t = ['<obs>'];
  const rows = <T>(items: readonly T[], row: (item: T) => string[]): void => {
    items.slice(0, MAX_REFS).forEach((item, i) => t.push(refToken(i + 1), ...row(item)));
  };
  switch (obs.kind) {
    case 'flights':
      rows(obs.rows, (f) => [
        ...money(f.price),
        '<t>',
        ...numberTokens(hourOf(f.depTime)),
        ...numberTokens(hourOf(f.arrTime)),
      ]);
      break;
    case 'drive':
      if (obs.drive && obs.cost !== null) t.push(obs.mode, ...money(obs.cost));
      else t.push('<none>');
      break;
    case 'accommodations':
      rows(obs.rows, (a) => [...money(a.price), ROOM_TOKEN[a.roomType] ?? 'entire',
        ...a.houseRules.map(houseRuleToken).filter((r): r is string => r !== null),
        ...numberTokens(Math.min(99, a.minimumNights)), ...numberTokens(Math.min(99, a.maximumOccupancy))]);
      break;
    case 'restaurants':
      rows(obs.rows, (r) => [...money(r.averageCost), ...r.cuisines.filter((c) => vocab.tryId(c) >= 0),
        ...numberTokens(Math.min(99, Math.max(0, Math.round(r.rating * 10))))]);
      break;
    case 'attractions':
      rows(obs.rows, () => []);
      break;
    case 'cities':
      t.push(...obs.cities.filter((c) => vocab.tryId(cityToken(c)) >= 0).map(cityToken));
      break;
    case 'error':
      t.push('<err>', ...(obs.failure ? ['<fail>'] : []));
      break;
  }
  t.push('</obs>');
  return t;
}

// ---------------------------------------------------------------------------------------------
// Whole episodes

export function toIds(tokens: readonly string[], vocab: Vocab = VOCAB): number[] {
  return tokens.map((t) => vocab.id(t));
}

/** The prompt a rollout starts from: `<bos> <q> … </q>` */
export function encodeQuery(q: Query, vocab: Vocab = VOCAB): number[] {
  return toIds(['<bos>', ...queryTokens(q, vocab)], vocab);
}

export function encodeObservation(obs: Observation, vocab: Vocab = VOCAB): number[] {
  return toIds(observationTokens(obs, vocab), vocab);
}

export function encodeCall(call: ToolCall, baseDate: string, vocab: Vocab = VOCAB): number[] {
  return toIds(callTokens(call, baseDate), vocab);
}

/** Appends the tool-interaction part shared by travel and tool-QA episodes. */
export function pushSteps(out: EncodedEpisode, steps: readonly ToolStep[], baseDate: string, vocab: Vocab): void {
  for (const s of steps) {
    const c = encodeCall(s.call, baseDate, vocab);
    out.tokens.push(...c);
    out.lossMask.push(...c.map(() => 1));
    const o = encodeObservation(s.observation, vocab);
    out.tokens.push(...o);
    out.lossMask.push(...o.map(() => 0));
  }
}

/** A delivered trajectory as training tokens; throws with the reason when it cannot be said in the language. */
export function encodeTrajectory(traj: Trajectory, vocab: Vocab = VOCAB): EncodedEpisode {
  if (!traj.plan) throw new Error('encodeTrajectory: the trajectory has no plan');
  const prompt = encodeQuery(traj.query, vocab);
  const out: EncodedEpisode = { tokens: [...prompt], lossMask: prompt.map(() => 0) };
  pushSteps(out, traj.steps, traj.query.date[0], vocab);
  const plan = encodePlan(traj.plan, { query: traj.query, steps: traj.steps }, vocab);
  if (!plan.ok) throw new Error(`encodeTrajectory: ${plan.error}`);
  const p = toIds([...plan.value, '<eos>'], vocab);
  out.tokens.push(...p);
  out.lossMask.push(...p.map(() => 1));
  return out;
}
