// What the Lessons view bundles at build time: the reference derived from the committed findings runs
// (results/lessons/reference.json, `npm run cli -- lessons`), the lessons' measured times
// (results/lessons/timings.json, scripts/measure-lessons.mjs) and the findings' standard tables, whose
// cells give a lesson its pair's committed answer. Each is checked here, so a missing or hand-broken file
// shows its reason on the lesson instead of breaking the page.
import * as v from 'valibot';
import {
  LESSON_REFERENCE_FORMAT,
  referenceWithMetricNames,
  type LessonReference,
} from '../../lessons/lessonReference.ts';
import type { FindingPair } from '../../lessons/lessons.ts';
import type { PairTest } from '../../lessons/lessonTakeaway.ts';
import { committedComparison, type ComparisonTable } from '../../findings/committedComparison.ts';

const num = v.pipe(v.number(), v.finite());
const cell = v.nullable(num);
const BandSchema = v.object({ mean: v.array(cell), lo: v.array(cell), hi: v.array(cell) });
const SettingSchema = v.object({
  key: v.string(),
  seeds: v.array(v.pipe(v.number(), v.integer())),
  steps: v.pipe(v.number(), v.integer(), v.minValue(1)),
  train: v.record(v.string(), BandSchema),
  windows: v.record(v.string(), v.object({ early: v.array(num), late: v.array(num) })),
  eval: v.object({ start: v.array(num), end: v.array(num), queries: num, steps: v.tuple([num, num]) }),
  wallSeconds: v.array(num),
  cpuSeconds: v.array(num),
  where: v.array(v.string()),
});
const ReferenceSchema = v.object({
  format: v.literal(LESSON_REFERENCE_FORMAT),
  command: v.string(),
  date: v.string(),
  smoothing: num,
  settings: v.record(v.string(), SettingSchema),
});

/** a lesson's time measured in the browser (scripts/measure-lessons.mjs) */
const TimingSchema = v.object({
  lesson: v.string(),
  /** wall seconds from pressing Run to the takeaway */
  wallSeconds: num,
  /** CPU seconds the browser spent meanwhile (absent where not measured) */
  cpuSeconds: v.optional(num),
  /** how the arms ran: 'parallel' (two workers) or 'sequential' */
  mode: v.string(),
  backend: v.string(),
  cores: num,
  load: v.optional(num),
});
const TimingsSchema = v.object({
  date: v.string(),
  commit: v.string(),
  machine: v.string(),
  lessons: v.array(TimingSchema),
});
export type LessonTiming = v.InferOutput<typeof TimingSchema>;

export type Read<T> = { value: T; error?: never } | { value?: never; error: string };

function read<T>(texts: Record<string, string>, path: string, schema: v.GenericSchema<unknown, T>): Read<T> | null {
  const text = texts[path];
  if (text === undefined) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { error: `${path} is not valid JSON (${e instanceof Error ? e.message : String(e)})` };
  }
  const parsed = v.safeParse(schema, raw);
  if (!parsed.success)
    return { error: `${path}: ${v.getDotPath(parsed.issues[0]) ?? 'the file'} ${parsed.issues[0].message}` };
  return { value: parsed.output };
}

/** the reference from its text (exported for tests) */
export function readReference(texts: Record<string, string>): Read<LessonReference> {
  const r = read(
    texts,
    '/results/lessons/reference.json',
    ReferenceSchema as v.GenericSchema<unknown, LessonReference>,
  );
  if (r?.value) return { value: referenceWithMetricNames(r.value) };
  return r ?? { error: 'results/lessons/reference.json is not committed: `npm run cli -- lessons` writes it' };
}

/**
 * A pair's committed answer from the findings' standard tables' texts: the one comparison
 * (findings/committedComparison.ts) recomputed from the table's cells — the same function and the same cells the
 * table's own record and the Findings view come from. Null where the table, the pair or its cells are missing or
 * broken (the Findings view says why; the lesson then computes its own test and says so).
 */
export function readPairTest(texts: Record<string, string>, pair: FindingPair): PairTest | null {
  const text = texts[`/results/findings/${pair.finding}/table.json`];
  if (text === undefined) return null;
  try {
    const table = JSON.parse(text) as ComparisonTable;
    const answer = committedComparison(table, pair.higher, pair.lower);
    return answer && (answer.difference === null || Number.isFinite(answer.difference)) ? answer : null;
  } catch {
    return null; // an unreadable table, or one without the cells its pairs name
  }
}

const referenceTexts = import.meta.glob('/results/lessons/reference.json', {
  eager: true,
  query: '?raw',
  import: 'default',
}) as Record<string, string>;
const timingTexts = import.meta.glob('/results/lessons/timings.json', {
  eager: true,
  query: '?raw',
  import: 'default',
}) as Record<string, string>;
const tableTexts = import.meta.glob('/results/findings/*/table.json', {
  eager: true,
  query: '?raw',
  import: 'default',
}) as Record<string, string>;

export const LESSON_REFERENCE = readReference(referenceTexts);
export const LESSON_TIMINGS = read(timingTexts, '/results/lessons/timings.json', TimingsSchema);

/** one trip of a lesson setting: a SampleEpisode (src/worker/sampleEpisode.ts) and its reward under the run's reward */
const EpisodeSchema = v.object({
  step: num,
  reward: num,
  /** the episode card checks its shape */
  trajectory: v.record(v.string(), v.unknown()),
});
export type LessonEpisode = v.InferOutput<typeof EpisodeSchema>;
/** each setting a lesson runs, one request planned before training (the starting checkpoint) and after (the committed
 * run's last step) (scripts/lesson-episodes.ts) */
const EpisodesSchema = v.object({
  command: v.string(),
  settings: v.record(
    v.string(),
    v.object({
      where: v.string(),
      seed: num,
      before: v.object({ ...EpisodeSchema.entries, checkpoint: v.string(), rngSeed: num }),
      after: EpisodeSchema,
    }),
  ),
});
export type LessonEpisodes = v.InferOutput<typeof EpisodesSchema>;
const episodeTexts = import.meta.glob('/results/lessons/episodes.json', {
  query: '?raw',
  import: 'default',
  eager: true,
}) as Record<string, string>;
export const LESSON_EPISODES = read(episodeTexts, '/results/lessons/episodes.json', EpisodesSchema);
export const pairTest = (pair: FindingPair): PairTest | null => readPairTest(tableTexts, pair);
