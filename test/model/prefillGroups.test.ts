// prefillGroups: when a prefill of rows with different token counts is split, and how (pure arithmetic).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { prefillGroups } from '../../src/model/prefillGroups.ts';

/** padded slots of a split: each group's rows × its longest row */
const padded = (counts: number[], groups: number[][]) => groups.reduce((s, g) => s + g.length * Math.max(...g.map((i) => counts[i])), 0);

describe('prefillGroups', () => {
  it('keeps one call when the rows are alike or few', () => {
    expect(prefillGroups([], 192)).toEqual([[]]);
    expect(prefillGroups([7], 192)).toEqual([[0]]);
    expect(prefillGroups([5, 5, 5, 5], 192)).toEqual([[0, 1, 2, 3]]);
    // 25 rows of 25–28 tokens: a split would save 30 padded slots, less than a call costs (46)
    expect(prefillGroups([28, 28, 27, 27, 27, 26, 26, 26, 26, 26, 25, 25, 25, 25, 25, 26, 27, 28, 26, 25, 27, 26, 26, 25, 28], 192)).toHaveLength(1);
    // one row of 60 tokens and three of 1 pad 177 slots in one call: worth a second; 60 and 30 pad 30
    expect(prefillGroups([60, 1, 1, 1], 64, 3)).toEqual([[1, 2, 3], [0]]);
    expect(prefillGroups([60, 30], 64, 3)).toHaveLength(1);
  });

  it('splits a short observation from long ones, each group in the rows\' order, the short ones first', () => {
    // 20 flight lists of 40 tokens and 20 errors of 5: one call pads 20 × 35 = 700 slots
    const counts = Array.from({ length: 40 }, (_, i) => (i % 2 ? 5 : 40));
    const groups = prefillGroups(counts, 192);
    expect(groups).toEqual([counts.flatMap((c, i) => (c === 5 ? [i] : [])), counts.flatMap((c, i) => (c === 40 ? [i] : []))]);
    expect(padded(counts, groups)).toBe(20 * 5 + 20 * 40);
    expect(prefillGroups(counts, 192, 1)).toEqual([counts.map((_, i) => i)]); // maxGroups 1: never split
  });

  it('uses a third call only when it pays: three clear lengths get three calls', () => {
    const counts = [...new Array(16).fill(4), ...new Array(16).fill(24), ...new Array(16).fill(48)];
    expect(prefillGroups(counts, 256).map((g) => g.length)).toEqual([16, 16, 16]);
    expect(prefillGroups(counts, 256, 2)).toHaveLength(2);
  });

  it('is a partition of the rows into runs by count, never padding more than one call does', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 60 }), { minLength: 1, maxLength: 70 }), fc.integer({ min: 64, max: 576 }), fc.integer({ min: 1, max: 4 }), (counts, cap, maxGroups) => {
        const groups = prefillGroups(counts, cap, maxGroups);
        expect(groups.length).toBeGreaterThanOrEqual(1);
        expect(groups.length).toBeLessThanOrEqual(maxGroups);
        expect(groups.flat().sort((a, b) => a - b)).toEqual(counts.map((_, i) => i));
        for (const g of groups) expect(g).toEqual(g.slice().sort((a, b) => a - b)); // the rows' order within a group
        // runs by count: every row of a group is at least as long as every row of the groups before it
        for (let k = 1; k < groups.length; k++) expect(Math.min(...groups[k].map((i) => counts[i]))).toBeGreaterThanOrEqual(Math.max(...groups[k - 1].map((i) => counts[i])));
        expect(padded(counts, groups)).toBeLessThanOrEqual(counts.length * Math.max(...counts));
      }),
      { numRuns: 300 },
    );
  });
});
