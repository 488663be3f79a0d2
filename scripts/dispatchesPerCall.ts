// Dispatches per call of each part of an RL step on webgpu, at a scale (default m), on whatever adapter Dawn
// finds (SwiftShader's counts are a GPU's: the count does not depend on the shapes, only on the path): a prefill
// of every row and one of some rows, a decode step (Policy.step; sampling is one more), and a PPO update of one
// mini-batch in one and in two micro-batches (forward, backward, the clip and AdamW). Each call runs
// twice, the second counted. Multiplied by a default step's calls (`gpu-check --run --count-dispatches
// --backends wasm` counts them) it gives the step's count where a real step on SwiftShader is too slow to run.
//   npx tsx scripts/dispatchesPerCall.ts [scale=m]
import * as tf from '@tensorflow/tfjs';
import { describeAdapter, startNodeWebgpu } from '../src/node/nodeWebgpu.ts';
import { DawnCounters } from '../src/cli/gpuCheck/decodeProbe.ts';
import { readCheckpointDir } from '../src/node/checkpointDir.ts';
import { policyFromCheckpoint } from '../src/rl/loadPolicy.ts';
import { ppoUpdate, type UpdateRow } from '../src/rl/rlUpdate.ts';
import { AdamW } from '../src/rl/optimizer.ts';
import { rlConfigFor } from '../src/rl/rlConfig.ts';
import { shippedCheckpointDir } from '../src/cli/rlRun.ts';

const scale = (process.argv[2] ?? 'm') as 's' | 'm' | 'l';
console.log(`adapter: ${describeAdapter(await startNodeWebgpu())}`);
const counters = DawnCounters.install();
await tf.setBackend('webgpu');
const ckpt = await readCheckpointDir(shippedCheckpointDir(scale));
const policy = policyFromCheckpoint(ckpt);
const reference = policyFromCheckpoint(ckpt);
const counts: Record<string, number> = {};
async function count(name: string, f: () => unknown): Promise<void> {
  for (let round = 0; round < 2; round++) {
    counters.reset();
    const out = f();
    if (out instanceof tf.Tensor) {
      await out.data();
      out.dispose();
    } else await out;
    counts[name] = counters.dispatchTimes.length;
  }
  console.log(`${name}: ${counts[name]}`);
}
const cache = policy.newCache(4, 128);
await count('prefill, every row', () => policy.prefill(cache, [0, 1, 2, 3], [[1, 2, 3], [4, 5], [6], [7, 8, 9, 10]]));
await count('prefill, some rows', () => policy.prefill(cache, [2, 0], [[3, 4], [5, 6, 7]]));
await count('decode step', () => policy.step(cache, [1, 2, 3, 4]));
const rows: UpdateRow[] = [0, 1].map((g) => ({ group: g, advantage: g ? 1 : -1, episode: {
  tokens: Array.from({ length: 12 }, (_, t) => 5 + t), lossMask: Array.from({ length: 12 }, (_, t) => (t > 4 ? 1 : 0)),
  logProbs: new Array<number>(12).fill(-1), bans: [] } }));
const optimizer = new AdamW(policy.params, { weightDecay: 0 });
// the lab's GRPO (its KL term: a reference pass a micro-batch); a budget of 1 token puts each row in its own
// micro-batch on every backend, so the second minus the first is one micro-batch's forward and backward
for (const [name, microBatchTokens] of [['one micro-batch', 2048], ['two micro-batches', 1]] as const) {
  const config = rlConfigFor('grpo', { miniBatches: 1, microBatchTokens });
  await count(`PPO update, ${name}`, () => ppoUpdate({ policy, reference, optimizer, config, step: 5 }, rows, null));
}
console.log(JSON.stringify(counts));
