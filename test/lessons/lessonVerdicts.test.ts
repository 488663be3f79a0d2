import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { armConfig, LESSONS, lessonById, type Lesson } from '../../src/lessons/lessons.ts';
import { referenceWithMetricNames, settingKey, type LessonReference, type SettingReference } from '../../src/lessons/lessonReference.ts';
import { readEnds, UNDECIDED, verdictRates } from '../../src/lessons/lessonVerdicts.ts';
import { computeTakeaway, type LearnerRun } from '../../src/lessons/lessonTakeaway.ts';

const committed = referenceWithMetricNames(JSON.parse(readFileSync('results/lessons/reference.json', 'utf8')) as LessonReference);
const refsOf = (l: Lesson) => l.arms.map((a) => committed.settings[settingKey(armConfig(a, 1))] ?? null);
const lesson = (id: string) => lessonById(id)!;

function ref(ends: number[]): SettingReference {
  return { key: 'k', seeds: ends.map((_, i) => i + 1), steps: 40, train: {}, windows: {}, eval: { start: ends.map(() => 0.143), end: ends, queries: 300, steps: [0, 40] }, wallSeconds: [], cpuSeconds: [], where: [] };
}
function learner(start: number, end: number, status = 'completed'): LearnerRun {
  const ev = (x: number) => ({ 'eval/success': x, 'eval/success_lo': x - 0.05, 'eval/success_hi': x + 0.05, 'eval/queries': 300 });
  const points = [{ step: 0, values: ev(start) }, ...Array.from({ length: 40 }, (_, i) => ({ step: i + 1, values: i === 39 ? ev(end) : {} }))];
  return { seed: 7, status, totalSteps: 40, points };
}

describe('how often one run of a lesson misleads, from the committed seeds', () => {
  it('tool failures: the old rule reads "About the same" for 40 of the 165 committed pairs (and "Failures help" for 1); the seed-aware rule misleads less', () => {
    const rates = verdictRates(lesson('tool-failures'), refsOf(lesson('tool-failures')));
    const old = rates.find((r) => r.draw === 'pair' && r.rule === 'old')!;
    const now = rates.find((r) => r.draw === 'pair' && r.rule === 'seed-aware')!;
    expect(old.draws).toBe(165);
    expect(old.committed).toBe('lower');
    expect(old.counts).toEqual({ same: 40, higher: 1, lower: 124 });
    expect(old.misleading).toBeCloseTo(41 / 165, 10);
    // the seed-aware rule reads no pair the opposite way or "about the same"; the rest it calls undecided
    expect(now.counts.same ?? 0).toBe(0);
    expect(now.counts.higher ?? 0).toBe(0);
    expect(now.counts.lower + now.counts[UNDECIDED]).toBe(165);
    expect(now.misleading).toBeLessThan(old.misleading);
  });

  it('every lesson comparing ends: the seed-aware rule misleads no more often than the old one, for a pair and for one arm', () => {
    for (const l of LESSONS.filter((x) => x.judge.kind === 'ends')) {
      const rates = verdictRates(l, refsOf(l));
      expect(rates).toHaveLength(6);
      for (const draw of ['pair', 'first arm', 'second arm'] as const) {
        const now = rates.find((r) => r.draw === draw && r.rule === 'seed-aware')!;
        const old = rates.find((r) => r.draw === draw && r.rule === 'old')!;
        expect(now.misleading, `${l.id} ${draw}`).toBeLessThanOrEqual(old.misleading);
      }
    }
  });

  it('lesson 5 compares like with like: pairs\' gaps, where the old one-seed mode scored one seed\'s distance to the mean', () => {
    const l = lesson('seeds');
    const rates = verdictRates(l, refsOf(l));
    const pairs = rates.find((r) => r.draw === 'pair')!;
    expect(pairs.draws).toBe(15 * 14 / 2);
    // the figures first estimated: 44 % of pairs are 10+ points apart, 27 % of seeds 10+ points from the mean
    expect(Math.round(100 * pairs.counts.far / pairs.draws)).toBe(42);
    const toMean = rates.find((r) => r.draw === 'first arm' && r.rule === 'old')!;
    expect(Math.round(100 * toMean.counts.far / toMean.draws)).toBe(27);
  });

  it('the seed-aware rule: a direction only past 1.96 SD of the difference', () => {
    const j = lesson('tool-failures').judge as Extract<Lesson['judge'], { kind: 'ends' }>;
    expect(readEnds(j, -0.2, 0.1)).toBe('lower');
    expect(readEnds(j, -0.19, 0.1)).toBe(UNDECIDED);
    expect(readEnds(j, 0.2, 0.1)).toBe('higher');
    expect(readEnds(j, 0, 0)).toBe(UNDECIDED);
  });
});

describe('the takeaway, told honestly', () => {
  const base = { lesson: lesson('tool-failures'), refs: [ref([0.277, 0.19, 0.177, 0.14]), ref([0.373, 0.513, 0.473, 0.41])], prediction: 'lower', pairTest: null };

  it('the headline waits until every arm that runs has finished', () => {
    const one = computeTakeaway({ ...base, runs: [learner(0.143, 0.1), null], running: [true, true] })!;
    expect(one.judged).toBeNull();
    expect(one.lines.some((l) => l.kind === 'prediction')).toBe(false);
    const still = computeTakeaway({ ...base, runs: [learner(0.143, 0.1), learner(0.143, 0.3, 'running')] })!;
    expect(still.judged).toBeNull();
    const both = computeTakeaway({ ...base, runs: [learner(0.143, 0.1), learner(0.143, 0.45)] })!;
    expect(both.judged?.key).toBe('lower');
  });

  it('says beside the verdict how often such a draw reads it and misleads, with the old rule\'s rate', () => {
    const t = computeTakeaway({ ...base, runs: [learner(0.143, 0.1), learner(0.143, 0.45)] })!;
    const rates = t.lines.find((l) => l.kind === 'rates')!.text;
    expect(t.judged?.rates?.draw).toBe('pair');
    expect(rates).toMatch(/the 16 committed pairs of runs give: .*\(yours\)/);
    expect(rates).toMatch(/misleads .* \d+\.\d % of the time \(the rule the page used before, blind to the seed-to-seed spread: \d+\.\d %\)/);
  });

  it('a run that ends below its own start is said so', () => {
    const t = computeTakeaway({ ...base, runs: [learner(0.143, 0.097), learner(0.143, 0.45)] })!;
    expect(t.lines.map((l) => l.text).join('\n')).toMatch(/ended below its own start \(14\.3 % → 9\.7 %, −4\.6 points\)/);
    const up = computeTakeaway({ ...base, runs: [learner(0.143, 0.2), learner(0.143, 0.45)] })!;
    expect(up.lines.map((l) => l.text).join('\n')).not.toMatch(/below its own start/);
  });

  it('lesson 5 with one run: its median gap to the committed seeds, not its distance to their mean', () => {
    // seeds at 20 and 40: a run at 30 is 10 points from each (a "some"/"far" pair gap), 0 from the mean
    const t = computeTakeaway({ lesson: lesson('seeds'), refs: [ref([0.2, 0.4]), ref([0.2, 0.4])], runs: [learner(0.143, 0.3), null], prediction: 'close', pairTest: null, running: [true, false] })!;
    expect(t.judged?.key).toBe('far');
    expect(t.judged?.basis).toMatch(/median gap is 10\.0 points/);
  });
});
