// A prefill split into groups of rows (wasm; prefillGroups.ts) gives every row the same floats as one
// padded call: the KV cache it writes and the next step's logits are compared bit for bit with the
// same prefill forced into one call (setPrefillGrouping(false)).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { createPolicy, type ModelConfig, type KVCache } from '../../src/model/transformer.ts';
import { Rng } from '../../src/env/random.ts';
import { prefillGroups, setPrefillGrouping } from '../../src/model/prefillGroups.ts';

const config: ModelConfig = { vocabSize: 40, contextLength: 160, dModel: 32, nLayers: 2, nHeads: 4, dFF: 64, positions: 'alibi' };

beforeAll(async () => {
  expect(await tf.setBackend('wasm')).toBe(true);
});
afterAll(() => setPrefillGrouping(true));

/** a cache of 8 rows at different lengths, then one prefill of observations of 2 to 45 tokens; the cache's floats and the next step's logits */
async function run(policy: ReturnType<typeof createPolicy>) {
  const rng = new Rng(4);
  const tokens = (n: number) => Array.from({ length: n }, () => 1 + rng.int(config.vocabSize - 1));
  const cache: KVCache = policy.newCache(8, 160);
  policy.prefill(cache, [0, 1, 2, 3, 4, 5, 6, 7], [9, 30, 17, 3, 60, 12, 25, 40].map(tokens));
  policy.prefill(cache, [7, 0, 2, 5, 3, 6, 1], [45, 2, 44, 3, 41, 5, 4].map(tokens)); // row 4 gets nothing
  const logits = policy.step(cache, [1, 2, 3, 4, 5, 6, 7, 8]);
  const out = { logits: Array.from(await logits.data()), keys: cache.keys.map((k) => Array.from(k.dataSync())), values: cache.values.map((v) => Array.from(v.dataSync())), lengths: cache.rowLengths() };
  logits.dispose();
  cache.dispose();
  return out;
}

describe('a prefill split into groups of rows (wasm)', () => {
  it('writes the same cache and gives the same next logits, bit for bit, as one padded call', async () => {
    const policy = createPolicy(config, 3);
    expect(prefillGroups([45, 2, 44, 3, 41, 5, 4], 128)).toHaveLength(2); // the second prefill is split
    setPrefillGrouping(false);
    expect(prefillGroups([45, 2, 44, 3, 41, 5, 4], 128)).toHaveLength(1);
    const one = await run(policy);
    setPrefillGrouping(true);
    const before = tf.memory().numTensors;
    const grouped = await run(policy);
    expect(tf.memory().numTensors).toBe(before);
    expect(grouped.lengths).toEqual(one.lengths);
    expect(grouped.lengths).toEqual([12, 35, 62, 45, 61, 16, 31, 86]); // both prefills and the step
    expect(grouped.keys).toEqual(one.keys);
    expect(grouped.values).toEqual(one.values);
    expect(grouped.logits).toEqual(one.logits);
    policy.dispose();
  });
});
