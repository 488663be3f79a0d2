// The reward a stored travel episode earns under each of the lab's four definitions (Sum, Macro,
// Success, Curriculum), recomputed from the verdicts the episode keeps (its checks, whether a plan
// was delivered, whether it passes everything) with the trainer's own reward functions, so the
// episode viewer can compare the shapes on one trajectory. Pure: no DOM, no tfjs.
import {
  COMMONSENSE_KEYS,
  HARD_KEYS,
  type CheckResult,
  type CommonsenseKey,
  type HardKey,
  type Verdicts,
} from './types.ts';
import { curriculumStage, macroReward, successReward, sumReward, type CurriculumStage } from './rewards.ts';

/** what a stored episode keeps of its scoring (src/worker/sampleEpisode.ts SampleEpisode has these fields) */
export interface ScoredEpisode {
  kind: 'travel' | 'toolqa';
  plan: unknown;
  checks: readonly { key: string; kind: 'commonsense' | 'hard'; pass: boolean | null; reason: string }[];
  success: boolean;
  rl?: { rewardStage: CurriculumStage };
}

export interface EpisodeRewards {
  sum: number;
  macro: number;
  success: number;
  curriculum: number;
  /** the stage the Curriculum reward was at for this step */
  curriculumStage: CurriculumStage;
}

/**
 * The verdicts behind a stored travel episode, or null when it does not keep all of them (a tool-QA
 * episode, or a record from a build that stored other checks).
 */
export function verdictsOf(episode: ScoredEpisode): Verdicts | null {
  if (episode.kind !== 'travel') return null;
  const byKey = (kind: 'commonsense' | 'hard') =>
    new Map(
      episode.checks
        .filter((c) => c.kind === kind)
        .map((c) => [c.key, { pass: c.pass, reason: c.reason } satisfies CheckResult]),
    );
  const commonsense = byKey('commonsense');
  if (!COMMONSENSE_KEYS.every((k) => commonsense.has(k))) return null;
  const hard = byKey('hard');
  // no hard checks stored = they were gated off (no plan, or an incomplete / hallucinated one)
  if (hard.size > 0 && !HARD_KEYS.every((k) => hard.has(k))) return null;
  return {
    delivered: episode.plan !== null,
    commonsense: Object.fromEntries(commonsense) as Record<CommonsenseKey, CheckResult>,
    hard: hard.size ? (Object.fromEntries(hard) as Record<HardKey, CheckResult>) : null,
    finalPass: episode.success,
    cost: null,
  };
}

export interface RewardContext {
  /** the step the episode was stored at, and the run's length (the curriculum's progress) */
  step: number;
  totalSteps: number;
  curriculumSwitches: readonly [number, number];
  /** the run's reward: a Curriculum run's rollouts record the stage the trainer used */
  reward: string;
}

/** the four rewards of a travel episode (null: a tool-QA episode, or one without full verdicts) */
export function episodeRewards(episode: ScoredEpisode, context: RewardContext): EpisodeRewards | null {
  const v = verdictsOf(episode);
  if (!v) return null;
  // a Curriculum run's rollout knows the stage the trainer used; otherwise the stage at the step's progress
  const recorded = context.reward === 'curriculum' ? episode.rl?.rewardStage : undefined;
  const stage =
    recorded ??
    curriculumStage(Math.min(1, context.step / Math.max(1, context.totalSteps)), context.curriculumSwitches);
  const sum = sumReward(v);
  const macro = macroReward(v);
  const success = successReward(v);
  return {
    sum,
    macro,
    success,
    curriculum: stage === 'sum' ? sum : stage === 'macro' ? macro : success,
    curriculumStage: stage,
  };
}
