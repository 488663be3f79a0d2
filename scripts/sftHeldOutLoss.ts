// Teacher-forced loss per policy token of the shipped tiny-world SFT checkpoints (docs/scale.md
// "the simpler route"): on 250 of their training trajectories, on the teacher's trajectories for the
// tiny world's validation + test queries (held out), and on sequences of the pretraining stream's first
// group (other worlds). Forward passes only.
//   nice -n 10 npx tsx scripts/sftHeldOutLoss.ts [presets=s,m,l]
import { useNodeBackend } from '../src/node/nodeBackend.ts';
import { readCheckpointDir } from '../src/node/checkpointDir.ts';
import { policyFromCheckpoint, pipelineOptionsFromCard } from '../src/rl/loadPolicy.ts';
import { sftPipelineData } from '../src/rl/sftPipeline.ts';
import { buildSftData } from '../src/agent/sftData.ts';
import { SftTrainer } from '../src/rl/sft.ts';
import { PAD } from '../src/agent/vocab.ts';
import { pretrainGroup } from '../src/rl/pretrainData.ts';
await useNodeBackend('wasm', 1);
for (const p of (process.argv[2] ?? 's,m,l').split(',')) {
  const ck = await readCheckpointDir(`public/checkpoints/${p}-tiny`);
  const o = pipelineOptionsFromCard(ck.card);
  const { world, validation, test, data } = sftPipelineData(o);
  const held = buildSftData(world, [...validation, ...test], { seed: 0, maxLength: o.model!.contextLength }).examples;
  const train = data.examples.slice(0, 1000).filter((_, i) => i % 4 === 0); // 250 travel trajectories
  const other = pretrainGroup(
    { seed: 1, batchSize: 8, contextLength: 576, worldQueries: 64, worldToolQa: 0 },
    0,
  ).examples.slice(0, 150);
  const policy = policyFromCheckpoint(ck);
  const t = new SftTrainer(policy, train, { batchSize: 16, padId: PAD });
  const r = {
    preset: p,
    train: await t.evaluateLoss(train),
    heldOut: await t.evaluateLoss(held),
    otherWorlds: await t.evaluateLoss(other),
    held: held.length,
  };
  console.log(JSON.stringify(r));
  t.dispose();
  policy.dispose();
}
