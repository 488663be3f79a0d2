// Does the pretraining stream transfer to the tiny world? (docs/scale.md) Preset s: the
// held-out tiny-world teacher-forced loss (validation + test queries' teacher trajectories) of a fresh
// init and of an init pretrained for P steps of the `pretrain` stream, after 0 / 50 / 150 steps of the
// shipped tiny-world SFT recipe (1,500-step schedule, batch 8, lr 3e-3). Forward passes for the losses.
//   nice -n 10 npx tsx scripts/pretrainTransfer.ts [P=200]
import { useNodeBackend } from '../src/node/nodeBackend.ts';
import { sftPipelineData, sftPipelineTrainer } from '../src/rl/sftPipeline.ts';
import { buildSftData } from '../src/agent/sftData.ts';
import { SftTrainer } from '../src/rl/sft.ts';
import { PAD } from '../src/agent/vocab.ts';
import { batchTokens, pretrainGroup } from '../src/rl/pretrainData.ts';
import { createPolicy } from '../src/model/transformer.ts';
await useNodeBackend('wasm', 1);
const P = Number(process.argv[2] ?? 200);
const o = {
  preset: 's' as const,
  worldSize: 'tiny' as const,
  seed: 1,
  trainQueries: 1000,
  validationQueries: 100,
  testQueries: 100,
  toolQa: 250,
  steps: 1500,
  batchSize: 8,
  peakLr: 3e-3,
  model: { contextLength: 576 },
};
const { config, world, validation, test, data } = sftPipelineData(o);
const held = buildSftData(world, [...validation, ...test], { seed: 0, maxLength: 576 }).examples;
// the pretrained arm's stage 1: P steps of the pretrain command's stream (its own cosine over P steps)
const stream = { seed: 1, batchSize: 8, contextLength: 576, worldQueries: 64, worldToolQa: 16 };
const pre = createPolicy(config, 1);
const pt = new SftTrainer(pre, data.examples, {
  batchSize: 8,
  totalSteps: P,
  warmupSteps: Math.ceil(P / 10),
  peakLr: 3e-3,
  minLr: 3e-4,
  padId: PAD,
  seed: 1,
});
let g = 0;
let b = 0;
let group = pretrainGroup(stream, 0);
let tokens = 0;
for (let i = 0; i < P; i++) {
  if (b >= group.batches.length) {
    g++;
    b = 0;
    group = pretrainGroup(stream, g);
  }
  const batch = group.batches[b++];
  tokens += batchTokens(batch);
  await pt.sftStep(batch);
}
const { buffer, specs } = await pre.saveWeights();
pt.dispose();
pre.dispose();
console.log(JSON.stringify({ pretrainSteps: P, pretrainTokens: tokens }));
for (const arm of ['scratch', 'pretrained']) {
  const { policy, trainer } = sftPipelineTrainer(o, config, data.examples);
  if (arm === 'pretrained') policy.loadWeights(buffer, specs);
  const row: Record<string, unknown> = { arm };
  for (const at of [0, 50, 150]) {
    while (trainer.step < at) await trainer.sftStep();
    row[`heldOut@${at}`] = +(await trainer.evaluateLoss(held)).toFixed(4);
  }
  console.log(JSON.stringify(row));
  trainer.dispose();
  policy.dispose();
}
