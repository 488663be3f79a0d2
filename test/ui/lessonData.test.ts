import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readPairTest, readReference } from '../../src/ui/lessons/lessonData.ts';
import { committedComparison, type ComparisonTable } from '../../src/findings/committedComparison.ts';

const pair = { finding: 'T7' as const, higher: 'success · 0 %', lower: 'success · 10 %', higherArm: 'clean' };
const table = (pairs: unknown) => ({ '/results/findings/T7/table.json': JSON.stringify({ id: 'T7', cells: [], nullControl: [], compares: { alpha: 0.05, pairs } }) });

describe('the lessons\' bundled data', () => {
  it("gives a pair's committed answer: the one comparison, recomputed from the committed table's cells", () => {
    const text = readFileSync('results/findings/T7/table.json', 'utf8');
    const answer = readPairTest({ '/results/findings/T7/table.json': text }, pair)!;
    expect(answer).toEqual(committedComparison(JSON.parse(text) as ComparisonTable, pair.higher, pair.lower));
    expect(answer.seeds).toEqual([11, 11]);
    // the table's own record of the pair is the same answer, rounded for display
    const recorded = (JSON.parse(text) as { compares: { pairs: { difference: number; pAdjusted: number }[] } }).compares.pairs[0];
    expect(Math.abs(answer.difference! - recorded.difference)).toBeLessThan(1e-4);
    expect(answer.call).toBe('supports');
  });

  it('degrades to no answer (the lesson computes its own) when the table, the pair or its cells are missing or broken', () => {
    expect(readPairTest({}, pair)).toBeNull();
    expect(readPairTest({ '/results/findings/T7/table.json': '{ not json' }, pair)).toBeNull();
    expect(readPairTest(table([{ higher: 'success · 5 %', lower: 'success · 10 %' }]), pair)).toBeNull();
    expect(readPairTest(table('nope'), pair)).toBeNull();
    expect(readPairTest(table([{ higher: 'success · 0 %', lower: 'success · 10 %' }]), pair)).toBeNull(); // no cells
  });

  it('checks the committed reference and names what is wrong with a broken one', () => {
    const text = readFileSync('results/lessons/reference.json', 'utf8');
    expect(readReference({ '/results/lessons/reference.json': text }).value?.settings).toBeTruthy();
    expect(readReference({}).error).toMatch(/npm run cli -- lessons/);
    expect(readReference({ '/results/lessons/reference.json': '{' }).error).toMatch(/not valid JSON/);
    const broken = JSON.parse(text);
    Object.values(broken.settings as Record<string, { seeds: unknown }>)[0].seeds = 'three';
    expect(readReference({ '/results/lessons/reference.json': JSON.stringify(broken) }).error).toMatch(/settings\..*\.seeds/);
  });
});
