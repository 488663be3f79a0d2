// The run loop's schedule and sample rule, which the page and the CLI share: evaluations every evalEvery
// steps and after the last, saves at each evaluation and every saveEvery steps but never after the last,
// and the samples of one group — widest reward spread, then the bushier ARPO tree, then the earlier group —
// its best, its worst and its first branched rollout, ties by place in the group.
import { describe, expect, it } from 'vitest';
import { isEvaluationStep, pickSampleRollouts, RlRunLoop } from '../../src/rl/rlRunLoop.ts';
import type { RlConfig } from '../../src/rl/rlConfig.ts';
import type { RlTrainer, ScoredEpisode } from '../../src/rl/rlTrainer.ts';

/** a scored rollout as far as the picker reads it */
const ep = (group: number, reward: number, parent: number | null = null) => ({ group, reward, parent }) as unknown as ScoredEpisode;

describe('the run loop', () => {
  it('evaluates every evalEvery steps and after the last', () => {
    const rl = { evalEvery: 4, steps: 10 };
    expect([...Array(11).keys()].filter((s) => s > 0 && isEvaluationStep(s, rl))).toEqual([4, 8, 10]);
  });

  it('saves at each evaluation and every saveEvery steps, never after the last', () => {
    const loop = new RlRunLoop({} as RlTrainer, { evalEvery: 4, steps: 10 } as RlConfig, 3);
    expect([...Array(11).keys()].filter((s) => s > 0 && loop.saveDue(s))).toEqual([3, 4, 6, 8, 9]);
  });

  it('picks the widest group\'s best, worst and first branch; ties go to the bushier tree, then the earlier group', () => {
    // groups 0 and 1 spread 1 each; group 1 has a branch, so it wins the tie
    const eps = [ep(0, 1), ep(0, 0), ep(1, 0.5), ep(1, 1, 0), ep(1, 0, 0), ep(2, 0.2), ep(2, 0.3)];
    const picked = pickSampleRollouts(eps)!;
    expect(picked.group.map((e) => e.reward)).toEqual([0.5, 1, 0]);
    expect(picked.chosen).toEqual([1, 2]); // the best is the first branch; the worst
    // equal rewards: the earlier rollout is the best, the later the worst
    expect(pickSampleRollouts([ep(0, 1), ep(0, 1), ep(0, 1)])!.chosen).toEqual([0, 2]);
    // equal spreads, no branches: the earlier group
    expect(pickSampleRollouts([ep(3, 0), ep(3, 1), ep(4, 1), ep(4, 0)])!.group[0].group).toBe(3);
    expect(pickSampleRollouts([ep(0, 0), ep(0, 1, 0), ep(0, 2)], 1)!.chosen).toEqual([2]);
    expect(pickSampleRollouts([])).toBeNull();
  });
});
