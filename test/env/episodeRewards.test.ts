import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { episodeRewards, verdictsOf } from '../../src/env/episodeRewards.ts';
import { COMMONSENSE_KEYS, HARD_KEYS, type Verdicts } from '../../src/env/types.ts';
import { computeReward } from '../../src/env/rewards.ts';
import type { SampleEpisode } from '../../src/worker/sampleEpisode.ts';

const pass = fc.constantFrom(true, false, null);
/** verdicts as the evaluator could give them */
const verdictsArb = fc
  .record({
    delivered: fc.boolean(),
    commonsense: fc.tuple(...COMMONSENSE_KEYS.map(() => pass)),
    hard: fc.option(fc.tuple(...HARD_KEYS.map(() => pass)), { nil: null }),
  })
  .map(({ delivered, commonsense, hard }): Verdicts => {
    const cs = Object.fromEntries(COMMONSENSE_KEYS.map((k, i) => [k, { pass: commonsense[i], reason: `cs ${k}` }])) as Verdicts['commonsense'];
    const h = hard && (Object.fromEntries(HARD_KEYS.map((k, i) => [k, { pass: hard[i], reason: `hard ${k}` }])) as NonNullable<Verdicts['hard']>);
    const all = [...Object.values(cs), ...Object.values(h ?? {})].every((r) => r.pass !== false);
    return { delivered, commonsense: cs, hard: delivered ? h : null, finalPass: delivered && h !== null && all, cost: null };
  });

/** what the worker stores of them (src/worker/sampleEpisode.ts) */
function stored(v: Verdicts, rl?: SampleEpisode['rl']): SampleEpisode {
  return {
    kind: 'travel', prompt: 'a trip', calls: [], callErrors: [], finish: 'plan', tokens: 10,
    plan: v.delivered ? [] : null, planError: v.delivered ? null : 'no plan',
    checks: [
      ...Object.entries(v.commonsense).map(([key, r]) => ({ key, kind: 'commonsense' as const, ...r })),
      ...Object.entries(v.hard ?? {}).map(([key, r]) => ({ key, kind: 'hard' as const, ...r })),
    ],
    success: v.finalPass,
    ...(rl ? { rl } : {}),
  };
}
const context = { step: 5, totalSteps: 10, curriculumSwitches: [1 / 3, 2 / 3] as [number, number], reward: 'sum' };

describe('episode rewards', () => {
  it('recompute what the trainer computes from the verdicts, under all four rewards', () => {
    fc.assert(
      fc.property(verdictsArb, fc.integer({ min: 0, max: 10 }), (v, step) => {
        const r = episodeRewards(stored(v), { ...context, step });
        expect(r).not.toBeNull();
        expect(r!.sum).toBe(computeReward('sum', v));
        expect(r!.macro).toBe(computeReward('macro', v));
        expect(r!.success).toBe(computeReward('success', v));
        expect(r!.curriculum).toBe(computeReward('curriculum', v, step / 10, [1 / 3, 2 / 3]));
      }),
    );
  });

  it('uses the stage a Curriculum run recorded for its rollout', () => {
    const v: Verdicts = { delivered: true, finalPass: false, cost: null, hard: null,
      commonsense: Object.fromEntries(COMMONSENSE_KEYS.map((k) => [k, { pass: true, reason: '' }])) as Verdicts['commonsense'] };
    const rl = { algorithm: 'arpo' as const, rewardStage: 'success' as const, group: 0, index: 0, reward: 0, advantage: 0, promptTokens: 5, tree: [] };
    expect(episodeRewards(stored(v, rl), { ...context, step: 0, reward: 'curriculum' })).toMatchObject({ sum: 0.5, macro: 0.5, success: 0, curriculum: 0, curriculumStage: 'success' });
    // a run on another reward: the curriculum's stage follows the step's progress
    expect(episodeRewards(stored(v, rl), { ...context, step: 0, reward: 'macro' })).toMatchObject({ curriculum: 0.5, curriculumStage: 'sum' });
  });

  it('gives none for a tool-QA episode or one missing a verdict', () => {
    const qa: SampleEpisode = { kind: 'toolqa', prompt: 'q', calls: [], callErrors: [], finish: 'answer', tokens: 3, plan: null, planError: null, checks: [], success: true };
    expect(episodeRewards(qa, context)).toBeNull();
    const partial = stored({ delivered: false, finalPass: false, cost: null, hard: null,
      commonsense: Object.fromEntries(COMMONSENSE_KEYS.map((k) => [k, { pass: false, reason: '' }])) as Verdicts['commonsense'] });
    partial.checks = partial.checks.slice(1);
    expect(verdictsOf(partial)).toBeNull();
  });
});
