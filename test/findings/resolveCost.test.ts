// What resolving a not-resolved pair would cost: the seeds for the paper's gap and for the lab's own
// difference at the pair's measured spread, and the core-hours of a new two-cell experiment on fresh seeds.
import { describe, expect, it } from 'vitest';
import type { LabConfig } from '../../src/lab/config.ts';
import { gainTable, type SeedResult } from '../../src/findings/findingGains.ts';
import { findingById } from '../../src/findings/findings.ts';
import { costToResolve, costToResolveMarkdown, seedsToDetect, SEEDS_OUT_OF_REACH } from '../../src/findings/resolveCost.ts';
import { seedsForPower, twoSampleTPower } from '../../src/stats/seedStatistics.ts';

const meta = { size: 'standard', command: 'x', commit: 'abc', date: '2026-01-01', backend: 'wasm', common: { steps: 40, evalEvery: 40, evalQueries: 300, evalToolQa: 100 } };
const fig = (success: number) => ({ success, delivery: 1, csMicro: 1, hardMicro: 1, ood: 0.4, queries: 300 });
const SEEDS = [1, 2, 3, 4, 5, 6];

/** T5 at six seeds: 4:3:3 gains 20 + d(seed), hard-only 20 + `shift` + d(seed); d = ±8 points alternating; 5 core-min a run */
function t5(shift: number) {
  const lookup = (lab: LabConfig): SeedResult => {
    const d = lab.seed % 2 ? 8 : -8;
    const gain = lab.advantages === 'shuffled' ? -10 + d : 20 + d + (lab.mix[0] === 0 ? shift : 0);
    return { start: fig(0.2), final: fig(0.2 + gain / 100), wallSeconds: 300, cpuSeconds: 300, where: JSON.stringify(lab) };
  };
  return gainTable(findingById('T5'), lookup, SEEDS, meta);
}

describe('seedsToDetect', () => {
  it('finds the same seeds as the power plan\'s linear search, by bisection', () => {
    for (const [delta, sd, alpha] of [[12, 7.8, 0.05], [12, 7.8, 0.05 / 9], [5, 2, 0.025]]) {
      expect(seedsToDetect({ delta, sd, alpha, power: 0.8 })).toBe(seedsForPower({ delta, sd, alpha }));
    }
    const n = seedsToDetect({ delta: 1, sd: 8, alpha: 0.05, power: 0.8 })!;
    expect(twoSampleTPower({ n, delta: 1, sd: 8, alpha: 0.05 })).toBeGreaterThanOrEqual(0.8);
    expect(twoSampleTPower({ n: n - 1, delta: 1, sd: 8, alpha: 0.05 })).toBeLessThan(0.8);
    expect(n).toBeGreaterThan(900); // ≈ 2 (1.96 + 0.84)² 64 = 1004
    expect(seedsToDetect({ delta: 0.01, sd: 8, alpha: 0.05, power: 0.8 })).toBeNull(); // past SEEDS_OUT_OF_REACH
  });
});

describe('costToResolve', () => {
  it('prices a not-resolved pair at the paper\'s gap and at the lab\'s difference, as a new experiment on fresh seeds', () => {
    const t = t5(-2); // hard-only 2 points lower: far from resolved at six seeds
    expect(t.direction.call).toBe('not resolved');
    const [r] = costToResolve(t);
    expect(r.pair).toBe(`${t.compares.pairs[0].higher} > ${t.compares.pairs[0].lower}`);
    expect(r.seeds).toEqual([6, 6]);
    expect(r.sd).toBeCloseTo(8 * Math.sqrt(6 / 5), 1); // ±8 alternating over six seeds
    expect(r.alpha).toBe(0.05); // one pair: Holm's first threshold is α
    // the paper's gap is 24 points (49.9 vs 25.9 at 3B): six seeds already had the power
    expect(r.paper!.difference).toBeCloseTo(24, 5);
    expect(r.paper!.seeds).toBe(seedsToDetect({ delta: 24, sd: r.sd, alpha: 0.05, power: 0.8 }));
    expect(r.paper!.coreHours).toBeCloseTo((2 * r.paper!.seeds! * 5) / 60, 1); // fresh seeds of both cells, not top-ups
    expect(r.lab.difference).toBeCloseTo(2, 5);
    expect(r.lab.seeds).toBe(seedsToDetect({ delta: 2, sd: r.sd, alpha: 0.05, power: 0.8 }));
    // two cells × seeds fresh runs × 5 core-min: none of the six finished seeds counts
    expect(r.lab.coreHours).toBeCloseTo((2 * r.lab.seeds! * 5) / 60, 1);
    const md = costToResolveMarkdown([r]);
    expect(md).toMatch(/24\.0: \d+ fresh seeds a cell, [\d.]+ core-h \(the finished test had that power\)/);
    expect(md).toMatch(new RegExp(`2\\.0: ${r.lab.seeds} fresh seeds a cell, [\\d.]+ core-h \\|`));
    expect(md).toMatch(/a NEW two-cell experiment/);
  });

  it('leaves out resolved pairs and interim tables, and says when nothing is left', () => {
    const resolved = t5(-30); // hard-only 30 points lower
    expect(resolved.compares.pairs[0].call).toBe('supports');
    expect(costToResolve(resolved)).toEqual([]);
    const interim = gainTable(findingById('T5'), (lab) => (lab.seed === 6 && lab.mix[0] === 0 ? undefined
      : { start: fig(0.2), final: fig(0.3 + lab.seed / 100), wallSeconds: 1, cpuSeconds: 1, where: JSON.stringify(lab) }), SEEDS, meta);
    expect(interim.direction.call).toBe('interim');
    expect(costToResolve(interim)).toEqual([]);
    expect(costToResolveMarkdown([])).toMatch(/No called finding leaves a pair not resolved/);
    expect(SEEDS_OUT_OF_REACH).toBeGreaterThan(1000);
  });
});
