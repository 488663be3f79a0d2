// The RL training rollouts kept at an evaluation (the run loop picks them: src/rl/rlRunLoop.ts), as plain
// data for the page's store and the CLI's samples.jsonl: each carries its reward, advantage and the whole
// group as a tree (parent, fork position) so the episode viewer can draw ARPO's branches.
import type { World } from '../env/types.ts';
import type { ScoredEpisode } from '../rl/rlTrainer.ts';
import type { RlConfig } from '../rl/rlConfig.ts';
import type { PickedRollouts } from '../rl/rlRunLoop.ts';
import { rewardStageOf } from '../lab/metrics.ts';
import { METRIC } from '../lab/metricNames.ts';
import { sampleEpisode, type RolloutNode, type SampleEpisode } from './sampleEpisode.ts';
import type { JobEpisode } from './trainingJob.ts';

export interface RlSampleContext {
  world: World;
  algorithm: RlConfig['algorithm'];
  rewardStage: 'sum' | 'macro' | 'success';
}

/** the picked rollouts (src/rl/rlRunLoop.ts picks them) as episodes for the store and the viewer */
export function rlSampleEpisodes(picked: PickedRollouts, context: RlSampleContext): JobEpisode[] {
  const { group, chosen } = picked;
  const tree = rolloutTree(group);
  return chosen.map((index) => {
    const e = group[index];
    const trajectory: SampleEpisode = {
      ...sampleEpisode(context.world, e.episode, e.verdicts),
      rl: {
        algorithm: context.algorithm, rewardStage: context.rewardStage, group: e.group, index,
        reward: e.reward, advantage: e.advantage, promptTokens: e.episode.promptLength, tree,
      },
    };
    return { trajectory, reward: e.reward };
  });
}

/** the context of a step's samples: the reward they were scored with is the one its metrics name */
export function rlSampleContext(
  world: World, algorithm: RlConfig['algorithm'], metrics: Record<string, number>,
): RlSampleContext {
  // the trainer always reports the stage
  return { world, algorithm, rewardStage: rewardStageOf(metrics[METRIC.chartsCurriculumStage]) ?? 'sum' };
}

/** the group's rollouts as tree nodes (parents are indices into the group) */
export function rolloutTree(group: readonly ScoredEpisode[]): RolloutNode[] {
  return group.map((e) => ({
    parent: e.parent,
    // a root starts after the prompt; a branch at the position it was copied from its parent
    forkAt: e.parent === null ? e.episode.promptLength : (e.episode.branch?.forkAt ?? e.episode.promptLength),
    fill: e.episode.branch?.fill ?? false,
    tokens: e.episode.tokens.length,
    reward: e.reward,
    advantage: e.advantage,
    delivered: e.verdicts.delivered,
    success: e.verdicts.finalPass,
  }));
}
