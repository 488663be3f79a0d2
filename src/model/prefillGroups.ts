// How one prefill of rows with different token counts is split into a few calls. A prefill pads every
// row to the longest row's count, and on `wasm` a padded query slot costs what a real one does: each
// attends over the whole cache through the batched matMul's naive loop. In a batch-64 rollout the
// observations that arrive together differ in length (a 5-token error next to a 47-token flight
// list), and 32 % of the attention work went to padding. Rows are independent in every op of the
// forward, so calling the model on sorted groups of rows gives each row the same floats; a split only
// has to save more padded work than a call's fixed cost (~4 ms at batch 64, s preset, measured).
// Pure arithmetic: no tfjs.

/** what a call costs beyond its slots, in slots: ~4 ms ≈ 15–20 slots at capacity 192 on wasm, set higher
 *  so that a split must save clearly more than it costs (the bench rollout: 12, 32 and 64 gave 12.1, 13.2
 *  and 13.0 trajectories/s, within its noise; at 32 it splits 32 of that rollout's 65 prefills and its
 *  padded attention work falls to 75 %) */
const CALL_COST_SLOTS = 32;
/** a slot's cost that does not grow with the capacity (its layers' matMuls), in capacity units */
const PER_SLOT_LINEAR = 64;

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
  const slot = capacity + PER_SLOT_LINEAR;
  const call = CALL_COST_SLOTS * slot;
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
