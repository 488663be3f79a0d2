import { describe, expect, it } from 'vitest';
import type { LabConfig } from '../../src/lab/config.ts';
import { gainTable, gainText, type SeedResult } from '../../src/findings/findingGains.ts';
import { gainMarkdown } from '../../src/findings/gainText.ts';
import { findingById, paperGain } from '../../src/findings/findings.ts';

const meta = { size: 'standard', command: 'npm run cli -- sweep --preset T7 --standard', commit: 'abc', date: '2026-01-01T00:00:00Z', backend: 'wasm', common: {} };
const figures = (success: number, ood = 0.5) => ({ success, delivery: 1, csMicro: 1, hardMicro: 1, ood, queries: 300 });

/** a hand-made T7 grid: success at the end per (failure rate, seed); start 20 % for every run */
function t7(ends: Record<string, number[]>, nullEnds = [0.2, 0.21, 0.19], delta: { success: number } | null = null) {
  const lookup = (lab: LabConfig): SeedResult | undefined => {
    const row = lab.advantages === 'shuffled' ? nullEnds : ends[String(lab.toolFailureRate)];
    const end = row?.[lab.seed - 1];
    return end === undefined ? undefined : { start: figures(0.2), final: figures(end), wallSeconds: 600, cpuSeconds: 700, where: `run-${lab.toolFailureRate}-${lab.advantages}-${lab.seed}` };
  };
  return gainTable(findingById('T7'), lookup, [1, 2, 3], meta, delta);
}

describe('gainTable on hand-made tables', () => {
  it('agrees when 0 % and 5 % gain clearly more than 10 %', () => {
    const t = t7({ 0: [0.40, 0.42, 0.41], 0.05: [0.38, 0.39, 0.40], 0.1: [0.10, 0.11, 0.12] });
    expect(t.direction.call).toBe('agrees');
    const zero = t.cells.find((c) => c.col === '0 %')!;
    // each seed's gain as the run measured it (unrounded: 0.42 − 0.2 in points is 21.999999999999996)
    expect(zero.gain).toEqual([0.40, 0.42, 0.41].map((e) => 100 * (e - 0.2)));
    expect(zero.mean.gain).toBeCloseTo(21, 5);
    // t(0.975, 2) = 4.303, sd 1, n 3: half-width 2.48
    expect(zero.ci95!.hi - zero.mean.gain!).toBeCloseTo(2.48, 1);
    expect(zero.coreMinutes).toBeCloseTo(35, 5); // 3 × 700 CPU seconds
    expect(t.nullControl).toHaveLength(1);
    expect(t.nullControl[0].mean.gain).toBeCloseTo(0, 5);
    expect(t.direction.sentence).toMatch(/null control success/);
  });

  it('disagrees when 10 % gains clearly more than 0 %', () => {
    const t = t7({ 0: [0.10, 0.11, 0.12], 0.05: [0.38, 0.39, 0.40], 0.1: [0.40, 0.42, 0.41] });
    expect(t.direction.call).toBe('disagrees');
    expect(t.compares.pairs.map((p) => p.call)).toEqual(['contradicts', 'not resolved']); // 5 % (+19) and 10 % (+21) overlap: one contradiction is enough
  });

  it('tests each pair by its difference (Welch, Holm) and gives its interval, p and probability of improvement', () => {
    const t = t7({ 0: [0.40, 0.42, 0.41], 0.05: [0.38, 0.39, 0.40], 0.1: [0.10, 0.11, 0.12] });
    const [p] = t.compares.pairs;
    expect(p).toMatchObject({ higher: 'success · 0 %', lower: 'success · 10 %', test: 'welch', call: 'supports', seeds: [3, 3] });
    expect(p.difference).toBeCloseTo(30, 5);
    expect(p.pAdjusted!).toBeGreaterThanOrEqual(p.p!);
    expect(p.improvement!.estimate).toBe(1);
    expect(t.compares.alpha).toBe(0.05);
    // the smaller p of two pairs is decided at Holm's first step, α/2: its interval is the 97.5 % one
    expect(p.interval).toMatchObject({ level: 0.975, holm: true });
    expect(p.interval!.lo).toBeLessThan(p.ci95!.lo);
    expect(gainMarkdown(t)).toContain('success · 0 % > success · 10 %: +30.0 [+27.1, +32.9] (97.5 %, Holm), Welch p < 0.001 (Holm p < 0.001), P(0 % beats 10 %) 1.00 [1.00, 1.00], 3 vs 3 seeds — **supports**');
  });

  it('is not resolved when the difference is not significant, and interim (no call) while a planned seed is missing', () => {
    const noisy = t7({ 0: [0.40, 0.10, 0.30], 0.05: [0.30, 0.25, 0.2], 0.1: [0.20, 0.35, 0.15] });
    expect(noisy.direction.call).toBe('not resolved');
    const partial = t7({ 0: [0.40, 0.42], 0.05: [0.38, 0.39, 0.40], 0.1: [] });
    expect(partial.direction.call).toBe('interim');
    expect(partial.compares.pairs.map((p) => p.call)).toEqual(['interim', 'interim']);
    expect(partial.direction.sentence).toMatch(/^2 of the compared cells and null controls have not all their planned seeds/);
    const md = gainMarkdown(partial);
    expect(md).toMatch(/\(2\/3 seeds\)/);
    expect(md).toMatch(/… not run yet/);
  });

  it("says a pair not resolved rules out the power plan's δ only where the equivalence test (TOST, Holm) shows it", () => {
    // 0 % vs 10 %: +1.0, sd 1 a cell, 3 seeds: both one-sided tests at ±12 reject by far
    const close = t7({ 0: [0.40, 0.41, 0.42], 0.05: [0.40, 0.41, 0.42], 0.1: [0.39, 0.40, 0.41] }, undefined, { success: 12 });
    const [p] = close.compares.pairs;
    expect(p.call).toBe('not resolved');
    expect(p.equivalence).toMatchObject({ delta: 12, shown: true });
    expect(p.rulesOut).toBe(12);
    expect(close.compares.delta).toEqual({ success: 12 });
    expect(gainMarkdown(close)).toMatch(/— \*\*not resolved\*\*; the equivalence test \(TOST at ±12, Holm p [<=] [0-9.]+\) rules out a difference of 12 points/);
    // a wide interval rules nothing out; without a plan nothing is said
    const noisy = t7({ 0: [0.40, 0.10, 0.30], 0.05: [0.30, 0.25, 0.2], 0.1: [0.20, 0.35, 0.15] }, undefined, { success: 12 });
    expect(noisy.compares.pairs.map((x) => x.rulesOut)).toEqual([null, null]);
    expect(noisy.compares.pairs.map((x) => x.equivalence?.shown)).toEqual([false, false]);
    expect(t7({ 0: [0.40, 0.41, 0.42], 0.05: [0.40, 0.41, 0.42], 0.1: [0.39, 0.40, 0.41] }).compares.pairs[0].rulesOut).toBeNull();
  });

  it("gives T2's SFT row its start and a gain of 0, and reads the start as a gain of exactly 0", () => {
    const lookup = (lab: LabConfig): SeedResult => ({ start: figures(0.2, 0.5), final: figures(0.3, lab.reward === 'sum' ? 0.4 - 0.01 * lab.seed : 0.5), wallSeconds: 60, where: `${lab.reward}-${lab.advantages}-${lab.seed}` });
    const t = gainTable(findingById('T2'), lookup, [1, 2, 3], meta);
    const sft = t.cells.find((c) => c.row === 'SFT' && c.col === 'OOD')!;
    expect(sft.mean.start).toBe(50);
    expect(sft.mean.gain).toBe(0);
    expect(t.compares.pairs[0]).toMatchObject({ higher: 'the SFT start', lower: 'Sum · OOD', call: 'supports' });
    expect(t.direction.call).toBe('agrees');
    expect(t.nullControl.map((c) => c.metric)).toEqual(['success', 'ood']);
    // each run counted once though two cells read it; wall seconds where CPU seconds are missing
    expect(t.coreMinutes).toBe(9);
  });

  it('reads a finding that spans scales against one null control per scale (T1: s, m and l drift differently)', () => {
    const drift: Record<string, number> = { s: 0.1, m: 0.15, l: 0.0 };
    const lookup = (lab: LabConfig): SeedResult => ({ start: figures(0.2), final: figures(lab.advantages === 'shuffled' ? drift[lab.scale] + 0.01 * lab.seed : 0.3),
      wallSeconds: 60, where: `${lab.scale}-${lab.reward}-${lab.advantages}-${lab.seed}` });
    const t = gainTable(findingById('T1'), lookup, [1, 2, 3], meta);
    expect(t.nullControl.map((c) => c.col)).toEqual(['1.5B', '3B', '7B']);
    expect(t.nullControl.map((c) => c.mean.gain)).toEqual([-8, -3, -18]);
    expect(t.nullControl[2].where[0]).toBe('l-sum-shuffled-1'); // the 7B null runs at l with the finding's base reward
    expect(t.direction.sentence).toMatch(/null control 1\.5B −8\.0 ± 2\.5, 3B −3\.0 ± 2\.5, 7B −18\.0 ± 2\.5/);
    expect(gainMarkdown(t)).toMatch(/one per scale\): 1\.5B −8\.0/);
    // single-scale findings keep one per metric, named by the metric
    const t7table = gainTable(findingById('T7'), lookup, [1, 2, 3], meta);
    expect(t7table.nullControl.map((c) => `${c.col}:${c.where[0]}`)).toEqual(['success:m-curriculum-shuffled-1']);
  });

  it('writes a gain with the half-width of its interval', () => {
    expect(gainText({ mean: { gain: 4.2 }, ci95: { lo: 1.1, hi: 7.3 } })).toBe('+4.2 ± 3.1');
    expect(gainText({ mean: { gain: -0.04 }, ci95: null })).toBe('0.0 ± ?');
    expect(gainText({ mean: { gain: null }, ci95: null })).toBe('…');
  });
});

describe('paperGain', () => {
  it("reads the paper's gain over its SFT column (1.5B Sum +26.2)", () => {
    const t1 = findingById('T1');
    expect(paperGain(t1, t1.cells.find((c) => c.row === '1.5B' && c.col === 'Sum')!)).toBe(26.2);
    expect(paperGain(t1, t1.cells.find((c) => c.row === '1.5B' && c.col === 'Macro')!)).toBeNull();
    const t2 = findingById('T2');
    expect(paperGain(t2, t2.cells.find((c) => c.row === 'Sum' && c.col === 'OOD')!)).toBe(-5.2);
  });
});
