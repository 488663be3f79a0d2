// A policy episode as the page shows it: plain, structured-cloneable data (strings, the plan, the
// verdicts) so the store can keep it and the UI can render it without the agent or tfjs. Built
// from a rollout Episode and, for travel tasks, the evaluator's verdicts.
import type { CheckResult, Plan, Verdicts, World } from '../env/types.ts';
import { renderObservation } from '../env/render.ts';
import { evaluatePlan } from '../env/evaluate.ts';
import { scoreToolQa } from '../env/toolqa.ts';
import type { Episode } from '../agent/episode.ts';

/** longest observation text kept per call (a flight table can run to kilobytes) */
const OBSERVATION_CHARS = 600;

export interface SampleCall {
  /** e.g. `SearchFlight(Boston, Chicago, 2022-03-04)` */
  call: string;
  observation: string;
  /** an error observation (an injected failure or a bad call) */
  error: boolean;
  /** the error was an injected tool failure (the environment-stability axis), not the policy's bad call; absent in
   * older records */
  injected?: boolean;
}

export interface SampleCheck {
  /** the evaluator's key, e.g. `is_valid_restaurants`, `valid_cost` */
  key: string;
  kind: 'commonsense' | 'hard';
  /** null = not applicable (counts as a pass, as in TravelPlanner) */
  pass: boolean | null;
  reason: string;
}

export interface SampleEpisode {
  kind: 'travel' | 'toolqa';
  /** the request (travel) or question (tool-QA) in words */
  prompt: string;
  /** travel: easy/medium/hard */
  level?: string;
  calls: SampleCall[];
  /** calls the policy wrote that did not parse */
  callErrors: string[];
  finish: string;
  tokens: number;
  /** travel: the decoded plan, or null with the reason */
  plan: Plan | null;
  planError: string | null;
  checks: SampleCheck[];
  /** travel: passes every check; tool-QA: the answer is correct */
  success: boolean;
  /** tool-QA: the answer in words, or why there is none */
  answer?: string;
  /** an RL training rollout: how it was scored, and its group (ARPO: the branch tree) */
  rl?: RlRolloutInfo;
}

/** one rollout of a group, as a node of the group's tree (GRPO/DAPO: every node is a root) */
export interface RolloutNode {
  /** index in the group of the rollout this one branched from (null: from the prompt) */
  parent: number | null;
  /** token position where it forked from its parent (its prompt length for a root) */
  forkAt: number;
  /** ARPO: started from the prompt to fill the budget when too few branches were triggered */
  fill: boolean;
  tokens: number;
  reward: number;
  advantage: number;
  delivered: boolean;
  success: boolean;
}

export interface RlRolloutInfo {
  algorithm: 'grpo' | 'dapo' | 'arpo';
  /** the reward in force (Curriculum: its current stage) */
  rewardStage: 'sum' | 'macro' | 'success';
  group: number;
  /** this rollout's index in `tree` */
  index: number;
  reward: number;
  advantage: number;
  promptTokens: number;
  /** every rollout of the group, in group order */
  tree: RolloutNode[];
}

export function callText(call: { tool: string; args: Record<string, unknown> }): string {
  return `${call.tool}(${Object.values(call.args).join(', ')})`;
}

export function sampleEpisode(world: World, e: Episode, verdicts?: Verdicts): SampleEpisode {
  const calls = e.steps.map((s) => {
    const text = renderObservation(s.observation);
    return {
      call: callText(s.call as { tool: string; args: Record<string, unknown> }),
      observation: text.length > OBSERVATION_CHARS ? `${text.slice(0, OBSERVATION_CHARS)}…` : text,
      error: s.observation.kind === 'error',
      injected: s.observation.kind === 'error' && s.observation.failure,
    };
  });
  const common = { calls, callErrors: e.callErrors, finish: e.finish, tokens: e.tokens.length };
  if (e.task.kind === 'toolqa') {
    const { qa } = e.task;
    const answer =
      e.answer === null
        ? `no answer (${e.answerError ?? 'unknown'})`
        : e.answer.kind === 'name'
          ? e.answer.name
          : String(e.answer.value);
    return {
      kind: 'toolqa',
      prompt: qa.text,
      ...common,
      plan: null,
      planError: null,
      checks: [],
      answer,
      success: scoreToolQa(qa, e.answer) === 1,
    };
  }
  const v = verdicts ?? evaluatePlan(world, e.task.query, e.plan);
  const checks: SampleCheck[] = [
    ...Object.entries(v.commonsense).map(([key, r]) => check(key, 'commonsense', r)),
    ...Object.entries(v.hard ?? {}).map(([key, r]) => check(key, 'hard', r)),
  ];
  return {
    kind: 'travel',
    prompt: e.task.query.query,
    level: e.task.query.level,
    ...common,
    plan: e.plan,
    planError: e.planError,
    checks,
    success: v.finalPass,
  };
}

function check(key: string, kind: SampleCheck['kind'], r: CheckResult): SampleCheck {
  return { key, kind, pass: r.pass, reason: r.reason };
}
