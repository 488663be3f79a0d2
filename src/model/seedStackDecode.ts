// S seeds' rollouts decoding in one program: S views of a SeedStackedPolicy, one a seed, each a policy for
// rollout() (agent/rollout.ts) over its seed's rows. Each seed runs its own rollout() with its own Rng;
// a view's step() waits until every seed still rolling out has called step (a seed whose rollout ended, or has
// not begun, is not waited for), then ONE stacked decode step (seedStack.ts step(): seeds as rows) runs
// for all of them and each view gets its rows' logits. A seed's episodes are its separate run's exactly: a
// row's logits do not depend on the other rows of a decode step (checked in test/rl/seedStackStep.test.ts).
//
// The cache is one KVCache of S·R rows, seed s's block at s·R .. s·R + R − 1 (seedStack.ts's layout). A view's
// cache (SeedCache) is a list of slots in its seed's block, so ARPO's copyRows/truncateRow/resetRows map
// onto the stacked cache, and compaction (selectRows) only renames slots: it copies nothing. When every
// seed holds at most half of R slots the stacked cache moves into R/2 rows a seed (one gather), so a step
// costs what is still running; when a seed needs more slots than R it grows the same way.
//
// A prefill waits at the same barrier: once every seed still rolling out waits, the seeds that asked for a prefill
// are prefilled together (the decode steps asked for wait for the next round). On webgpu that is one pass of the
// fused kernels for all of them (SeedStackedPolicy.prefillRows: each seed's rows a block of the same padded
// shape, which costs a GPU arithmetic, not dispatches); elsewhere each seed's rows go through its own Policy (its
// weights equal the stack's seed), where padding every seed to the longest would cost real time.
import * as tf from '@tensorflow/tfjs';
import type { KVCache } from './kvcache.ts';
import type { ModelConfig } from './config.ts';
import type { Policy } from './transformer.ts';
import type { SeedStackedPolicy } from './seedStack.ts';
import { sampleTokens, type RowSampling, type SampledTokens } from './sampling.ts';

/** blocks this small are not shrunk further (as rollout's compaction) */
const SHRINK_BELOW = 4;

/** one seed's cache in the stacked one: local row p is stacked row s·R + slots[p] */
export class SeedCache {
  readonly maxLen: number;
  disposed = false;
  constructor(private readonly owner: SeedStackDecoder, readonly seed: number, public slots: number[], maxLen: number) {
    this.maxLen = maxLen;
  }

  get batch(): number {
    return this.slots.length;
  }

  /** the stacked cache's row of local row p */
  stackedRow(p: number): number {
    if (this.disposed) throw new Error('SeedCache: used after dispose');
    if (!Number.isInteger(p) || p < 0 || p >= this.slots.length) {
      throw new Error(`SeedCache: row ${p} outside [0, ${this.slots.length})`);
    }
    return this.owner.rowOf(this.seed, this.slots[p]);
  }

  lengthOf(p: number): number {
    return this.owner.stacked().lengthOf(this.stackedRow(p));
  }

  copyRows(src: readonly number[], dst: readonly number[]): void {
    if (src.length !== dst.length) throw new Error('SeedCache.copyRows: src and dst differ in length');
    this.owner.stacked().copyRows(src.map((p) => this.stackedRow(p)), dst.map((p) => this.stackedRow(p)));
  }

  truncateRow(p: number, length: number): void {
    this.owner.stacked().truncateRow(this.stackedRow(p), length);
  }

  resetRows(rows: readonly number[]): void {
    this.owner.stacked().resetRows(rows.map((p) => this.stackedRow(p)));
  }

  /** a cache of rows `rows` in that order: the same slots renamed (this one gives them up) */
  selectRows(rows: readonly number[]): SeedCache {
    rows.forEach((p) => this.stackedRow(p));
    if (new Set(rows).size !== rows.length) throw new Error('SeedCache.selectRows: a row appears twice');
    return this.owner.rename(this, rows);
  }

  dispose(): void {
    if (this.disposed) return;
    this.owner.release(this);
  }
}

interface PendingStep {
  kind: 'step';
  cache: SeedCache;
  tokens: readonly number[];
  active: readonly boolean[];
  /** null: the view's step (answered with its rows' logits); else stepAndSample (answered with the samples) */
  sampling: RowSampling | null;
  resolve: (answer: tf.Tensor2D | SampledTokens) => void;
  reject: (e: unknown) => void;
}

interface PendingPrefill {
  kind: 'prefill';
  cache: SeedCache;
  /** the seed cache's rows and each one's tokens */
  rows: readonly number[];
  tokens: readonly (readonly number[])[];
  resolve: () => void;
  reject: (e: unknown) => void;
}

type Pending = PendingStep | PendingPrefill;

/** seed s's policy for rollout(): its rows of the stacked decode */
export class SeedDecodeView {
  constructor(private readonly owner: SeedStackDecoder, readonly seed: number) {}

  get config(): ModelConfig {
    return this.owner.stack.config;
  }

  newCache(batch: number, maxLen = this.config.contextLength): SeedCache {
    return this.owner.open(this.seed, batch, maxLen);
  }

  step(cache: SeedCache, lastTokens: readonly number[], active?: readonly boolean[]): Promise<tf.Tensor2D> {
    return this.owner.request(this.seed, cache, lastTokens, active ?? lastTokens.map(() => true), null) as
      Promise<tf.Tensor2D>;
  }

  /** step() and sampleTokens() in one: the seeds' rows are sampled together and read back once */
  stepAndSample(cache: SeedCache, lastTokens: readonly number[], active: readonly boolean[], sampling: RowSampling):
    Promise<SampledTokens> {
    return this.owner.request(this.seed, cache, lastTokens, active, sampling) as Promise<SampledTokens>;
  }

  prefill(cache: SeedCache, rows: readonly number[], tokens: readonly (readonly number[])[]): Promise<void> {
    return this.owner.requestPrefill(this.seed, cache, rows, tokens);
  }
}

export class SeedStackDecoder {
  readonly views: SeedDecodeView[];
  /** decode steps run, and the seed-steps they served (a seed-step: one seed's rollout stepped once); prefill
   *  rounds run, and the seeds' prefills they served */
  readonly counts = { steps: 0, seedSteps: 0, prefills: 0, seedPrefills: 0 };
  /** called before seed s's own Policy is used (a prefill off webgpu): a trainer brings its weights up to date */
  beforePolicyUse: ((seed: number) => void) | null = null;
  private cache: KVCache | null = null;
  private R = 0;
  private readonly open_: Set<SeedCache>[];
  private readonly pending: (Pending | null)[];

  /** `policies[s]` holds seed s's weights (equal to the stack's seed s: it prefills seed s's rows) */
  constructor(readonly stack: SeedStackedPolicy, readonly policies: readonly Policy[]) {
    if (policies.length !== stack.seeds) {
      throw new Error(`SeedStackDecoder: ${policies.length} policies for ${stack.seeds} seeds`);
    }
    this.views = policies.map((_, s) => new SeedDecodeView(this, s));
    this.open_ = policies.map(() => new Set());
    this.pending = policies.map(() => null);
  }

  stacked(): KVCache {
    if (!this.cache) throw new Error('SeedStackDecoder: no cache open');
    return this.cache;
  }

  rowOf(seed: number, slot: number): number {
    return seed * this.R + slot;
  }

  checkOwn(seed: number, cache: SeedCache): void {
    if (cache.seed !== seed || !this.open_[seed].has(cache)) {
      throw new Error(`SeedStackDecoder: not an open cache of seed ${seed}`);
    }
  }

  /** a fresh cache of `batch` empty rows for seed s (the block grows when its free slots are too few) */
  open(seed: number, batch: number, maxLen: number): SeedCache {
    if (!Number.isInteger(batch) || batch < 1) {
      throw new Error(`SeedStackDecoder: batch must be a positive integer, got ${batch}`);
    }
    const L = this.stack.config.contextLength;
    if (maxLen > L) throw new Error(`SeedStackDecoder.newCache: maxLen ${maxLen} > context ${L}`);
    const held = this.held()[seed];
    if (held + batch > this.R) this.relayout(this.blockSize(Math.max(...this.held(), held + batch)));
    const used = new Set([...this.open_[seed]].flatMap((c) => c.slots));
    const free = Array.from({ length: this.R }, (_, k) => k).filter((k) => !used.has(k)).slice(0, batch);
    const c = new SeedCache(this, seed, free, maxLen);
    this.open_[seed].add(c);
    this.stacked().resetRows(free.map((k) => this.rowOf(seed, k)));
    return c;
  }

  rename(from: SeedCache, rows: readonly number[]): SeedCache {
    this.checkOwn(from.seed, from);
    const c = new SeedCache(this, from.seed, rows.map((p) => from.slots[p]), from.maxLen);
    const kept = new Set(c.slots);
    from.slots = from.slots.filter((k) => !kept.has(k));
    this.open_[from.seed].add(c);
    return c;
  }

  release(c: SeedCache): void {
    c.disposed = true;
    this.open_[c.seed].delete(c);
    if (this.open_.every((o) => o.size === 0)) {
      this.cache?.dispose();
      this.cache = null;
      this.R = 0;
    }
    this.maybeRun(); // a seed that leaves may be the one the others waited for
  }

  request(seed: number, cache: SeedCache, tokens: readonly number[], active: readonly boolean[],
    sampling: RowSampling | null): Promise<tf.Tensor2D | SampledTokens> {
    this.checkOwn(seed, cache);
    if (tokens.length !== cache.batch || active.length !== cache.batch) {
      throw new Error(`SeedDecodeView.step: ${tokens.length} tokens for a batch of ${cache.batch}`);
    }
    const full = active.findIndex((a, p) => a && cache.lengthOf(p) + 1 > cache.maxLen);
    if (full >= 0) {
      throw new Error(`SeedDecodeView.step: row ${full} already holds its cache's maxLen (mark it inactive)`);
    }
    if (this.pending[seed]) throw new Error(`SeedDecodeView.step: seed ${seed} already waits`);
    return new Promise((resolve, reject) => {
      this.pending[seed] = { kind: 'step', cache, tokens, active, sampling, resolve, reject };
      this.maybeRun();
    });
  }

  requestPrefill(seed: number, cache: SeedCache, rows: readonly number[], tokens: readonly (readonly number[])[]):
    Promise<void> {
    this.checkOwn(seed, cache);
    if (rows.length !== tokens.length) throw new Error('SeedDecodeView.prefill: rows and tokens differ in length');
    rows.forEach((p) => cache.stackedRow(p));
    if (this.pending[seed]) throw new Error(`SeedDecodeView.prefill: seed ${seed} already waits`);
    return new Promise((resolve, reject) => {
      this.pending[seed] = { kind: 'prefill', cache, rows, tokens, resolve, reject };
      this.maybeRun();
    });
  }

  /** slots held a seed */
  private held(): number[] {
    return this.open_.map((o) => [...o].reduce((n, c) => n + c.batch, 0));
  }

  /** R for blocks of `need` slots: a power-of-two fraction of the current R when shrinking (few shapes) */
  private blockSize(need: number): number {
    if (need > this.R) return need;
    let size = this.R;
    while (size / 2 >= need && size > SHRINK_BELOW) size = Math.ceil(size / 2);
    return size;
  }

  /** move the stacked cache into blocks of R' rows, each seed's held slots first (renumbered 0, 1, …) */
  private relayout(R: number): void {
    const S = this.stack.seeds;
    if (!this.cache) {
      this.cache = this.stack.newCache(R, this.stack.config.contextLength);
      this.R = R;
      return;
    }
    const src: number[] = [];
    const fresh: number[] = [];
    const moves: [SeedCache, number[]][] = [];
    for (let s = 0; s < S; s++) {
      for (const c of this.open_[s]) {
        moves.push([c, c.slots.map((k) => { src.push(this.rowOf(s, k)); return src.length - 1 - s * R; })]);
      }
      while (src.length < (s + 1) * R) { fresh.push(src.length); src.push(0); }
    }
    const next = this.cache.selectRows(src);
    next.resetRows(fresh);
    this.cache.dispose();
    this.cache = next;
    this.R = R;
    for (const [c, slots] of moves) c.slots = slots;
  }

  /** once every seed with an open cache waits: the prefills asked for, together (the steps wait on); else one
   *  stacked decode step */
  private maybeRun(): void {
    const waiting = this.pending.filter((p) => p !== null).length;
    if (waiting === 0 || this.open_.some((o, s) => o.size > 0 && !this.pending[s])) return;
    if (this.pending.some((p) => p?.kind === 'prefill')) this.runPrefills();
    else void this.runStep(waiting); // it answers (or rejects) each seed itself
  }

  private runPrefills(): void {
    const run = this.pending.map((p) => (p?.kind === 'prefill' ? p : null));
    run.forEach((p, s) => { if (p) this.pending[s] = null; });
    try {
      const cache = this.stacked();
      const perSeed = run.map((p) => p && { rows: p.rows.map((k) => p.cache.stackedRow(k)), tokens: p.tokens });
      if (!this.stack.prefillRows(cache, perSeed)) {
        perSeed.forEach((e, s) => {
          if (!e) return;
          this.beforePolicyUse?.(s);
          this.policies[s].prefill(cache, e.rows, e.tokens);
        });
      }
      this.counts.prefills++;
      this.counts.seedPrefills += perSeed.filter((e) => e).length;
      for (const p of run) p?.resolve();
    } catch (e) {
      for (const p of run) p?.reject(e);
    }
  }

  private async runStep(waiting: number): Promise<void> {
    const run = this.pending.slice() as (PendingStep | null)[];
    this.pending.fill(null);
    let logits: tf.Tensor2D | null = null;
    try {
      const R = this.blockSize(Math.max(...this.held()));
      if (R < this.R) this.relayout(R);
      const cache = this.stacked();
      const ids = new Array<number>(cache.batch).fill(0);
      const on = new Array<boolean>(cache.batch).fill(false);
      const rowsOf = run.map((p) => p?.cache.slots.map((_, k) => p.cache.stackedRow(k)) ?? []);
      run.forEach((p, s) => p?.tokens.forEach((t, k) => { ids[rowsOf[s][k]] = t; on[rowsOf[s][k]] = p.active[k]; }));
      logits = this.stack.step(cache, ids, on); // [S·R, V]
      this.counts.steps++;
      this.counts.seedSteps += waiting;
      const sampling = run.filter((p) => p?.sampling).map((p) => p!.sampling!);
      const together = sampling.length > 0 && sampling.every((x) =>
        x.temperature === sampling[0].temperature && x.greedy === sampling[0].greedy);
      // every seed that samples with the same temperature: their rows sampled in one program, read back once
      const all = together ? await sampleAll(logits, run, rowsOf) : null;
      for (const [s, p] of run.entries()) {
        if (!p) continue;
        if (all && p.sampling) p.resolve(pick(all, rowsOf[s]));
        else if (p.sampling) {
          const mine = gatherRows(logits, rowsOf[s]);
          try {
            const x = p.sampling;
            p.resolve(await sampleTokens(mine, x.temperature, null, x.greedy, x.bans, x.uniforms));
          } finally {
            mine.dispose();
          }
        } else p.resolve(gatherRows(logits, rowsOf[s]));
      }
    } catch (e) {
      for (const p of run) p?.reject(e);
    } finally {
      logits?.dispose();
    }
  }
}

/** the samples of every sampling seed's rows of the stacked logits in one sampleTokens (rows of no sampling seed
 *  draw with uniform 0 and are dropped) */
async function sampleAll(logits: tf.Tensor2D, run: readonly (PendingStep | null)[], rowsOf: readonly number[][]):
  Promise<SampledTokens> {
  const B = logits.shape[0];
  const first = run.find((p) => p?.sampling)!.sampling!;
  const uniforms = first.greedy ? undefined : new Float32Array(B);
  const bans: (readonly number[])[] = Array.from({ length: B }, () => []);
  run.forEach((p, s) => {
    if (!p?.sampling) return;
    rowsOf[s].forEach((j, k) => {
      if (uniforms) uniforms[j] = p.sampling!.uniforms![k];
      bans[j] = p.sampling!.bans?.[k] ?? [];
    });
  });
  return sampleTokens(logits, first.temperature, null, first.greedy, bans, uniforms);
}

/** rows `rows` of stacked samples */
function pick(all: SampledTokens, rows: readonly number[]): SampledTokens {
  return {
    ids: Int32Array.from(rows, (j) => all.ids[j]),
    logProbs: Float32Array.from(rows, (j) => all.logProbs[j]),
    entropies: Float32Array.from(rows, (j) => all.entropies[j]),
  };
}

/** rows of [S·R, V] logits → [rows, V] */
function gatherRows(logits: tf.Tensor2D, rows: readonly number[]): tf.Tensor2D {
  return tf.tidy(() => tf.gather(logits, tf.tensor1d(Int32Array.from(rows), 'int32')));
}
