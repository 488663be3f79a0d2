// Re-scores shipped SFT checkpoints on their validation split grown to 300 queries (the card's
// 100 first, then 200 drawn after its training split, queries.ts grownHeldOut) and records the result in
// each card as `evaluation300`: greedy, free and constrained plan decoding, every figure of the card's own
// evaluation (the same unseen tool-QA suite) plus the 95 % Wilson intervals of success and delivery. No
// other field of the card changes, nor the weights (their SHA-256 stays valid). Same setup as the card's
// evaluation otherwise: batch 64, seed the card's, no tool failures.
//   npx tsx scripts/cardEvaluation300.ts [s m l | DIR …] [--backend wasm|cpu]
// (a preset names its shipped folder public/checkpoints/<preset>-tiny; a DIR is any SFT checkpoint folder)
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCheckpointDir } from '../src/node/checkpointDir.ts';
import { writeAtomic } from '../src/node/atomicWrite.ts';
import { provenance } from '../src/node/provenance.ts';
import { useNodeBackend, wasmThreads, type NodeBackend } from '../src/node/nodeBackend.ts';
import { policyFromCheckpoint, sftOriginFromCard } from '../src/rl/loadPolicy.ts';
import { cardToolQa, originEvaluationTasks } from '../src/rl/rlEnvironment.ts';
import { evaluationFigures } from '../src/rl/sftCard.ts';
import { parseCard, type GrownEvaluation } from '../src/rl/checkpointFiles.ts';
import { evaluatePolicy } from '../src/agent/evaluatePolicy.ts';
import { rateIntervals } from '../src/cli/commands/evaluate.ts';
import { GROWN_HELD_OUT } from '../src/env/queries.ts';

const args = process.argv.slice(2);
const at = args.indexOf('--backend');
const backend = (at >= 0 ? args[at + 1] : 'wasm') as NodeBackend;
const targets = args.filter((a, i) => !a.startsWith('--') && (at < 0 || i !== at + 1));
const dirOf = (target: string) =>
  ['s', 'm', 'l'].includes(target) ? join('public', 'checkpoints', `${target}-tiny`) : target;
const missing = targets.filter((t) => !existsSync(join(dirOf(t), 'card.json')));
if (missing.length) {
  console.error(
    `no card.json in ${missing.map(dirOf).join(', ')}\nusage: npx tsx scripts/cardEvaluation300.ts [s m l | DIR …] [--backend wasm|cpu]`,
  );
  process.exit(2);
}
await useNodeBackend(backend, wasmThreads());

for (const target of targets.length ? targets : ['s', 'm', 'l']) {
  const dir = dirOf(target);
  // the card is committed: refused before evaluating where the code differs from HEAD (--allow-dirty lists the files
  // instead)
  const made = provenance(join(dir, 'card.json'), { allowDirty: args.includes('--allow-dirty') });
  const checkpoint = await readCheckpointDir(dir);
  const { card } = checkpoint;
  const preset = card.preset;
  const origin = sftOriginFromCard(card);
  const tasks = originEvaluationTasks(origin);
  const { world, sft } = tasks;
  const heldOutQa = tasks.heldOutQa.slice(0, cardToolQa(origin)); // the card's own OOD tasks, not the grown suite
  const queries = sft.validation;
  if (queries.length < GROWN_HELD_OUT)
    throw new Error(`${dir}: the grown validation split has ${queries.length} queries`);
  const policy = policyFromCheckpoint(checkpoint);
  const t0 = performance.now();
  const scored: Partial<Record<'free' | 'constrained', GrownEvaluation['free']>> = {};
  try {
    for (const decoding of ['free', 'constrained'] as const) {
      const e = await evaluatePolicy(policy, world, queries, heldOutQa, {
        batchSize: 64,
        seed: card.seed,
        constrainPlan: decoding === 'constrained',
      });
      scored[decoding] = { ...evaluationFigures(e), ...rateIntervals(e) };
      const f = scored[decoding];
      const first = e.verdicts.slice(0, card.data.validationQueries);
      console.log(
        `${preset} ${decoding}: the card's ${first.length} queries within the 300: success ${first.filter((v) => v.finalPass).length / first.length}, ` +
          `delivery ${first.filter((v) => v.delivered).length / first.length} (the card's evaluation: ${card.evaluation[decoding].success}, ${card.evaluation[decoding].delivery})`,
      );
      console.log(
        `${preset} ${decoding}: success ${f.success.toFixed(4)} [${f.successInterval.lo.toFixed(4)}, ${f.successInterval.hi.toFixed(4)}], ` +
          `delivery ${f.delivery.toFixed(4)} [${f.deliveryInterval.lo.toFixed(4)}, ${f.deliveryInterval.hi.toFixed(4)}], OOD ${f.oodAccuracy.toFixed(4)}`,
      );
    }
  } finally {
    policy.dispose();
  }
  const evaluation300: GrownEvaluation = {
    split: 'validation',
    splitRule:
      `the card's ${card.data.validationQueries} validation queries, then ${queries.length - card.data.validationQueries} more drawn after its ` +
      `${card.data.trainQueries} training queries from their own stream, disjoint from train, validation and test (queries.ts grownHeldOut)`,
    batchSize: 64,
    free: scored.free!,
    constrained: scored.constrained!,
    backend,
    ...made,
    command: `npx tsx scripts/cardEvaluation300.ts ${target}${backend === 'wasm' ? '' : ` --backend ${backend}`}`,
    createdAt: new Date().toISOString(),
    evalSeconds: (performance.now() - t0) / 1000,
  };
  // the card as written, with one key more (JSON.stringify writes NaN as null, as the card's own evaluation)
  const file = join(dir, 'card.json');
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const next = JSON.parse(JSON.stringify({ ...raw, evaluation300 })) as unknown;
  parseCard(next, file); // still a valid card
  writeAtomic(file, JSON.stringify(next, null, 1) + '\n');
  console.log(`${file}: evaluation300 recorded (${evaluation300.evalSeconds.toFixed(0)} s)`);
}
