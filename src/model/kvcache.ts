// The per-row KV cache of incremental decoding, and how fresh keys/values are written into it.
import * as tf from '@tensorflow/tfjs';
import type { ModelConfig } from './config.ts';
import { takeRows } from './ops.ts';
import { writableInPlace, writeRowsInPlace } from './kernels/inPlaceRows.ts';

/**
 * Keys and values of every layer for `batch` rows, [B, H, capacity, hd] each, plus each row's length.
 * Rows fill independently (row b occupies slots 0..length(b)-1); capacity grows in chunks of 64 up to
 * maxLen as the longest row needs it, so attention costs what the longest row holds, not maxLen.
 */
export class KVCache {
  readonly batch: number;
  readonly maxLen: number;
  keys: tf.Tensor4D[];
  values: tf.Tensor4D[];
  private lengths: number[];
  private readonly config: ModelConfig;

  constructor(config: ModelConfig, batch: number, maxLen: number) {
    if (!Number.isInteger(batch) || batch < 1)
      throw new Error(`KVCache: batch must be a positive integer, got ${batch}`);
    this.config = config;
    this.batch = batch;
    this.maxLen = maxLen;
    this.lengths = new Array<number>(batch).fill(0);
    const shape: [number, number, number, number] = [batch, config.nHeads, 0, config.dModel / config.nHeads];
    this.keys = Array.from({ length: config.nLayers }, () => tf.zeros(shape) as tf.Tensor4D);
    this.values = Array.from({ length: config.nLayers }, () => tf.zeros(shape) as tf.Tensor4D);
  }

  get capacity(): number {
    return this.keys[0]?.shape[2] ?? 0;
  }

  lengthOf(row: number): number {
    if (!Number.isInteger(row) || row < 0 || row >= this.batch)
      throw new Error(`KVCache: row ${row} outside [0, ${this.batch})`);
    return this.lengths[row];
  }

  /** the tokens held per row */
  rowLengths(): number[] {
    return this.lengths.slice();
  }

  /** grow capacity to hold `needed` slots */
  reserve(needed: number): void {
    if (needed > this.maxLen)
      throw new Error(`KVCache: a row would hold ${needed} tokens, more than maxLen ${this.maxLen}`);
    if (needed <= this.capacity) return;
    const cap = Math.min(this.maxLen, Math.ceil(needed / 64) * 64);
    const grow = (t: tf.Tensor4D) => tf.pad(t, [[0, 0], [0, 0], [0, cap - t.shape[2]], [0, 0]]) as tf.Tensor4D;
    this.replace(this.keys.map(grow), this.values.map(grow));
  }

  /** swap in new per-layer tensors, freeing the old ones */
  replace(keys: tf.Tensor4D[], values: tf.Tensor4D[]): void {
    const old = [...this.keys, ...this.values];
    this.keys = keys;
    this.values = values;
    tf.dispose(old);
  }

  advance(row: number, n: number): void {
    this.lengths[row] += n;
  }

  /** copy rows src[i] → dst[i] (keys, values, length): ARPO branches share a prefix this way */
  copyRows(src: readonly number[], dst: readonly number[]): void {
    if (src.length !== dst.length) throw new Error('KVCache.copyRows: src and dst differ in length');
    const map = Array.from({ length: this.batch }, (_, b) => b);
    src.forEach((s, i) => { this.lengthOf(s); this.lengthOf(dst[i]); map[dst[i]] = s; });
    const lens = this.lengths.slice();
    dst.forEach((d, i) => { this.lengths[d] = lens[src[i]]; });
    this.replace(
      tf.tidy(() => this.keys.map((k) => takeRows(k, map))),
      tf.tidy(() => this.values.map((v) => takeRows(v, map))),
    );
  }

  /** a new cache holding only rows `rows` (in that order) with their lengths: a rollout whose rows
   *  finished moves the live ones into a smaller batch, so decoding stops paying for finished rows */
  selectRows(rows: readonly number[]): KVCache {
    rows.forEach((r) => this.lengthOf(r));
    const next = new KVCache(this.config, rows.length, this.maxLen);
    next.replace(
      tf.tidy(() => this.keys.map((k) => takeRows(k, rows))),
      tf.tidy(() => this.values.map((v) => takeRows(v, rows))),
    );
    next.lengths = rows.map((r) => this.lengths[r]);
    return next;
  }

  /** cut a row back to its first `length` tokens (an ARPO branch restarts from a fork point; the
   *  slots past it are masked by the length and overwritten as the row decodes) */
  truncateRow(row: number, length: number): void {
    const cur = this.lengthOf(row);
    if (!Number.isInteger(length) || length < 0 || length > cur)
      throw new Error(`KVCache.truncateRow: row ${row} holds ${cur} tokens, cannot cut to ${length}`);
    this.lengths[row] = length;
  }

  /** empty rows so they can take new sequences (stale slots are masked by the length) */
  resetRows(rows: readonly number[]): void {
    for (const r of rows) { this.lengthOf(r); this.lengths[r] = 0; }
  }

  dispose(): void {
    tf.dispose([...this.keys, ...this.values]);
    this.keys = [];
    this.values = [];
  }
}

/**
 * Writes fresh keys/values into cache rows with one tensorScatterUpdate per tensor (on cpu a memcpy
 * plus the new rows; a masked blend over the whole cache was ~800× slower). On wasm (and on webgpu with
 * the fused kernels: one dispatch instead of a Tile of the whole cache and a scatter), when the cache
 * tensor alone holds its memory, the rows are written in place instead (writeRowsInPlace: no copy
 * of the whole cache, a decode step 17–23 → 11–12 ms at batch 64); the old tensor then shows the new
 * rows too, which is safe because the cache disposes it at once (replace). Token k of fresh row j
 * (fresh: [R, H, n, hd]) goes to cache row rows[j], slot starts[j] + k, for k < counts[j].
 * Returns a function (cache tensor, fresh) → updated cache tensor. Call inside tf.tidy.
 */
export function scatterPlan(H: number, rows: readonly number[], starts: readonly number[], counts: readonly number[],
  freshRow: readonly number[], n: number): (cache: tf.Tensor4D, fresh: tf.Tensor4D) => tf.Tensor4D {
  const indices: number[] = [];
  const sources: number[] = [];
  let lastSlot = -1; // the highest slot written: must lie inside the cache's capacity
  rows.forEach((r, j) => {
    if (counts[j] > n)
      throw new Error(`scatterPlan: row ${r} writes ${counts[j]} tokens, more than the ${n} fresh ones`);
    if (counts[j] > 0) lastSlot = Math.max(lastSlot, starts[j] + counts[j] - 1);
    for (let h = 0; h < H; h++) {
      for (let k = 0; k < counts[j]; k++) {
        indices.push(r, h, starts[j] + k);
        sources.push((freshRow[j] * H + h) * n + k);
      }
    }
  });
  const M = sources.length;
  if (M === 0) return (cache) => cache.clone();
  // sources 0..M-1 in order: the updates are the first M fresh rows. That is all of `fresh` only when
  // every fresh row is written in full; when the written rows are a prefix (step() with only rows
  // 0..k-1 active) it is a leading slice, never the whole tensor (the old `updates = flat` crashed here).
  const prefix = sources.every((src, i) => src === i);
  // made on first use, once per plan (a step writes every layer's keys and values with one plan): the
  // scatter's index tensors only on the copying path, the in-place path's row offsets for its capacity
  let scatterIndices: { indices: tf.Tensor2D; sources: tf.Tensor1D | null } | null = null;
  let inPlace: { cap: number; dst: number[] } | null = null;
  return (cache, fresh) => {
    const [B, cacheH, cap, hd] = cache.shape;
    if (cacheH !== H || fresh.shape[1] !== H || fresh.shape[2] !== n || fresh.shape[3] !== hd) {
      throw new Error(
        `scatterPlan: fresh [${fresh.shape}] does not fit cache [${cache.shape}] with ${H} heads, n=${n}`,
      );
    }
    if (lastSlot >= cap)
      throw new Error(`scatterPlan: writes slot ${lastSlot} of a cache with capacity ${cap} (reserve first)`);
    const bad = rows.find((r) => r < 0 || r >= B);
    if (bad !== undefined) throw new Error(`scatterPlan: row ${bad} outside the cache's batch of ${B}`);
    if (fresh.size / hd < M) throw new Error(`scatterPlan: ${M} writes but only ${fresh.size / hd} fresh rows`);
    if (writableInPlace(cache)) { // wasm, webgpu: the fresh rows written into the cache's own memory
      if (inPlace?.cap !== cap)
        inPlace = {
          cap,
          dst: Array.from(
            { length: M },
            (_, i) => (indices[3 * i] * H + indices[3 * i + 1]) * cap + indices[3 * i + 2],
          ),
        };
      return writeRowsInPlace(cache, fresh, inPlace.dst, sources, hd);
    }
    scatterIndices ??= {
      indices: tf.tensor2d(indices, [M, 3], 'int32'),
      sources: prefix ? null : tf.tensor1d(sources, 'int32'),
    };
    const flat = fresh.reshape([-1, hd]); // [(R·H·n), hd]
    const updates = scatterIndices.sources ? tf.gather(flat, scatterIndices.sources) // [M, hd]
      : flat.shape[0] === M ? flat : flat.slice([0, 0], [M, hd]);
    return tf.tensorScatterUpdate(cache, scatterIndices.indices, updates);
  };
}
