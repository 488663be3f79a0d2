import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readPairTest, readReference } from '../../src/ui/lessons/lessonData.ts';

const pair = { finding: 'T7' as const, higher: 'success · 0 %', lower: 'success · 10 %' };
const table = (pairs: unknown) => ({ '/results/findings/T7/table.json': JSON.stringify({ compares: { pairs } }) });

describe('the lessons\' bundled data', () => {
  it('reads a pair\'s call from a findings table, with the Welch figures when the table has them', () => {
    expect(readPairTest(table([{ higher: 'success · 0 %', lower: 'success · 10 %', call: 'not resolved' }]), pair))
      .toEqual({ ...pair, call: 'not resolved', difference: undefined, p: undefined, pAdjusted: undefined });
    const welch = readPairTest(table([{ higher: 'success · 0 %', lower: 'success · 10 %', call: 'supports', difference: 23.9, ci95: { lo: 4.1, hi: 43.7 }, p: 0.03, pAdjusted: 0.06 }]), pair);
    expect(welch).toMatchObject({ call: 'supports', difference: 23.9, ci95: { lo: 4.1, hi: 43.7 }, p: 0.03, pAdjusted: 0.06 });
  });

  it('degrades to no test (the lesson computes its own) when the table, the pair or its call is missing or broken', () => {
    expect(readPairTest({}, pair)).toBeNull();
    expect(readPairTest({ '/results/findings/T7/table.json': '{ not json' }, pair)).toBeNull();
    expect(readPairTest(table([{ higher: 'success · 5 %', lower: 'success · 10 %', call: 'x' }]), pair)).toBeNull();
    expect(readPairTest(table('nope'), pair)).toBeNull();
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
