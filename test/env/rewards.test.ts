import { describe, expect, it } from 'vitest';
import {
  adaptiveNextStage,
  commonsenseMacro,
  commonsenseMicro,
  computeReward,
  curriculumReward,
  curriculumStage,
  hardMacro,
  hardMicro,
  macroReward,
  signalShares,
  successReward,
  sumReward,
  type CurriculumStage,
} from '../../src/env/rewards.ts';
import { COMMONSENSE_KEYS, HARD_KEYS } from '../../src/env/types.ts';
import type { CheckResult, CommonsenseKey, HardKey, Verdicts } from '../../src/env/types.ts';

const ok: CheckResult = { pass: true, reason: 'ok' };
const bad: CheckResult = { pass: false, reason: 'bad' };
const na: CheckResult = { pass: null, reason: 'n/a' };

/** Verdicts with the named checks failing (or not applicable); hard: null = gated off. */
function verdicts(opts: {
  delivered?: boolean;
  csFail?: CommonsenseKey[];
  csNull?: CommonsenseKey[];
  hardFail?: HardKey[];
  hardNull?: HardKey[];
  gated?: boolean;
}): Verdicts {
  const commonsense = Object.fromEntries(
    COMMONSENSE_KEYS.map((k) => [k, opts.csFail?.includes(k) ? bad : opts.csNull?.includes(k) ? na : ok]),
  ) as Record<CommonsenseKey, CheckResult>;
  const hard = opts.gated
    ? null
    : (Object.fromEntries(HARD_KEYS.map((k) => [k, opts.hardFail?.includes(k) ? bad : opts.hardNull?.includes(k) ? na : ok])) as Record<HardKey, CheckResult>);
  const allCs = COMMONSENSE_KEYS.every((k) => commonsense[k].pass !== false);
  const allHard = hard !== null && HARD_KEYS.every((k) => hard[k].pass !== false);
  return { delivered: opts.delivered ?? true, commonsense, hard, finalPass: (opts.delivered ?? true) && allCs && allHard, cost: 100 };
}

describe('micro and macro parts', () => {
  it('commonsense micro counts null as a pass', () => {
    expect(commonsenseMicro(verdicts({ csFail: ['is_valid_restaurants', 'is_not_absent'], csNull: ['is_valid_accommodation'] }))).toBe(6 / 8);
  });
  it('hard micro divides by the applicable checks only', () => {
    // cost + room rule + cuisine applicable (room type, transportation n/a), cuisine fails: 2 / 3
    const v = verdicts({ hardNull: ['valid_room_type', 'valid_transportation'], hardFail: ['valid_cuisine'] });
    expect(hardMicro(v)).toBeCloseTo(2 / 3, 12);
    expect(hardMacro(v)).toBe(0);
  });
  it('gated hard checks score 0', () => {
    const v = verdicts({ gated: true, csFail: ['is_not_absent'] });
    expect(hardMicro(v)).toBe(0);
    expect(hardMacro(v)).toBe(0);
    expect(commonsenseMacro(v)).toBe(0);
  });
});

describe('rewards', () => {
  const perfect = verdicts({ hardNull: ['valid_room_rule', 'valid_cuisine', 'valid_room_type', 'valid_transportation'] });
  const oneCsFail = verdicts({ csFail: ['is_valid_attractions'], hardNull: ['valid_room_rule', 'valid_cuisine', 'valid_room_type'] });
  const budgetFail = verdicts({ hardFail: ['valid_cost'], hardNull: ['valid_room_rule', 'valid_cuisine', 'valid_room_type', 'valid_transportation'] });
  const undelivered = verdicts({ delivered: false });

  it('perfect plan: 1 everywhere', () => {
    for (const kind of ['sum', 'macro', 'success', 'curriculum'] as const) expect(computeReward(kind, perfect, 0.5)).toBe(1);
  });
  it('one commonsense failure: sum (7/8 + 1)/2, macro 1/2, success 0', () => {
    expect(sumReward(oneCsFail)).toBeCloseTo((7 / 8 + 1) / 2, 12);
    expect(macroReward(oneCsFail)).toBe(0.5);
    expect(successReward(oneCsFail)).toBe(0);
  });
  it('budget failure alone: hard micro 0, sum 1/2, macro 1/2', () => {
    expect(sumReward(budgetFail)).toBe(0.5);
    expect(macroReward(budgetFail)).toBe(0.5);
    expect(successReward(budgetFail)).toBe(0);
  });
  it('undelivered plan scores 0 under every reward', () => {
    for (const kind of ['sum', 'macro', 'success', 'curriculum'] as const) {
      for (const p of [0, 0.5, 0.9]) expect(computeReward(kind, undelivered, p)).toBe(0);
    }
  });
  it('gated plan: sum is half the commonsense micro', () => {
    const v = verdicts({ gated: true, csFail: ['is_valid_information_in_sandbox'] });
    expect(sumReward(v)).toBeCloseTo(7 / 16, 12);
    expect(macroReward(v)).toBe(0);
  });
});

describe('curriculum', () => {
  const v = verdicts({ csFail: ['is_valid_attractions'], hardNull: ['valid_room_rule', 'valid_cuisine', 'valid_room_type'] });
  it('stages switch at the default thirds', () => {
    expect(curriculumStage(0)).toBe('sum');
    expect(curriculumStage(0.33)).toBe('sum');
    expect(curriculumStage(1 / 3)).toBe('macro');
    expect(curriculumStage(0.66)).toBe('macro');
    expect(curriculumStage(2 / 3)).toBe('success');
    expect(curriculumStage(1)).toBe('success');
  });
  it('uses the stage reward', () => {
    expect(curriculumReward(v, 0.1)).toBeCloseTo((7 / 8 + 1) / 2, 12);
    expect(curriculumReward(v, 0.5)).toBe(0.5);
    expect(curriculumReward(v, 0.9)).toBe(0);
  });
  it('honours custom switch points', () => {
    expect(curriculumStage(0.15, [0.1, 0.2])).toBe('macro');
    expect(computeReward('curriculum', v, 0.15, [0.1, 0.2])).toBe(0.5);
    expect(curriculumStage(0.5, [0.5, 0.5])).toBe('success');
  });
  it('rejects bad switch points and unknown kinds with clear errors', () => {
    expect(() => curriculumStage(0.5, [0.7, 0.2])).toThrow(/switch points/);
    expect(() => curriculumStage(0.5, [0.2])).toThrow(/2 switch points/);
    expect(() => computeReward('dense' as never, v)).toThrow(/unknown reward kind/);
  });
});

describe('adaptive curriculum', () => {
  const perfect = verdicts({});
  const oneCs = verdicts({ csFail: [COMMONSENSE_KEYS[0]] }); // sum (7/8+1)/2, macro ½, success 0
  const twoCs = verdicts({ csFail: [COMMONSENSE_KEYS[0], COMMONSENSE_KEYS[1]] }); // sum lower, macro ½, success 0

  it('reads the signal each reward would leave in the same plans', () => {
    // group 1: sum differs, macro and success do not; group 2: all three differ; group 3: all equal
    expect(signalShares([[oneCs, twoCs], [perfect, oneCs], [perfect, perfect]])).toEqual({ sum: 2 / 3, macro: 1 / 3, success: 1 / 3 });
    expect(signalShares([])).toEqual({ sum: 0, macro: 0, success: 0 });
  });

  /** the stages a run of these steps' signals goes through at `share` */
  const walk = (share: number, steps: Record<CurriculumStage, number>[]) => {
    const out: CurriculumStage[] = [];
    let stage: CurriculumStage = 'sum';
    for (const signal of steps) out.push((stage = adaptiveNextStage(stage, signal, share)));
    return out;
  };
  // a scripted run: the sparser rewards leave signal in more groups as the policy improves, then Success's dips
  const script = [
    { sum: 0.9, macro: 0.2, success: 0.1 },
    { sum: 0.9, macro: 0.4, success: 0.1 },
    { sum: 0.8, macro: 0.5, success: 0.3 },
    { sum: 0.8, macro: 0.6, success: 0.4 },
    { sum: 0.7, macro: 0.6, success: 0.5 },
    { sum: 0.7, macro: 0.3, success: 0.2 },
  ];

  it('moves to the next stage once it would leave signal in the share of groups, one stage a step, never back', () => {
    expect(walk(0.5, script)).toEqual(['sum', 'sum', 'macro', 'macro', 'success', 'success']);
    // one stage per step: the step that moves to Macro does not also read Success's signal
    expect(walk(0.1, script)).toEqual(['macro', 'success', 'success', 'success', 'success', 'success']);
    expect(walk(0.35, script)).toEqual(['sum', 'macro', 'macro', 'success', 'success', 'success']);
  });

  it('at share 0 moves on at the first step; at share 1 stays on Sum while any group would be all-equal under Macro', () => {
    expect(walk(0, script)).toEqual(['macro', 'success', 'success', 'success', 'success', 'success']);
    expect(walk(1, script)).toEqual(script.map(() => 'sum'));
    expect(adaptiveNextStage('success', { sum: 1, macro: 1, success: 1 }, 0)).toBe('success');
  });

  it('rejects a share outside [0, 1]', () => {
    expect(() => adaptiveNextStage('sum', script[0], 1.5)).toThrow(/signal share must be in \[0, 1\]/);
    expect(() => adaptiveNextStage('sum', script[0], Number.NaN)).toThrow(/signal share/);
  });
});
