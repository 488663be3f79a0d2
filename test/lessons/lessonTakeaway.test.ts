import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lessonById, type Lesson } from '../../src/lessons/lessons.ts';
import type { SettingReference } from '../../src/lessons/lessonReference.ts';
import { chartFigureNote, computeTakeaway, meanOver, misleadingText, TOO_SMALL, widestHalfWidth, type LearnerRun } from '../../src/lessons/lessonTakeaway.ts';
import { armConfig } from '../../src/lessons/lessons.ts';
import { referenceWithMetricNames, settingKey, type LessonReference } from '../../src/lessons/lessonReference.ts';
import { committedComparison, type ComparisonTable } from '../../src/findings/committedComparison.ts';
import { comparisonText } from '../../src/findings/gainText.ts';
import { metricInfo } from '../../src/lab/metrics.ts';

const lesson = (id: string): Lesson => lessonById(id)!;

function ref(ends: number[], windows: Record<string, number[]> = {}): SettingReference {
  return {
    key: 'k', seeds: ends.map((_, i) => i + 1), steps: 40, train: {},
    windows: Object.fromEntries(Object.entries(windows).map(([m, late]) => [m, { early: late.map(() => 0), late }])),
    eval: { start: ends.map(() => 0.143), end: ends, queries: 300, steps: [0, 40] },
    wallSeconds: [], cpuSeconds: [], where: [],
  };
}

/** a finished 40-step run: start and end evaluations (end ± 5 points), training values per step */
function learner(end: number, train: (step: number) => Record<string, number> = () => ({}), seed = 500, status = 'completed'): LearnerRun {
  const points: LearnerRun['points'][number][] = [{ step: 0, values: { 'eval/success': 0.143, 'eval/success_lo': 0.11, 'eval/success_hi': 0.19, 'eval/queries': 300 } }];
  for (let s = 1; s <= 40; s++) points.push({ step: s, values: { ...train(s), ...(s === 40 ? { 'eval/success': end, 'eval/success_lo': end - 0.05, 'eval/success_hi': end + 0.05, 'eval/queries': 300 } : {}) } });
  return { seed, status, totalSteps: 40, points };
}

const texts = (t: NonNullable<ReturnType<typeof computeTakeaway>>, kind: string) => t.lines.filter((l) => l.kind === kind).map((l) => l.text).join('\n');

describe('a lesson\'s takeaway, computed from the run', () => {
  it('waits for a finished run', () => {
    const base = { lesson: lesson('null-control'), refs: [ref([0.33, 0.38, 0.38]), ref([0.06, 0.11, 0.06])], prediction: 'same', pairTest: null };
    expect(computeTakeaway({ ...base, runs: [null, null] })).toBeNull();
    expect(computeTakeaway({ ...base, runs: [learner(0.4, undefined, 5, 'running'), null] })).toBeNull();
  });

  it('places each run against its band, gives the seeds\' interval, judges the prediction from the two runs', () => {
    const t = computeTakeaway({
      lesson: lesson('null-control'), refs: [ref([0.333, 0.383, 0.38]), ref([0.063, 0.11, 0.06])],
      runs: [learner(0.36), learner(0.62)], prediction: 'real-higher', pairTest: null,
    })!;
    expect(t.arms[0].run?.placement).toBe('inside');
    expect(t.arms[1].run?.placement).toBe('above'); // the null band from these three seeds ends near 22 %
    expect(texts(t, 'band')).toMatch(/committed seeds end at 36\.5 % \[29\.\d, 43\.\d\] \(95 % t interval of the mean over 3 seeds\)/);
    // 36 % against 62 %, each ±5: apart, the null control higher
    expect(t.judged?.key).toBe('null-higher');
    expect(t.predicted).toEqual({ key: 'real-higher', text: lesson('null-control').predictions[0].text, matched: false });
    // no findings pair for this lesson: the findings' test (Welch) of the committed seeds' ends, computed here
    // (SciPy: ttest_ind(equal_var=False) p 0.000231, interval [22.41, 35.12] points)
    expect(texts(t, 'test')).toMatch(/^Welch's test of the committed seeds' end \(3 seeds and 3 seeds\): Recipe \(real advantages\) − Null control \(shuffled\) = \+28\.8 points, 95 % interval \[\+22\.4, \+35\.1\], p = 0\.00023 — Recipe \(real advantages\) ends higher \(interim: fewer than 8 seeds\)\.$/);
    expect(texts(t, 'note')).toMatch(/3 seeds of the 8 a band needs/);
    expect(texts(t, 'paper')).toMatch(/49\.9 %/);
    // led by one plain sentence from the same test: p < 0.05, so "well beyond seed-to-seed chance"
    expect(t.lines[0]).toEqual({
      kind: 'plain',
      text: 'With “Recipe (real advantages)”, the agent ends 28.8 points higher in success than with “Null control (shuffled)”, well beyond seed-to-seed chance.',
    });
  });

  it('with one arm run, judges it against the other arm\'s committed mean; within the seed spread it is undecided, never "about the same"', () => {
    const base = { lesson: lesson('tool-failures'), refs: [ref([0.277, 0.19, 0.177]), ref([0.373, 0.513, 0.473])], prediction: 'lower', pairTest: null };
    const lower = computeTakeaway({ ...base, runs: [learner(0.2), null] })!;
    expect(lower.judged?.key).toBe('lower');
    expect(lower.judged?.basis).toMatch(/against the committed mean/);
    expect(lower.predicted?.matched).toBe(true);
    // 43 % against the clean mean 45.3 %: the old rule (43 ± 5 holds it) read "About the same"; one run cannot show that
    const same = computeTakeaway({ ...base, runs: [learner(0.43), null] })!;
    expect(same.judged?.key).toBe('undecided');
    expect(same.judged?.basis).toMatch(/within 1\.96 × /);
  });

  it("states its pair's one committed answer — the same text the class view and the Findings view give — and which seeds each band draws", () => {
    const table = JSON.parse(readFileSync('results/findings/T7/table.json', 'utf8')) as ComparisonTable;
    const answer = committedComparison(table, 'success · 0 %', 'success · 10 %')!;
    // bands of 11 (10 % failures) and 15 (no failures: T7's and T1's runs of one setting) seeds; the answer T7's 11 and 11
    const base = { lesson: lesson('tool-failures'), refs: [ref(Array.from({ length: 11 }, (_, i) => 0.2 + 0.01 * i)), ref(Array.from({ length: 15 }, (_, i) => 0.35 + 0.01 * i))], runs: [learner(0.2), null], prediction: null };
    const t = computeTakeaway({ ...base, pairTest: answer })!;
    expect(texts(t, 'test')).toBe(`The findings' answer to this comparison, the paper's direction positive: ${comparisonText(answer)}.`);
    // the plain sentence leads, from the same committed answer
    expect(t.lines[0]).toEqual({
      kind: 'plain',
      text: 'With no tool failures, the agent gains 17.5 points more success than with 10 % tool failures, well beyond seed-to-seed chance.',
    });
    expect(texts(t, 'test')).toMatch(/^The findings' answer .*: 0 % > 10 %: \+17\.5 \[\+9\.3, \+25\.8\] \(97\.5 %, Holm\), Welch p < 0\.001 \(Holm p < 0\.001\); T7's planned seeds, 11 and 11 — supports\.$/);
    const notes = t.lines.filter((l) => l.kind === 'note').map((l) => l.text);
    expect(notes.filter((n) => /band draws/.test(n))).toEqual([
      "The No failures band draws all 15 committed runs of its setting (seeds 1–15), the answer T7's 11 planned seeds: a band is sharper with every run of the setting, a test is decided on the seeds planned before its runs."]);
  });

  it("a not-resolved answer says what its equivalence test rules out, and only that", () => {
    const table = JSON.parse(readFileSync('results/findings/T5/table.json', 'utf8')) as ComparisonTable;
    const answer = committedComparison(table, 'success · 4:3:3', 'success · hard only')!;
    const t = computeTakeaway({ lesson: lesson('hard-only'), refs: [ref([0.3, 0.35]), ref([0.4, 0.45])], runs: [learner(0.3), null], prediction: null, pairTest: answer })!;
    expect(texts(t, 'test')).toMatch(/— not resolved; the equivalence test \(TOST at ±12, Holm p = 0\.006\) rules out a difference of 12 points\.$/);
    expect(texts(t, 'plain')).toBe('With a 4:3:3 mix of easy, medium and hard queries, the agent gains the same success as with hard queries only, within ±12 points: no difference detected, and the equivalence test rules out a larger one.');
  });

  it('dense reward: which of delivery and success rose on the training rollouts (first ten steps against the last ten)', () => {
    const l = lesson('dense-reward');
    const run = learner(0.2, (s) => ({ 'charts/delivery': s <= 10 ? 0.88 : s > 30 ? 0.96 : 0.9, 'charts/success': s <= 10 ? 0.03 : s > 30 ? 0.05 : 0.04 }));
    expect(meanOver(run.points, 'charts/delivery', [31, 40])).toBeCloseTo(0.96, 10);
    const t = computeTakeaway({ lesson: l, refs: [ref([0.25, 0.09, 0.17], { 'charts/delivery': [0.95, 0.97, 0.97] }), ref([0.21, 0.21, 0.16])], runs: [run, null], prediction: 'delivery', pairTest: null })!;
    expect(t.judged?.key).toBe('delivery');
    expect(t.predicted?.matched).toBe(true);
    // a raw window mean, said so (the chart's figure is smoothed, and the two read as one)
    expect(texts(t, 'mechanism')).toMatch(/Delivery, mean of steps 31–40 \(raw, not smoothed\): Sum \(dense\): yours 96\.0 %; the committed seeds 96\.3 %/);
    // the reference's windows here: early 0 for every seed, late as given
    expect(texts(t, 'mechanism')).toMatch(/The committed Sum \(dense\) seeds, first quarter of the steps → last: delivery 0 % → 96\.3 % \(\+96\.3 points \[/);
    const flat = learner(0.2, () => ({ 'charts/delivery': 0.9, 'charts/success': 0.04 }));
    expect(computeTakeaway({ lesson: l, refs: [null, null], runs: [flat, null], prediction: null, pairTest: null })?.judged?.key).toBe('neither');
  });

  it('a count\'s window mean is said as a mean of counts, and the charts\' figures as smoothed ("3.003", smoothed against raw)', () => {
    const groups = (s: number) => ({ 'charts/informative_groups': s % 5 === 0 ? 2 : 3 }); // steps 31–40: eight 3s and two 2s
    const t = computeTakeaway({
      lesson: lesson('seeds'), refs: [ref([0.3, 0.35, 0.4], { 'charts/informative_groups': [2.5, 2.7, 2.6] }), null],
      runs: [learner(0.36, groups), null], prediction: null, pairTest: null,
    })!;
    expect(texts(t, 'mechanism')).toMatch(/^Informative groups, mean of steps 31–40 \(raw, not smoothed\): [^:]+: yours 2\.8 groups on average; the committed seeds 2\.6 \[2\.4, 2\.8\]\.$/);
    expect(chartFigureNote(metricInfo('charts/informative_groups'), 0.75)).toBe('newest step, smoothed (EMA 0.75)');
    expect(chartFigureNote(metricInfo('eval/success'), 0.75)).toBe('newest evaluation, as measured');
  });

  it('the misleading line says whether the verdict is the committed seeds\' answer ("reads this verdict in 0 % … misleads in 0.0 %" beside a verdict that misleads)', () => {
    const rates = { draw: 'one run' as const, rule: 'seed-aware' as const, draws: 15, counts: { delivery: 12, neither: 3 }, committed: 'delivery', misleading: 0.2 };
    const text = (k: string) => ({ delivery: 'Delivery rises more', neither: 'Neither rises', success: 'Success rises more' })[k] ?? k;
    expect(misleadingText(rates, 'delivery', text)).toBe('The committed seeds\' answer is the same. One run like yours reads it in 80 % of their 15 draws; a run misleads — reads what they contradict — in 20.0 %.');
    expect(misleadingText(rates, 'neither', text)).toBe('The committed seeds answer “Delivery rises more”: your run is one of the draws that mislead — 20 % of their 15 draws read as yours does, 20.0 % mislead in all.');
    expect(misleadingText(rates, 'success', text)).toMatch(/your run is one of the draws that mislead — 0 % of their 15 draws read as yours does/);
    expect(misleadingText({ ...rates, draw: 'pair', counts: { undecided: 5, delivery: 10 }, misleading: 0 }, 'undecided', text)).toMatch(/^One pair of runs like yours is undecided in 33 % of the committed seeds' 15 draws: it claims nothing either way\./);
  });

  it('seeds: the distance between the two runs, and the interval over the committed seeds with the learner\'s added', () => {
    const t = computeTakeaway({ lesson: lesson('seeds'), refs: [ref([0.373, 0.513, 0.473]), ref([0.373, 0.513, 0.473])], runs: [learner(0.36, undefined, 700), learner(0.48, undefined, 701)], prediction: 'some', pairTest: null })!;
    expect(t.lines[0]).toEqual({ kind: 'plain', text: 'Runs that differ only in their random seed end as far as 14.0 points apart: the 3 committed runs of this setting end between 37.3 % and 51.3 % success.' });
    expect(t.judged?.key).toBe('far'); // 12 points apart
    expect(texts(t, 'test')).toMatch(/With your 2 runs added \(5 seeds\)/);
    // SD 7.2 points over 3 seeds: the noncentral t (SciPy nct) gives 80 % power at a difference of 22.14 points
    expect(texts(t, 'test')).toMatch(/SD 7\.2 points a run\) and 3 seeds a setting, the smallest difference it finds 80 % of the time is 22\.1 points\.$/);
  });

  it('says when there is no reference, and when the run is not at the reference setting', () => {
    const run = { ...learner(0.3), offSetting: ['steps=2'] };
    const t = computeTakeaway({ lesson: lesson('hard-only'), refs: [null, null], runs: [run, null], prediction: null, pairTest: null })!;
    expect(texts(t, 'band')).toMatch(/No committed runs of this setting yet/);
    expect(texts(t, 'note')).toMatch(/not at the reference setting \(steps=2\)/);
    expect(t.judged!.key).toBe(TOO_SMALL); // off the reference size: it cannot tell, whatever it is compared with
  });
});

describe('a smoke-size run\'s verdict (another size than the committed runs\')', () => {
  const committed = referenceWithMetricNames(JSON.parse(readFileSync('results/lessons/reference.json', 'utf8')) as LessonReference);
  const refsOf = (l: Lesson) => l.arms.map((a) => committed.settings[settingKey(armConfig(a, 1))] ?? null);
  /** a finished smoke run (6 steps, 4-query evaluations): `ends` successes of 4 at the end */
  function smokeRun(ends: number, seed: number, train: (step: number) => Record<string, number> = () => ({})): LearnerRun {
    const ev = (k: number) => ({ 'eval/success': k / 4, 'eval/success_lo': 0, 'eval/success_hi': 1, 'eval/queries': 4 });
    const points = [{ step: 0, values: ev(0) }, ...Array.from({ length: 6 }, (_, i) => ({ step: i + 1, values: { ...train(i + 1), ...(i === 5 ? ev(ends) : {}) } }))];
    return { seed, status: 'completed', totalSteps: 6, points, offSetting: ['steps=6', 'evalQueries=4'], rolloutsPerStep: 2 };
  }

  it('says first that it cannot tell, with the width of its 4-query evaluation, and gives no full-size rate', () => {
    const l = lesson('tool-failures');
    // 4 of 4 against 0 of 4: the full-size rule would read "Failures help" and quote the committed misleading rate
    const t = computeTakeaway({ lesson: l, refs: refsOf(l), runs: [smokeRun(4, 101), smokeRun(0, 101)], prediction: 'lower', pairTest: null })!;
    expect(t.judged!.key).toBe(TOO_SMALL);
    expect(t.judged!.rates).toBeNull();
    expect(t.judged!.oldRates).toBeNull();
    expect(t.judged!.text).toMatch(/^A run this small cannot tell: its evaluation has 4 queries, so each end is known only to within ±35 points/);
    expect(t.predicted!.matched).toBe(false);
    // said first, before any figure; no line quotes a rate of the committed draws
    expect(t.lines[0].text).toMatch(/not at the reference setting \(steps=6, evalQueries=4\)/);
    expect(t.lines.some((x) => x.kind === 'rates')).toBe(false);
    expect(t.lines.map((x) => x.text).join(' ')).not.toMatch(/\d % mislead|of their \d+ draws|committed pairs of runs give/);
    // nor placed in the full-size band
    expect(t.arms.every((a) => a.run!.placement === null)).toBe(true);
    expect(texts(t, 'band')).toMatch(/^Not placed in the committed runs' band: they are of the full size \(300 queries/);
  });

  it('the widths are the widest 95 % Wilson intervals at the run\'s size (SciPy-free: 2 of 4 → [15.0, 85.0] %)', () => {
    expect(widestHalfWidth(4)).toBeCloseTo(35.0, 1);
    expect(widestHalfWidth(300)).toBeCloseTo(5.6, 1);
  });

  it('the rises lesson at smoke size: its windows\' rollouts give the width', () => {
    const l = lesson('dense-reward');
    const run = smokeRun(1, 7, (s) => ({ 'charts/delivery': s > 4 ? 1 : 0, 'charts/success': 0 }));
    const t = computeTakeaway({ lesson: l, refs: refsOf(l), runs: [run, null], prediction: 'delivery', pairTest: null })!;
    expect(t.judged!.key).toBe(TOO_SMALL);
    expect(t.judged!.text).toMatch(/rests on 4 training rollouts \(2 steps × 2\): a 95 % interval up to ±35 points/);
  });
});
