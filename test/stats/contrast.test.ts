// The contrast over k independent cells behind the findings' scale × choice interactions, against
// an independent implementation: scripts/interaction_crosscheck.py computes the same contrasts with SciPy
// (scipy.stats.t for the Welch–Satterthwaite contrast, ttest_ind(equal_var=False) for k = 2, scipy.stats.nct for
// the power) and its output is committed as test/fixtures/contrast-scipy.json, so no python runs here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { contrastTest, holmAdjust, INTERACTION, interactionTest, testInteractions, twoSampleTPower, welchTest } from '../../src/stats/seedStatistics.ts';

interface Case { name: string; cells: number[][]; weights: number[]; estimate: number; se: number; df: number; t: number; p: number; lo: number; hi: number }
const fixture = JSON.parse(readFileSync(new URL('../fixtures/contrast-scipy.json', import.meta.url), 'utf8')) as {
  contrasts: Case[]; holm: { p: number[]; adjusted: number[] };
  power: { n: number; delta: number; sd: number; alpha: number; cells: number; weightSquares: number; power: number }[];
};
const close = (a: number, b: number, tol = 1e-9) => expect(Math.abs(a - b)).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(b)));

describe('contrastTest', () => {
  it.each(fixture.contrasts.map((c) => [c.name, c] as const))('matches SciPy: %s', (_, c) => {
    const t = contrastTest(c.cells, c.weights);
    close(t.difference, c.estimate);
    close(t.se, c.se);
    close(t.df, c.df);
    close(t.t, c.t);
    close(t.p, c.p);
    close(t.lo, c.lo);
    close(t.hi, c.hi);
  });

  it('is welchTest for two cells and weights (1, −1)', () => {
    const c = fixture.contrasts.find((x) => x.cells.length === 2)!;
    const [t, w] = [contrastTest(c.cells, [1, -1]), welchTest(c.cells[0], c.cells[1])];
    for (const k of ['difference', 't', 'df', 'p', 'lo', 'hi'] as const) close(t[k], w[k], 1e-12);
  });

  it('is interactionTest for four cells and weights (1, −1, −1, 1)', () => {
    const c = fixture.contrasts.find((x) => x.cells.length === 4)!;
    const t = interactionTest([c.cells[0], c.cells[1]], [c.cells[2], c.cells[3]]);
    close(t.difference, c.estimate);
    close(t.p, c.p);
  });

  it('refuses mismatched weights, all-zero weights and cells with fewer than two seeds', () => {
    expect(() => contrastTest([[1, 2], [3, 4]], [1])).toThrow(/one weight a cell/);
    expect(() => contrastTest([[1, 2], [3, 4]], [0, 0])).toThrow(/all 0/);
    expect(() => contrastTest([[1, 2], [3]], [1, -1])).toThrow(/cell 2\): needs at least two/);
  });
});

describe('testInteractions', () => {
  it("Holm-adjusts across the finding's interactions like holmAdjust, and matches the fixture's Holm", () => {
    close(holmAdjust(fixture.holm.p)[0], fixture.holm.adjusted[0], 1e-12);
    const [a, b] = fixture.contrasts.filter((x) => x.cells.length === 4);
    const tests = testInteractions([{ plus: [a.cells[0], a.cells[1]], minus: [a.cells[2], a.cells[3]] }, { plus: [b.cells[0], b.cells[1]], minus: [b.cells[2], b.cells[3]] }], { complete: true });
    expect(tests.map((t) => t!.pAdjusted)).toEqual(holmAdjust([a.p, b.p].map((p) => tests.find((t) => Math.abs(t!.p - p) < 1e-12)!.p)));
  });

  it('calls by the pairs\' rule: supports with the claimed (positive) sign, contradicts with the other, interim until complete', () => {
    const up = [10, 11, 12, 13];
    const flat = [0, 1, 0, 1];
    const [s] = testInteractions([{ plus: [up, flat], minus: [flat, flat] }], { complete: true });
    expect(s!.call).toBe('supports');
    const [c] = testInteractions([{ plus: [flat, up], minus: [flat, flat] }], { complete: true });
    expect(c!.call).toBe('contradicts');
    const [i] = testInteractions([{ plus: [up, flat], minus: [flat, flat] }], { complete: false });
    expect(i!.call).toBe('interim');
    expect(testInteractions([{ plus: [up, [1]], minus: [flat, flat] }], { complete: true })).toEqual([null]);
  });
});

describe('the power of a contrast over k cells', () => {
  it.each(fixture.power.map((p) => [`${p.cells} cells, n ${p.n}, δ ${p.delta}`, p] as const))('matches scipy.stats.nct: %s', (_, p) => {
    close(twoSampleTPower({ n: p.n, delta: p.delta, sd: p.sd, alpha: p.alpha, design: { cells: p.cells, weightSquares: p.weightSquares } }), p.power, 1e-6);
  });

  it('needs about twice the seeds a cell of a pair for an interaction of the same size (Σc² 4 against 2)', () => {
    const pair = twoSampleTPower({ n: 10, delta: 10, sd: 8.5, alpha: 0.05 });
    expect(twoSampleTPower({ n: 10, delta: 10, sd: 8.5, alpha: 0.05, design: INTERACTION })).toBeLessThan(pair - 0.2);
    // twice the seeds: the same noncentrality, more degrees of freedom, so a little more power
    const twice = twoSampleTPower({ n: 20, delta: 10, sd: 8.5, alpha: 0.05, design: INTERACTION });
    expect(twice).toBeGreaterThan(pair);
    expect(twice - pair).toBeLessThan(0.05);
  });
});
