// How one prefill of rows with different token counts is split into a few calls. A prefill pads every
// row to the longest row's count, and a padded query slot costs what a real one does (it attends over
// the whole cache). In a batch-64 rollout the observations that arrive together differ in length (a
// 5-token error next to a 47-token flight list): 32 % of the prefill attention work went to padding.
// Rows are independent in every op of the forward, so calling the model on sorted groups of rows gives
// each row the same floats; a split only has to save more padded work than a call's fixed cost.
// Pure arithmetic: no tfjs.

/** what a call costs beyond its slots, in slots of a capacity-192 cache: ~4 ms against ~0.09 ms a slot
 *  on wasm with the SIMD attention kernel (s preset, batch 64; prefill of R rows × n tokens timed) */
const CALL_COST_SLOTS = 46;
/** a slot's cost that does not grow with the capacity (its layers' matMuls, the embedding, the write),
 *  in capacity units: per slot 0.069 ms at capacity 64, 0.086 ms at 192 */
const PER_SLOT_LINEAR = 512;

let grouping = true;
/** turns the split off (one padded call, as before it) or on again: for side-by-side measurement (bench/rollout.ts) */
export function setPrefillGrouping(on: boolean): void {
  grouping = on;
}

/**
 * Indices of `counts` (tokens per row, each > 0) in at most `maxGroups` groups, each group's rows in
 * their original order, groups from the fewest tokens to the most; one group (every index) when
 * splitting does not pay. `capacity` is the KV cache's slot count, which sets what a padded slot costs.
 * Groups are runs of the rows sorted by count (the best split of padded work is always such runs).
 */
export function prefillGroups(counts: readonly number[], capacity: number, maxGroups = 3): number[][] {
  const all = counts.map((_, i) => i);
  if (!grouping || counts.length < 2 || maxGroups < 2) return [all];
  const order = all.slice().sort((a, b) => counts[a] - counts[b] || a - b);
  const sorted = order.map((i) => counts[i]);
  const R = sorted.length;
  const slot = capacity + PER_SLOT_LINEAR; // a padded slot's cost at this capacity
  const call = CALL_COST_SLOTS * (192 + PER_SLOT_LINEAR); // a call's, whatever the capacity
  // the cost of sorted rows [i, j) as one call: (j − i) rows padded to the longest, sorted[j − 1]
  const groupCost = (i: number, j: number) => (j - i) * sorted[j - 1] * slot + call;
  // best[k][j]: the cheapest split of sorted rows [0, j) into k + 1 calls; from[k][j]: where the last begins
  const best = [Array.from({ length: R + 1 }, (_, j) => (j === 0 ? 0 : groupCost(0, j)))];
  const from = [new Array<number>(R + 1).fill(0)];
  for (let k = 1; k < maxGroups; k++) {
    best.push(new Array<number>(R + 1).fill(Infinity));
    from.push(new Array<number>(R + 1).fill(0));
    for (let j = 1; j <= R; j++) {
      for (let i = 1; i < j; i++) {
        const cost = best[k - 1][i] + groupCost(i, j);
        if (cost < best[k][j]) {
          best[k][j] = cost;
          from[k][j] = i;
        }
      }
    }
  }
  let k = 0;
  for (let g = 1; g < maxGroups; g++) if (best[g][R] < best[k][R]) k = g;
  const bounds = [R];
  for (let j = R; k > 0; k--) bounds.unshift((j = from[k][j]));
  bounds.unshift(0);
  return bounds.slice(1).map((end, g) => order.slice(bounds[g], end).sort((a, b) => a - b));
}
