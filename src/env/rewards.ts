// Rewards of the lab, pure functions of the evaluator's `Verdicts`.
//
// The Agent-STAR paper (arXiv 2603.21972) names four reward shapes (Sum, Macro, Success,
// Curriculum) but does not publish their formulas; the definitions below follow the closest
// published recipe, Planner-R1's dense → macro → sparse ladder on TravelPlanner, with
// TravelPlanner's own micro/macro pass rates (Xie et al. 2024, arXiv 2402.01622) as the parts.
// An undelivered plan scores 0 under every reward.

import { COMMONSENSE_KEYS, HARD_KEYS } from './types.ts';
import type { Verdicts } from './types.ts';

// Ported to Python for exported veRL jobs (src/cli/verl/reward.py): test/cli/exportJob.test.ts compares the
// two on a thousand plans, so a change here fails it until reward.py says the same.
export type RewardKind = 'sum' | 'macro' | 'success' | 'curriculum';
/** the reward a curriculum uses at a point of training */
export type CurriculumStage = 'sum' | 'macro' | 'success';

export const REWARD_KINDS: readonly RewardKind[] = ['sum', 'macro', 'success', 'curriculum'];
export const DEFAULT_SWITCH_POINTS: readonly [number, number] = [1 / 3, 2 / 3];

/** Commonsense micro of one plan: passed / 8 checks; a not-applicable check (null) counts as passed. */
export function commonsenseMicro(v: Verdicts): number {
  if (!v.delivered) return 0;
  let passed = 0;
  for (const k of COMMONSENSE_KEYS) if (v.commonsense[k].pass !== false) passed++;
  return passed / COMMONSENSE_KEYS.length;
}

/**
 * Hard micro of one plan: passed / applicable hard checks (null = the query has no such
 * constraint, so it is not counted). Hard checks gated off (incomplete or hallucinated plan) ⇒ 0,
 * as in TravelPlanner, where they are not credited then.
 */
export function hardMicro(v: Verdicts): number {
  if (!v.delivered || v.hard === null) return 0;
  let applicable = 0;
  let passed = 0;
  for (const k of HARD_KEYS) {
    const p = v.hard[k].pass;
    if (p === null) continue;
    applicable++;
    if (p) passed++;
  }
  // valid_cost is always applicable, so applicable ≥ 1 for a well-formed verdict
  return applicable === 0 ? 1 : passed / applicable;
}

/** 1 if every commonsense check passes (null = pass), else 0. */
export function commonsenseMacro(v: Verdicts): number {
  if (!v.delivered) return 0;
  return COMMONSENSE_KEYS.every((k) => v.commonsense[k].pass !== false) ? 1 : 0;
}

/** 1 if the hard checks ran and every applicable one passes, else 0. */
export function hardMacro(v: Verdicts): number {
  if (!v.delivered || v.hard === null) return 0;
  const hard = v.hard;
  return HARD_KEYS.every((k) => hard[k].pass !== false) ? 1 : 0;
}

/**
 * Sum (dense): mean of commonsense micro and hard micro, in [0, 1].
 * Planner-R1's dense shaping credits every satisfied constraint; TravelPlanner's micro rates.
 */
export function sumReward(v: Verdicts): number {
  if (!v.delivered) return 0;
  return (commonsenseMicro(v) + hardMicro(v)) / 2;
}

/**
 * Macro (semi-sparse): mean of commonsense macro and hard macro, so 0, ½ or 1.
 * Planner-R1's intermediate rung: credit per constraint group, not per constraint.
 */
export function macroReward(v: Verdicts): number {
  if (!v.delivered) return 0;
  return (commonsenseMacro(v) + hardMacro(v)) / 2;
}

/** Success (sparse): 1 if the plan passes everything (TravelPlanner's final pass), else 0. */
export function successReward(v: Verdicts): number {
  return v.delivered && v.finalPass ? 1 : 0;
}

function checkSwitchPoints(switchPoints: readonly number[]): void {
  if (switchPoints.length !== 2) throw new Error(`curriculum needs 2 switch points, got ${switchPoints.length}`);
  const [a, b] = switchPoints;
  if (!(Number.isFinite(a) && Number.isFinite(b) && a >= 0 && a <= b && b <= 1)) {
    throw new Error(`curriculum switch points must satisfy 0 ≤ a ≤ b ≤ 1, got [${a}, ${b}]`);
  }
}

/**
 * The curriculum's stage at `progress` ∈ [0, 1] (fraction of training done): Sum before the first
 * switch point, Macro before the second, Success after (Planner-R1's dense → macro → sparse).
 */
export function curriculumStage(
  progress: number,
  switchPoints: readonly number[] = DEFAULT_SWITCH_POINTS,
): CurriculumStage {
  checkSwitchPoints(switchPoints);
  if (!Number.isFinite(progress)) throw new Error(`curriculum progress must be a number, got ${progress}`);
  if (progress < switchPoints[0]) return 'sum';
  if (progress < switchPoints[1]) return 'macro';
  return 'success';
}

/** Curriculum: the reward of the current stage (see `curriculumStage`). */
export function curriculumReward(
  v: Verdicts,
  progress: number,
  switchPoints: readonly number[] = DEFAULT_SWITCH_POINTS,
): number {
  const stage = curriculumStage(progress, switchPoints);
  return stage === 'sum' ? sumReward(v) : stage === 'macro' ? macroReward(v) : successReward(v);
}

/** One entry point for the trainer: the reward of `kind` for a plan's verdicts. */
export function computeReward(
  kind: RewardKind,
  v: Verdicts,
  progress = 0,
  switchPoints: readonly number[] = DEFAULT_SWITCH_POINTS,
): number {
  switch (kind) {
    case 'sum':
      return sumReward(v);
    case 'macro':
      return macroReward(v);
    case 'success':
      return successReward(v);
    case 'curriculum':
      return curriculumReward(v, progress, switchPoints);
    default:
      throw new Error(`unknown reward kind "${String(kind)}" (expected one of ${REWARD_KINDS.join(', ')})`);
  }
}

/** the curriculum's stages, densest first: the order an adaptive curriculum moves through */
export const CURRICULUM_STAGES: readonly CurriculumStage[] = ['sum', 'macro', 'success'];

/** a plan's reward under each stage, all three from the same verdicts */
export function stageRewards(v: Verdicts): Record<CurriculumStage, number> {
  return { sum: sumReward(v), macro: macroReward(v), success: successReward(v) };
}

/**
 * The share of groups that carry signal (rewards not all equal) under each stage, for groups of plans
 * scored together: what each reward would leave the update to learn from. No groups: 0 under each.
 */
export function signalShares(groups: readonly (readonly Verdicts[])[]): Record<CurriculumStage, number> {
  const out = { sum: 0, macro: 0, success: 0 };
  if (groups.length === 0) return out;
  for (const stage of CURRICULUM_STAGES) {
    const carrying = groups.filter((g) => {
      const r = g.map((v) => stageRewards(v)[stage]);
      return r.some((x) => x !== r[0]);
    }).length;
    out[stage] = carrying / groups.length;
  }
  return out;
}

/**
 * The adaptive curriculum's stage after a step: the next, sparser stage once it would leave signal in at least
 * `share` of the step's groups, else the same one; one stage per step at most, never back. A sparse reward
 * that leaves most groups all-equal gives those groups no advantage; waiting until enough of them would
 * differ under it keeps the update fed while the reward tightens.
 */
export function adaptiveNextStage(
  stage: CurriculumStage,
  signal: Readonly<Record<CurriculumStage, number>>,
  share: number,
): CurriculumStage {
  if (!(share >= 0 && share <= 1)) throw new Error(`curriculum signal share must be in [0, 1], got ${share}`);
  const i = CURRICULUM_STAGES.indexOf(stage);
  if (i < 0) throw new Error(`unknown curriculum stage "${String(stage)}"`);
  const next = CURRICULUM_STAGES[i + 1];
  return next !== undefined && signal[next] >= share ? next : stage;
}
