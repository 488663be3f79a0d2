// A lesson's takeaway, computed from the learner's own run(s) — never canned: where each run ended against
// the band of the committed seeds of its setting, those seeds' interval, the mechanism's late-run figures
// beside the reference's, what the findings' difference test says of the comparison, the paper's figure,
// and which of the predictions the run bears out. Returns sentences (with their numbers) for the page to
// show. Pure: no tfjs, no DOM.
import { tInterval, wilson, type Interval } from '../stats/intervals.ts';
import { BAND_SEEDS, runWindows, type Lesson, type LessonArm } from './lessons.ts';
import { predictionBand, type SettingReference } from './lessonReference.ts';
import {
  formatAverage,
  formatPercent,
  metricInfo,
  smoothedLabel,
  windowMeanLabel,
  type MetricInfo,
} from '../lab/metrics.ts';
import { detectableDifference, pooledSd, welchTest } from '../stats/seedStatistics.ts';
import type { CommittedComparison } from '../findings/committedComparison.ts';
import { comparisonText } from '../findings/gainText.ts';
import { plainPair, plainSentence } from '../findings/plainText.ts';
import {
  median,
  readEnds,
  readSpread,
  readRises,
  sampleSd,
  UNDECIDED,
  UNDECIDED_TEXT,
  verdictRates,
  type VerdictRates,
} from './lessonVerdicts.ts';

/** the learner's run of one arm, as the page has it (its metric points in step order) */
export interface LearnerRun {
  seed: number;
  /** 'completed' once it reached its last step; the takeaway waits for that */
  status: string;
  totalSteps: number;
  points: readonly { step: number; values: Record<string, number> }[];
  /** settings of the run that differ from the reference setting (e.g. a smoke size), as `key=value` */
  offSetting?: readonly string[];
  /** rollouts a training step (queries a step × group size): how many the rises verdict's windows rest on */
  rolloutsPerStep?: number;
}

/** the verdict of a run at another size than the committed runs': their rule and rates do not apply to it */
export const TOO_SMALL = 'too-small';

/** half the width of the widest 95 % Wilson interval `n` draws give (at a 50 % rate), in points */
export function widestHalfWidth(n: number): number {
  const i = wilson(Math.floor(n / 2), n);
  return (100 * (i.hi - i.lo)) / 2;
}

/** the pair's committed answer (src/findings/committedComparison.ts): the one every page states */
export type PairTest = CommittedComparison;

export type Placement = 'inside' | 'above' | 'below';

export interface ArmFigures {
  arm: LessonArm;
  /** the learner's run: start and end validation success (shares), the end's Wilson interval, and where it ended
   * against the band */
  run: {
    seed: number;
    start: number | null;
    end: number;
    lo: number | null;
    hi: number | null;
    queries: number | null;
    placement: Placement | null;
  } | null;
  /** the committed seeds: the interval of their mean end (t), the band one run is expected in, their starts */
  ref: {
    seeds: number[];
    complete: boolean;
    end: Interval;
    band: { lo: number; hi: number } | null;
    start: number[];
  } | null;
}

export interface Takeaway {
  arms: ArmFigures[];
  /** the prediction the run bears out (or UNDECIDED), why, and how often this kind of draw reads it while the committed
   * seeds hold */
  judged: {
    key: string;
    text: string;
    basis: string;
    rates: VerdictRates | null;
    oldRates: VerdictRates | null;
  } | null;
  predicted: { key: string; text: string; matched: boolean } | null;
  /** the sentences, in reading order */
  lines: {
    kind: 'plain' | 'result' | 'band' | 'mechanism' | 'test' | 'paper' | 'prediction' | 'rates' | 'note';
    text: string;
  }[];
}

const pts = (x: number) => formatPercent(x, ' ');
const signed = (points: number) => `${points >= 0 ? '+' : '−'}${Math.abs(points).toFixed(1)}`;
/** a rate's interval in points, its ends kept in 0…100 (a t interval over few seeds can reach past them) */
const span = (i: { lo: number; hi: number }) =>
  `[${(100 * clamp01(i.lo)).toFixed(1)}, ${(100 * clamp01(i.hi)).toFixed(1)}]`;
const clamp01 = (x: number) => Math.min(1, Math.max(0, x));
const seedsText = (n: number) => `${n} seed${n === 1 ? '' : 's'}`;

/** the mean of a metric over steps from..to of a run's points (null when it was not reported there) */
export function meanOver(
  points: LearnerRun['points'],
  metric: string,
  [from, to]: readonly [number, number],
): number | null {
  const xs = points
    .filter((p) => p.step >= from && p.step <= to && Number.isFinite(p.values[metric]))
    .map((p) => p.values[metric]);
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
}

/** what the figure beside a lesson chart's title is: an evaluation as measured, a training metric's newest smoothed
 * value (the takeaway quotes raw window means instead, and says so) */
export function chartFigureNote(info: MetricInfo, smoothing: number): string {
  return info.sparse ? 'newest evaluation, as measured' : `newest step, ${smoothedLabel(smoothing)}`;
}

/** a finished run's evaluations: its first (the start) and last (the end), with the end's Wilson interval */
function runEnds(run: LearnerRun): ArmFigures['run'] {
  if (run.status !== 'completed') return null;
  const evals = run.points.filter((p) => Number.isFinite(p.values['eval/success']));
  const last = evals.at(-1);
  if (!last || last.step !== run.totalSteps) return null;
  const first = evals[0];
  const v = last.values;
  return {
    seed: run.seed,
    start: first && first.step === 0 ? first.values['eval/success'] : null,
    end: v['eval/success'],
    lo: Number.isFinite(v['eval/success_lo']) ? v['eval/success_lo'] : null,
    hi: Number.isFinite(v['eval/success_hi']) ? v['eval/success_hi'] : null,
    queries: Number.isFinite(v['eval/queries']) ? v['eval/queries'] : null,
    placement: null,
  };
}

function armFigures(arm: LessonArm, ref: SettingReference | null, run: LearnerRun | null): ArmFigures {
  // a run of another size than the committed runs' is not placed in their band: it is not where such a run lands
  const atSize = !run?.offSetting?.length;
  const ends = run ? runEnds(run) : null;
  let refFigures: ArmFigures['ref'] = null;
  if (ref && ref.seeds.length > 0) {
    const b = predictionBand(ref.eval.end);
    const band = b.lo !== null && b.hi !== null ? { lo: Math.max(0, b.lo), hi: Math.min(1, b.hi) } : null;
    refFigures = {
      seeds: ref.seeds,
      complete: ref.seeds.length >= BAND_SEEDS,
      end: tInterval(ref.eval.end),
      band,
      start: ref.eval.start,
    };
    if (ends && band && atSize) ends.placement = ends.end < band.lo ? 'below' : ends.end > band.hi ? 'above' : 'inside';
  }
  return { arm, run: ends, ref: refFigures };
}

/** one arm's end for a comparison: the learner's (with its interval) or, without one, the committed mean */
function endOf(f: ArmFigures): { value: number; lo: number | null; hi: number | null; mine: boolean } | null {
  if (f.run) return { value: f.run.end, lo: f.run.lo, hi: f.run.hi, mine: true };
  if (f.ref) return { value: f.ref.end.estimate, lo: null, hi: null, mine: false };
  return null;
}

/** two ends apart by the learner's 95 % interval(s): both intervals when both are the learner's, else the mean outside
 * the one */
function apart(a: NonNullable<ReturnType<typeof endOf>>, b: NonNullable<ReturnType<typeof endOf>>): boolean {
  const box = (x: typeof a) => (x.lo !== null && x.hi !== null ? { lo: x.lo, hi: x.hi } : null);
  const ia = box(a);
  const ib = box(b);
  if (ia && ib) return ia.lo > ib.hi || ib.lo > ia.hi;
  if (ia) return b.value < ia.lo || b.value > ia.hi;
  if (ib) return a.value < ib.lo || a.value > ib.hi;
  return false;
}

/** the learner's draw: both arms, or one of them (against the other's committed mean) */
function drawOf(arms: ArmFigures[], lesson: Lesson): VerdictRates['draw'] {
  if (lesson.judge.kind === 'rises') return 'one run';
  if (arms[0].run && arms[1].run) return 'pair';
  return arms[0].run ? 'first arm' : 'second arm';
}

/** how often a draw like the learner's reads `key`, and misleads, under the page's rule (and the old one), in words */
export function ratesText(
  rates: VerdictRates,
  key: string,
  text: (key: string) => string,
  old: VerdictRates | null,
): string {
  const what =
    rates.draw === 'pair'
      ? `the ${rates.draws} committed pairs of runs`
      : rates.draw === 'one run'
        ? `the ${rates.draws} committed runs`
        : `the ${rates.draws} committed runs of this arm`;
  const share = (n: number) => `${Math.round((100 * n) / rates.draws)} %`;
  const reads = Object.entries(rates.counts)
    .sort((x, y) => y[1] - x[1])
    .map(([k, n]) => `“${k === UNDECIDED ? 'undecided' : text(k)}” ${share(n)}${k === key ? ' (yours)' : ''}`)
    .join(', ');
  const before =
    old && old.rule !== rates.rule
      ? ` (the rule the page used before, blind to the seed-to-seed spread: ${(100 * old.misleading).toFixed(1)} %)`
      : '';
  return `Read by this rule, ${what} give: ${reads}. It misleads — reads what the committed seeds' own answer, “${text(rates.committed)}”, contradicts — ${(100 * rates.misleading).toFixed(1)} % of the time${before}.`;
}

/**
 * The line beside the headline verdict: how often one draw like the learner's reads it while the committed
 * seeds hold, and how often such a draw misleads — said against the committed seeds' own answer, so that a
 * verdict that contradicts them is told it is one of the misleading draws. `text`: a verdict's words.
 */
export function misleadingText(rates: VerdictRates, key: string, text: (key: string) => string): string {
  const one = rates.draw === 'pair' ? 'pair of runs' : 'run';
  const share = (n: number) => `${Math.round((100 * n) / rates.draws)} %`;
  const reads = share(rates.counts[key] ?? 0);
  const misleads = `${(100 * rates.misleading).toFixed(1)} %`;
  if (key === UNDECIDED)
    return `One ${one} like yours is undecided in ${reads} of the committed seeds' ${rates.draws} draws: it claims nothing either way. A ${one} misleads — reads what the committed seeds contradict — in ${misleads} of them.`;
  if (key === rates.committed)
    return `The committed seeds' answer is the same. One ${one} like yours reads it in ${reads} of their ${rates.draws} draws; a ${one} misleads — reads what they contradict — in ${misleads}.`;
  return `The committed seeds answer “${text(rates.committed)}”: your ${one} is one of the draws that mislead — ${reads} of their ${rates.draws} draws read as yours does, ${misleads} mislead in all.`;
}

function judge(
  lesson: Lesson,
  arms: ArmFigures[],
  runs: readonly (LearnerRun | null)[],
  refs: readonly (SettingReference | null)[],
): Takeaway['judged'] {
  const text = (key: string) =>
    key === UNDECIDED ? UNDECIDED_TEXT : (lesson.predictions.find((p) => p.key === key)?.text ?? key);
  const j = lesson.judge;
  const draw = drawOf(arms, lesson);
  const all = verdictRates(lesson, refs);
  const rule = (r: VerdictRates['rule']) => all.find((x) => x.draw === draw && x.rule === r) ?? null;
  const done = (key: string, basis: string) => ({
    key,
    text: text(key),
    basis,
    rates: rule('seed-aware'),
    oldRates: rule('old'),
  });
  if (j.kind === 'rises') {
    const run = runs[0];
    if (!run || !arms[0].run) return null;
    const { early, late } = runWindows(run.totalSteps);
    const rise = j.metrics.map((m) => {
      const a = meanOver(run.points, m, early);
      const b = meanOver(run.points, m, late);
      return a === null || b === null ? null : b - a;
    });
    if (rise.some((r) => r === null)) return null;
    const [r0, r1] = rise as number[];
    const key = readRises(j, r0, r1);
    const label = (m: string) => metricInfo(m).label.toLowerCase();
    return done(
      key,
      `your ${arms[0].arm.label} run: ${label(j.metrics[0])} ${signed(100 * r0)} points, ${label(j.metrics[1])} ${signed(100 * r1)} points from steps ${early[0]}–${early[1]} to ${late[0]}–${late[1]} (a rise counts from ${Math.round(100 * j.rise)} points)`,
    );
  }
  if (j.kind === 'spread') {
    // like with like: a gap between two runs, against the committed pairs' gaps
    const mine = arms.filter((a) => a.run).map((a) => a.run!.end);
    const committed = refs[0]?.eval.end ?? [];
    const pairs = committed.flatMap((x, i) => committed.slice(i + 1).map((y) => 100 * Math.abs(x - y)));
    const closer = (g: number) =>
      pairs.length
        ? `; ${Math.round((100 * pairs.filter((p) => p < g).length) / pairs.length)} % of the ${pairs.length} committed pairs end closer`
        : '';
    if (mine.length === 2) {
      const gap = 100 * Math.abs(mine[0] - mine[1]);
      return done(readSpread(j, gap), `your two runs end ${gap.toFixed(1)} points apart${closer(gap)}`);
    }
    if (!committed.length) return null;
    const gap = median(committed.map((y) => 100 * Math.abs(mine[0] - y)));
    return done(
      readSpread(j, gap),
      `your one run and each of the ${seedsText(committed.length)} committed make ${committed.length} pairs; their median gap is ${gap.toFixed(1)} points${closer(gap)}`,
    );
  }
  const [a, b] = arms.map(endOf);
  if (!a || !b || (!a.mine && !b.mine)) return null;
  const basis =
    a.mine && b.mine
      ? 'your two runs'
      : `your ${(a.mine ? arms[0] : arms[1]).arm.label} run against the committed mean of the other arm`;
  const diff = 100 * (a.value - b.value);
  const head = `${basis}: ${arms[0].arm.label} ${pts(a.value)}, ${arms[1].arm.label} ${pts(b.value)} (${signed(diff)} points`;
  const [ra, rb] = refs;
  if (!ra || !rb || ra.seeds.length < 2 || rb.seeds.length < 2) {
    // no seed spread to weigh it against: only the evaluation's interval, and said so
    const key = !apart(a, b) ? j.same : diff > 0 ? j.aHigher : j.aLower;
    return done(
      key,
      `${head}; ${apart(a, b) ? 'apart' : 'not apart'} by the 95 % interval of each evaluation — too few committed seeds to weigh the seed-to-seed spread)`,
    );
  }
  const sA = sampleSd(ra.eval.end);
  const sB = sampleSd(rb.eval.end);
  const sd =
    a.mine && b.mine
      ? Math.hypot(sA, sB)
      : a.mine
        ? Math.sqrt(sA ** 2 + sB ** 2 / rb.eval.end.length)
        : Math.sqrt(sB ** 2 + sA ** 2 / ra.eval.end.length);
  const key = readEnds(j, a.value - b.value, sd);
  const within = key === UNDECIDED ? 'within' : 'beyond';
  return done(
    key,
    `${head}; ${within} 1.96 × ${(100 * sd).toFixed(1)} = ${(196 * sd).toFixed(1)} points, what ${a.mine && b.mine ? 'a pair of runs' : 'one run'} of these arms differs by from seed to seed alone 95 % of the time)`,
  );
}

/**
 * The verdict of runs at another size than the committed runs' (the smoke size): that such a run cannot tell,
 * with the width its own evaluation gives — the widest 95 % Wilson interval at its queries (±35 points at 4) —
 * beside the full size's; no direction and no misleading rate, which the committed runs give only at their size.
 */
function tooSmall(
  lesson: Lesson,
  arms: ArmFigures[],
  runs: readonly (LearnerRun | null)[],
  refs: readonly (SettingReference | null)[],
): NonNullable<Takeaway['judged']> {
  const mine = arms.flatMap((f) => (f.run?.queries ? [f.run.queries] : []));
  const full = refs.find((r) => r)?.eval.queries ?? null;
  const fullText = full ? `; the committed runs evaluate ${full} queries (±${widestHalfWidth(full).toFixed(1)})` : '';
  let what: string;
  if (lesson.judge.kind === 'rises') {
    const run = runs[0];
    const { early } = runWindows(run?.totalSteps ?? 1);
    const n = run?.rolloutsPerStep ? run.rolloutsPerStep * (early[1] - early[0] + 1) : null;
    what = n
      ? `each window's rate rests on ${n} training rollouts (${early[1] - early[0] + 1} steps × ${run!.rolloutsPerStep}): a 95 % interval up to ±${widestHalfWidth(n).toFixed(0)} points`
      : 'its windows rest on a few training rollouts';
  } else {
    const q = mine.length ? Math.min(...mine) : null;
    what = q
      ? `its evaluation has ${q} queries, so each end is known only to within ±${widestHalfWidth(q).toFixed(0)} points (the widest 95 % Wilson interval at ${q})${fullText}`
      : 'its evaluation is too small to place an end';
  }
  const text = `A run this small cannot tell: ${what}.`;
  return {
    key: TOO_SMALL,
    text,
    basis:
      'the verdict rule and its misleading rates come from the committed runs, and they are of the full size only — none is given for this run',
    rates: null,
    oldRates: null,
  };
}

export interface TakeawayInput {
  lesson: Lesson;
  /** per arm, in the lesson's order: the committed reference of its setting (null: none committed) */
  refs: readonly (SettingReference | null)[];
  /** per arm: the learner's run (null: not run) */
  runs: readonly (LearnerRun | null)[];
  /** the learner's prediction key (null: none picked) */
  prediction: string | null;
  /** the lesson's pair's committed answer (committedComparison), when its table has it */
  pairTest: PairTest | null;
  /** per arm: whether the learner runs it in this session (absent: the arms with a run); the verdict waits for all of
   * them */
  running?: readonly boolean[];
}

/**
 * Where an arm's band draws other seeds than its finding's answer: which, and why. A band is every committed run
 * of the arm's setting (a sharper band with each); the answer is the finding's planned seeds alone (a test is
 * decided on the seeds planned before its runs). Said beside the answer, so the two never read as one figure.
 */
export function bandSeedsNotes(
  lesson: Lesson,
  refs: readonly (SettingReference | null)[],
  answer: CommittedComparison,
): string[] {
  if (!lesson.pair) return [];
  return lesson.arms.flatMap((arm, i) => {
    const ref = refs[i];
    const planned = answer.seeds[arm.key === lesson.pair!.higherArm ? 0 : 1];
    if (!ref || ref.seeds.length === planned) return [];
    const range = ref.seeds.length > 1 ? `seeds ${ref.seeds[0]}–${ref.seeds.at(-1)}` : `seed ${ref.seeds[0]}`;
    return [
      `The ${arm.label} band draws all ${ref.seeds.length} committed runs of its setting (${range}), the answer ${answer.finding}'s ${planned} planned seeds: ` +
        'a band is sharper with every run of the setting, a test is decided on the seeds planned before its runs.',
    ];
  });
}

/** null until at least one of the learner's runs has finished */
export function computeTakeaway(input: TakeawayInput): Takeaway | null {
  const { lesson, refs, runs } = input;
  const arms = lesson.arms.map((arm, i) => armFigures(arm, refs[i] ?? null, runs[i] ?? null));
  if (!arms.some((a) => a.run)) return null;
  const lines: Takeaway['lines'] = [];

  // where each finished run ended, against its band and the committed seeds' interval
  for (const f of arms) {
    if (!f.run) continue;
    const r = f.run;
    const own = r.lo !== null && r.hi !== null ? ` ${span({ lo: r.lo, hi: r.hi })} on ${r.queries ?? '?'} queries` : '';
    const start = r.start !== null ? `from ${pts(r.start)} ` : '';
    lines.push({
      kind: 'result',
      text: `${f.arm.label} (seed ${r.seed}): validation success ${start}to ${pts(r.end)}${own}.`,
    });
    if (r.start !== null && r.end < r.start) {
      lines.push({
        kind: 'result',
        text: `It ended below its own start (${pts(r.start)} → ${pts(r.end)}, ${signed(100 * (r.end - r.start))} points): this run's training lowered its validation success, whatever the comparison says.`,
      });
    }
    if (!f.ref) {
      lines.push({ kind: 'band', text: `No committed runs of this setting yet: there is no band to place it in.` });
      continue;
    }
    const n = f.ref.seeds.length;
    const mean = f.ref.end;
    const meanText =
      n >= 2
        ? `${pts(mean.estimate)} ${span(mean)} (95 % t interval of the mean over ${seedsText(n)})`
        : `${pts(mean.estimate)} (one seed: no interval)`;
    const offSize = !!runs[arms.indexOf(f)]?.offSetting?.length;
    const where = offSize
      ? `in the committed runs' band: they are of the full size (${refs[arms.indexOf(f)]?.eval.queries ?? '?'} queries an evaluation), this run is not`
      : f.ref.band && r.placement
        ? r.placement === 'inside'
          ? `inside the band where one run of this setting is expected, ${span(f.ref.band)}`
          : `${r.placement} the band where one run of this setting is expected, ${span(f.ref.band)}`
        : 'with no band to place it in (fewer than two committed seeds)';
    lines.push({
      kind: 'band',
      text: `${offSize ? 'Not placed' : 'It ended'} ${where}. The committed seeds end at ${meanText}.`,
    });
    const starts = [...new Set(f.ref.start.map((s) => s.toFixed(4)))];
    if (r.start !== null && starts.length === 1 && Math.abs(Number(starts[0]) - r.start) > 1e-3) {
      lines.push({
        kind: 'note',
        text: `Its start (${pts(r.start)}) is not the committed runs' (${pts(Number(starts[0]))}): the same checkpoint evaluated the same way should match; a smaller evaluation or another backend can move it.`,
      });
    }
  }

  // the mechanism: each chart's late-run mean, the learner's beside the committed seeds'
  for (const chart of lesson.charts.filter((c) => c.role === 'mechanism')) {
    const parts: string[] = [];
    arms.forEach((f, i) => {
      const run = runs[i];
      if (!f.run || !run) return;
      const { late } = runWindows(run.totalSteps);
      const mine = meanOver(run.points, chart.metric, late);
      if (mine === null) return;
      const info = metricInfo(chart.metric);
      // a count's window mean is a mean of counts: one decimal, and said so on the learner's figure
      const fmt = (x: number) =>
        info.format === 'rate'
          ? pts(clamp01(x))
          : info.format === 'count'
            ? Math.max(0, x).toFixed(1)
            : Math.max(0, x).toFixed(2);
      const w = refs[i]?.windows[chart.metric];
      const ref =
        w && w.late.length >= 2
          ? tInterval(w.late)
          : w && w.late.length === 1
            ? { estimate: w.late[0], lo: NaN, hi: NaN, n: 1 }
            : null;
      const refText = ref
        ? `; the committed seeds ${fmt(ref.estimate)}${Number.isFinite(ref.lo) ? ` [${fmt(ref.lo)}, ${fmt(ref.hi)}]` : ''}`
        : '';
      parts.push(
        `${f.arm.label}: yours ${info.format === 'count' ? formatAverage(info, Math.max(0, mine)) : fmt(mine)}${refText}`,
      );
    });
    if (parts.length) {
      const { late } = runWindows(runs.find((r) => r)?.totalSteps ?? 40);
      // raw values, unlike the charts' smoothed curves and figures: said, so the two are not read as one figure
      lines.push({
        kind: 'mechanism',
        text: `${metricInfo(chart.metric).label}, ${windowMeanLabel(late)} (raw, not smoothed): ${parts.join('; ')}.`,
      });
    }
  }

  // the rises the prediction is about, on the committed seeds: early → late with the t interval of the change
  if (lesson.judge.kind === 'rises' && arms[0].run) {
    const w = refs[0]?.windows;
    const parts = lesson.judge.metrics.flatMap((m) => {
      const x = w?.[m];
      if (!x || x.early.length < 2) return [];
      const change = tInterval(x.late.map((l, i) => l - x.early[i]));
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      return [
        `${metricInfo(m).label.toLowerCase()} ${pts(mean(x.early))} → ${pts(mean(x.late))} (${signed(100 * change.estimate)} points [${signed(100 * change.lo)}, ${signed(100 * change.hi)}])`,
      ];
    });
    if (parts.length)
      lines.push({
        kind: 'mechanism',
        text: `The committed ${arms[0].arm.label} seeds, first quarter of the steps → last: ${parts.join('; ')}.`,
      });
  }

  lines.push(...differenceLines(input, arms));
  lines.push({ kind: 'paper', text: lesson.paper });

  // the headline waits for every arm that runs: one arm's verdict against a mean would flip when the other lands
  const waiting = lesson.arms.some((_, i) => (input.running?.[i] ?? !!runs[i]) && !arms[i].run);
  // a run of another size than the committed runs' borrows neither their verdict rule nor their misleading rates
  const offSize = runs.some((r) => r?.offSetting?.length);
  const judged = waiting ? null : offSize ? tooSmall(lesson, arms, runs, refs) : judge(lesson, arms, runs, refs);
  const chosen = input.prediction ? lesson.predictions.find((p) => p.key === input.prediction) ?? null : null;
  const predicted = chosen ? { key: chosen.key, text: chosen.text, matched: judged?.key === chosen.key } : null;
  if (judged) {
    const verdict = predicted
      ? predicted.matched
        ? 'Your prediction matches it.'
        : `You predicted: “${predicted.text}”.`
      : 'You made no prediction.';
    lines.push({
      kind: 'prediction',
      text:
        judged.key === TOO_SMALL
          ? `${judged.text} ${judged.basis[0].toUpperCase()}${judged.basis.slice(1)}. ${verdict}`
          : `What your run shows: “${judged.text}” — ${judged.basis}. ${verdict}`,
    });
    if (judged.rates)
      lines.push({
        kind: 'rates',
        text: ratesText(
          judged.rates,
          judged.key,
          (k) => lesson.predictions.find((p) => p.key === k)?.text ?? k,
          judged.oldRates,
        ),
      });
  }

  for (const f of arms) {
    if (f.ref && !f.ref.complete) {
      lines.push({
        kind: 'note',
        text: `${f.arm.label}: the reference has ${seedsText(f.ref.seeds.length)} of the ${BAND_SEEDS} a band needs — incomplete, so its band and interval are wider (and less sure) than they will be.`,
      });
    }
  }
  // the committed answer in one plain sentence leads: the statistics follow it
  const plain = lines.findIndex((l) => l.kind === 'plain');
  if (plain > 0) lines.unshift(...lines.splice(plain, 1));
  const off = runs.find((r) => r?.offSetting?.length)?.offSetting;
  // said first, before any figure of the learner's runs: nothing below is a result at this size
  if (off)
    lines.unshift({
      kind: 'note',
      text: `Your runs are not at the reference setting (${off.join(', ')}): the band belongs to the standard size, so read the comparison as a smoke test, not a result.`,
    });
  return { arms, judged, predicted, lines };
}

function differenceLines(input: TakeawayInput, arms: ArmFigures[]): Takeaway['lines'] {
  const { lesson, refs, pairTest } = input;
  if (lesson.seedsOnly) {
    const ref = refs[0];
    if (!ref || ref.seeds.length < 2)
      return [{ kind: 'test', text: 'Fewer than two committed seeds: no interval over seeds yet.' }];
    const committed = tInterval(ref.eval.end);
    const mine = arms.filter((a) => a.run).map((a) => a.run!.end);
    const withMine = tInterval([...ref.eval.end, ...mine]);
    const width = (i: Interval) => (100 * (i.hi - i.lo)).toFixed(1);
    // what this spread costs a comparison: the difference Welch's test finds 80 % of the time at this many seeds a cell
    const { sd } = pooledSd([ref.eval.end]);
    const detects =
      sd > 0
        ? `; at this spread (SD ${(100 * sd).toFixed(1)} points a run) and ${seedsText(ref.seeds.length)} a setting, the smallest difference it finds 80 % of the time is ${(100 * detectableDifference({ n: ref.seeds.length, sd, alpha: 0.05 })).toFixed(1)} points`
        : '';
    const range = 100 * (Math.max(...ref.eval.end) - Math.min(...ref.eval.end));
    return [
      {
        kind: 'plain',
        text: `Runs that differ only in their random seed end as far as ${range.toFixed(1)} points apart: the ${ref.seeds.length} committed runs of this setting end between ${pts(Math.min(...ref.eval.end))} and ${pts(Math.max(...ref.eval.end))} success.`,
      },
      {
        kind: 'test',
        text: `Over the ${seedsText(ref.seeds.length)} committed, the mean end is ${pts(committed.estimate)} ${span(committed)}: ${width(committed)} points wide. With your ${mine.length === 1 ? 'run' : `${mine.length} runs`} added (${seedsText(withMine.n)}): ${pts(withMine.estimate)} ${span(withMine)}, ${width(withMine)} points. The findings compare two settings by Welch's test of their difference${detects}.`,
      },
    ];
  }
  if (pairTest) {
    return [
      { kind: 'plain', text: plainPair(pairTest.finding, pairTest) },
      {
        kind: 'test',
        text: `The findings' answer to this comparison, the paper's direction positive: ${comparisonText(pairTest)}.`,
      },
      ...bandSeedsNotes(lesson, refs, pairTest).map((text) => ({ kind: 'note' as const, text })),
    ];
  }
  // no findings pair: the findings' test (Welch's, of the two arms' committed end success), computed here;
  // both arms start from one checkpoint evaluated once, so their ends differ exactly as their gains do
  const [a, b] = refs;
  if (!a || !b || a.seeds.length < 2 || b.seeds.length < 2)
    return [{ kind: 'test', text: 'The committed seeds are too few in one arm to test the difference.' }];
  const w = welchTest(a.eval.end, b.eval.end);
  const call =
    w.p < 0.05 ? `${w.difference > 0 ? lesson.arms[0].label : lesson.arms[1].label} ends higher` : 'not resolved';
  const interim =
    Math.min(a.seeds.length, b.seeds.length) < BAND_SEEDS ? ` (interim: fewer than ${BAND_SEEDS} seeds)` : '';
  return [
    {
      kind: 'plain',
      text: plainSentence({
        a: `“${lesson.arms[0].label}”`,
        b: `“${lesson.arms[1].label}”`,
        metric: 'success',
        measure: 'end',
        difference: 100 * w.difference,
        outcome: w.p < 0.05 ? 'rejected' : 'not rejected',
      }),
    },
    {
      kind: 'test',
      text: `Welch's test of the committed seeds' end (${seedsText(a.seeds.length)} and ${seedsText(b.seeds.length)}): ${lesson.arms[0].label} − ${lesson.arms[1].label} = ${signed(100 * w.difference)} points, 95 % interval [${signed(100 * w.lo)}, ${signed(100 * w.hi)}], p = ${w.p.toPrecision(2)} — ${call}${interim}.`,
    },
  ];
}
