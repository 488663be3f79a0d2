import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseHash, serializeHash } from '../../src/lab/urlState.ts';
import { referenceWithMetricNames, predictionBand, type LessonReference } from '../../src/lessons/lessonReference.ts';
import { encodeResult } from '../../src/lessons/resultCode.ts';
import { lessonById } from '../../src/lessons/lessons.ts';
import { decodeRun, encodeRun, MAX_RUN_EVALS, runLink, runResultOf, thin } from '../../src/lessons/runResultCode.ts';
import { bandFor, readSharedRun } from '../../src/lessons/sharedRun.ts';

// a committed standard run (seed 1 of the default setting), as a Lab run of it would store it
const dir = 'results/findings/runs/evalEvery=40_evalQueries=300_evalToolQa=100';
const summary = JSON.parse(readFileSync(`${dir}/summary.json`, 'utf8')) as { hash: string; lab: { seed: number } };
const lines = readFileSync(`${dir}/metrics.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, number> & { step: number });
const points = lines.map((l) => ({ step: l.step, values: l }));
const lastReward = [...lines].reverse().find((l) => Number.isFinite(l['reward/mean']))!['reward/mean'];
const settings = (referenceWithMetricNames(JSON.parse(readFileSync('results/lessons/reference.json', 'utf8')) as LessonReference)).settings;
const setting = summary.hash.replace(/^#/, '');
const committed = runResultOf({ setting, seed: summary.lab.seed, kind: 'rl', status: 'completed', backend: 'wasm · 1 thread', build: 'abc1234', steps: 40, totalSteps: 40, last: { 'reward/mean': lastReward }, points })!;

describe('a Lab run as a result link', () => {
  it('carries the run back whole: setting, seed, every evaluation with n, the last reward', () => {
    expect(committed.evals.map((e) => [e.step, e.queries])).toEqual([[0, 300], [40, 300]]);
    expect(committed.backend).toBe('wasm');
    const back = decodeRun(encodeRun(committed));
    if (!back.ok) throw new Error(back.message);
    // the curves come back quantised (runSeries.test.ts checks them)
    expect({ ...back.run, series: null }).toEqual({ ...committed, series: null, reward: Number(lastReward.toFixed(4)), evals: committed.evals.map((e) => ({ ...e, ood: e.ood === null ? null : Number(e.ood.toFixed(4)) })) });
    expect(back.run.series?.steps).toEqual(committed.series?.steps);
    expect(runLink('https://x.test/lab/', committed)).toMatch(/^https:\/\/x\.test\/lab\/#run=r2\.[\w-]+\.[0-9a-f]{8}$/);
  });

  it('refuses a mistyped, truncated, foreign or impossible code with its reason', () => {
    const code = encodeRun(committed);
    const i = code.indexOf('.') + 10;
    const typo = code.slice(0, i) + (code[i] === 'A' ? 'B' : 'A') + code.slice(i + 1);
    expect(decodeRun(typo)).toMatchObject({ ok: false, reason: 'tampered' });
    expect(decodeRun(code.slice(0, -3))).toMatchObject({ ok: false, reason: 'malformed' });
    expect(decodeRun(code.replace(/^r2/, 'r3'))).toMatchObject({ ok: false, reason: 'version' });
    const lesson = lessonById('seeds')!;
    const lessonCode = encodeResult({ lesson: 'seeds', arm: lesson.arms[0].key, setting: '00000000', seed: 1, backend: 'wasm', build: 'b', queries: 1, startSuccesses: 0, endSuccesses: 0, startOod: null, endOod: null, mechanism: lesson.charts.filter((c) => c.role === 'mechanism').map(() => null) });
    expect(decodeRun(lessonCode)).toMatchObject({ ok: false, reason: 'malformed' });
    expect(() => encodeRun({ ...committed, evals: [{ step: 0, success: 1, successes: 301, queries: 300, ood: null }] })).toThrow(/successes above the queries/);
    expect(() => encodeRun({ ...committed, setting: 'scale=huge' })).toThrow(/setting is not one this page has/);
    const shown = readSharedRun(typo, settings);
    expect(shown.ok ? '' : shown.message).toMatch(/checksum does not match/);
  });

  it('places a run of a committed setting against its band, and says plainly where there is none', () => {
    const ref = bandFor(setting, settings)!;
    expect(ref.seeds.length).toBeGreaterThanOrEqual(2);
    const band = predictionBand(ref.eval.end);
    const end = committed.evals[1].success;
    const shown = readSharedRun(encodeRun(committed), settings);
    if (!shown.ok) throw new Error(shown.message);
    expect(shown.verdict).toBe(end < band.lo! ? 'below' : end > band.hi! ? 'above' : 'inside');
    expect(shown.verdictText).toMatch(/^It ended at \d+\.\d %, (inside|above|below) the band where one run of this setting is expected, \[\d+\.\d %, \d+\.\d %\] \(the 15 committed seeds, 300 queries each; mean \d+\.\d %\)\.$/);
    expect(summary.lab.seed).toBe(1); // the default seed: the link leaves it out
    // the run's own link, world included (it records the world it trained: its start's, tiny)
    expect(shown.labHash).toBe('#worldSize=tiny&evalEvery=40&evalQueries=300&evalToolQa=100');
    expect(shown.labHash).toBe(summary.hash);
    const seven = readSharedRun(encodeRun({ ...committed, seed: 7 }), settings);
    expect(seven.ok && seven.labHash).toBe('#worldSize=tiny&evalEvery=40&evalQueries=300&evalToolQa=100&seed=7');
    expect(shown.rows[0].success).toMatch(/^\d+\.\d % \(\d+\/300; 95 % \d+\.\d %–\d+\.\d %\)$/);
    const high = readSharedRun(encodeRun({ ...committed, evals: [committed.evals[0], { step: 40, success: 1, successes: 300, queries: 300, ood: null }] }), settings);
    expect(high.ok && high.verdict).toBe('above');
    // the same setting written in another order meets the same band
    expect(bandFor('evalToolQa=100&evalQueries=300&evalEvery=40', settings)).toBe(ref);
    const other = readSharedRun(encodeRun({ ...committed, setting: 'steps=6' }), settings);
    expect(other.ok && other.verdict).toBe('no-band');
    expect(other.ok && other.verdictText).toMatch(/^There is no committed band for this setting/);
    const stopped = readSharedRun(encodeRun({ ...committed, status: 'stopped', steps: 20, evals: [committed.evals[0]] }), settings);
    expect(stopped.ok && stopped.verdict).toBe('unfinished');
  });

  it('keeps a long run pasteable: the first, the last and evenly spaced evaluations', () => {
    const many = Array.from({ length: 101 }, (_, i) => i);
    const kept = thin(many);
    expect(kept).toHaveLength(MAX_RUN_EVALS);
    expect([kept[0], kept.at(-1)]).toEqual([0, 100]);
    expect(runResultOf({ ...committed, last: {}, points: [] })).toBeNull();
  });

  it('shares a run that recorded no n (an SFT run\'s evaluations) by its shares, and says so', () => {
    const sft = runResultOf({ ...committed, kind: 'sft', last: { 'losses/sft': 0.51 }, points: [{ step: 5, values: { 'eval/success': 0.25, 'eval/ood_accuracy': 0.5 } }] })!;
    expect(sft.evals).toEqual([{ step: 5, success: 0.25, successes: null, queries: null, ood: 0.5 }]);
    const shown = readSharedRun(encodeRun(sft), settings);
    if (!shown.ok) throw new Error(shown.message);
    expect(shown.rows[0].success).toBe('25.0 % (n not recorded)');
    expect(Object.fromEntries(shown.facts)['Last training loss']).toBe('0.510');
  });

  it('routes `#run=<code>` to the Runs view and writes it back', () => {
    const code = encodeRun(committed);
    const { route, notices } = parseHash(`#run=${code}`);
    expect(notices).toEqual([]);
    expect(route).toMatchObject({ view: 'runs', run: code });
    expect(serializeHash(parseHash('').config, route)).toBe(`#run=${code}`);
    expect(serializeHash(parseHash('').config, { view: 'runs', finding: null })).toBe('#view=runs');
  });
});
