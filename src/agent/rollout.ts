// Batched, tool-interleaved rollouts. All rows decode together through one KV cache;
// when a row closes a call (`</call>`) the tool runs on the CPU and its observation tokens are
// appended to that row in one prefill (rows finishing a call in the same step share it) while
// the other rows keep decoding. Per step the GPU returns only the sampled ids with their log-prob
// and entropy (sampleTokens: [3, B] floats), never a logits tensor.
//
// An Episode carries what RL needs: tokens with the policy mask and the sampling log-probs
// (GRPO/DAPO's old log-probs), per-token entropies and where each observation ended (ARPO measures
// the entropy of the next k tokens there and branches a row with KVCache.copyRows).
import type { Observation, Plan, Query, ToolStep, World } from '../env/types.ts';
import type { Rng } from '../env/random.ts';
import { callTool } from '../env/tools.ts';
import type { Policy } from '../model/transformer.ts';
import type { KVCache } from '../model/kvcache.ts';
import { sampleTokens, type SampledTokens } from '../model/sampling.ts';
import { decodePlan, encodeObservation, encodeQuery, parseCallTokens } from './encode.ts';
import { unresolvableNext } from './plan.ts';
import { decodeToolQaAnswer, encodeToolQaPrompt, toolQaBaseDate, type ToolQaAnswer, type ToolQaTask } from './toolqaCodec.ts';
import { VOCAB } from './vocab.ts';
import { BranchPlanner, type BranchingOptions, type ForkPoint } from './arpoBranching.ts';

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

export interface RolloutOptions {
  world: World;
  temperature?: number; // default 1
  greedy?: boolean;
  maxTurns?: number; // tool calls per episode, default 24
  maxTokens?: number; // whole sequence, default: the model's context
  failureRate?: number; // injected tool failures, default 0
  /** grammar-constrained plans: mask choices that cannot resolve (plan.ts unresolvableNext), default false */
  constrainPlan?: boolean;
  rng: Rng;
  /** ARPO entropy-triggered branching (arpoBranching.ts); tasks are then the N initial rollouts of each group */
  branching?: BranchingOptions;
  /** move the live rows into a smaller cache as rows finish (default true; the samples are the same
   *  either way: the option exists so a test can check that) */
  compact?: boolean;
  /** awaited before each decode step with the rows finished so far and all rows: where a caller reports
   *  progress, lets its event loop run (a signal handler) and may throw to stop the rollout (nothing is kept) */
  pause?: (finished: number, rows: number) => Promise<void> | void;
}

const ID = {
  call: VOCAB.id('<call>'), endCall: VOCAB.id('</call>'), eos: VOCAB.id('<eos>'), plan: VOCAB.id('<plan>'),
  endPlan: VOCAB.id('</plan>'), ans: VOCAB.id('<ans>'),
};

/** batches this small are not compacted further: a smaller decode step would save less than the copy */
const COMPACT_BELOW = 4;

export function taskPrompt(task: AgentTask): { prompt: number[]; baseDate: string } {
  return task.kind === 'travel'
    ? { prompt: encodeQuery(task.query), baseDate: task.query.date[0] }
    : { prompt: encodeToolQaPrompt(task.qa), baseDate: toolQaBaseDate(task.qa) };
}

/**
 * Runs every task to completion (a plan/answer and <eos>, or a limit) in one batch. Deterministic
 * on `cpu` for a given rng state (samples, tool failures and ARPO's branching draw from opts.rng in a
 * fixed order). With `opts.branching` (ARPO) the tasks are each group's initial rollouts; rows are
 * forked from them after tool observations and filled from the prompt up to the group's budget, and
 * every episode carries its `branch`. Leaves no tensors behind.
 */
export async function rollout(policy: Policy, tasks: readonly AgentTask[], opts: RolloutOptions): Promise<Episode[]> {
  if (tasks.length === 0) return [];
  const temperature = opts.temperature ?? 1;
  if (!(temperature > 0)) throw new Error(`rollout: temperature must be > 0, got ${temperature}`);
  const greedy = opts.greedy ?? false;
  const maxTurns = opts.maxTurns ?? 24;
  const maxTokens = Math.min(opts.maxTokens ?? policy.config.contextLength, policy.config.contextLength);
  const failureRate = opts.failureRate ?? 0;
  const planner = opts.branching ? new BranchPlanner(opts.branching) : null;
  if (planner && opts.branching!.groups.length !== tasks.length) throw new Error(`rollout: ${opts.branching!.groups.length} group ids for ${tasks.length} tasks`);

  const B = planner ? planner.rows : tasks.length;
  // the task of every row: a reserve row runs its group's query
  const firstOfGroup = new Map<number, number>();
  opts.branching?.groups.forEach((g, i) => { if (!firstOfGroup.has(g)) firstOfGroup.set(g, i); });
  const rowTask = Array.from({ length: B }, (_, b) => tasks[b < tasks.length ? b : firstOfGroup.get(planner!.rowGroup[b])!]);
  const prompts = rowTask.map(taskPrompt);
  for (const p of prompts) if (p.prompt.length >= maxTokens) throw new Error(`rollout: prompt of ${p.prompt.length} tokens does not fit maxTokens ${maxTokens}`);

  const eps: (Episode | null)[] = new Array(B).fill(null);
  const active = new Array<boolean>(B).fill(false);
  const last = new Int32Array(B);
  const segmentStart = new Array<number>(B).fill(0); // where the policy's current segment began (after the prompt / last observation)
  const planStart = new Array<number>(B).fill(-1); // index of the current segment's <plan>, -1 before it
  const observed = new Array<boolean>(B).fill(false); // the row has had a tool result (ARPO's initial entropy is measured before)
  let cache = policy.newCache(B, maxTokens);
  // cache row p holds row rowOf[p]; physOf[b] is row b's cache row (-1 once dropped). They stay the
  // identity until half the rows have finished, then the live rows move into a smaller cache (compact).
  let rowOf = Array.from({ length: B }, (_, b) => b);
  const physOf = rowOf.slice();
  const phys = (rows: readonly number[]) => rows.map((b) => physOf[b]);

  /** start rows from their task's prompt: all of it but the last token by prefill; the last is the next step's input */
  const start = (rows: number[], fill: boolean) => {
    for (const b of rows) {
      const p = prompts[b].prompt;
      eps[b] = { task: rowTask[b], tokens: p.slice(), promptLength: p.length, lossMask: p.map(() => 0), logProbs: p.map(() => 0),
        entropies: p.map(() => 0), observationEnds: [], bans: [], steps: [], callErrors: [], toolFailures: 0, finish: 'max_tokens',
        plan: null, planError: null, answer: null, answerError: null,
        ...(planner ? { branch: { group: planner.rowGroup[b], parent: null, forkAt: 0, fill } } : {}) };
      last[b] = p[p.length - 1];
      segmentStart[b] = p.length;
      active[b] = true;
    }
    prefillBuckets(policy, cache, phys(rows), rows.map((b) => prompts[b].prompt.slice(0, -1)));
  };

  /** ARPO: rows `into` continue row `src` from just after an observation (KV cache copied, then cut back) */
  const fork = (src: number, point: ForkPoint, into: number[]) => {
    cache.copyRows(into.map(() => physOf[src]), phys(into));
    const e = eps[src]!;
    const at = point.at;
    for (const r of into) {
      cache.truncateRow(physOf[r], at - 1); // tokens[at-1] is the next step's input
      eps[r] = { ...e, tokens: e.tokens.slice(0, at), lossMask: e.lossMask.slice(0, at), logProbs: e.logProbs.slice(0, at),
        entropies: e.entropies.slice(0, at), observationEnds: e.observationEnds.filter((x) => x <= at), bans: e.bans.filter((x) => x.index < at),
        steps: e.steps.slice(0, point.steps), callErrors: e.callErrors.slice(0, point.callErrors), toolFailures: point.toolFailures,
        finish: 'max_tokens', plan: null, planError: null, answer: null, answerError: null,
        branch: { group: planner!.rowGroup[r], parent: src, forkAt: at, fill: false } };
      last[r] = e.tokens[at - 1];
      segmentStart[r] = at;
      planStart[r] = -1;
      observed[r] = true;
      active[r] = true;
    }
  };

  try {
    start(tasks.map((_, b) => b), false);
    while (active.some(Boolean)) {
      if (opts.pause) await opts.pause(eps.filter((e, b) => e && !active[b]).length, B);
      const logits = policy.step(cache, rowOf.map((b) => last[b]), rowOf.map((b) => active[b]));
      const bans = opts.constrainPlan ? rowOf.map((b) => { const e = eps[b]; return e && active[b] && planStart[b] >= 0 && e.task.kind === 'travel'
        ? unresolvableNext(e.tokens.slice(planStart[b]), { query: e.task.query, steps: e.steps }) : []; }) : undefined;
      // one uniform per row of the whole batch, finished or not: the samples do not depend on compaction
      const drawn = greedy ? null : Float32Array.from({ length: B }, () => opts.rng.next());
      let out: SampledTokens; // indexed by cache row, like `bans`
      try {
        out = await sampleTokens(logits, temperature, opts.rng, greedy, bans, drawn ? Float32Array.from(rowOf, (b) => drawn[b]) : undefined);
      } finally {
        logits.dispose();
      }
      const obsRows: number[] = [];
      const obsTokens: number[][] = [];
      const forks: { src: number; point: ForkPoint; into: number[] }[] = [];
      const decide = (b: number, ending: boolean) => {
        const d = planner?.decide(b, opts.rng, ending);
        if (d) forks.push({ src: b, ...d });
      };
      const stop = (b: number, reason: FinishReason) => {
        finish(eps[b]!, reason, segmentStart[b]);
        active[b] = false;
        decide(b, true);
        planner?.finished(b);
      };
      for (let b = 0; b < B; b++) {
        if (!active[b]) continue;
        const e = eps[b]!;
        const p = physOf[b];
        const id = out.ids[p];
        e.tokens.push(id);
        e.lossMask.push(1);
        e.logProbs.push(out.logProbs[p]);
        e.entropies.push(out.entropies[p]);
        planner?.token(b, out.entropies[p], !observed[b]);
        if (bans && bans[p].length > 0) e.bans.push({ index: e.tokens.length - 1, ids: bans[p] });
        if (id === ID.plan && planStart[b] < 0) planStart[b] = e.tokens.length - 1;
        last[b] = id;
        if (id === ID.eos) {
          stop(b, 'eos');
        } else if (id === ID.endCall) {
          if (e.steps.length + e.callErrors.length >= maxTurns) { stop(b, 'max_turns'); continue; }
          const obs = runCall(e, segmentStart[b], prompts[b].baseDate, opts, failureRate);
          const ids = encodeObservation(obs);
          if (e.tokens.length + ids.length + 1 > maxTokens) { stop(b, 'max_tokens'); continue; }
          decide(b, true); // the previous observation's window ends where this one begins
          e.tokens.push(...ids);
          for (let k = 0; k < ids.length; k++) { e.lossMask.push(0); e.logProbs.push(0); e.entropies.push(0); }
          e.observationEnds.push(e.tokens.length);
          segmentStart[b] = e.tokens.length;
          planStart[b] = -1;
          observed[b] = true;
          planner?.observed(b, { at: e.tokens.length, steps: e.steps.length, callErrors: e.callErrors.length, toolFailures: e.toolFailures });
          obsRows.push(b);
          // the sampled </call> and all observation tokens but the last go in by prefill
          obsTokens.push([id, ...ids.slice(0, -1)]);
          last[b] = ids[ids.length - 1];
        } else if (e.tokens.length >= maxTokens) {
          stop(b, 'max_tokens');
        } else decide(b, false);
      }
      // forks copy the source row's cache before its observation (if any) goes in; truncation makes the order irrelevant
      for (const f of forks) fork(f.src, f.point, f.into);
      if (obsRows.length > 0) prefillBuckets(policy, cache, phys(obsRows), obsTokens);
      const fills = planner?.fills(active) ?? [];
      if (fills.length > 0) {
        cache.resetRows(phys(fills));
        start(fills, true);
      }
      // compact: once half the cache's rows have finished, move the live ones into a cache of half the
      // size (finished rows ride along, inactive, to fill it): the batch only ever takes B, B/2, B/4, …,
      // so a backend that compiles a program per shape (webgpu) meets a handful of shapes, not one per
      // compaction. ARPO keeps its rows: finished ones are branched into and filled from the prompt.
      const live = rowOf.filter((b) => active[b]);
      if (!planner && opts.compact !== false && live.length > 0 && live.length <= cache.batch / 2 && cache.batch > COMPACT_BELOW) {
        let size = cache.batch;
        while (size / 2 >= live.length && size > COMPACT_BELOW) size = Math.ceil(size / 2);
        const keep = [...live, ...rowOf.filter((b) => !active[b]).slice(0, size - live.length)];
        const next = cache.selectRows(phys(keep));
        cache.dispose();
        cache = next;
        physOf.fill(-1);
        keep.forEach((b, p) => { physOf[b] = p; });
        rowOf = keep;
      }
    }
  } finally {
    cache.dispose();
  }
  // rows never used (a reserve a group did not need) are dropped; parents are re-indexed
  const index = new Map<number, number>();
  const used: Episode[] = [];
  eps.forEach((e, b) => { if (e) { index.set(b, used.length); used.push(e); } });
  for (const e of used) if (e.branch && e.branch.parent !== null) e.branch.parent = index.get(e.branch.parent)!;
  return used;
}

/**
 * policy.prefill pads every row to the longest (observations run from 4 to ~60 tokens), so rows of
 * very different lengths go in two calls when the padding saved outweighs a call's fixed cost (the
 * cache copies of the writes: ~2.5 tokens' worth per cache row, measured on wasm at batch 64).
 */
function prefillBuckets(policy: Policy, cache: KVCache, rows: number[], tokens: number[][]): void {
  const order = rows.map((_, i) => i).sort((a, b) => tokens[b].length - tokens[a].length);
  const len = (k: number) => tokens[order[k]].length;
  const callCost = 2.5 * cache.batch;
  let best = { split: order.length, cost: order.length * len(0) };
  for (let k = 1; k < order.length; k++) {
    const cost = k * len(0) + (order.length - k) * len(k) + callCost;
    if (cost < best.cost) best = { split: k, cost };
  }
  for (const part of [order.slice(0, best.split), order.slice(best.split)]) {
    if (part.length > 0) policy.prefill(cache, part.map((i) => rows[i]), part.map((i) => tokens[i]));
  }
}

/** The tokens of the current segment from its last `<call>` to `</call>`, parsed and executed. */
function runCall(e: Episode, segStart: number, baseDate: string, opts: RolloutOptions, failureRate: number): Observation {
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
  const observation = callTool(opts.world, parsed.value, { failureRate, rng: opts.rng });
  if (observation.kind === 'error' && observation.failure) e.toolFailures++;
  e.steps.push({ call: parsed.value, observation });
  return observation;
}

/** Decodes what the episode delivered: the plan (travel) or the answer (tool-QA) of its last segment. */
function finish(e: Episode, reason: FinishReason, segStart: number): void {
  e.finish = reason;
  const seg = e.tokens.slice(segStart);
  if (e.task.kind === 'travel') {
    const s = seg.indexOf(ID.plan);
    if (s < 0) { e.planError = reason === 'eos' ? 'ended without <plan>' : `stopped (${reason}) before a plan`; return; }
    const end = seg.indexOf(ID.endPlan, s);
    if (end < 0) { e.planError = `plan not closed with </plan> (${reason})`; return; }
    const r = decodePlan(seg.slice(s, end + 1), { query: e.task.query, steps: e.steps });
    if (r.ok) e.plan = r.value;
    else e.planError = r.error;
  } else {
    const s = seg.indexOf(ID.ans);
    if (s < 0) { e.answerError = reason === 'eos' ? 'ended without <ans>' : `stopped (${reason}) before an answer`; return; }
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
export function trainingRow(e: Episode): { tokens: number[]; targetMask: number[]; oldLogProbs: number[]; targetBans: { target: number; ids: number[] }[] } {
  return { tokens: e.tokens, targetMask: e.lossMask.slice(1), oldLogProbs: e.logProbs.slice(1),
    targetBans: e.bans.map(({ index, ids }) => ({ target: index - 1, ids })) };
}
