// ARPO's branching responds to the entropy rise after a tool observation: with the
// reference code's raw ΔH, a point where the policy became uncertain branches far more often than one
// where it became sure. (Dividing ΔH by ln V, as an earlier version did, gave 0.56 vs 0.48 here.)
import { describe, expect, it } from 'vitest';
import { arpoBranchProbability, arpoEntropyDelta, BranchPlanner } from '../../src/agent/arpoBranching.ts';
import { Rng } from '../../src/env/random.ts';

/** share of trials in which one rollout branches after an observation followed by tokens of entropy `after` */
function branchRate(after: number, trials = 2000): number {
  const rng = new Rng(7);
  let branched = 0;
  for (let i = 0; i < trials; i++) {
    const planner = new BranchPlanner({ groups: [0], budget: 2, k: 3, alpha: 0.5, beta: 0.2, branches: 1 });
    for (let t = 0; t < 3; t++) planner.token(0, 1.0, true); // the rollout's first k tokens: 1 nat each
    planner.observed(0, { at: 10, steps: 1, callErrors: 0, toolFailures: 0 });
    for (let t = 0; t < 3; t++) planner.token(0, after, false);
    if (planner.decide(0, rng, false)) branched++;
  }
  return branched / trials;
}

describe('ARPO branching', () => {
  it('high-entropy points branch more than low ones: p = clip(α + β·ΔH) with ΔH in nats', () => {
    const high = branchRate(3.0); // ΔH = +2 → p = 0.9
    const low = branchRate(0.2); // ΔH = −0.8 → p = 0.34
    expect(high).toBeGreaterThan(0.85);
    expect(high).toBeLessThan(0.95);
    expect(low).toBeGreaterThan(0.29);
    expect(low).toBeLessThan(0.39);
    expect(high - low).toBeGreaterThan(0.4);
  });
  it('no entropy change branches with probability α', () => {
    const same = branchRate(1.0);
    expect(Math.abs(same - 0.5)).toBeLessThan(0.05);
  });
});

// the two formulas against hand-computed values (moved here from test/rl/rlMath.test.ts with the math)
describe('ARPO branching math', () => {
  it('branch probability clip(α + β·ΔH, 0, 1)', () => {
    expect(arpoBranchProbability(0.5, 0.5, 0.2)).toBeCloseTo(0.6, 12);
    expect(arpoBranchProbability(-10, 0.5, 0.2)).toBe(0);
    expect(arpoBranchProbability(10, 0.5, 0.2)).toBe(1);
  });
  it('entropy delta is the raw difference of means (nats), as ARPO\'s reference code', () => {
    // mean(2, 4) − mean(1, 1) = 3 − 1 = 2; an entropy rise of 2 nats at β 0.2 moves p from 0.5 to 0.9
    expect(arpoEntropyDelta([2, 4], [1, 1])).toBeCloseTo(2, 12);
    expect(arpoBranchProbability(arpoEntropyDelta([2, 4], [1, 1]), 0.5, 0.2)).toBeCloseTo(0.9, 12);
  });
});
