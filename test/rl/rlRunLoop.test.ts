// The run loop's schedule and sample rule, which the page and the CLI share: evaluations every evalEvery
// steps and after the last, saves at each evaluation and every saveEvery steps but never after the last,
// and the samples of one group — widest reward spread, then the bushier ARPO tree, then the earlier group —
// its best, its worst and its first branched rollout, ties by place in the group; and the whole run into a sink:
// start, steps, saves by the one rule, finish, and a stop that saves the last completed step.
import { describe, expect, it } from 'vitest';
import { isEvaluationStep, pickSampleRollouts, RlRunLoop, type RunSink } from '../../src/rl/rlRunLoop.ts';
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

describe('the run loop into a sink', () => {
  /** a trainer as far as the loop reads it: each step one more, each evaluation its step */
  const fakeTrainer = () => {
    const t = {
      step: 0,
      pause: null,
      lastEpisodes: [] as ScoredEpisode[],
      trainStep: async () => ({ 'reward/mean': ++t.step }),
      evaluate: async () => ({ 'eval/success': t.step / 10 }),
      checkpoint: async () => ({ step: t.step }),
    };
    return t;
  };
  const recording = (stopAfter = Infinity) => {
    const said: string[] = [];
    const sink: RunSink = {
      loadState: () => null,
      trained: (step) => void said.push(`train ${step}`),
      evaluated: (step, m) => void said.push(`eval ${step} ${m['eval/success']}`),
      saveState: (s) => void said.push(`save ${s.step}`),
      started: (step) => void said.push(`start ${step}`),
      stepped: ({ step }) => {
        if (step >= stopAfter) throw new Error('stop');
      },
      isStop: (e) => e instanceof Error && e.message === 'stop',
      finish: (last) => void said.push(`finish ${last['eval/success']}`),
    };
    return { said, sink };
  };

  it('evaluates the start, trains, evaluates and saves by the one rule, and finishes with the last evaluation', async () => {
    const { said, sink } = recording();
    await new RlRunLoop(fakeTrainer() as unknown as RlTrainer, { evalEvery: 2, steps: 3 } as RlConfig, 5).run(sink);
    expect(said).toEqual(['eval 0 0', 'start 0', 'train 1', 'train 2', 'eval 2 0.2', 'save 2', 'train 3', 'eval 3 0.3', 'finish 0.3']);
  });

  it('a stop saves the last completed step and ends the run there', async () => {
    const { said, sink } = recording(1);
    const loop = new RlRunLoop(fakeTrainer() as unknown as RlTrainer, { evalEvery: 2, steps: 3 } as RlConfig, 5);
    await expect(loop.run(sink)).rejects.toThrow('stop');
    expect(said).toEqual(['eval 0 0', 'start 0', 'train 1', 'save 1']);
  });
});
