// Where a webgpu decode step's time goes, on whatever adapter Dawn finds (SwiftShader here:
// its host figures hold on a GPU, its device time does not): a decode step of R rows at scale m with the
// decode levers off (plain) and on (fused), alternated, each run's ms, host ms, dispatches, submits,
// readbacks and tfjs programs by shader key; a tiny readback's round trip and a tiny op's host cost
// (src/cli/gpuCheck/decodeProbe.ts). The GPU check runs the same probe (`--decode-steps`).
//   npx tsx scripts/profileDecodeStep.ts [scale=m] [rows=32] [cacheLength=96] [steps=5] [rounds=2]
import * as tf from '@tensorflow/tfjs';
import { useNodeBackend } from '../src/node/nodeBackend.ts';
import { readCheckpointDir } from '../src/node/checkpointDir.ts';
import { policyFromCheckpoint } from '../src/rl/loadPolicy.ts';
import { setFusedDecode } from '../src/model/kernels/webgpu.ts';
import { DawnCounters, probeDecodeStep, probeOpUs, probeReadbackMs } from '../src/cli/gpuCheck/decodeProbe.ts';

const [scale = 'm', rows = '32', cacheLength = '96', steps = '5', rounds = '2'] = process.argv.slice(2);
await useNodeBackend('webgpu');
const counters = DawnCounters.install();
const device = (tf.backend() as unknown as { device: GPUDevice }).device;
console.log(`readback round trip: ${(await probeReadbackMs(device, 50)).toFixed(3)} ms (median of 50)`);
console.log(`tiny op host cost: ${(await probeOpUs(2000)).toFixed(1)} µs`);
const ckpt = await readCheckpointDir(`public/checkpoints/${scale}-tiny`);
for (let round = 0; round < Number(rounds); round++) {
  for (const fused of [false, true]) {
    setFusedDecode(fused);
    const policy = policyFromCheckpoint(ckpt);
    const f = await probeDecodeStep(policy, {
      rows: Number(rows),
      cacheLength: Number(cacheLength),
      steps: Number(steps),
      warm: 2,
      counters,
    });
    policy.dispose();
    console.log(`${fused ? 'fused' : 'plain'}: ${JSON.stringify(f)}`);
  }
}
