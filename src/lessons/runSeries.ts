// A run's training curves as they ride in a result link (runResultCode.ts, version 2): the metrics the Lab draws
// first (reward, training success, KL, response length; an SFT run's loss), one point per training step, at most
// MAX_SERIES_POINTS of them (a longer run keeps its first, its last and evenly spaced steps between). Each
// metric is its exact lowest and highest value plus one base64url character a point: the value quantised to 63
// levels between them (6 bits, so the error is at most 1/124 of the metric's range, finer than a 150-pixel chart
// draws), '_' where the step did not report it. The steps are runs of equal gaps, so 1…40 is three numbers.
// Why not compression (CompressionStream, fflate): 6 bits a point already keep a committed 40-step run's whole
// link at 751 characters and a 2000-step run's code at 2 KB, and a plain code decodes synchronously (no async
// read of the address), checked field by field.
// Pure: no DOM, no tfjs.
import { METRIC } from '../lab/metricNames.ts';
import { withMetricNames } from '../lab/metrics.ts';

/** the metrics a link carries the curve of, in the order the page draws them */
export const SERIES_METRICS: readonly string[] = [
  METRIC.rewardMean,
  METRIC.chartsSuccess,
  METRIC.lossesKl,
  METRIC.chartsResponseLen,
  METRIC.lossesSft,
];
/** at most this many training steps ride in a link */
export const MAX_SERIES_POINTS = 200;
/** the highest quantisation level: 63 levels, 0…62, one base64url character each ('_' is reserved for a gap) */
export const SERIES_LEVELS = 62;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const GAP = ALPHABET[63];

/** a run's curves: the steps, and per metric one value (or null) a step */
export interface RunSeries {
  steps: number[];
  values: Record<string, (number | null)[]>;
}

/** the largest error of a value read back from a curve spanning [lo, hi]: half a level */
export function seriesTolerance(lo: number, hi: number): number {
  return (hi - lo) / SERIES_LEVELS / 2;
}

const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x) && x >= 0;

/** at most `max` indices of `n`: the first, the last and evenly spaced ones between */
function thinIndices(n: number, max: number): number[] {
  if (n <= max) return Array.from({ length: n }, (_, i) => i);
  const picked = new Set<number>();
  for (let i = 0; i < max; i++) picked.add(Math.round((i * (n - 1)) / (max - 1)));
  return [...picked].sort((a, b) => a - b);
}

/** the curves of a run's stored points (any recorded metric names; a resumed run's repeated step counted once) */
export function seriesOf(
  points: readonly { step: number; values: Readonly<Record<string, number>> }[],
  totalSteps: number,
): RunSeries {
  const rows: { step: number; values: Readonly<Record<string, number>> }[] = [];
  for (const p of points) {
    const values = withMetricNames(p.values);
    if (!SERIES_METRICS.some((k) => finite(values[k]))) continue; // an evaluation's point
    if (!isCount(p.step) || p.step > totalSteps) continue;
    if (rows.length && p.step <= rows[rows.length - 1].step) continue;
    rows.push({ step: p.step, values });
  }
  const kept = thinIndices(rows.length, MAX_SERIES_POINTS).map((i) => rows[i]);
  const values: Record<string, (number | null)[]> = {};
  for (const key of SERIES_METRICS) {
    const column = kept.map((r) => (finite(r.values[key]) ? r.values[key] : null));
    if (column.some((v) => v !== null)) values[key] = column;
  }
  return { steps: kept.map((r) => r.step), values };
}

/** the steps as runs of equal gaps: [first, gap, count, …] */
function stepRuns(steps: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  while (i < steps.length) {
    const gap = i + 1 < steps.length ? steps[i + 1] - steps[i] : 1;
    let count = 1;
    while (i + count < steps.length && steps[i + count] - steps[i + count - 1] === gap) count++;
    out.push(steps[i], gap, count);
    i += count;
  }
  return out;
}

/** the curves as a link's field: [stepRuns, [[metric, lo, hi, characters], …]] */
export function encodeSeries(s: RunSeries): unknown[] {
  const curves = Object.entries(s.values).map(([key, column]) => {
    const present = column.filter((v): v is number => v !== null);
    const lo = Math.min(...present);
    const hi = Math.max(...present);
    const chars = column
      .map((v) => (v === null ? GAP : ALPHABET[hi > lo ? Math.round(((v - lo) / (hi - lo)) * SERIES_LEVELS) : 0]))
      .join('');
    return [key, lo, hi, chars];
  });
  return [stepRuns(s.steps), curves];
}

/** reads a link's curves back, checking every field; a sentence saying what is wrong when one is */
export function decodeSeries(field: unknown, totalSteps: number): RunSeries | string {
  if (!Array.isArray(field) || field.length !== 2) return 'its curves have the wrong shape';
  const [runs, curves] = field as unknown[];
  if (!Array.isArray(runs) || runs.length % 3 !== 0 || !runs.every(isCount))
    return 'its curves’ steps are not readable';
  const steps: number[] = [];
  for (let i = 0; i < runs.length; i += 3) {
    const [first, gap, count] = runs.slice(i, i + 3) as number[];
    if (gap < 1 || count < 1 || steps.length + count > MAX_SERIES_POINTS)
      return `its curves’ steps are impossible (more than ${MAX_SERIES_POINTS}, or not increasing)`;
    for (let k = 0; k < count; k++) steps.push(first + k * gap);
  }
  for (let i = 0; i < steps.length; i++)
    if (steps[i] > totalSteps || (i > 0 && steps[i] <= steps[i - 1]))
      return 'its curves’ steps are impossible (out of order, or past the run)';
  if (!Array.isArray(curves) || curves.length > SERIES_METRICS.length) return 'its curves are not a list';
  const values: Record<string, (number | null)[]> = {};
  for (const c of curves as unknown[]) {
    if (!Array.isArray(c) || c.length !== 4) return 'a curve has the wrong shape';
    const [key, lo, hi, chars] = c as unknown[];
    if (typeof key !== 'string' || !SERIES_METRICS.includes(key) || Object.hasOwn(values, key))
      return 'a curve names a metric this page does not carry, or one twice';
    if (!finite(lo) || !finite(hi) || hi < lo) return `the range of curve ${key} is impossible`;
    if (typeof chars !== 'string' || chars.length !== steps.length || !/^[A-Za-z0-9_-]*$/.test(chars))
      return `curve ${key} does not have one value a step`;
    const column = [...chars].map((ch) =>
      ch === GAP ? null : lo + (ALPHABET.indexOf(ch) / SERIES_LEVELS) * (hi - lo),
    );
    if (!column.some((v) => v !== null)) return `curve ${key} has no value`;
    values[key] = column;
  }
  return { steps, values };
}
