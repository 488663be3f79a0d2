// Plans in the token language (grammar in vocab.ts): a plan names no city. A travel day takes the leg
// the calls searched from where the trip is (`<go> MODE`), and every flight, restaurant, attraction
// and accommodation is a local reference into an observation the episode has seen. One resolver
// serves encode and decode, so names come back exactly.
import type {
  Accommodation,
  Attraction,
  Drive,
  DriveMode,
  Flight,
  Observation,
  Plan,
  PlanDay,
  Query,
  Restaurant,
  ToolStep,
} from '../env/types.ts';
import { transportText, type Leg } from '../env/itinerary.ts';
import { MAX_REFS, MODES, VOCAB, refIndex, refToken, type Vocab } from './vocab.ts';

/** What a plan's references resolve against: the query and the tool steps seen so far. */
export interface PlanContext {
  query: Query;
  steps: readonly ToolStep[];
}

type Res<T> = { ok: true; value: T } | { ok: false; error: string };
const ok = <T>(value: T): Res<T> => ({ ok: true, value });
const err = <T>(error: string): Res<T> => ({ ok: false, error });

// ---------------------------------------------------------------------------------------------
// Resolver: the latest successful observation of a kind for a key (errors never shadow rows).

type RowKind = 'restaurants' | 'accommodations' | 'attractions';
type RowOf<K extends RowKind> = K extends 'restaurants'
  ? Restaurant
  : K extends 'accommodations'
    ? Accommodation
    : Attraction;
const TOOL_OF: Record<RowKind, string> = {
  restaurants: 'SearchRestaurant',
  accommodations: 'SearchAccommodation',
  attractions: 'SearchAttraction',
};

function latest<T>(steps: readonly ToolStep[], pick: (s: ToolStep) => T | null): T | null {
  for (let i = steps.length - 1; i >= 0; i--) {
    const v = pick(steps[i]);
    if (v !== null) return v;
  }
  return null;
}

function cityRows<K extends RowKind>(ctx: PlanContext, kind: K, city: string): RowOf<K>[] | null {
  return latest(ctx.steps, (s) => {
    const o: Observation = s.observation;
    if (s.call.tool !== TOOL_OF[kind] || o.kind !== kind || (s.call.args as { city: string }).city !== city)
      return null;
    return (o.rows as RowOf<K>[]).slice(0, MAX_REFS);
  });
}

function flightRows(ctx: PlanContext, from: string, to: string, date: string | undefined): Flight[] | null {
  const match = (s: ToolStep, sameDate: boolean): Flight[] | null =>
    s.call.tool === 'SearchFlight' &&
    s.observation.kind === 'flights' &&
    s.call.args.departure === from &&
    s.call.args.destination === to &&
    (!sameDate || s.call.args.date === date)
      ? s.observation.rows.slice(0, MAX_REFS)
      : null;
  return latest(ctx.steps, (s) => match(s, true)) ?? latest(ctx.steps, (s) => match(s, false));
}

function driveOf(ctx: PlanContext, from: string, to: string, mode: DriveMode): { drive: Drive; cost: number } | null {
  return latest(ctx.steps, (s) => {
    const o = s.observation;
    if (
      s.call.tool !== 'GoogleDistanceMatrix' ||
      o.kind !== 'drive' ||
      s.call.args.departure !== from ||
      s.call.args.destination !== to ||
      s.call.args.mode !== mode
    )
      return null;
    return o.drive && o.cost !== null ? { drive: o.drive, cost: o.cost } : null;
  });
}

/**
 * Where `<go> MODE` leads from `from`: the destination of the latest successful search of that
 * mode leaving `from` (for a flight, one on the day's date first). Null when none was made.
 */
function legDestination(ctx: PlanContext, from: string, mode: 'flight' | DriveMode, date: string): string | null {
  const pick = (sameDate: boolean) => latest(ctx.steps, (s) => {
    if (!('departure' in s.call.args) || s.call.args.departure !== from) return null;
    if (mode === 'flight') {
      return s.call.tool === 'SearchFlight' &&
        s.observation.kind === 'flights' &&
        (!sameDate || s.call.args.date === date)
        ? s.call.args.destination
        : null;
    }
    return s.call.tool === 'GoogleDistanceMatrix' &&
      s.call.args.mode === mode &&
      s.observation.kind === 'drive' &&
      s.observation.drive
      ? s.call.args.destination
      : null;
  });
  return pick(true) ?? (mode === 'flight' ? pick(false) : null);
}

// ---------------------------------------------------------------------------------------------
// TravelPlanner's plan strings

export const placeString = (name: string, city: string): string => `${name}, ${city}`;
// flights and drives use the teacher's own formatter, so decoded strings equal the teacher's exactly
const legOf = (from: string, to: string, dayNo: number, date: string): Leg => ({ from, to, day: dayNo - 1, date });

/** "Name, City" → [name, city] (names may contain commas; the city is after the last one) */
function splitPlace(s: string): [string, string] | null {
  const i = s.lastIndexOf(', ');
  return i > 0 ? [s.slice(0, i).trim(), s.slice(i + 2).trim()] : null;
}

const routeOf = (currentCity: string): [string, string] | null => {
  const m = /^from (.+?) to (.+)$/.exec(currentCity.trim());
  return m ? [m[1].trim(), m[2].trim()] : null;
};

// ---------------------------------------------------------------------------------------------
// Encode (teacher plan → tokens)

/** The day's cities in the language: where items resolve by default, and where `<from>` items resolve. */
interface DayCities {
  here: string;
  from: string | null;
}

export function encodePlan(plan: Plan, ctx: PlanContext, vocab: Vocab = VOCAB): Res<string[]> {
  const t = ['<plan>'];
  let cur = ctx.query.org; // the city the traveller is in: the language never restates it
  for (const [di, day] of plan.entries()) {
    const where = `day ${di + 1}`;
    const route = routeOf(day.current_city);
    const tr = day.transportation.trim();
    let cities: DayCities;
    t.push('<day>');
    if (route) {
      if (route[0] !== cur)
        return err(`${where}: leaves from ${route[0]}, but the trip is in ${cur} (the language chains routes)`);
      const mode = tr.startsWith('Flight Number:')
        ? 'flight'
        : /^self-driving/i.test(tr)
          ? 'self-driving'
          : /^taxi/i.test(tr)
            ? 'taxi'
            : null;
      if (!mode) return err(`${where}: unknown transportation "${tr}" on a travel day`);
      const to = legDestination(ctx, cur, mode, ctx.query.date[di]);
      if (to !== route[1])
        return err(
          `${where}: goes to ${route[1]}, but the latest ${mode} search from ${cur} ${to ? `leads to ${to}` : 'was never made'}`,
        );
      t.push('<go>');
      if (mode === 'flight') {
        const num = /^Flight Number:\s*([^,\s]+)/.exec(tr)?.[1];
        const rows = flightRows(ctx, route[0], route[1], ctx.query.date[di]);
        const k = rows?.findIndex((f) => f.flightNumber === num) ?? -1;
        if (k < 0) return err(`${where}: flight ${num} from ${route[0]} to ${route[1]} is not in an observation`);
        t.push('flight', refToken(k + 1));
      } else t.push(mode);
      cities = { here: route[1], from: route[0] };
      cur = route[1];
    } else {
      if (day.current_city.trim() !== cur)
        return err(`${where}: stays in ${day.current_city}, but the trip is in ${cur}`);
      if (tr !== '-' && tr !== '') return err(`${where}: transportation "${tr}" on a day without a route`);
      cities = { here: cur, from: null };
    }
    const place = (field: string, kind: RowKind, value: string): string | null => {
      const p = splitPlace(value);
      if (!p) return `${where} ${field}: cannot read "${value}" as "Name, City"`;
      const prefix = p[1] === cities.here ? [] : p[1] === cities.from ? ['<from>'] : null;
      if (!prefix) return `${where} ${field}: ${p[1]} is not one of the day's cities`;
      const k = cityRows(ctx, kind, p[1])?.findIndex((r) => r.name === p[0]) ?? -1;
      if (k < 0) return `${where} ${field}: "${p[0]}" is not in an observed ${kind} list of ${p[1]}`;
      t.push(...prefix, refToken(k + 1));
      return null;
    };
    const slot = (marker: string, field: string, kind: RowKind, value: string): string | null => {
      t.push(marker);
      const items =
        kind === 'attractions'
          ? value
              .split(';')
              .map((x) => x.trim())
              .filter((x) => x && x !== '-')
          : [value.trim()];
      if (items.length === 0 || items[0] === '-' || items[0] === '') {
        t.push('-');
        return null;
      }
      for (const it of items) {
        const e = place(field, kind, it);
        if (e) return e;
      }
      return null;
    };
    const e =
      slot('<bf>', 'breakfast', 'restaurants', day.breakfast) ??
      slot('<at>', 'attraction', 'attractions', day.attraction) ??
      slot('<lu>', 'lunch', 'restaurants', day.lunch) ??
      slot('<di>', 'dinner', 'restaurants', day.dinner) ??
      slot('<ac>', 'accommodation', 'accommodations', day.accommodation);
    if (e) return err(e);
  }
  t.push('</plan>');
  // the language must say the plan exactly: check the round trip here, once, with the same resolver
  const back = decodePlan(t.map((x) => vocab.id(x)), ctx, vocab);
  if (!back.ok) return err(`plan does not decode: ${back.error}`);
  for (const [i, d] of plan.entries()) {
    for (const key of Object.keys(d) as (keyof PlanDay)[]) {
      if (String(back.value[i][key]) !== String(d[key]))
        return err(`day ${i + 1} ${key}: decodes to "${back.value[i][key]}", plan says "${d[key]}"`);
    }
  }
  return ok(t);
}

// ---------------------------------------------------------------------------------------------
// Decode (generated tokens → TravelPlanner plan)

/** a day's item slots in the language's order: marker, plan field, the rows its refs resolve in */
const DAY_SLOTS = [
  ['<bf>', 'breakfast', 'restaurants'],
  ['<at>', 'attraction', 'attractions'],
  ['<lu>', 'lunch', 'restaurants'],
  ['<di>', 'dinner', 'restaurants'],
  ['<ac>', 'accommodation', 'accommodations'],
] as const;

/**
 * Reads `<plan> … </plan>` (trailing <eos> allowed) into TravelPlanner's plan, resolving every
 * reference in the observations of `ctx`. Errors name the day, field and token that went wrong.
 */
export function decodePlan(ids: readonly number[], ctx: PlanContext, vocab: Vocab = VOCAB): Res<Plan> {
  const t = ids.map((i) => (i >= 0 && i < vocab.size ? vocab.tokens[i] : `?${i}`));
  let p = 0;
  if (t[p] === '<plan>') p++;
  const plan: Plan = [];
  let cur = ctx.query.org;
  const expect = (tok: string, where: string): string | null =>
    t[p] === tok ? (p++, null) : `${where}: expected ${tok}, got ${t[p] ?? 'end of plan'}`;
  while (p < t.length && t[p] !== '</plan>' && t[p] !== '<eos>') {
    const dayNo = plan.length + 1;
    const where = `day ${dayNo}`;
    const date = ctx.query.date[dayNo - 1] ?? '';
    const e0 = expect('<day>', where);
    if (e0) return err(e0);
    let current = cur;
    let transportation = '-';
    let cities: DayCities = { here: cur, from: null };
    if (t[p] === '<go>') {
      const mode = t[p + 1];
      if (mode !== 'flight' && mode !== 'self-driving' && mode !== 'taxi')
        return err(`${where}: expected flight #k, self-driving or taxi after <go>, got ${mode ?? 'end of plan'}`);
      const [a, b] = [cur, legDestination(ctx, cur, mode, date)];
      if (!b)
        return err(
          `${where}: no ${mode === 'flight' ? 'flight search' : `${mode} distance`} leaving ${a} was observed`,
        );
      p += 2;
      if (mode === 'flight') {
        const k = refIndex(t[p] ?? '');
        const rows = flightRows(ctx, a, b, date) ?? [];
        if (k < 1 || k > rows.length)
          return err(
            `${where}: flight ${t[p] ?? 'end of plan'} is not among the ${rows.length} flights observed from ${a} to ${b}`,
          );
        transportation = transportText('flight', legOf(a, b, dayNo, date), rows[k - 1], null);
        p++;
      } else {
        const d = driveOf(ctx, a, b, mode) as { drive: Drive; cost: number }; // legDestination found it
        transportation = transportText(mode, legOf(a, b, dayNo, date), null, d);
      }
      current = `from ${a} to ${b}`;
      cities = { here: b, from: a };
      cur = b;
    }
    const fields: Record<string, string> = {};
    for (const [marker, field, kind] of DAY_SLOTS) {
      const e = expect(marker, `${where} ${field}`);
      if (e) return err(e);
      if (t[p] === '-') {
        fields[field] = '-';
        p++;
        continue;
      }
      const names: string[] = [];
      while (t[p] === '<from>' || refIndex(t[p] ?? '') > 0) {
        const viaFrom = t[p] === '<from>';
        if (viaFrom && !cities.from) return err(`${where} ${field}: <from> on a day without travel`);
        const c = viaFrom ? (cities.from as string) : cities.here;
        if (viaFrom) p++;
        const k = refIndex(t[p] ?? '');
        const rows = cityRows(ctx, kind, c);
        if (!rows) return err(`${where} ${field}: no ${kind} search for ${c} was observed`);
        if (k < 1 || k > rows.length)
          return err(
            `${where} ${field}: ${t[p] ?? 'end of plan'} is not among the ${rows.length} ${kind} observed in ${c}`,
          );
        names.push(placeString(rows[k - 1].name, c));
        p++;
        if (kind !== 'attractions') break;
      }
      if (names.length === 0) return err(`${where} ${field}: expected - or #k, got ${t[p] ?? 'end of plan'}`);
      fields[field] = kind === 'attractions' ? names.map((n) => `${n};`).join('') : names[0];
    }
    plan.push({
      days: dayNo,
      current_city: current,
      transportation,
      breakfast: fields.breakfast,
      attraction: fields.attraction,
      lunch: fields.lunch,
      dinner: fields.dinner,
      accommodation: fields.accommodation,
    });
  }
  if (t[p] !== '</plan>') return err(`plan: expected </plan> after day ${plan.length}, got ${t[p] ?? 'end of tokens'}`);
  if (plan.length === 0) return err('plan: no days');
  return ok(plan);
}

// ---------------------------------------------------------------------------------------------
// Constrained decoding (RolloutOptions.constrainPlan): what cannot come next in a plan

const MODE_SET = new Set<string>(MODES);
const MARKER_KIND: Record<string, RowKind> = Object.fromEntries(DAY_SLOTS.map(([marker, , kind]) => [marker, kind]));

/** refs #(n+1)…#MAX_REFS: the ones a list of n rows cannot resolve */
function refsPast(n: number, vocab: Vocab): number[] {
  const ids: number[] = [];
  for (let k = n + 1; k <= MAX_REFS; k++) ids.push(vocab.id(refToken(k)));
  return ids;
}

/**
 * The ids that must not come next after a plan prefix (`<plan> …`, generated so far) because they
 * would refer to something the calls never observed: a `<go>` mode with no searched leg from where
 * the trip is, a ref past the end of the list its slot resolves in (every ref when no list was
 * seen), `<from>` on a day without travel or without a list in the city left. Empty where the next
 * token is not such a choice. It reads the prefix exactly as decodePlan does; a prefix that already cannot resolve gets
 * no bans (decodePlan reports it). Why: a small SFT policy writes the plan's structure well but sometimes
 * points past the end of a short list; masking those choices is grammar-constrained decoding, the
 * same thing JSON modes do for LLM tool calls, and the ban list is recorded per token so RL can
 * score the same masked distribution it sampled from.
 */
export function unresolvableNext(prefix: readonly number[], ctx: PlanContext, vocab: Vocab = VOCAB): number[] {
  type Slot =
    { kind: 'mode' } | { kind: 'flight'; rows: number } | { kind: 'item'; rows: RowKind; city: string | null } | null;
  let cur = ctx.query.org;
  let dayNo = 0;
  let cities: DayCities = { here: cur, from: null };
  let slot: Slot = null;
  for (const id of prefix) {
    const tok = vocab.tokens[id] ?? '';
    if (tok === '<day>') {
      dayNo++;
      cities = { here: cur, from: null };
      slot = null;
    } else if (tok === '<go>') slot = { kind: 'mode' };
    else if (slot?.kind === 'mode' && MODE_SET.has(tok)) {
      const mode = tok as 'flight' | DriveMode;
      const to = legDestination(ctx, cur, mode, ctx.query.date[dayNo - 1] ?? '');
      if (!to) return [];
      slot =
        mode === 'flight'
          ? { kind: 'flight', rows: flightRows(ctx, cur, to, ctx.query.date[dayNo - 1])?.length ?? 0 }
          : null;
      cities = { here: to, from: cur };
      cur = to;
    } else if (tok in MARKER_KIND) slot = { kind: 'item', rows: MARKER_KIND[tok], city: cities.here };
    else if (tok === '<from>' && slot?.kind === 'item') slot = { kind: 'item', rows: slot.rows, city: cities.from };
    else if (refIndex(tok) > 0 && slot?.kind === 'item' && slot.rows === 'attractions')
      slot = { kind: 'item', rows: 'attractions', city: cities.here };
    else slot = null;
  }
  if (slot === null) return [];
  if (slot.kind === 'mode') {
    const date = ctx.query.date[dayNo - 1] ?? '';
    return MODES.filter((m) => !legDestination(ctx, cur, m, date)).map((m) => vocab.id(m));
  }
  if (slot.kind === 'flight') return refsPast(slot.rows, vocab);
  const rows = (city: string | null) => (city === null ? 0 : cityRows(ctx, slot.rows, city)?.length ?? 0);
  const bans = refsPast(rows(slot.city), vocab);
  // <from> only where it can still resolve: on a travel day, with a list in the city left
  if (slot.city === cities.here && rows(cities.from) === 0) bans.push(vocab.id('<from>'));
  return bans;
}
