// Evaluation of a policy: roll out every validation query and
// tool-QA task, score delivered plans with the TravelPlanner evaluator and answers with the tool-QA
// scorer. Greedy by default (one rollout per task); with `samples` k, each task is rolled out k times
// at `temperature` and every rate is the mean over all k·n rollouts (pass@1 averaged over the samples),
// with each query's own success rate kept for an interval that treats its k samples as one cluster.
import type { Query, Verdicts, World } from '../env/types.ts';
import { Rng } from '../env/random.ts';
import { aggregateMetrics, evaluatePlan } from '../env/evaluate.ts';
import type { Policy } from '../model/transformer.ts';
import { rollout } from './rollout.ts';
import { type AgentTask, type Episode } from './episode.ts';
import { scoreToolQa, type ToolQaTask } from './toolqaCodec.ts';

export interface PolicyEvaluation {
  queries: number;
  toolQaTasks: number;
  /** fraction of queries with a plan that parsed (TravelPlanner's delivery rate) */
  deliveryRate: number;
  /** fraction of all generated calls that parsed */
  callParseRate: number;
  /** fraction of episodes that ended with a plan/answer that decoded (travel + tool-QA) */
  parseRate: number;
  commonsenseMicro: number;
  commonsenseMacro: number;
  hardMicro: number;
  hardMacro: number;
  /** final pass rate (sampled: over every sample) */
  success: number;
  /** rollouts per task: 1 greedy, k sampled */
  samplesPerTask: number;
  /** each query's success over its samples (greedy: 0 or 1), in query order */
  querySuccess: number[];
  /** tool-QA accuracy (the OOD suite); NaN when no tasks were given */
  oodAccuracy: number;
  meanTokens: number;
  meanCalls: number;
  /** why undelivered plans failed, most common first */
  failureReasons: [string, number][];
  /** one per travel rollout: query-major (the k samples of query i at i·k … i·k + k − 1) */
  verdicts: Verdicts[];
  /** travel rollouts (query-major, as verdicts), then tool-QA rollouts */
  episodes: Episode[];
}

export interface EvaluateOptions {
  batchSize?: number; // default 64
  maxTurns?: number;
  maxTokens?: number;
  failureRate?: number; // default 0
  seed?: number; // tool-failure draws
  /** grammar-constrained plans (RolloutOptions.constrainPlan), default false */
  constrainPlan?: boolean;
  /** sampled mode: rollouts per task drawn at `temperature` (default 0: one greedy rollout per task) */
  samples?: number;
  /** sampling temperature of the sampled mode (default 1; the RL config's training temperature) */
  temperature?: number;
  /** RolloutOptions.pause, counted over the whole evaluation's rollouts */
  pause?: (finished: number, rollouts: number) => Promise<void> | void;
}

export async function evaluatePolicy(
  policy: Policy,
  world: World,
  queries: readonly Query[],
  toolQaTasks: readonly ToolQaTask[],
  opts: EvaluateOptions = {},
): Promise<PolicyEvaluation> {
  const batch = opts.batchSize ?? 64;
  const samples = opts.samples ?? 0;
  if (!Number.isInteger(samples) || samples < 0)
    throw new Error(`evaluatePolicy: samples must be a non-negative integer, got ${samples}`);
  const k = Math.max(1, samples);
  const rng = new Rng(opts.seed ?? 0);
  const tasks: AgentTask[] = [
    ...queries.map((query) => ({ kind: 'travel', query }) as const),
    ...toolQaTasks.map((qa) => ({ kind: 'toolqa', qa }) as const),
  ].flatMap((task) => Array.from({ length: k }, () => task));
  const episodes: Episode[] = [];
  for (let i = 0; i < tasks.length; i += batch) {
    episodes.push(
      ...(await rollout(policy, tasks.slice(i, i + batch), {
        world,
        greedy: samples === 0,
        temperature: opts.temperature,
        maxTurns: opts.maxTurns,
        maxTokens: opts.maxTokens,
        failureRate: opts.failureRate ?? 0,
        constrainPlan: opts.constrainPlan,
        rng,
        ...(opts.pause ? { pause: (done: number) => opts.pause!(i + done, tasks.length) } : {}),
      })),
    );
  }
  const travel = episodes.filter((e) => e.task.kind === 'travel');
  const qa = episodes.filter((e) => e.task.kind === 'toolqa');
  const verdicts = travel.map((e) => evaluatePlan(world, (e.task as { query: Query }).query, e.plan));
  const m = aggregateMetrics(verdicts);
  const querySuccess = queries.map((_, i) => verdicts.slice(i * k, i * k + k).filter((v) => v.finalPass).length / k);
  const reasons = new Map<string, number>();
  for (const e of travel)
    if (!e.plan) {
      const r = (e.planError ?? 'unknown').replace(/#\d+|day \d+|\d+/g, (x) =>
        x.startsWith('#') ? '#k' : x.startsWith('day') ? 'day N' : 'N',
      );
      reasons.set(r, (reasons.get(r) ?? 0) + 1);
    }
  const calls = episodes.reduce((s, e) => s + e.steps.length + e.callErrors.length, 0);
  const parsedCalls = episodes.reduce((s, e) => s + e.steps.length, 0);
  const correct = qa.reduce((s, e) => s + scoreToolQa((e.task as { qa: ToolQaTask }).qa, e.answer), 0);
  return {
    queries: queries.length,
    toolQaTasks: toolQaTasks.length,
    deliveryRate: travel.length ? travel.filter((e) => e.plan).length / travel.length : NaN,
    callParseRate: calls ? parsedCalls / calls : 1,
    parseRate: episodes.length ? episodes.filter((e) => e.plan || e.answer !== null).length / episodes.length : NaN,
    commonsenseMicro: m.commonsenseMicro,
    commonsenseMacro: m.commonsenseMacro,
    hardMicro: m.hardMicro,
    hardMacro: m.hardMacro,
    success: m.finalPass,
    samplesPerTask: k,
    querySuccess,
    oodAccuracy: qa.length ? correct / qa.length : NaN,
    meanTokens: episodes.reduce((s, e) => s + e.tokens.length, 0) / Math.max(1, episodes.length),
    meanCalls: calls / Math.max(1, episodes.length),
    failureReasons: [...reasons.entries()].sort((a, b) => b[1] - a[1]),
    verdicts,
    episodes,
  };
}
