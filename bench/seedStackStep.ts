// Seed-steps per second of the S-seed RL step (src/rl/seedStackStep.ts) against S separate runs (RlTrainer), on
// one backend, from the shipped s checkpoint on its tiny world (GRPO, the page's defaults, 2 queries × 4 rollouts):
//   node --import tsx bench/seedStackStep.ts [--backend wasm|cpu] [--seeds 4] [--steps 1]
// Prints one line per path: seed-steps/s, and the seconds of rollouts and of the update (summed over seeds for the
// separate runs; the stack's rollouts run concurrently, decoding together: their longest, and its update one program
// for all seeds), and for the stack the decode steps run and the seed-steps they served.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { readCheckpointDir } from '../src/node/checkpointDir.ts';
import { policyFromCheckpoint } from '../src/rl/loadPolicy.ts';
import { rlEnvironment } from '../src/rl/rlEnvironment.ts';
import { rlConfigFor } from '../src/rl/rlConfig.ts';
import { RlTrainer, type Metrics } from '../src/rl/rlTrainer.ts';
import type { MetricName } from '../src/lab/metricNames.ts';
import { SeedStackTrainer } from '../src/rl/seedStackStep.ts';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
};
const backend = arg('backend', 'wasm');
const S = Number(arg('seeds', '4'));
const steps = Number(arg('steps', '1'));
if (!['wasm', 'cpu'].includes(backend) || !(S >= 1) || !(steps >= 1)) {
  throw new Error('usage: bench/seedStackStep.ts [--backend wasm|cpu] [--seeds S ≥ 1] [--steps n ≥ 1]');
}
await tf.setBackend(backend);
const ckpt = await readCheckpointDir('public/checkpoints/s-tiny');
const env = rlEnvironment({ world: ckpt.card.world, data: ckpt.card.data, contextLength: ckpt.config.contextLength },
  { trainSize: 200, mix: [4, 3, 3] });
const config = rlConfigFor('grpo', { queriesPerStep: 2, groupSize: 4, steps: 10 });
const seeds = Array.from({ length: S }, (_, s) => s + 1);
const policies = () => seeds.map(() => policyFromCheckpoint(ckpt));
const sum = (ms: Metrics[], key: MetricName) => ms.reduce((a, m) => a + m[key]!, 0);

function report(path: string, seconds: number, rollouts: number, update: number, more = ''): void {
  console.log(`${backend} ${path} S=${S}: ${(S * steps / seconds).toFixed(4)} seed-steps/s (${seconds.toFixed(1)} s; ` +
    `rollouts ${rollouts.toFixed(1)} s, update ${update.toFixed(1)} s${more})`);
}

// S separate runs, one after the other
const own = policies();
const refs = policies();
const runs = seeds.map((seed, s) => new RlTrainer(own[s], refs[s], env, { ...config, seed }));
let t0 = performance.now();
const separate: Metrics[] = [];
for (let k = 0; k < steps; k++) for (const r of runs) separate.push(await r.trainStep());
report('separate', (performance.now() - t0) / 1000, sum(separate, 'time/rollout'), sum(separate, 'time/update'));
runs.forEach((r) => r.dispose());

// the S-seed step
const stacked = policies();
const stackRefs = policies();
const stack = new SeedStackTrainer(stacked, stackRefs, env, { config, seeds });
t0 = performance.now();
const together: Metrics[] = [];
for (let k = 0; k < steps; k++) together.push(...(await stack.trainStep()));
// every seed's metrics carry the one update's time; a step's rollouts last as long as its longest seed's
const longest = Array.from({ length: steps }, (_, k) => Math.max(...together.slice(k * S, (k + 1) * S)
  .map((m) => m['time/rollout']!))).reduce((a, b) => a + b, 0);
const { steps: decodeSteps, seedSteps } = stack.decoder.counts;
report('stacked', (performance.now() - t0) / 1000, longest, sum(together, 'time/update') / S,
  `; ${decodeSteps} decode steps for ${seedSteps} seed-steps`);
stack.dispose();
[...own, ...refs, ...stacked, ...stackRefs].forEach((p) => p.dispose());
