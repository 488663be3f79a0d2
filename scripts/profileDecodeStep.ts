// Where a webgpu decode step's time goes (issue 38), on whatever adapter Dawn finds (SwiftShader here:
// its host figures hold on a GPU, its device time does not): counts and host ms per decode step of 32
// rows at scale m, a tiny readback's round trip and a tiny op's host cost (src/cli/gpuCheck/decodeProbe.ts).
//   npx tsx scripts/profileDecodeStep.ts [scale=m] [rows=32] [cacheLength=96]
import * as tf from '@tensorflow/tfjs';
import { useNodeBackend } from '../src/node/nodeBackend.ts';
import { readCheckpointDir } from '../src/node/checkpointDir.ts';
import { policyFromCheckpoint } from '../src/rl/loadPolicy.ts';
import { DawnCounters, probeDecodeStep, probeOpUs, probeReadbackMs } from '../src/cli/gpuCheck/decodeProbe.ts';

const [scale = 'm', rows = '32', cacheLength = '96'] = process.argv.slice(2);
await useNodeBackend('webgpu');
const counters = DawnCounters.install();
const device = (tf.backend() as unknown as { device: GPUDevice }).device;
console.log(`readback round trip: ${(await probeReadbackMs(device, 50)).toFixed(3)} ms (median of 50)`);
console.log(`tiny op host cost: ${(await probeOpUs(2000)).toFixed(1)} µs`);
const policy = policyFromCheckpoint(await readCheckpointDir(`public/checkpoints/${scale}-tiny`));
const f = await probeDecodeStep(policy, { rows: Number(rows), cacheLength: Number(cacheLength), steps: 5, warm: 2, counters });
console.log(JSON.stringify(f, null, 1));
policy.dispose();
