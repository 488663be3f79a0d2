// What an SFT checkpoint's card records about how the policy scores: the aggregate figures
// of a greedy evaluation, and per-query verdicts on a fixed handful of validation queries that a test
// re-derives from the shipped weights (greedy decoding on `wasm` is deterministic, so they must match).
import type { Query, Verdicts, World } from '../env/types.ts';
import { evaluatePolicy, type PolicyEvaluation } from '../agent/evaluatePolicy.ts';
import type { Policy } from '../model/transformer.ts';
import type { EvaluationFigures, QueryVerdict } from './checkpointFiles.ts';

/** how many validation queries the card's verdict check rolls out, in one batch */
export const VERDICT_CHECK_QUERIES = 6;

export function evaluationFigures(e: PolicyEvaluation): EvaluationFigures {
  return {
    queries: e.queries,
    toolQaTasks: e.toolQaTasks,
    delivery: e.deliveryRate,
    success: e.success,
    commonsenseMicro: e.commonsenseMicro,
    commonsenseMacro: e.commonsenseMacro,
    hardMicro: e.hardMicro,
    hardMacro: e.hardMacro,
    oodAccuracy: e.oodAccuracy,
    callParseRate: e.callParseRate,
    meanCalls: e.meanCalls,
    meanTokens: e.meanTokens,
  };
}

export function queryId(q: Query, index: number): string {
  return `${index}:${q.org}->${q.dest}:${q.days}d:${q.level}`;
}

/** the names of the checks a delivered plan failed (commonsense, then hard) */
export function failedChecks(v: Verdicts): string[] {
  if (!v.delivered) return [];
  const out: string[] = [];
  for (const [k, r] of Object.entries(v.commonsense)) if (r.pass === false) out.push(k);
  for (const [k, r] of Object.entries(v.hard ?? {})) if (r.pass === false) out.push(k);
  return out;
}

/** how often each check fails among `verdicts`' delivered plans, and how often it is the only one failed */
export interface FailedCheckCount {
  check: string;
  /** plans that failed it */
  failed: number;
  /** plans that failed it and nothing else: what fixing this one check alone would turn into successes */
  soleCause: number;
}

/**
 * Which checks keep delivered plans from succeeding, most failed first (ties by name). Read beside the
 * success rate, it says what an RL run changed: e.g. whether it fixed one check at the cost of another.
 */
export function failedCheckCounts(verdicts: readonly Verdicts[]): FailedCheckCount[] {
  const counts = new Map<string, FailedCheckCount>();
  for (const v of verdicts) {
    const failed = failedChecks(v);
    for (const check of failed) {
      const c = counts.get(check) ?? { check, failed: 0, soleCause: 0 };
      c.failed += 1;
      if (failed.length === 1) c.soleCause += 1;
      counts.set(check, c);
    }
  }
  return [...counts.values()].sort((a, b) => b.failed - a.failed || a.check.localeCompare(b.check));
}

export function queryVerdicts(e: PolicyEvaluation, queries: readonly Query[]): QueryVerdict[] {
  const travel = e.episodes.filter((ep) => ep.task.kind === 'travel');
  return e.verdicts.map((v, i) => ({
    id: queryId(queries[i], i), delivered: v.delivered, success: v.finalPass, failed: failedChecks(v),
    tokens: travel[i].tokens.length, calls: travel[i].steps.length + travel[i].callErrors.length,
  }));
}

/** The card's verdict check: the first VERDICT_CHECK_QUERIES validation queries, greedy, one batch. */
export async function verdictCheck(
  policy: Policy,
  world: World,
  validation: readonly Query[],
  constrainPlan = false,
): Promise<QueryVerdict[]> {
  const queries = validation.slice(0, VERDICT_CHECK_QUERIES);
  const e = await evaluatePolicy(policy, world, queries, [], { batchSize: queries.length, seed: 0, constrainPlan });
  return queryVerdicts(e, queries);
}
