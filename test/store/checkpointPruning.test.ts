import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkpointsToPrune, type CheckpointKey } from '../../src/store/checkpointPruning.ts';

describe('checkpointsToPrune', () => {
  it('deletes all but the newest checkpoint of each run', () => {
    const keys: CheckpointKey[] = [['a', 25], ['a', 50], ['b', 5], ['c', 10], ['c', 20], ['c', 15]];
    expect(checkpointsToPrune(keys)).toEqual([['a', 25], ['c', 10], ['c', 15]]);
    expect(checkpointsToPrune([])).toEqual([]);
    expect(checkpointsToPrune([['only', 0]])).toEqual([]);
  });

  it('keeps exactly one checkpoint per run, the highest step, and deletes only stored keys', () => {
    const keySet = fc.uniqueArray(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd'), fc.nat(500)), { selector: ([r, s]) => `${r}:${s}` });
    fc.assert(
      fc.property(keySet, (keys) => {
        const pruned = checkpointsToPrune(keys);
        const gone = new Set(pruned.map(([r, s]) => `${r}:${s}`));
        const kept = keys.filter(([r, s]) => !gone.has(`${r}:${s}`));
        const runs = new Set(keys.map(([r]) => r));
        expect(kept.length).toBe(runs.size);
        for (const run of runs) {
          const newest = Math.max(...keys.filter(([r]) => r === run).map(([, s]) => s));
          expect(kept.filter(([r]) => r === run)).toEqual([[run, newest]]);
        }
        expect(pruned.every((k) => (keys as readonly CheckpointKey[]).includes(k))).toBe(true);
      }),
    );
  });
});
