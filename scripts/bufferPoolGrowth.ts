// How tfjs's webgpu buffer pool grows over RL steps, and what its bound (src/model/kernels/bufferPool.ts)
// costs, on whatever adapter Dawn finds (SwiftShader here: the pool's byte counts and Dawn's host time for
// createBuffer are a GPU's too; device time is not). Tiny steps SwiftShader can afford: 1 query × G rollouts
// of 2 turns, then — since the tiny checkpoints' rollouts all score alike, which leaves the trainer's own
// update nothing to learn from — the same PPO update (rlUpdate.ts) over those rollouts with advantages ±1, in
// micro-batches of MBT tokens (several padded lengths: the shapes that make the pool grow). After each phase:
// held and allocated bytes, their peaks in the phase, free buffers and sizes, buffers the bound destroyed,
// createBuffer calls and their host ms.
//   npx tsx scripts/bufferPoolGrowth.ts [scale=s] [steps=3] [pool=lab|none|FLOOR_MIB,FACTOR] [G=4] [MBT=128]
// pool: `lab` the lab's bound (as the CLI and page start webgpu), `none` tfjs's own pool (nothing destroyed),
// `0,1` a cap of 1× the peak held without a floor, `0,0` no pool at all (every freed buffer destroyed).
import * as tf from '@tensorflow/tfjs';
import { defaultConfig, type LabConfig } from '../src/lab/config.ts';
import { rlConfigFromLab, type RlConfig } from '../src/rl/rlConfig.ts';
import { rlEnvironment } from '../src/rl/rlEnvironment.ts';
import { RlTrainer } from '../src/rl/rlTrainer.ts';
import { ppoUpdate } from '../src/rl/rlUpdate.ts';
import { policyFromCheckpoint } from '../src/rl/loadPolicy.ts';
import { readCheckpointDir } from '../src/node/checkpointDir.ts';
import { useNodeBackend } from '../src/node/nodeBackend.ts';
import {
  boundBufferPool,
  bufferPoolStats,
  POOL_FLOOR_BYTES,
  POOL_PEAK_FACTOR,
  resetPoolPeaks,
} from '../src/model/kernels/bufferPool.ts';
import type { WebGPUBackend } from '../src/model/kernels/webgpu.ts';

const [scale = 's', steps = '3', pool = 'lab', groupSize = '4', microBatchTokens = '128'] = process.argv.slice(2);
await useNodeBackend('webgpu');
const backend = tf.backend() as unknown as WebGPUBackend;
if (pool === 'none') boundBufferPool(backend, { floorBytes: Infinity, peakFactor: 0 });
else if (pool !== 'lab') {
  const [floorMiB, peakFactor] = pool.split(',').map(Number);
  if (!(floorMiB >= 0 && peakFactor >= 0))
    throw new Error(`pool: lab, none or FLOOR_MIB,FACTOR (e.g. 0,1), got "${pool}"`);
  boundBufferPool(backend, { floorBytes: floorMiB * 2 ** 20, peakFactor });
}
const device = (backend as unknown as { device: GPUDevice }).device;
let creates = 0;
let createMs = 0;
const create = device.createBuffer.bind(device);
device.createBuffer = (d: GPUBufferDescriptor) => {
  const t = performance.now();
  const buffer = create(d);
  createMs += performance.now() - t;
  creates++;
  return buffer;
};

const MB = (bytes: number) => (bytes / 1e6).toFixed(2);
const report = (label: string) => {
  const p = bufferPoolStats(backend);
  resetPoolPeaks(backend);
  console.log(
    `${label}: held ${MB(p.usedBytes)} MB, allocated ${MB(p.allocatedBytes)} MB (peaks ${MB(p.peakUsedBytes)}, ${MB(p.peakAllocatedBytes)}); ` +
      `free ${p.freeBuffers} buffers in ${p.freeSizes} sizes; destroyed ${p.evictedBuffers} (${MB(p.evictedBytes)} MB) so far; createBuffer ${creates} calls, ${createMs.toFixed(0)} ms`,
  );
};

const ckpt = await readCheckpointDir(`public/checkpoints/${scale}-tiny`);
const lab: LabConfig = { ...defaultConfig(), scale: scale as LabConfig['scale'] };
const rl: RlConfig = {
  ...rlConfigFromLab(lab),
  queriesPerStep: 1,
  groupSize: Number(groupSize),
  maxTurns: 2,
  miniBatches: 1,
  klCoef: 0.001,
};
const env = rlEnvironment(
  { world: ckpt.card.world, data: ckpt.card.data, contextLength: ckpt.config.contextLength },
  { trainSize: defaultConfig().trainSize, mix: defaultConfig().mix },
);
const policy = policyFromCheckpoint(ckpt);
const reference = policyFromCheckpoint(ckpt);
const trainer = new RlTrainer(policy, reference, env, rl);
console.log(
  `${scale}, pool ${pool} (the lab's: max(${POOL_FLOOR_BYTES / 2 ** 20} MiB, ${POOL_PEAK_FACTOR}× peak held)), 1 query × ${groupSize} rollouts, micro-batches of ${microBatchTokens} tokens`,
);
report('start');
const t0 = performance.now();
for (let i = 0; i < Number(steps); i++) {
  let t = performance.now();
  await trainer.trainStep();
  report(`step ${i} rollouts (${((performance.now() - t) / 1000).toFixed(1)} s)`);
  t = performance.now();
  const rows = trainer.lastEpisodes.map((e, j) => ({ episode: e.episode, group: 0, advantage: j % 2 ? 1 : -1 }));
  const u = await ppoUpdate(
    {
      policy,
      reference,
      optimizer: trainer.optimizer,
      config: { ...rl, microBatchTokens: Number(microBatchTokens) },
      step: i,
    },
    rows,
    null,
  );
  report(
    `step ${i} update of ${u['charts/microbatches']} micro-batches, pg loss ${u['losses/pg'].toExponential(3)} (${((performance.now() - t) / 1000).toFixed(1)} s)`,
  );
}
console.log(`${Number(steps)} steps in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
trainer.dispose();
policy.dispose();
reference.dispose();
report('disposed');
