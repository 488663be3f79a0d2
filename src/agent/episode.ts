// What a rollout produces: an Episode, the record of one row from its prompt to its end, with what RL
// needs (tokens with the policy mask and the sampling log-probs, GRPO/DAPO's old log-probs; per-token
// entropies and where each observation ended, ARPO's branch points; constrained decoding's bans), and the
// episode-level steps of the loop in rollout.ts: a task's prompt, running a closed call, decoding the end.
import type { Observation, Plan, Query, ToolStep, World } from '../env/types.ts';
import type { Rng } from '../env/random.ts';
import { callTool } from '../env/tools.ts';
import { encodeQuery, parseCallTokens } from './encode.ts';
import { decodePlan } from './plan.ts';
import {
  decodeToolQaAnswer, encodeToolQaPrompt, toolQaBaseDate, type ToolQaAnswer, type ToolQaTask,
} from './toolqaCodec.ts';
import { VOCAB } from './vocab.ts';

export type AgentTask = { kind: 'travel'; query: Query } | { kind: 'toolqa'; qa: ToolQaTask };

export type FinishReason = 'eos' | 'max_tokens' | 'max_turns';

export interface Episode {
  task: AgentTask;
  /** prompt + generated + observation tokens */
  tokens: number[];
  promptLength: number;
  /** 1 where the policy sampled the token (the RL loss mask), 0 on prompt and observations */
  lossMask: number[];
  /** log p(token) under the sampling distribution (temperature applied) at policy tokens, else 0 */
  logProbs: number[];
  /** entropy of the next-token distribution a policy token was drawn from, else 0 */
  entropies: number[];
  /** index into tokens of the first position after each observation (ARPO branch points) */
  observationEnds: number[];
  /** constrained decoding: the ids masked out of the distribution tokens[index] was drawn from
   *  (RL must score the same masked distribution); empty when the rollout was unconstrained */
  bans: { index: number; ids: number[] }[];
  steps: ToolStep[];
  /** calls that did not parse, with the reason (they got an error observation) */
  callErrors: string[];
  /** injected tool failures met (retrying may help) */
  toolFailures: number;
  finish: FinishReason;
  /** travel tasks: the decoded plan, or null with the reason in planError */
  plan: Plan | null;
  planError: string | null;
  /** tool-QA tasks: the decoded answer, or null with the reason in answerError */
  answer: ToolQaAnswer | null;
  answerError: string | null;
  /** ARPO: where this rollout came from (RolloutOptions.branching); absent otherwise */
  branch?: EpisodeBranch;
}

/** An ARPO rollout's place in its group's tree: `parent` is the index (in the returned episodes) of the
 *  rollout it was forked from, null for one started from the prompt; it shares tokens[0, forkAt) with it. */
export interface EpisodeBranch {
  group: number;
  parent: number | null;
  forkAt: number;
  /** started from the prompt to fill the group's budget after its tree stopped growing */
  fill: boolean;
}

const ID = { call: VOCAB.id('<call>'), plan: VOCAB.id('<plan>'), endPlan: VOCAB.id('</plan>'), ans: VOCAB.id('<ans>') };

export function taskPrompt(task: AgentTask): { prompt: number[]; baseDate: string } {
  return task.kind === 'travel'
    ? { prompt: encodeQuery(task.query), baseDate: task.query.date[0] }
    : { prompt: encodeToolQaPrompt(task.qa), baseDate: toolQaBaseDate(task.qa) };
}

/** The tokens of the current segment from its last `<call>` to `</call>`, parsed and executed. */
export function runCall(e: Episode, segStart: number, baseDate: string, world: World, rng: Rng, failureRate: number,
): Observation {
  let s = e.tokens.length - 1;
  while (s >= segStart && e.tokens[s] !== ID.call) s--;
  if (s < segStart) {
    e.callErrors.push('</call> without <call>');
    return { kind: 'error', message: '</call> without <call>', failure: false };
  }
  const parsed = parseCallTokens(e.tokens.slice(s), baseDate);
  if (!parsed.ok) {
    e.callErrors.push(parsed.error);
    return { kind: 'error', message: parsed.error, failure: false };
  }
  const observation = callTool(world, parsed.value, { failureRate, rng });
  if (observation.kind === 'error' && observation.failure) e.toolFailures++;
  e.steps.push({ call: parsed.value, observation });
  return observation;
}

/** Ends the episode: decodes what it delivered: the plan (travel) or the answer (tool-QA) of its last segment. */
export function finish(e: Episode, reason: FinishReason, segStart: number): void {
  e.finish = reason;
  const seg = e.tokens.slice(segStart);
  if (e.task.kind === 'travel') {
    const s = seg.indexOf(ID.plan);
    if (s < 0) {
      e.planError = reason === 'eos' ? 'ended without <plan>' : `stopped (${reason}) before a plan`;
      return;
    }
    const end = seg.indexOf(ID.endPlan, s);
    if (end < 0) { e.planError = `plan not closed with </plan> (${reason})`; return; }
    const r = decodePlan(seg.slice(s, end + 1), { query: e.task.query, steps: e.steps });
    if (r.ok) e.plan = r.value;
    else e.planError = r.error;
  } else {
    const s = seg.indexOf(ID.ans);
    if (s < 0) {
      e.answerError = reason === 'eos' ? 'ended without <ans>' : `stopped (${reason}) before an answer`;
      return;
    }
    const r = decodeToolQaAnswer(e.task.qa, seg.slice(s), e.steps);
    if (r.ok) e.answer = r.value;
    else e.answerError = r.error;
  }
}

/**
 * An episode as an RL training row, aligned with policy.logProbs(tokens) (which scores targets
 * tokens[1..T-1]): targetMask[t] and oldLogProbs[t] belong to token t+1. GRPO/DAPO/ARPO take the
 * ratio exp(logp − oldLogProbs) on targetMask positions only (observation tokens are never scored);
 * a constrained rollout's targetBans go to policy.logProbsAt's bans, so logp is the distribution sampled.
 */
export function trainingRow(e: Episode): {
  tokens: number[]; targetMask: number[]; oldLogProbs: number[]; targetBans: { target: number; ids: number[] }[];
} {
  return { tokens: e.tokens, targetMask: e.lossMask.slice(1), oldLogProbs: e.logProbs.slice(1),
    targetBans: e.bans.map(({ index, ids }) => ({ target: index - 1, ids })) };
}
