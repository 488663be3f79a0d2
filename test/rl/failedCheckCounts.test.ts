// `evaluate`'s failed-check breakdown: counts over delivered plans only, a check that is the only one a
// plan failed counts as its sole cause, and not-applicable checks (pass null) are not failures.
import { describe, expect, it } from 'vitest';
import type { Verdicts } from '../../src/env/types.ts';
import { failedCheckCounts } from '../../src/rl/sftCard.ts';

function verdict(delivered: boolean, commonsense: Record<string, boolean | null>, hard: Record<string, boolean | null> | null): Verdicts {
  const checks = (r: Record<string, boolean | null>) => Object.fromEntries(Object.entries(r).map(([k, pass]) => [k, { pass, reason: '' }]));
  return { delivered, commonsense: checks(commonsense), hard: hard && checks(hard), finalPass: false, cost: null } as unknown as Verdicts;
}

describe('failedCheckCounts', () => {
  it('counts each failed check, its sole-cause plans, most failed first, and skips undelivered plans', () => {
    const counts = failedCheckCounts([
      verdict(true, { is_valid_restaurants: false, valid_cost: true }, { valid_cost: false }),
      verdict(true, { is_valid_restaurants: false, is_valid_attractions: null }, { valid_room_rule: true }),
      verdict(true, { is_valid_restaurants: true }, { valid_room_rule: false }),
      verdict(false, { is_valid_restaurants: false }, null), // undelivered: its checks say nothing
      verdict(true, { is_valid_restaurants: true }, null), // passed everything it was checked on
    ]);
    expect(counts).toEqual([
      { check: 'is_valid_restaurants', failed: 2, soleCause: 1 },
      { check: 'valid_cost', failed: 1, soleCause: 0 },
      { check: 'valid_room_rule', failed: 1, soleCause: 1 },
    ]);
  });

  it('is empty when nothing failed', () => {
    expect(failedCheckCounts([])).toEqual([]);
    expect(failedCheckCounts([verdict(true, { is_valid_restaurants: true }, { valid_cost: null })])).toEqual([]);
  });
});
