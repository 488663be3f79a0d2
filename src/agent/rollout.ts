// Batched, tool-interleaved rollouts. All rows decode together through one KV cache;
// when a row closes a call (`</call>`) the tool runs on the CPU and its observation tokens are
// appended to that row in one prefill (rows finishing a call in the same step share it) while
// the other rows keep decoding. Per step the GPU returns only the sampled ids with their log-prob
// and entropy (sampleTokens: [3, B] floats), never a logits tensor.
//
// The loop reads top to bottom: step the model for the live rows, sample, append, run the closed calls
// and end the finished rows, fork (ARPO), compact. Each row is one record (Row); what it produces is an
// Episode (episode.ts).
import type { Rng } from '../env/random.ts';
import type { World } from '../env/types.ts';
import type { Tensor2D } from '@tensorflow/tfjs';
import type { ModelConfig } from '../model/config.ts';
import { sampleTokens, type RowSampling, type SampledTokens } from '../model/sampling.ts';
import { encodeObservation } from './encode.ts';
import { unresolvableNext } from './plan.ts';
import { VOCAB } from './vocab.ts';
import { BranchPlanner, type BranchingOptions, type ForkPoint } from './arpoBranching.ts';
import { finish, runCall, taskPrompt, type AgentTask, type Episode, type FinishReason } from './episode.ts';

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

/** What rollout() needs of a cache: its rows, ARPO's row copies and compaction's smaller cache (KVCache). */
export interface RolloutCache {
  readonly batch: number;
  copyRows(src: readonly number[], dst: readonly number[]): void;
  truncateRow(row: number, length: number): void;
  resetRows(rows: readonly number[]): void;
  selectRows(rows: readonly number[]): RolloutCache;
  dispose(): void;
}

/**
 * What rollout() needs of a policy (Policy is one). step() and prefill() may answer later: several rollouts
 * then meet at a decode step (S seeds decoding as rows of one program, model/seedStackDecode.ts); awaiting a
 * plain value changes nothing.
 */
export interface RolloutPolicy {
  readonly config: ModelConfig;
  newCache(batch: number, maxLen: number): RolloutCache;
  step(cache: RolloutCache, lastTokens: readonly number[], active: readonly boolean[]): Tensor2D | Promise<Tensor2D>;
  prefill(cache: RolloutCache, rows: readonly number[], tokens: readonly (readonly number[])[]): void | Promise<void>;
  /** step() then sampleTokens(logits, …) as one call, where a policy can do better (the seed stack samples every
   *  seed's rows in one program and reads them back once); the same samples as the two calls */
  stepAndSample?(cache: RolloutCache, lastTokens: readonly number[], active: readonly boolean[],
    sampling: RowSampling): Promise<SampledTokens>;
}

const ID = { eos: VOCAB.id('<eos>'), endCall: VOCAB.id('</call>'), plan: VOCAB.id('<plan>') };

/** batches this small are not compacted further: a smaller decode step would save less than the copy */
const COMPACT_BELOW = 4;

/** One row of the batch: its episode so far and where it stands in the decode. */
interface Row {
  readonly index: number; // its place in the batch: BranchPlanner's row, the order a step visits rows in
  readonly task: AgentTask;
  readonly prompt: number[];
  readonly baseDate: string;
  episode: Episode | null; // null: an ARPO reserve row not yet forked into or filled
  live: boolean; // still decoding
  next: number; // the token the next step feeds (the episode's last, whose keys are not cached yet)
  segmentStart: number; // where the policy's current segment began (after the prompt / last observation)
  planStart: number; // index of the current segment's <plan>, -1 before it (constrained decoding starts there)
  observed: boolean; // has had a tool result (ARPO measures a rollout's initial entropy before its first)
  slot: number; // its row in the KV cache; -1 once compaction dropped it
}

/** ARPO: rows `into` continue row `src` from `point`, just after one of its observations */
interface Fork { src: Row; point: ForkPoint; into: number[] }

/**
 * Runs every task to completion (a plan/answer and <eos>, or a limit) in one batch. Deterministic
 * on `cpu` for a given rng state (samples, tool failures and ARPO's branching draw from opts.rng in a
 * fixed order). With `opts.branching` (ARPO) the tasks are each group's initial rollouts; rows are
 * forked from them after tool observations and filled from the prompt up to the group's budget, and
 * every episode carries its `branch`. Leaves no tensors behind.
 */
export async function rollout(policy: RolloutPolicy, tasks: readonly AgentTask[], opts: RolloutOptions,
): Promise<Episode[]> {
  if (tasks.length === 0) return [];
  const temperature = opts.temperature ?? 1;
  if (!(temperature > 0)) throw new Error(`rollout: temperature must be > 0, got ${temperature}`);
  const greedy = opts.greedy ?? false;
  const maxTurns = opts.maxTurns ?? 24;
  const maxTokens = Math.min(opts.maxTokens ?? policy.config.contextLength, policy.config.contextLength);
  const failureRate = opts.failureRate ?? 0;
  const planner = opts.branching ? new BranchPlanner(opts.branching) : null;
  const rows = batchRows(tasks, planner, opts.branching, maxTokens);
  const B = rows.length;
  let cache = policy.newCache(B, maxTokens);
  let slots = rows.slice(); // slots[p]: the row in cache row p (the identity until compaction)

  try {
    await startRows(policy, cache, rows.slice(0, tasks.length), planner, false);
    while (rows.some((r) => r.live)) {
      if (opts.pause) await opts.pause(rows.filter((r) => r.episode && !r.live).length, B);
      // step the model and sample one token a cache row, under the constrained-decoding bans
      const bans = opts.constrainPlan ? constrainedBans : undefined;
      const { sampled, banned } = await decodeStep(policy, cache, slots, B, temperature, greedy, opts.rng, bans);

      const forks: Fork[] = [];
      const observed: { row: Row; tokens: number[] }[] = [];
      /** ARPO: whether `row` branches now (it is `ending` its window: it stops or meets its next observation) */
      const branch = (row: Row, ending: boolean) => {
        const d = planner?.decide(row.index, opts.rng, ending);
        if (d) forks.push({ src: row, ...d });
      };
      const end = (row: Row, reason: FinishReason) => {
        finish(row.episode!, reason, row.segmentStart);
        row.live = false;
        branch(row, true);
        planner?.finished(row.index);
      };
      for (const row of rows) {
        if (!row.live) continue;
        const e = appendSample(row, sampled, banned?.[row.slot] ?? [], planner);
        const id = row.next;
        if (id === ID.eos) {
          end(row, 'eos');
        } else if (id === ID.endCall) {
          if (e.steps.length + e.callErrors.length >= maxTurns) { end(row, 'max_turns'); continue; }
          const ids = encodeObservation(runCall(e, row.segmentStart, row.baseDate, opts.world, opts.rng, failureRate));
          if (e.tokens.length + ids.length + 1 > maxTokens) { end(row, 'max_tokens'); continue; }
          branch(row, true); // the previous observation's window ends where this one begins
          observed.push({ row, tokens: appendObservation(row, ids, planner) });
        } else if (e.tokens.length >= maxTokens) {
          end(row, 'max_tokens');
        } else branch(row, false);
      }

      // forks copy the source row's cache before its observation (if any) goes in; truncation makes the
      // order irrelevant
      for (const f of forks) forkRows(cache, f.src, f.point, f.into.map((b) => rows[b]), planner!);
      if (observed.length > 0) {
        await prefillBuckets(policy, cache, observed.map((o) => o.row.slot), observed.map((o) => o.tokens));
      }
      const fills = (planner?.fills(rows.map((r) => r.live)) ?? []).map((b) => rows[b]);
      if (fills.length > 0) {
        cache.resetRows(fills.map((r) => r.slot));
        await startRows(policy, cache, fills, planner, true);
      }
      // ARPO keeps its rows: finished ones are branched into and filled from the prompt
      if (!planner && opts.compact !== false) ({ cache, slots } = compact(cache, slots));
    }
  } finally {
    cache.dispose();
  }
  // rows never used (a reserve a group did not need) are dropped; parents are re-indexed
  const used = rows.filter((r) => r.episode);
  const index = new Map(used.map((r, i) => [r.index, i]));
  const episodes = used.map((r) => r.episode!);
  for (const { branch } of episodes) if (branch && branch.parent !== null) branch.parent = index.get(branch.parent)!;
  return episodes;
}

/** the rows of the batch: one a task, then (ARPO) each group's reserve, which runs its group's task */
function batchRows(tasks: readonly AgentTask[], planner: BranchPlanner | null, branching: BranchingOptions | undefined,
  maxTokens: number): Row[] {
  if (planner && branching!.groups.length !== tasks.length) {
    throw new Error(`rollout: ${branching!.groups.length} group ids for ${tasks.length} tasks`);
  }
  const firstOfGroup = new Map<number, number>();
  branching?.groups.forEach((g, i) => { if (!firstOfGroup.has(g)) firstOfGroup.set(g, i); });
  const B = planner ? planner.rows : tasks.length;
  return Array.from({ length: B }, (_, b) => {
    const task = tasks[b < tasks.length ? b : firstOfGroup.get(planner!.rowGroup[b])!];
    const { prompt, baseDate } = taskPrompt(task);
    if (prompt.length >= maxTokens) {
      throw new Error(`rollout: prompt of ${prompt.length} tokens does not fit maxTokens ${maxTokens}`);
    }
    return { index: b, task, prompt, baseDate, episode: null, live: false, next: 0, segmentStart: 0, planStart: -1,
      observed: false, slot: b };
  });
}

/** start rows from their task's prompt: all of it but the last token by prefill; the last is the next step's input */
async function startRows(policy: RolloutPolicy, cache: RolloutCache, rows: Row[], planner: BranchPlanner | null,
  fill: boolean): Promise<void> {
  for (const row of rows) {
    const p = row.prompt;
    row.episode = {
      task: row.task, tokens: p.slice(), promptLength: p.length, lossMask: p.map(() => 0), logProbs: p.map(() => 0),
      entropies: p.map(() => 0), observationEnds: [], bans: [], steps: [], callErrors: [], toolFailures: 0,
      finish: 'max_tokens', plan: null, planError: null, answer: null, answerError: null,
      ...(planner ? { branch: { group: planner.rowGroup[row.index], parent: null, forkAt: 0, fill } } : {}),
    };
    row.next = p[p.length - 1];
    row.segmentStart = p.length;
    row.live = true;
  }
  await prefillBuckets(policy, cache, rows.map((r) => r.slot), rows.map((r) => r.prompt.slice(0, -1)));
}

/** ARPO: rows `into` continue row `src` from just after an observation (KV cache copied, then cut back) */
function forkRows(cache: RolloutCache, src: Row, point: ForkPoint, into: Row[], planner: BranchPlanner): void {
  cache.copyRows(into.map(() => src.slot), into.map((r) => r.slot));
  const e = src.episode!;
  const at = point.at;
  for (const row of into) {
    cache.truncateRow(row.slot, at - 1); // tokens[at-1] is the next step's input
    row.episode = {
      ...e, tokens: e.tokens.slice(0, at), lossMask: e.lossMask.slice(0, at), logProbs: e.logProbs.slice(0, at),
      entropies: e.entropies.slice(0, at), observationEnds: e.observationEnds.filter((x) => x <= at),
      bans: e.bans.filter((x) => x.index < at), steps: e.steps.slice(0, point.steps),
      callErrors: e.callErrors.slice(0, point.callErrors), toolFailures: point.toolFailures,
      finish: 'max_tokens', plan: null, planError: null, answer: null, answerError: null,
      branch: { group: planner.rowGroup[row.index], parent: src.index, forkAt: at, fill: false },
    };
    row.next = e.tokens[at - 1];
    row.segmentStart = at;
    row.planStart = -1;
    row.observed = true;
    row.live = true;
  }
}

/** constrained decoding: the ids each cache row may not take next (plan choices that cannot resolve) */
function constrainedBans(slots: readonly Row[]): number[][] {
  return slots.map(({ episode: e, live, planStart }) => (e && live && planStart >= 0 && e.task.kind === 'travel'
    ? unresolvableNext(e.tokens.slice(planStart), { query: e.task.query, steps: e.steps })
    : []));
}

/**
 * One decode step: the model's logits for every cache row's next token ([b, V], b = cache.batch), then one
 * sample a cache row ([b] ids, log-probs, entropies). The uniforms are drawn for all B rows of the batch,
 * finished or not, and handed to the cache rows that hold them: the samples do not depend on compaction.
 */
async function decodeStep(policy: RolloutPolicy, cache: RolloutCache, slots: readonly Row[], B: number,
  temperature: number, greedy: boolean, rng: Rng, bans: ((slots: readonly Row[]) => number[][]) | undefined,
): Promise<{ sampled: SampledTokens; banned: number[][] | undefined }> {
  const [next, live] = [slots.map((r) => r.next), slots.map((r) => r.live)];
  // the bans and the uniforms depend on the rows, not on the logits: taken first, the draws are the same
  const banned = bans?.(slots);
  const drawn = greedy ? null : Float32Array.from({ length: B }, () => rng.next());
  const uniforms = drawn ? Float32Array.from(slots, (r) => drawn[r.index]) : undefined;
  if (policy.stepAndSample) {
    return { sampled: await policy.stepAndSample(cache, next, live, { temperature, greedy, bans: banned, uniforms }),
      banned };
  }
  const logits = await policy.step(cache, next, live); // [b, V]
  try {
    return { sampled: await sampleTokens(logits, temperature, rng, greedy, banned, uniforms), banned };
  } finally {
    logits.dispose();
  }
}

/** append the token sampled for `row` (a policy token: loss mask 1) with its log-prob, entropy and bans */
function appendSample(row: Row, sampled: SampledTokens, banned: number[], planner: BranchPlanner | null): Episode {
  const e = row.episode!;
  const id = sampled.ids[row.slot];
  e.tokens.push(id);
  e.lossMask.push(1);
  e.logProbs.push(sampled.logProbs[row.slot]);
  e.entropies.push(sampled.entropies[row.slot]);
  planner?.token(row.index, sampled.entropies[row.slot], !row.observed);
  if (banned.length > 0) e.bans.push({ index: e.tokens.length - 1, ids: banned });
  if (id === ID.plan && row.planStart < 0) row.planStart = e.tokens.length - 1;
  row.next = id;
  return e;
}

/** append a tool's observation to `row` (loss mask 0); returns what the cache must take by prefill: the
 *  sampled </call> and all observation tokens but the last, which is the next step's input */
function appendObservation(row: Row, ids: number[], planner: BranchPlanner | null): number[] {
  const e = row.episode!;
  const call = row.next;
  e.tokens.push(...ids);
  for (let k = 0; k < ids.length; k++) { e.lossMask.push(0); e.logProbs.push(0); e.entropies.push(0); }
  e.observationEnds.push(e.tokens.length);
  row.segmentStart = e.tokens.length;
  row.planStart = -1;
  row.observed = true;
  planner?.observed(row.index, { at: e.tokens.length, steps: e.steps.length, callErrors: e.callErrors.length,
    toolFailures: e.toolFailures });
  row.next = ids[ids.length - 1];
  return [call, ...ids.slice(0, -1)];
}

/**
 * Once half the cache's rows have finished, move the live ones into a cache of half the size (finished
 * rows ride along, inactive, to fill it): the batch only ever takes B, B/2, B/4, …, so a backend that
 * compiles a program per shape (webgpu) meets a handful of shapes, not one per compaction. Returns the
 * cache and its slots unchanged when there is nothing to gain; else disposes of the old cache.
 */
function compact(cache: RolloutCache, slots: Row[]): { cache: RolloutCache; slots: Row[] } {
  const live = slots.filter((r) => r.live);
  const gain = live.length > 0 && live.length <= cache.batch / 2 && cache.batch > COMPACT_BELOW;
  if (!gain) return { cache, slots };
  let size = cache.batch;
  while (size / 2 >= live.length && size > COMPACT_BELOW) size = Math.ceil(size / 2);
  const keep = [...live, ...slots.filter((r) => !r.live).slice(0, size - live.length)];
  const next = cache.selectRows(keep.map((r) => r.slot));
  cache.dispose();
  for (const r of slots) r.slot = -1;
  keep.forEach((r, p) => { r.slot = p; });
  return { cache: next, slots: keep };
}

/**
 * policy.prefill pads every row to the longest (observations run from 4 to ~60 tokens), so rows of
 * very different lengths go in two calls when the padding saved outweighs a call's fixed cost (the
 * cache copies of the writes: ~2.5 tokens' worth per cache row, measured on wasm at batch 64).
 */
async function prefillBuckets(policy: RolloutPolicy, cache: RolloutCache, rows: number[], tokens: number[][],
): Promise<void> {
  const order = rows.map((_, i) => i).sort((a, b) => tokens[b].length - tokens[a].length);
  const len = (k: number) => tokens[order[k]].length;
  const callCost = 2.5 * cache.batch;
  let best = { split: order.length, cost: order.length * len(0) };
  for (let k = 1; k < order.length; k++) {
    const cost = k * len(0) + (order.length - k) * len(k) + callCost;
    if (cost < best.cost) best = { split: k, cost };
  }
  for (const part of [order.slice(0, best.split), order.slice(best.split)]) {
    if (part.length > 0) await policy.prefill(cache, part.map((i) => rows[i]), part.map((i) => tokens[i]));
  }
}
