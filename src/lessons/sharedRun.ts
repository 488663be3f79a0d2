// A run's result link opened (`#run=<code>`): what the read-only page shows — the setting (described, with
// the link that opens it in the Lab), the run's facts, its validation curve point by point with n and the 95 %
// interval, its curves as the Lab draws them (the training series a version-2 link carries, with the
// evaluations as points), and its place against the committed band of its setting where the page carries one
// (the lessons' settings, results/lessons/reference.json, from the findings' standard runs) — or why the link
// is refused.
// Pure: no DOM, no tfjs.
import { describeAxes, defaultConfig } from '../lab/config.ts';
import { METRIC } from '../lab/metricNames.ts';
import { formatPercent } from '../lab/metrics.ts';
import { parseHash, serializeHash } from '../lab/urlState.ts';
import { wilson } from '../stats/intervals.ts';
import { placeInBand, settingKey, type SettingReference } from './lessonReference.ts';
import { settingHash, type RefusedLink, type ShownLink } from './resultCode.ts';
import { decodeRun, type RunResult } from './runResultCode.ts';
import { MAX_SERIES_POINTS, SERIES_METRICS } from './runSeries.ts';

/** a run's points as the Lab's charts read them */
export type SharedCurves = { step: number; values: Record<string, number> }[];

export type RunVerdict = 'inside' | 'above' | 'below' | 'unfinished' | 'no-band';

export type SharedRun =
  | RefusedLink
  | (ShownLink<RunVerdict> & {
      run: RunResult;
      /** the setting in words (describeAxes) and its hash */
      setup: string;
      hash: string;
      /** the address fragment that opens this setup, seed included, in the Lab */
      labHash: string;
      /** per evaluation: step, validation success with n and its 95 % (Wilson) interval, OOD */
      rows: { step: number; success: string; ood: string }[];
      /** the run's points as the Lab's charts read them: training steps and evaluations, merged by step */
      curves: SharedCurves;
      /** the metrics to draw, the Lab's first ones that the link carries */
      charted: string[];
      /** a plain sentence on what the curves are (quantised; evenly spaced steps), or why there are none */
      curvesNote: string;
    });

const pts = (x: number) => formatPercent(x, ' ');

/** the committed reference of exactly this setting (seed aside), or null */
export function bandFor(
  setting: string,
  settings: Readonly<Record<string, SettingReference>> | null,
): SettingReference | null {
  if (!settings) return null;
  // keyed by the normalised link: a code's setting is read and written again so `a=1&b=2` and `b=2&a=1` meet; the
  // World size left out, as the reference's keys leave it: an RL run records its start's world, which the link
  // that asked for it need not name
  const key = settingKey({ ...parseHash(setting).config, worldSize: defaultConfig().worldSize });
  return settings[key] ?? null;
}

/** Reads `code` and places the run against `settings` (the lesson reference's, keyed by settingKey). */
export function readSharedRun(code: string, settings: Readonly<Record<string, SettingReference>> | null): SharedRun {
  const decoded = decodeRun(code);
  if (!decoded.ok) return decoded;
  const r = decoded.run;
  const config = parseHash(r.setting).config;
  const setup = describeAxes(config);
  const hash = settingHash(settingKey(config));
  const labHash = serializeHash({ ...config, seed: r.seed }) || `#seed=${defaultConfig().seed}`;
  const first = r.evals[0];
  const last = r.evals[r.evals.length - 1];
  const facts: [string, string][] = [
    [
      'Run',
      `${r.kind === 'rl' ? 'RL' : r.kind === 'sft' ? 'SFT' : r.kind} · ${r.status} · ${r.steps}/${r.totalSteps} steps`,
    ],
    ['Setup', setup],
    ['Setting hash', hash],
    ['Seed', String(r.seed)],
    ['Backend · build', `${r.backend} · ${r.build}`],
  ];
  if (first && last)
    facts.push([
      'Validation success',
      `${pts(first.success)} at step ${first.step} → ${pts(last.success)} at step ${last.step} (${last.queries === null ? 'n not recorded by this run' : `n = ${last.queries} queries`})`,
    ]);
  if (r.reward !== null) facts.push(['Last mean reward', r.reward.toFixed(3)]);
  if (r.loss !== null) facts.push(['Last training loss', r.loss.toFixed(3)]);
  const rows = r.evals.map((e) => {
    const ood = e.ood === null ? '–' : pts(e.ood);
    if (e.successes === null || e.queries === null)
      return { step: e.step, success: `${pts(e.success)} (n not recorded)`, ood };
    const w = wilson(e.successes, e.queries);
    return {
      step: e.step,
      success: `${pts(e.success)} (${e.successes}/${e.queries}; 95 % ${pts(w.lo)}–${pts(w.hi)})`,
      ood,
    };
  });
  const { curves, charted, curvesNote } = curvesOf(r);
  const base = { ok: true as const, run: r, setup, hash, labHash, facts, rows, curves, charted, curvesNote };

  const ref = bandFor(r.setting, settings);
  if (!ref || ref.seeds.length < 2) {
    return {
      ...base,
      verdict: 'no-band',
      verdictText: ref
        ? `The committed runs of this setting have fewer than two seeds: no band to place it against.`
        : 'There is no committed band for this setting: the page carries bands only for the lessons’ settings (the findings’ standard runs of those), so it is not placed against any.',
    };
  }
  if (r.status !== 'completed' || !last || last.step !== ref.eval.steps[1]) {
    return {
      ...base,
      verdict: 'unfinished',
      verdictText: `The committed runs of this setting end at step ${ref.eval.steps[1]}; this run's last evaluation is at step ${last?.step ?? '–'} (${r.status}), so it is not placed against their band.`,
    };
  }
  const end = last.success;
  const placed = placeInBand(end, ref)!; // two or more seeds: a band
  return {
    ...base,
    verdict: placed.verdict,
    verdictText: `It ended at ${pts(end)}, ${placed.verdict} the band where one run of this setting is expected, [${pts(placed.lo)}, ${pts(placed.hi)}] (the ${ref.seeds.length} committed seeds, ${ref.eval.queries} queries each; mean ${pts(placed.mean)}).`,
  };
}

/** the run's points for the Lab's charts: its carried training series and its evaluations (with the 95 % Wilson
 *  interval where it has n), merged by step */
export function curvesOf(r: RunResult): { curves: SharedCurves; charted: string[]; curvesNote: string } {
  const byStep = new Map<number, Record<string, number>>();
  const at = (step: number) => {
    let v = byStep.get(step);
    if (!v) byStep.set(step, (v = {}));
    return v;
  };
  r.series?.steps.forEach((step, i) => {
    for (const [key, column] of Object.entries(r.series!.values)) {
      const x = column[i];
      if (x !== null) at(step)[key] = x;
    }
  });
  for (const e of r.evals) {
    const v = at(e.step);
    v[METRIC.evalSuccess] = e.success;
    if (e.successes !== null && e.queries !== null) {
      const w = wilson(e.successes, e.queries);
      Object.assign(v, { [METRIC.evalQueries]: e.queries, [METRIC.evalSuccessLo]: w.lo, [METRIC.evalSuccessHi]: w.hi });
    }
    if (e.ood !== null) v[METRIC.evalOodAccuracy] = e.ood;
  }
  const curves = [...byStep].sort(([a], [b]) => a - b).map(([step, values]) => ({ step, values }));
  const carried = SERIES_METRICS.filter((k) => r.series && Object.hasOwn(r.series.values, k));
  // the Lab's order: reward and training success, then validation and OOD, then the update's health
  const charted = [
    ...carried.slice(0, 2),
    METRIC.evalSuccess,
    ...(r.evals.some((e) => e.ood !== null) ? [METRIC.evalOodAccuracy] : []),
    ...carried.slice(2),
  ];
  const n = r.series?.steps.length ?? 0;
  const curvesNote =
    r.series === null
      ? 'This link was made by an earlier version of the page: it carries the evaluations only, no training curves.'
      : n === 0
        ? 'This run has no training step yet: only its evaluations are drawn.'
        : `Training curves as the link carries them: ${n} of the run's steps${n === MAX_SERIES_POINTS ? ' (evenly spaced)' : ''}, each value rounded to one of 63 levels between its curve's lowest and highest; the evaluations are exact.`;
  return { curves, charted, curvesNote };
}
