// The records of the plans made past the standard tables, read and checked at build time: the confirmatory test of
// the lab's own leads (results/findings/confirmatory-test.json) and the answers of T8 and T9
// (results/findings/beyond-test.json). Each is written by `power-plan … --test` from the runs that have finished; a
// record that fails its check gives a reason instead of figures, an absent one gives undefined.
import * as v from 'valibot';
import {
  CONFIRMATORY_TEST_FORMAT,
  type ConfirmatoryTestRecord,
} from '../../findings/confirmatoryTestRecord.ts';
import { BEYOND_TEST_FORMAT, type BeyondTestRecord } from '../../findings/beyondTest.ts';
import type { Read } from './referenceTables.ts';

const num = v.number();
const maybe = v.nullable(num);
const range = v.object({ lo: num, hi: num });
const planStamp = v.object({ date: v.string(), commit: v.string() });

const ConfirmatorySchema = v.object({
  format: v.literal(CONFIRMATORY_TEST_FORMAT),
  date: v.string(),
  commit: v.string(),
  command: v.string(),
  plan: v.object({ ...planStamp.entries, firstSeed: num, lastSeed: num, runs: num, finished: num }),
  familyAlpha: num,
  results: v.array(
    v.object({
      finding: v.picklist(['T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7']),
      higher: v.string(),
      lower: v.string(),
      pairOfFinding: v.picklist(['planned', 'unplanned']),
      planned: num,
      finished: v.tuple([num, num]),
      difference: maybe,
      ci95: v.nullable(range),
      interval: v.nullable(v.object({ ...range.entries, level: num })),
      df: maybe,
      p: maybe,
      pAdjusted: maybe,
      equivalence: v.nullable(v.object({ delta: num, p: num, pAdjusted: num, shown: v.boolean() })),
      call: v.picklist(['confirmed', 'reversed', 'not detected', 'interim']),
      committed: v.object({
        seeds: v.tuple([num, num]),
        difference: num,
        sdHigher: num,
        sdLower: num,
        sd: num,
        p: num,
        pAdjusted: num,
        family: num,
      }),
    }),
  ),
});

const difference = v.object({
  label: v.string(),
  n: v.array(num),
  planned: num,
  difference: maybe,
  interval: v.nullable(v.object({ ...range.entries, level: num })),
  p: maybe,
  pAdjusted: maybe,
  equivalence: v.nullable(v.object({ delta: num, pAdjusted: num, shown: v.boolean() })),
  call: v.picklist(['positive', 'negative', 'not detected', 'interim']),
});
const bound = v.nullable(num);
const BeyondSchema = v.object({
  format: v.literal(BEYOND_TEST_FORMAT),
  date: v.string(),
  commit: v.string(),
  command: v.string(),
  plan: v.object({
    ...planStamp.entries,
    coreHours: num,
    T8: v.object({ coreHours: num, seeds: v.tuple([num, num]), reused: num }),
    T9: v.object({ coreHours: num, seeds: v.tuple([num, num]), sizes: v.array(num) }),
  }),
  familyAlpha: num,
  T8: v.object({
    planned: num,
    finished: num,
    seedsPerCell: num,
    fixedFirst: v.tuple([bound, bound]),
    switches: v.array(
      v.object({
        scale: v.picklist(['s', 'm', 'l']),
        name: v.string(),
        stage: v.picklist([1, 2]),
        steps: num,
        interval: v.object({ n: num, censored: num, median: bound, lo: bound, hi: bound, coverage: bound }),
      }),
    ),
    pairs: v.array(difference),
    interactions: v.array(difference),
    mechanism: v.nullable(
      v.object({
        what: v.string(),
        unit: v.string(),
        steps: v.string(),
        digits: num,
        arms: v.array(v.object({ arm: v.string(), n: num, mean: num, lo: bound, hi: bound })),
      }),
    ),
  }),
  T9: v.object({
    planned: num,
    finished: num,
    seedsPerCell: num,
    starts: v.array(v.object({ size: num, queries: num, successes: num, success: num, lo: num, hi: num, runs: num })),
    pairs: v.array(difference),
  }),
});

/** one record's text keyed by its path, checked against `schema`; undefined when none is committed */
export function readRecord<T>(
  texts: Record<string, string>,
  schema: v.GenericSchema,
  what: string,
): Read<T> | undefined {
  const [path, text] = Object.entries(texts)[0] ?? [];
  if (path === undefined) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { error: `${path} is not valid JSON (${e instanceof Error ? e.message : String(e)})` };
  }
  const parsed = v.safeParse(schema, raw);
  if (!parsed.success)
    return { error: `${path} is not ${what}: ${v.getDotPath(parsed.issues[0]) ?? 'the file'} ${parsed.issues[0].message}` };
  return { table: parsed.output as T };
}

export const readConfirmatoryTest = (texts: Record<string, string>) =>
  readRecord<ConfirmatoryTestRecord>(texts, ConfirmatorySchema, 'a confirmatory test');
export const readBeyondTest = (texts: Record<string, string>) =>
  readRecord<BeyondTestRecord>(texts, BeyondSchema, "T8's and T9's test");

// bundled by Vite at build time; an absent file gives no entry
export const CONFIRMATORY_TEST = readConfirmatoryTest(
  import.meta.glob('/results/findings/confirmatory-test.json', { eager: true, query: '?raw', import: 'default' }) as Record<
    string,
    string
  >,
);
export const BEYOND_TEST = readBeyondTest(
  import.meta.glob('/results/findings/beyond-test.json', { eager: true, query: '?raw', import: 'default' }) as Record<
    string,
    string
  >,
);
