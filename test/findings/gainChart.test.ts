import { describe, expect, it } from 'vitest';
import type { LabConfig } from '../../src/lab/config.ts';
import { gainTable, type SeedResult } from '../../src/findings/findingGains.ts';
import { gainAxis, gainLines, pairAxis, pairLines } from '../../src/findings/gainChart.ts';
import { findingById } from '../../src/findings/findings.ts';

const meta = { size: 'standard', command: 'x', commit: 'abc', date: '2026-01-01', backend: 'wasm', common: {} };
const fig = (success: number, ood: number) => ({ success, delivery: 1, csMicro: 1, hardMicro: 1, ood, queries: 300 });

describe('gainLines and gainAxis', () => {
  it("T2: one line per run cell (not the SFT row), a null control per metric, the paper's gains, each run's cost once", () => {
    const t2 = findingById('T2');
    const lookup = (lab: LabConfig): SeedResult => ({ start: fig(0.2, 0.5), final: fig(0.3 + 0.01 * lab.seed, 0.45), wallSeconds: 60, cpuSeconds: 120, where: `${lab.reward}-${lab.advantages}-${lab.seed}` });
    const lines = gainLines(t2, gainTable(t2, lookup, [1, 2, 3], meta), null);
    expect(lines.map((l) => l.label)).toEqual(['Sum · in-domain', 'Sum · OOD', 'Macro · in-domain', 'Macro · OOD', 'null control · success', 'null control · OOD']);
    expect(lines.map((l) => l.paper)).toEqual([43.1, -5.2, null, 1, null, null]);
    expect(lines.map((l) => l.sameRuns)).toEqual([false, true, false, true, false, true]);
    expect(lines[0].coreMinutes).toBe(6);
    lines[0].lab?.seeds.forEach((s, i) => expect(s.gain).toBeCloseTo([11, 12, 13][i], 9));
    const axis = gainAxis(lines);
    expect(axis.lo).toBeLessThanOrEqual(-5.2);
    expect(axis.hi).toBeGreaterThanOrEqual(43.1);
    expect(axis.ticks).toContain(0);
  });

  it('T6 spans scales: one null-control line per scale, each read from its own scale\'s runs', () => {
    const t6 = findingById('T6');
    const lookup = (lab: LabConfig): SeedResult => ({ start: fig(0.2, 0.5), final: fig(lab.advantages === 'shuffled' ? { s: 0.1, m: 0.15, l: 0 }[lab.scale] : 0.3, 0.5), wallSeconds: 60, where: `${lab.scale}-${lab.algorithm}-${lab.advantages}-${lab.seed}` });
    const lines = gainLines(t6, gainTable(t6, lookup, [1, 2, 3], meta), null);
    const nulls = lines.filter((l) => l.isNull);
    expect(nulls.map((l) => l.label)).toEqual(['null control · 1.5B', 'null control · 3B', 'null control · 7B']);
    expect(nulls.map((l) => l.lab?.mean)).toEqual([-10, -5, -20]);
  });

  it('an empty table still has an axis around 0 and lines without marks', () => {
    const t7 = findingById('T7');
    const lines = gainLines(t7, null, null);
    expect(lines).toHaveLength(4);
    expect(lines.every((l) => l.lab === null && l.mine === null)).toBe(true);
    const axis = gainAxis(lines);
    expect(axis.lo).toBeLessThan(0);
    expect(axis.hi).toBeGreaterThan(0);
  });
});

describe('pairLines and pairAxis', () => {
  it("names each pair once with its shared part, carries the lab's test and the paper's difference", () => {
    const t1 = findingById('T1');
    const lines = pairLines(t1, null, null);
    expect(lines.map((l) => l.label)).toEqual([
      '1.5B: Curriculum > Sum', '1.5B: Curriculum > Macro', '1.5B: Curriculum > Success',
      '3B: Curriculum > Sum', '3B: Curriculum > Macro', '3B: Curriculum > Success',
      '7B: Sum > Macro', '7B: Sum > Success', '7B: Sum > Curriculum']);
    expect(new Set(lines.map((l) => l.label)).size).toBe(9); // one line per pair, none shared across scales
    expect(lines[0].paper).toBe(1.8); // 34.9 − 33.1
    expect(lines[1].paper).toBeNull(); // the paper gives no 1.5B Macro number
    expect(pairLines(findingById('T3'), null, null).map((l) => l.label)).toEqual(['Sum: 7B > 1.5B', 'Curriculum: 3B > 1.5B']);
    const t2 = pairLines(findingById('T2'), null, null);
    expect(t2.map((l) => [l.label, l.paper])).toEqual([['the SFT start > Sum · OOD', 5.2], ['OOD: Macro > Sum', 6.2]]);
  });

  it("takes each pair's test from the table and an axis that holds every interval and 0", () => {
    const t7 = findingById('T7');
    const ends: Record<string, number[]> = { 0: [0.4, 0.42, 0.41], 0.05: [0.38, 0.39, 0.4], 0.1: [0.1, 0.11, 0.12] };
    const lookup = (lab: LabConfig): SeedResult => ({ start: fig(0.2, 0.5), final: fig(lab.advantages === 'shuffled' ? 0.2 : ends[String(lab.toolFailureRate)][lab.seed - 1], 0.5), wallSeconds: 60, where: `${lab.toolFailureRate}-${lab.advantages}-${lab.seed}` });
    const lines = pairLines(t7, gainTable(t7, lookup, [1, 2, 3], meta), null);
    expect(lines[0]).toMatchObject({ label: 'success: 0 % > 10 %', lab: { call: 'supports', test: 'welch' } });
    expect(lines[0].lab!.difference).toBeCloseTo(30, 5);
    const axis = pairAxis(lines);
    expect(axis.lo).toBeLessThanOrEqual(0);
    expect(axis.hi).toBeGreaterThanOrEqual(lines[0].lab!.ci95!.hi);
  });
});
