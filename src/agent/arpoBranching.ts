// ARPO's entropy-based adaptive rollout (Dong et al. 2025, arXiv 2507.19849 §3.2), the bookkeeping
// half: which rows of a rollout batch belong to which query's group, the group's budget M, the
// entropy each rollout started with, and — k policy tokens after each tool observation — whether to
// branch Z new partial rollouts from that observation's end, with probability clip(α + β·ΔH, 0, 1).
// The rollout loop (rollout.ts) does the forking itself, by copying the row's KV cache (no recompute
// of the shared prefix). No tfjs here.
import type { Rng } from '../env/random.ts';

/** ARPO's branching probability after a tool observation: clip(α + β·ΔH, 0, 1). */
export function arpoBranchProbability(deltaH: number, alpha: number, beta: number): number {
  return Math.min(1, Math.max(0, alpha + beta * deltaH));
}

/**
 * ARPO's entropy change ΔH: the mean entropy (nats) of the k tokens after an observation minus that of
 * the first k tokens of the rollout — the raw difference, as ARPO's reference rollout code computes it
 * (`entropy_now - entropy_init`, then `random() - entropy_weight * delta` against the branch
 * probability). An earlier version divided by ln V, which squeezed ΔH into ±0.2 and left the branch
 * probability at α ± 0.01: a coin flip that did not respond to the entropy rise.
 */
export function arpoEntropyDelta(afterObservation: readonly number[], initial: readonly number[]): number {
  const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  return mean(afterObservation) - mean(initial);
}

export interface BranchingOptions {
  /** the group (query) of each task passed to rollout(); those tasks are the N rollouts started from the prompt */
  groups: readonly number[];
  /** M: rollouts per group in all (from the prompt, branched, and fills) */
  budget: number;
  /** k: policy tokens after an observation whose entropy is compared with the rollout's first k */
  k: number;
  /** α: base branching probability */
  alpha: number;
  /** β: weight of the entropy rise ΔH */
  beta: number;
  /** Z: partial rollouts branched at a triggering observation */
  branches: number;
}

/** where an episode stood right after an observation: what a branch from there inherits */
export interface ForkPoint {
  /** token index of the first position after the observation */
  at: number;
  steps: number;
  callErrors: number;
  toolFailures: number;
}

interface Window {
  point: ForkPoint;
  entropies: number[];
}

export class BranchPlanner {
  /** rows of the batch: the tasks' rows first, then each group's reserve */
  readonly rows: number;
  readonly rowGroup: number[];
  /** rows reserved for each group's branches and fills, not yet used */
  private readonly reserve = new Map<number, number[]>();
  private readonly initialEntropy: (number[] | null)[];
  private readonly window: (Window | null)[];
  /** rollouts started per group */
  readonly started = new Map<number, number>();
  branchesMade = 0;
  fillsMade = 0;
  /** ΔH of every decision, for the metrics */
  readonly deltas: number[] = [];

  constructor(readonly o: BranchingOptions) {
    if (!(Number.isInteger(o.budget) && o.budget >= 1))
      throw new Error(`ARPO: budget M must be a positive integer, got ${o.budget}`);
    if (!(Number.isInteger(o.k) && o.k >= 1)) throw new Error(`ARPO: k must be a positive integer, got ${o.k}`);
    if (!(Number.isInteger(o.branches) && o.branches >= 1))
      throw new Error(`ARPO: Z must be a positive integer, got ${o.branches}`);
    const perGroup = new Map<number, number>();
    for (const g of o.groups) perGroup.set(g, (perGroup.get(g) ?? 0) + 1);
    this.rowGroup = [...o.groups];
    for (const [g, n] of perGroup) {
      if (n > o.budget) throw new Error(`ARPO: group ${g} starts ${n} rollouts, more than its budget M = ${o.budget}`);
      this.started.set(g, n);
      const rows: number[] = [];
      for (let i = n; i < o.budget; i++) { rows.push(this.rowGroup.length); this.rowGroup.push(g); }
      this.reserve.set(g, rows);
    }
    this.rows = this.rowGroup.length;
    this.initialEntropy = new Array(this.rows).fill(null);
    this.window = new Array(this.rows).fill(null);
  }

  /** a policy token with its entropy was appended to `row`; `beforeFirstObservation` while the row has seen no tool
   * result */
  token(row: number, entropy: number, beforeFirstObservation: boolean): void {
    if (beforeFirstObservation) {
      const h = (this.initialEntropy[row] ??= []);
      if (h.length < this.o.k) h.push(entropy);
    }
    this.window[row]?.entropies.push(entropy);
  }

  /** an observation ended at `point.at` on `row`: measure the next k tokens from here */
  observed(row: number, point: ForkPoint): void {
    this.window[row] = { point, entropies: [] };
  }

  /**
   * Whether `row` branches now: when its window holds k tokens, or `ending` (the row stops or meets its
   * next observation first) with at least one. Returns the reserve rows to fork into (possibly none)
   * and the fork point; the caller copies the row's state into them.
   */
  decide(row: number, rng: Rng, ending: boolean): { point: ForkPoint; into: number[] } | null {
    const w = this.window[row];
    if (!w || (w.entropies.length < this.o.k && !(ending && w.entropies.length > 0))) return null;
    this.window[row] = null;
    const g = this.rowGroup[row];
    const deltaH = arpoEntropyDelta(w.entropies, this.initialEntropy[row] ?? []);
    this.deltas.push(deltaH);
    const p = arpoBranchProbability(deltaH, this.o.alpha, this.o.beta);
    if (!(rng.next() < p)) return null;
    const free = this.reserve.get(g)!;
    const into = free.splice(0, Math.min(this.o.branches, free.length));
    for (const r of into) this.initialEntropy[r] = this.initialEntropy[row]?.slice() ?? [];
    this.started.set(g, this.started.get(g)! + into.length);
    this.branchesMade += into.length;
    return into.length ? { point: w.point, into } : null;
  }

  /** the row stopped: drop its pending window */
  finished(row: number): void {
    this.window[row] = null;
  }

  /** rows to start from the prompt for groups with nothing left running and budget unspent */
  fills(activeRows: readonly boolean[]): number[] {
    const running = new Set<number>();
    activeRows.forEach((a, r) => { if (a) running.add(this.rowGroup[r]); });
    const out: number[] = [];
    for (const [g, free] of this.reserve) {
      if (running.has(g) || free.length === 0) continue;
      out.push(...free.splice(0));
      this.started.set(g, this.o.budget);
    }
    this.fillsMade += out.length;
    return out;
  }
}
