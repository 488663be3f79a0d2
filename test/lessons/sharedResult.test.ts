import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { armConfig, lessonById } from '../../src/lessons/lessons.ts';
import { referenceWithMetricNames, predictionBand, settingKey, type LessonReference } from '../../src/lessons/lessonReference.ts';
import { encodeResult, settingHash, type LessonResult } from '../../src/lessons/resultCode.ts';
import { readSharedResult } from '../../src/lessons/sharedResult.ts';

const lesson = lessonById('tool-failures')!;
const committed = referenceWithMetricNames(JSON.parse(readFileSync('results/lessons/reference.json', 'utf8')) as LessonReference);
const refs = lesson.arms.map((a) => committed.settings[settingKey(armConfig(a, 1))] ?? null);
const failures = lesson.arms.find((a) => a.key === 'failures')!;
const standard = settingHash(settingKey(armConfig(failures, 1)));
const base: LessonResult = { lesson: 'tool-failures', arm: 'failures', setting: standard, seed: 4242, backend: 'wasm', build: 'b1', queries: 300, startSuccesses: 43, endSuccesses: 29, startOod: 0.41, endOod: 0.38, mechanism: [2.8, 1.1875] };
const code = (o: Partial<LessonResult> = {}) => encodeResult({ ...base, ...o });

describe('a result link opened in the page (shown, not ignored)', () => {
  it('shows the lesson, arm, setting, seed, start and end, and its place against the committed band', () => {
    const band = predictionBand(refs[lesson.arms.indexOf(failures)]!.eval.end);
    const shown = readSharedResult(lesson, code(), refs);
    if (!shown.ok) throw new Error(shown.message);
    expect(shown.arm).toBe(failures.label);
    expect(shown.atSetting).toBe(true);
    const facts = Object.fromEntries(shown.facts);
    expect(facts.Seed).toBe('4242');
    expect(facts['Validation success']).toBe('14.3 % → 9.7 % (43 → 29 of 300 queries)');
    expect(facts['OOD accuracy']).toBe('41.0 % → 38.0 %');
    expect(Object.values(facts).join(' ')).toMatch(/2\.8 groups on average/);
    expect(shown.verdict).toBe(29 / 300 < band.lo! ? 'below' : 29 / 300 > band.hi! ? 'above' : 'inside');
    expect(shown.verdictText).toMatch(/^It ended at 9\.7 %, (inside|above|below) the band where one run of .+ is expected, \[\d+\.\d %, \d+\.\d %\] \(the \d+ committed seeds\)\. It ended below its own start \(14\.3 % → 9\.7 %\)\.$/);
    const high = readSharedResult(lesson, code({ endSuccesses: 290 }), refs);
    expect(high.ok && high.verdict).toBe('above');
  });

  it('does not place a run of another setting (a smoke size) against the band, and says so', () => {
    const shown = readSharedResult(lesson, code({ setting: settingHash('steps=6') }), refs);
    expect(shown.ok && shown.verdict).toBe('off-setting');
    expect(shown.ok && Object.fromEntries(shown.facts).Setting).toMatch(/another than the lesson's/);
  });

  it('refuses a tampered code and one of another lesson, with their reasons', () => {
    const good = code();
    const tampered = good.slice(0, 8) + (good[8] === 'A' ? 'B' : 'A') + good.slice(9);
    expect(readSharedResult(lesson, tampered, refs)).toMatchObject({ ok: false, reason: 'tampered' });
    const other = encodeResult({ ...base, lesson: 'seeds', arm: 'seed-a', mechanism: [1] });
    expect(readSharedResult(lesson, other, refs)).toMatchObject({ ok: false, reason: 'lesson' });
    expect(readSharedResult(lesson, 'nonsense', refs)).toMatchObject({ ok: false, reason: 'malformed' });
  });
});
