// Which RL training rollouts the page keeps at an evaluation, as plain data: from the latest step's
// groups, the one whose rewards spread the widest (where the advantage says the most), its best and
// its worst rollout and, for ARPO, a branched one; each carries its reward, advantage and the whole
// group as a tree (parent, fork position) so the episode viewer can draw ARPO's branches.
import type { World } from '../env/types.ts';
import type { ScoredEpisode } from '../rl/rlTrainer.ts';
import type { RlConfig } from '../rl/rlConfig.ts';
import { sampleEpisode, type RolloutNode, type SampleEpisode } from './sampleEpisode.ts';
import type { JobEpisode } from './trainingJob.ts';

export interface RlSampleContext {
  world: World;
  algorithm: RlConfig['algorithm'];
  rewardStage: 'sum' | 'macro' | 'success';
}

/** up to `keep` scored rollouts of one group of `episodes`, as episodes for the store */
export function pickRlSamples(episodes: readonly ScoredEpisode[], context: RlSampleContext, keep = 3): JobEpisode[] {
  if (episodes.length === 0 || keep < 1) return [];
  const groups = new Map<number, ScoredEpisode[]>();
  for (const e of episodes) groups.set(e.group, [...(groups.get(e.group) ?? []), e]);
  const spread = (g: readonly ScoredEpisode[]) => Math.max(...g.map((e) => e.reward)) - Math.min(...g.map((e) => e.reward));
  // widest spread first; among equals the bushier tree, then the earlier group
  const group = [...groups.values()].sort((a, b) => spread(b) - spread(a) || branched(b) - branched(a))[0];
  const byReward = group.map((_, i) => i).sort((a, b) => group[b].reward - group[a].reward || a - b);
  const chosen = [byReward[0]];
  const firstBranch = group.findIndex((e) => e.parent !== null);
  if (firstBranch >= 0 && !chosen.includes(firstBranch)) chosen.push(firstBranch);
  const worst = byReward[byReward.length - 1];
  if (!chosen.includes(worst)) chosen.splice(1, 0, worst);
  const tree = rolloutTree(group);
  return chosen.slice(0, keep).map((index) => {
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

function branched(group: readonly ScoredEpisode[]): number {
  return group.filter((e) => e.parent !== null).length;
}
