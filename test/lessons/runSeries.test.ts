import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sealCode } from '../../src/lessons/resultCode.ts';
import { decodeRun, encodeRun, runLink, runResultOf, type RunResult } from '../../src/lessons/runResultCode.ts';
import { MAX_SERIES_POINTS, seriesTolerance, SERIES_METRICS } from '../../src/lessons/runSeries.ts';
import { readSharedRun } from '../../src/lessons/sharedRun.ts';

// a committed 40-step run (recorded under the older metric names `success`, `kl`: read under today's)
const dir = 'results/rl-recipe/m-seed1-real';
const lines = readFileSync(`${dir}/metrics.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, number> & { step: number });
const points = lines.map((l) => ({ step: l.step, values: l }));
const run = runResultOf({ setting: 'worldSize=tiny&evalQueries=300', seed: 1, kind: 'rl', status: 'completed', backend: 'wasm', build: 'abc1234', steps: 40, totalSteps: 40, last: {}, points })!;
const recorded = (key: string, step: number) => {
  const l = lines.find((x) => x.step === step && Number.isFinite(x['reward/mean']))!;
  const old: Record<string, string> = { 'charts/success': 'success', 'losses/kl': 'kl', 'charts/response_len': 'response_len' };
  return l[key] ?? l[old[key]];
};
/** a code sealed with any payload, as a forger (or a bug) could: the checksum matches */
const forged = (fields: unknown[]) => sealCode('r', fields);

describe('a shared run carries its curves', () => {
  it('round-trips every training step of a 40-step run within half a quantisation level', () => {
    const back = decodeRun(encodeRun(run));
    if (!back.ok) throw new Error(back.message);
    const s = back.run.series!;
    expect(s.steps).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(Object.keys(s.values)).toEqual(['reward/mean', 'charts/success', 'losses/kl', 'charts/response_len']);
    for (const [key, column] of Object.entries(s.values)) {
      const truth = s.steps.map((step) => recorded(key, step));
      const tol = seriesTolerance(Math.min(...truth), Math.max(...truth));
      column.forEach((v, i) => expect(Math.abs(v! - truth[i])).toBeLessThanOrEqual(tol + 1e-12));
      // the ends are exact: they are the curve's range
      expect(Math.min(...(column as number[]))).toBe(Math.min(...truth));
      expect(Math.max(...(column as number[]))).toBe(Math.max(...truth));
    }
  });

  it('stays a pasteable link: a 40-step run well under 8 KB, a 2000-step one thinned to its bound', () => {
    const link = runLink('https://x.test/', run);
    expect(link.length).toBeLessThan(1024); // 751 characters when written
    const long = runResultOf({
      ...run, totalSteps: 2000, steps: 2000, last: {},
      points: Array.from({ length: 2001 }, (_, step) => ({ step, values: step === 0 ? { 'eval/success': 0.1, 'eval/queries': 300 } : Object.fromEntries(SERIES_METRICS.map((k, j) => [k, Math.sin(step / (j + 3))])) })),
    })!;
    const code = encodeRun(long);
    expect(code.length).toBeLessThan(8192);
    const back = decodeRun(code);
    if (!back.ok) throw new Error(back.message);
    expect(back.run.series!.steps).toHaveLength(MAX_SERIES_POINTS);
    expect([back.run.series!.steps[0], back.run.series!.steps.at(-1)]).toEqual([1, 2000]);
  });

  it('keeps a step that did not report a metric as a gap', () => {
    const gappy = { ...run, series: { steps: [1, 2, 5], values: { 'losses/kl': [0.5, null, 0.25] } } } satisfies RunResult;
    const back = decodeRun(encodeRun(gappy));
    expect(back.ok && back.run.series).toEqual({ steps: [1, 2, 5], values: { 'losses/kl': [0.5, null, 0.25] } });
  });

  it('draws the Lab\'s first charts: reward, success, validation with its interval, OOD, KL, response length', () => {
    const shown = readSharedRun(encodeRun(run), null);
    if (!shown.ok) throw new Error(shown.message);
    expect(shown.charted).toEqual(['reward/mean', 'charts/success', 'eval/success', 'eval/ood_accuracy', 'losses/kl', 'charts/response_len']);
    const start = shown.curves.find((p) => p.step === 0)!.values;
    expect(start['eval/success_lo']).toBeLessThan(start['eval/success']);
    expect(start['eval/success_hi']).toBeGreaterThan(start['eval/success']);
    expect(shown.curves.filter((p) => 'reward/mean' in p.values)).toHaveLength(40);
    expect(shown.curvesNote).toMatch(/^Training curves as the link carries them: 40 of the run's steps, each value rounded/);
  });

  it('still opens a version-1 link (made before the curves rode along), saying it carries none', () => {
    // written by the version-1 encoder (this file before version 2); frozen here so the reader keeps reading it
    const v1 = 'r1.WzEsInN0ZXBzPTYiLDMsInNmdCIsImNvbXBsZXRlZCIsIndhc20iLCJhYmMxMjM0IiwyLDIsW1swLDMsMzAsMC41XSxbMiwxMiwzMCxudWxsXV0sbnVsbCwwLjUxXQ.7b8051ce';
    const back = decodeRun(v1);
    if (!back.ok) throw new Error(back.message);
    expect(back.run).toMatchObject({ setting: 'steps=6', seed: 3, kind: 'sft', series: null, loss: 0.51 });
    expect(back.run.evals.map((e) => [e.step, e.successes, e.queries])).toEqual([[0, 3, 30], [2, 12, 30]]);
    const shown = readSharedRun(v1, null);
    if (!shown.ok) throw new Error(shown.message);
    expect(shown.curvesNote).toMatch(/earlier version of the page: it carries the evaluations only, no training curves/);
    expect(shown.charted).toEqual(['eval/success', 'eval/ood_accuracy']);
  });

  it('refuses a tampered link, and an impossible one even when its checksum was recomputed', () => {
    const code = encodeRun(run);
    const i = code.length - 40;
    const typo = code.slice(0, i) + (code[i] === 'A' ? 'B' : 'A') + code.slice(i + 1);
    expect(decodeRun(typo)).toMatchObject({ ok: false, reason: 'tampered' });
    const head = [2, 'steps=6', 1, 'rl', 'completed', 'wasm', 'b', 6, 6, [[0, 1, 10, null]], null, null];
    const refused = (series: unknown) => {
      const r = decodeRun(forged([...head, series]));
      return r.ok ? 'read' : r.message;
    };
    expect(refused([[1, 1, 3], [['reward/mean', 0, 1, 'AB_']]])).toBe('read');
    expect(refused([[1, 1, 9], [['reward/mean', 0, 1, 'ABCDEFGHI']]])).toMatch(/past the run/);
    expect(refused([[1, 1, 3], [['eval/secret', 0, 1, 'ABC']]])).toMatch(/does not carry/);
    expect(refused([[1, 1, 3], [['reward/mean', 1, 0, 'ABC']]])).toMatch(/range .* impossible/);
    expect(refused([[1, 1, 3], [['reward/mean', 0, 1, 'AB']]])).toMatch(/one value a step/);
    expect(refused([[1, 1, 3], [['reward/mean', 0, 1, '___']]])).toMatch(/no value/);
    expect(refused([[0, 0, 3], []])).toMatch(/impossible/);
    expect(refused([[0, 1, 1e9], []])).toMatch(/more than 200/);
    expect(refused('x')).toMatch(/wrong shape/);
    expect(decodeRun(forged(head))).toMatchObject({ ok: false, reason: 'malformed' }); // a version 2 with no curves field
  });
});
