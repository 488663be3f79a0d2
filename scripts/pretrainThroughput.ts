// Pretraining throughput per preset (docs/scale.md): a few dozen steps of the `pretrain`
// command's own loop (default batch, context and world stream; wasm, one thread) per preset, timed in
// CPU seconds of this process (the machine is shared, so wall time overstates the cost), and the
// core-hours the default budget (TOKENS_PER_PARAMETER × parameters) would take at that rate.
//   nice -n 10 npx tsx scripts/pretrainThroughput.ts [steps=30] [presets=s,m,l]
import { useNodeBackend } from '../src/node/nodeBackend.ts';
import { SftTrainer } from '../src/rl/sft.ts';
import { batchTokens, pretrainGroup, TOKENS_PER_PARAMETER } from '../src/rl/pretrainData.ts';
import { PAD, VOCAB } from '../src/agent/vocab.ts';
import { createPolicy } from '../src/model/transformer.ts';
import { countParameters, preset, type PresetName } from '../src/model/config.ts';

const steps = Number(process.argv[2] ?? 30);
const presets = (process.argv[3] ?? 's,m,l').split(',') as PresetName[];
const WARMUP = 3; // first steps compile kernels and grow the heap: not timed

await useNodeBackend('wasm', 1);
const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const rows = [];
for (const name of presets) {
  const config = { ...preset(name, VOCAB.size), contextLength: 576 };
  const data = { seed: 1, batchSize: 8, contextLength: 576, worldQueries: 64, worldToolQa: 16 };
  const batches = [pretrainGroup(data, 0), pretrainGroup(data, 1)].flatMap((g) => g.batches);
  const policy = createPolicy(config, 1);
  const trainer = new SftTrainer(policy, batches.flat(), {
    batchSize: 8,
    totalSteps: 1000,
    warmupSteps: 100,
    peakLr: 3e-3,
    minLr: 3e-4,
    padId: PAD,
    seed: 1,
  });
  for (let i = 0; i < WARMUP; i++) await trainer.sftStep(batches[i % batches.length]);
  let tokens = 0;
  const c0 = cpuSeconds();
  const w0 = performance.now();
  for (let i = 0; i < steps; i++) {
    const b = batches[(WARMUP + i) % batches.length];
    await trainer.sftStep(b);
    tokens += batchTokens(b);
  }
  const cpu = cpuSeconds() - c0;
  const wall = (performance.now() - w0) / 1000;
  const parameters = countParameters(config);
  const budget = TOKENS_PER_PARAMETER * parameters;
  const row = {
    preset: name, parameters, steps, tokens, cpuSeconds: +cpu.toFixed(1), wallSeconds: +wall.toFixed(1),
    tokensPerCpuSecond: Math.round(tokens / cpu), tokensPerWallSecond: Math.round(tokens / wall),
    defaultBudget: budget, coreHoursForBudget: +(budget / (tokens / cpu) / 3600).toFixed(2),
  };
  rows.push(row);
  console.log(JSON.stringify(row));
  trainer.dispose();
  policy.dispose();
}
console.table(rows);
