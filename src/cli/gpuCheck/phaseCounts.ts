// Where a webgpu RL step's dispatches go, phase by phase. The rollouts' and the update's totals come from the
// clock (measure.ts); this splits them further by wrapping the calls a phase is made of and counting the
// dispatches (Dawn's dispatchWorkgroups: DawnCounters) that happen inside each: a rollout's prefills
// (Policy.prefill) and decode steps (Policy.step), the update's forward passes (Policy.logProbsAt, the
// reference's too) and optimizer steps (AdamW.apply). What is left in a phase is its own remainder: the
// rollouts' sampling and cache compaction, the update's backward pass, loss and gradient sums and norms.
import { Policy } from '../../model/transformer.ts';
import { AdamW } from '../../rl/optimizer.ts';
import type { DawnCounters } from './decodeProbe.ts';
import type { PhaseCounts } from './figures.ts';

type Part = 'prefill' | 'decode' | 'forward' | 'optimizer';

export const emptyPhaseCounts = (): PhaseCounts => ({ prefill: 0, prefillCalls: 0, decode: 0, decodeCalls: 0,
  forward: 0, forwardCalls: 0, optimizer: 0, optimizerCalls: 0 });

type State = { counts: PhaseCounts; counters: DawnCounters | null };
let installed: State | null = null;

/**
 * Wraps the calls once (later calls return the same state, counting into `counters` from then on); `counts` is
 * reset by the caller between steps.
 * Without Dawn's counters (wasm) only the calls are counted: a step's shape, to scale a webgpu count by.
 * A call inside another counted call (none today) is counted in the outer one only.
 */
export function installPhaseCounts(counters: DawnCounters | null): State {
  if (installed) {
    installed.counters = counters;
    return installed;
  }
  const state: State = { counts: emptyPhaseCounts(), counters };
  let depth = 0;
  const wrap = <T extends object>(proto: T, method: keyof T & string, part: Part) => {
    const original = proto[method] as unknown as (...a: unknown[]) => unknown;
    (proto as Record<string, unknown>)[method] = function (this: unknown, ...args: unknown[]) {
      if (depth > 0) return original.apply(this, args);
      const before = state.counters?.dispatchTimes.length ?? 0;
      depth++;
      try {
        return original.apply(this, args);
      } finally {
        depth--;
        state.counts[part] += (state.counters?.dispatchTimes.length ?? 0) - before;
        state.counts[`${part}Calls`]++;
      }
    };
  };
  wrap(Policy.prototype, 'prefill', 'prefill');
  wrap(Policy.prototype, 'step', 'decode');
  wrap(Policy.prototype, 'logProbsAt', 'forward');
  wrap(AdamW.prototype, 'apply', 'optimizer');
  installed = state;
  return state;
}
