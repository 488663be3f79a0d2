import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { armConfig, LESSONS, lessonById } from '../../src/lessons/lessons.ts';
import { settingKey, type LessonReference } from '../../src/lessons/lessonReference.ts';
import { addToClass, classCsv, classSizeFor80, classTest } from '../../src/lessons/lessonClass.ts';
import { encodeResult, settingHash, type LessonResult } from '../../src/lessons/resultCode.ts';
import { twoSampleTPower } from '../../src/stats/seedStatistics.ts';
import { committedComparison, type ComparisonTable } from '../../src/findings/committedComparison.ts';

const lesson = lessonById('tool-failures')!;
const committed = JSON.parse(readFileSync('results/lessons/reference.json', 'utf8')) as LessonReference;
const t7 = JSON.parse(readFileSync('results/findings/T7/table.json', 'utf8')) as ComparisonTable;
const refsOf = (id: string) => lessonById(id)!.arms.map((a) => committed.settings[settingKey(armConfig(a, 1))] ?? null);

const base: LessonResult = { lesson: 'tool-failures', arm: 'failures', setting: settingHash('smoke'), seed: 100, backend: 'wasm', build: 'b1', queries: 300, startSuccesses: 43, endSuccesses: 60, startOod: null, endOod: null, mechanism: [1, 1] };
const link = (o: Partial<LessonResult>) => `https://lab.example/#lesson=tool-failures&result=${encodeResult({ ...base, ...o })}`;

describe('a class of result links', () => {
  it('accepts valid links and refuses each bad one with its reason, leaving the class otherwise unchanged', () => {
    const first = addToClass(lesson, [], [link({ seed: 101 }), link({ seed: 101, arm: 'clean', setting: settingHash('smoke clean') }), '']);
    expect(first.accepted).toHaveLength(2);
    const good = link({ seed: 102 });
    const tampered = good.slice(0, -12) + (good.at(-12) === 'A' ? 'B' : 'A') + good.slice(-11);
    const relabelled = good.replace('#lesson=tool-failures', '#lesson=hard-only');
    const other = `#lesson=seeds&result=${encodeResult({ ...base, lesson: 'seeds', arm: 'seed-a', mechanism: [1] })}`;
    const next = addToClass(lesson, first.members, [
      good, tampered, relabelled, other, 'not a link',
      link({ seed: 101 }), // the same run again
      link({ seed: 103, build: 'b2' }), link({ seed: 104, setting: settingHash('full') }),
    ]);
    expect(next.accepted.map((m) => m.result.seed)).toEqual([102]);
    expect(next.rejected.map((r) => r.reason)).toEqual(['tampered', 'lesson', 'lesson', 'malformed', 'seed', 'build', 'setting']);
    expect(next.rejected.every((r) => r.message.length > 10)).toBe(true);
    expect(next.members.map((m) => `${m.result.arm}:${m.result.seed}`)).toEqual(['failures:101', 'clean:101', 'failures:102']);
  });

  it('pools the class\'s ends in Welch\'s test (SciPy ttest_ind(equal_var=False): t 5.2442, p 0.003593), signed as the committed answer', () => {
    const ends = { failures: [120, 105, 99, 130], clean: [60, 75, 52] };
    const lines = Object.entries(ends).flatMap(([arm, xs]) => xs.map((e, i) => link({ arm, seed: 200 + i, endSuccesses: e, setting: settingHash(arm) })));
    const cls = addToClass(lesson, [], lines);
    expect(cls.rejected).toEqual([]);
    const answer = committedComparison(t7, 'success · 0 %', 'success · 10 %')!;
    const t = classTest(lesson, cls.members, refsOf('tool-failures'), answer);
    expect(t.learners).toBe(4);
    // the pair's higher arm (no failures) first, as the answer reads: clean − failures
    expect(t.order).toEqual([1, 0]);
    expect(t.test!.difference).toBeCloseTo(-0.170556, 5);
    expect(t.test!.t).toBeCloseTo(-5.244225, 4);
    expect(t.test!.p).toBeCloseTo(0.0035929, 5);
    // the committed answer is the one comparison itself — the takeaway's and the Findings view's — not the bands' seeds
    const c = t.committed!;
    expect(c.answer).toBe(answer);
    expect(c.answer!.seeds).toEqual([11, 11]);
    expect(c.sd).toBeCloseTo(answer.sd! / 100, 12);
    const delta = Math.abs(answer.difference!) / 100;
    expect(t.power).toBeCloseTo(twoSampleTPower({ n: 3, delta, sd: c.sd, alpha: 0.05 }), 10);
    expect(t.power!).toBeLessThan(0.8);
    expect(twoSampleTPower({ n: t.sizeFor80!, delta, sd: c.sd, alpha: 0.05 })).toBeGreaterThanOrEqual(0.8);
    expect(twoSampleTPower({ n: t.sizeFor80! - 1, delta, sd: c.sd, alpha: 0.05 })).toBeLessThan(0.8);
  });

  it('without an answer (no table), falls back to the committed seeds\' ends, in the lesson\'s arm order', () => {
    const t = classTest(lesson, [], refsOf('tool-failures'));
    expect(t.committed!.answer).toBeNull();
    expect(t.committed!.test!.difference).toBeCloseTo(-0.177, 2);
  });

  it('the class size for 80 % power, for every lesson with a comparison', () => {
    const sizes = Object.fromEntries(LESSONS.map((l) => [l.id, classSizeFor80(l, refsOf(l.id))]));
    expect(sizes.seeds).toBeNull();
    expect(sizes['null-control']).toBeGreaterThanOrEqual(2);
    expect(sizes['tool-failures']).toBeGreaterThan(sizes['null-control']!);
    expect(sizes['hard-only']).toBeGreaterThan(sizes['tool-failures']!);
  });

  it('exports the class as CSV', () => {
    const cls = addToClass(lesson, [], [link({ seed: 7 })]);
    const csv = classCsv(cls.members).split('\n');
    expect(csv[0]).toBe('lesson,arm,seed,setting,backend,build,queries,start_success,end_success,start_ood,end_ood,mechanism,code');
    expect(csv[1]).toMatch(/^tool-failures,failures,7,[0-9a-f]{8},wasm,b1,300,0\.1433,0\.2000,,,1 1,v1\./);
  });
});
