import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { armConfig, LESSONS, lessonById, SMOKE_SIZE } from '../../src/lessons/lessons.ts';
import { referenceWithMetricNames, settingKey, type LessonReference } from '../../src/lessons/lessonReference.ts';
import { addToClass, classCsv, classSizeFor80, classTest, freshClassName, resultSize, splitLine, uniqueName } from '../../src/lessons/lessonClass.ts';
import { encodeResult, settingHash, type LessonResult } from '../../src/lessons/resultCode.ts';
import { twoSampleTPower } from '../../src/stats/seedStatistics.ts';
import { committedComparison, type ComparisonTable } from '../../src/findings/committedComparison.ts';

const lesson = lessonById('tool-failures')!;
const committed = referenceWithMetricNames(JSON.parse(readFileSync('results/lessons/reference.json', 'utf8')) as LessonReference);
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

  it('ends with no spread (all equal in each arm, as smoke ends often are) are no test, not "+0.0 points, p = 1"', () => {
    const lines = ['failures', 'clean'].flatMap((arm) => [0, 1, 2].map((i) => link({ arm, seed: 300 + i, endSuccesses: 0, setting: settingHash(arm) })));
    const flat = classTest(lesson, addToClass(lesson, [], lines).members, refsOf('tool-failures'));
    expect(flat.noSpread).toBe(true);
    expect(flat.test).toBeNull();
    // one end apart is spread enough for Welch's test
    const spread = classTest(lesson, addToClass(lesson, [], [...lines, link({ arm: 'clean', seed: 310, endSuccesses: 3, setting: settingHash('clean') })]).members, refsOf('tool-failures'));
    expect(spread.noSpread).toBe(false);
    expect(spread.test!.p).toBeGreaterThan(0);
    const seeds = lessonById('seeds')!;
    const same = [0, 1].map((i) => `#lesson=seeds&result=${encodeResult({ ...base, lesson: 'seeds', arm: 'seed-a', seed: 400 + i, endSuccesses: 5, mechanism: [1], setting: settingHash('s') })}`);
    const pooled = classTest(seeds, addToClass(seeds, [], same).members, refsOf('seeds'));
    expect([pooled.noSpread, pooled.pooled]).toEqual([true, null]);
  });

  it('a class of a chosen size refuses a link of the other size with its reason, and keeps its size', () => {
    const smokeRun = { ...base, arm: 'failures', seed: 500, queries: 4, endSuccesses: 0, startSuccesses: 0, setting: settingHash(settingKey(armConfig(lesson.arms[0], 1, SMOKE_SIZE))) };
    const out = addToClass(lesson, [], [`#lesson=tool-failures&result=${encodeResult(smokeRun)}`], 'full');
    expect(out.accepted).toEqual([]);
    expect(out.size).toBe('full');
    expect(out.rejected.map((r) => r.reason)).toEqual(['size']);
    expect(out.rejected[0].message).toMatch(/smoke-size run .* in a full-size class/);
    expect(addToClass(lesson, [], [`#lesson=tool-failures&result=${encodeResult(smokeRun)}`], 'smoke').accepted).toHaveLength(1);
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

describe('a class is of one size', () => {
  // the setting hashes a lesson page gives its arms' runs at the full size and at the smoke size
  const hashOf = (arm: string, size = {}) => settingHash(settingKey(armConfig(lesson.arms.find((a) => a.key === arm)!, 1, size)));
  const full = (arm: string, seed: number) => link({ arm, seed, setting: hashOf(arm) });
  const smoke = (arm: string, seed: number) => link({ arm, seed, setting: hashOf(arm, SMOKE_SIZE), queries: 4, startSuccesses: 0, endSuccesses: 2 });

  it('refuses a smoke link pasted into a full-size class, with its reason, even of an arm the class has no run of yet', () => {
    const cls = addToClass(lesson, [], [full('clean', 300), full('clean', 301)]);
    expect(cls.size).toBe('full');
    const next = addToClass(lesson, cls.members, [smoke('failures', 302), `Ana: ${smoke('clean', 303)}`, full('failures', 304)]);
    expect(next.accepted.map((m) => m.result.seed)).toEqual([304]);
    expect(next.rejected.map((r) => [r.who, r.reason])).toEqual([['seed 302, 10 % tool failures', 'size'], ['Ana', 'size']]);
    expect(next.rejected[0].message).toMatch(/^a smoke-size run \(4 queries an evaluation\) in a full-size class/);
    expect(resultSize(lesson, next.accepted[0].result)).toBe('full');
  });

  it('reads the size of a result as the page makes it: a smoke run stores its checkpoint\'s world (tiny), and is still of the smoke size', () => {
    // the hashes of a real smoke pair from the page (headless Chromium, wasm, this build): 99b61feb and d63ecbee
    expect(resultSize(lesson, { ...base, arm: 'failures', setting: '99b61feb' })).toBe('smoke');
    expect(resultSize(lesson, { ...base, arm: 'clean', setting: 'd63ecbee' })).toBe('smoke');
    const tinyFull = settingHash(settingKey({ ...armConfig(lesson.arms[1], 1), worldSize: 'tiny' }));
    expect(resultSize(lesson, { ...base, arm: 'clean', setting: tinyFull })).toBe('full');
    expect(resultSize(lesson, { ...base, arm: 'clean', setting: settingHash('x') })).toBe('other');
  });

  it('a class of smoke links keeps to the smoke size, and a size given (the kept class\'s) holds from the first link', () => {
    const cls = addToClass(lesson, [], [smoke('failures', 310), full('clean', 311), smoke('clean', 310)]);
    expect(cls.size).toBe('smoke');
    expect(cls.members.map((m) => `${m.result.arm}:${m.result.seed}`)).toEqual(['failures:310', 'clean:310']);
    expect(cls.rejected.map((r) => r.reason)).toEqual(['size']);
    const kept = addToClass(lesson, [], [smoke('failures', 312)], 'full');
    expect(kept.accepted).toEqual([]);
    expect(kept.rejected[0].reason).toBe('size');
  });

  it('names each refused link by its learner\'s label, else its seed, else its line — never by the same cut-off address', () => {
    const good = full('clean', 320);
    // its checksum mistyped: the payload still says whose it is
    const tampered = good.slice(0, -1) + (good.at(-1) === '0' ? '1' : '0');
    const out = addToClass(lesson, [], [good, '', tampered, 'Bo — not a link', 'garbage', good, `Cy: ${tampered}`]);
    expect(out.rejected.map((r) => r.who)).toEqual(['seed 320 (as its unchecked payload says)', 'line 4', 'line 5', 'seed 320, No failures', 'Cy']);
    expect(out.rejected.map((r) => r.reason)).toEqual(['tampered', 'malformed', 'malformed', 'seed', 'tampered']);
    expect(splitLine(`Dee: ${good}`)).toEqual({ label: 'Dee', link: good });
    expect(splitLine(good)).toEqual({ label: null, link: good });
  });

  it('class names are unique, and a smoke class says its size in its name', () => {
    const day = '2026-12-05';
    expect(freshClassName(lesson, null, day, [])).toBe('Tool failures · 2026-12-05');
    expect(freshClassName(lesson, 'smoke', day, [])).toBe('Tool failures · smoke size · 2026-12-05');
    expect(freshClassName(lesson, 'full', day, [])).toBe('Tool failures · full size · 2026-12-05');
    expect(freshClassName(lesson, 'full', day, ['Tool failures · full size · 2026-12-05'])).toBe('Tool failures · full size · 2026-12-05 #2');
    expect(uniqueName('A', ['a', ' A #2 '])).toBe('A #3');
  });
});
