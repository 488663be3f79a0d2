// The lab's committed reference tables, written by `npm run cli -- sweep` and bundled into the page at
// build time: the quick ones (results/findings-quick/<ID>/table.json, one seed, absolute figures) and the
// standard ones (results/findings/<ID>/table.json, gains across seeds with intervals). They are read as
// text and checked here, so a half-written or hand-edited table shows its reason on its finding's page
// instead of breaking the build or the page.
import * as v from 'valibot';
import { FINDING_TABLE_FORMAT, type FindingTable } from '../../findings/findingTable.ts';
import { GAIN_TABLE_FORMAT, type GainTable } from '../../findings/findingGains.ts';
import { INTERACTION_TEST_FORMAT, type InteractionTestRecord } from '../../findings/interactionTestRecord.ts';

const pct = v.pipe(v.number(), v.finite());

const QuickSchema = v.object({
  format: v.literal(FINDING_TABLE_FORMAT),
  id: v.string(),
  title: v.string(),
  claim: v.string(),
  rows: v.array(v.string()),
  cols: v.array(v.string()),
  cells: v.array(
    v.object({
      row: v.string(),
      col: v.string(),
      lab: v.nullable(pct),
      paper: v.nullable(pct),
      best: v.boolean(),
      run: v.nullable(
        v.object({
          where: v.string(),
          successStart: v.number(),
          successFinal: v.number(),
          oodStart: v.number(),
          oodFinal: v.number(),
          wallSeconds: v.number(),
        }),
      ),
    }),
  ),
  description: v.string(),
  command: v.string(),
  commit: v.string(),
  date: v.string(),
  backend: v.string(),
  common: v.record(v.string(), v.unknown()),
  world: v.optional(v.nullable(v.object({ size: v.string(), seed: v.number() }))),
  sweepSeconds: v.number(),
  redescribed: v.optional(v.object({ command: v.string(), commit: v.string(), date: v.string() })),
});

const GainCellSchema = v.object({
  row: v.string(),
  col: v.string(),
  metric: v.picklist(['success', 'ood']),
  sft: v.boolean(),
  seeds: v.array(v.number()),
  start: v.array(pct),
  end: v.array(pct),
  gain: v.array(pct),
  planned: v.number(),
  compared: v.boolean(),
  mean: v.object({ start: v.nullable(pct), end: v.nullable(pct), gain: v.nullable(pct) }),
  ci95: v.nullable(v.object({ lo: pct, hi: pct })),
  paperGain: v.nullable(pct),
  coreMinutes: v.nullable(pct),
  where: v.array(v.string()),
});

const call = <T extends string>(xs: readonly T[]) => v.picklist(xs);

const interval = v.object({ lo: v.number(), hi: v.number() });
/** an interval at the level its call is made at (tables made before it have only ci95) */
const levelInterval = v.optional(
  v.nullable(v.object({ lo: v.number(), hi: v.number(), level: v.number(), holm: v.boolean() })),
);
/** the equivalence test at the plan's δ (tables made before it have none) */
const equivalence = v.optional(
  v.nullable(v.object({ delta: v.number(), p: v.number(), pAdjusted: v.number(), shown: v.boolean() })),
);
const GainPairSchema = v.object({
  higher: v.string(),
  lower: v.string(),
  call: call(['supports', 'contradicts', 'not resolved', 'interim']),
  test: v.nullable(call(['welch', 'one-sample'])),
  difference: v.nullable(v.number()),
  ci95: v.nullable(interval),
  df: v.nullable(v.number()),
  p: v.nullable(v.number()),
  pAdjusted: v.nullable(v.number()),
  seeds: v.tuple([v.number(), v.number()]),
  improvement: v.nullable(v.object({ estimate: v.number(), lo: v.number(), hi: v.number() })),
  interval: levelInterval,
  equivalence,
  rulesOut: v.optional(v.nullable(v.number())),
});

const GainInteractionSchema = v.object({
  plus: v.tuple([v.string(), v.string()]),
  minus: v.tuple([v.string(), v.string()]),
  seeds: v.tuple([v.number(), v.number(), v.number(), v.number()]),
  call: call(['supports', 'contradicts', 'not resolved', 'interim']),
  difference: v.nullable(v.number()),
  ci95: v.nullable(interval),
  df: v.nullable(v.number()),
  p: v.nullable(v.number()),
  pAdjusted: v.nullable(v.number()),
  interval: levelInterval,
  equivalence,
  paper: v.nullable(v.number()),
  why: v.string(),
});

const GainSchema = v.object({
  format: v.literal(GAIN_TABLE_FORMAT),
  id: v.string(),
  title: v.string(),
  claim: v.string(),
  rows: v.array(v.string()),
  cols: v.array(v.string()),
  size: v.string(),
  cells: v.array(GainCellSchema),
  nullControl: v.array(GainCellSchema),
  compares: v.object({
    doc: v.string(),
    alpha: v.number(),
    pairs: v.array(GainPairSchema),
    delta: v.optional(v.nullable(v.record(v.string(), v.number()))),
    interactions: v.optional(v.array(GainInteractionSchema)),
  }),
  direction: v.object({
    call: call(['agrees', 'agrees in part', 'disagrees', 'mixed', 'not resolved', 'interim']),
    sentence: v.string(),
  }),
  command: v.string(),
  commit: v.string(),
  date: v.string(),
  backend: v.string(),
  common: v.record(v.string(), v.unknown()),
  world: v.optional(v.nullable(v.object({ size: v.string(), seed: v.number() }))),
  coreMinutes: v.number(),
});

export type Read<T> = { table: T; error?: never } | { table?: never; error: string };
export type ReferenceTable = Read<FindingTable>;

/** Reads tables' texts keyed by path ('/results/findings/T7/table.json') against `schema`; one entry per finding id. */
function readTables<T>(texts: Record<string, string>, schema: v.GenericSchema): Map<string, Read<T>> {
  const out = new Map<string, Read<T>>();
  for (const [path, text] of Object.entries(texts)) {
    const id = /\/(T[1-7])\/table\.json$/.exec(path)?.[1];
    if (!id) continue; // another folder (e.g. runs/) is not a finding's table
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      out.set(id, { error: `${path} is not valid JSON (${e instanceof Error ? e.message : String(e)})` });
      continue;
    }
    const parsed = v.safeParse(schema, raw);
    if (!parsed.success) {
      const issue = parsed.issues[0];
      out.set(id, { error: `${path} is not a finding table: ${v.getDotPath(issue) ?? 'the file'} ${issue.message}` });
    } else if ((parsed.output as { id: string }).id !== id)
      out.set(id, { error: `${path} holds the table of ${(parsed.output as { id: string }).id}, not ${id}` });
    else out.set(id, { table: parsed.output as T });
  }
  return out;
}

/** the quick tables (format star-lab-finding-table/2: described, never called) */
export function readReferenceTables(texts: Record<string, string>): Map<string, ReferenceTable> {
  return readTables<FindingTable>(texts, QuickSchema);
}

/** the standard tables (gains across seeds, format star-lab-finding-gains/1) */
export function readGainTables(texts: Record<string, string>): Map<string, Read<GainTable>> {
  return readTables<GainTable>(texts, GainSchema);
}

const InteractionTestSchema = v.object({
  format: v.literal(INTERACTION_TEST_FORMAT),
  date: v.string(),
  commit: v.string(),
  command: v.string(),
  plan: v.object({
    date: v.string(),
    commit: v.string(),
    firstSeed: v.number(),
    lastSeed: v.number(),
    runs: v.number(),
    finished: v.number(),
  }),
  results: v.array(
    v.object({
      finding: v.picklist(['T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7']),
      interaction: v.string(),
      finished: v.tuple([v.number(), v.number(), v.number(), v.number()]),
      cells: v.pipe(
        v.array(
          v.object({ cell: v.string(), n: v.number(), mean: v.nullable(v.number()), sd: v.nullable(v.number()) }),
        ),
        v.length(4),
      ),
      planned: v.number(),
      alpha: v.number(),
      paper: v.nullable(v.number()),
      difference: v.nullable(v.number()),
      ci95: v.nullable(interval),
      interval: levelInterval,
      df: v.nullable(v.number()),
      p: v.nullable(v.number()),
      call: call(['supports', 'contradicts', 'not resolved', 'interim']),
    }),
  ),
});

/** the interactions' planned test (results/findings/interactions-test.json), checked; undefined when none is
 * committed */
export function readInteractionTest(texts: Record<string, string>): Read<InteractionTestRecord> | undefined {
  const [path, text] = Object.entries(texts)[0] ?? [];
  if (path === undefined) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { error: `${path} is not valid JSON (${e instanceof Error ? e.message : String(e)})` };
  }
  const parsed = v.safeParse(InteractionTestSchema, raw);
  if (!parsed.success)
    return {
      error: `${path} is not an interactions test: ${v.getDotPath(parsed.issues[0]) ?? 'the file'} ${parsed.issues[0].message}`,
    };
  return { table: parsed.output as InteractionTestRecord };
}

// bundled by Vite at build time; an absent folder or file simply gives no entry
const quick = import.meta.glob('/results/findings-quick/*/table.json', {
  eager: true,
  query: '?raw',
  import: 'default',
}) as Record<string, string>;
const standard = import.meta.glob('/results/findings/*/table.json', {
  eager: true,
  query: '?raw',
  import: 'default',
}) as Record<string, string>;

/** the quick reference tables by finding id */
export const REFERENCE_TABLES = readReferenceTables(quick);
/** the standard tables by finding id (none until the standard sweep has committed them) */
export const STANDARD_TABLES = readGainTables(standard);
/** the interactions' planned test on fresh seeds, when committed */
export const INTERACTION_TEST = readInteractionTest(
  import.meta.glob('/results/findings/interactions-test.json', {
    eager: true,
    query: '?raw',
    import: 'default',
  }) as Record<string, string>,
);
