// `npm run cli -- sft`: the SFT recipe (rl/sftPipeline.ts) as a command that writes a shipped
// checkpoint: model.json + weights.bin in tfjs's layout and card.json saying how it was made
// and how it scores. Saves its full training state every --checkpoint-every steps; `--resume`
// continues from there exactly (same batches, same AdamW moments, same RNG).
import { join } from 'node:path';
import type { Command } from '../command.ts';
import { parseFlags } from '../command.ts';
import { flagChoice, flagInt, flagText, rejectUnknownFlags } from '../envFlags.ts';
import { formatDuration } from '../progress.ts';
import { readPretrainDir, writeCard, writePolicyFiles } from '../../node/checkpointDir.ts';
import type { RunKind } from '../outDir.ts';
import { NODE_BACKENDS } from '../../node/nodeBackend.ts';
import { runSftSession } from '../sftSession.ts';
import { evaluateSftPolicy, sftPipelineData, sftPipelineTrainer, type SftPipelineOptions } from '../../rl/sftPipeline.ts';
import { SftTrainer } from '../../rl/sft.ts';
import {
  CARD_FORMAT,
  cardProvenance,
  WEIGHTS_FILE,
  type PretrainCard,
  type SftCard,
} from '../../rl/checkpointFiles.ts';
import { VOCAB } from '../../agent/vocab.ts';
import { preset, countParameters } from '../../model/config.ts';
import { evaluationFigures, verdictCheck } from '../../rl/sftCard.ts';
import { shellCommand } from '../shellQuote.ts';
import { METRIC } from '../../lab/metricNames.ts';

const KNOWN = [
  'preset',
  'world',
  'steps',
  'seed',
  'out',
  'resume',
  'force',
  'allow-dirty',
  'batch',
  'lr',
  'train-queries',
  'validation',
  'test',
  'tool-qa',
  'context',
  'checkpoint-every',
  'backend',
  'from',
];

/** what an SFT run's folder holds (outDir.ts): a checkpoint once card.json is written; repro puts its pretrain stage
 * beside it */
export const SFT_RUN_KIND: RunKind = {
  noun: 'SFT checkpoint',
  finishedFile: 'card.json',
  files: ['model.json', WEIGHTS_FILE, 'card.json'],
  kept: ['pretrain'],
};

export const sftCommand: Command = {
  name: 'sft',
  summary: 'supervised fine-tuning on teacher trajectories; writes a checkpoint with its card',
  help: `usage: npm run cli -- sft --preset s|m|l --out DIR [options]

  --preset s|m|l          policy size (parameters ≈ 1 : 2 : 4.7, mirroring Qwen2.5 1.5B / 3B / 7B)
  --world tiny|small|standard   the generated world (default tiny: the RL stage's default)
  --steps N               optimizer steps (default 1500; the cosine schedule ends there)
  --seed K                world, data, init and data order (default 1)
  --out DIR               writes DIR/model.json, DIR/${WEIGHTS_FILE}, DIR/card.json (and DIR/resume/ while running)
  --resume                continue the run saved in DIR/resume (same options required); a finished DIR is left as is
  --force                 replace what DIR holds; without --resume or --force a DIR holding a run is refused
  --allow-dirty           write into the repository from code that differs from HEAD (the card lists the differing
                          files and their SHA-256; without it such a run is refused before it starts: commit first)
  --batch B               sequences per step (default 8)
  --lr X                  peak learning rate (default 3e-3; cosine to X/10)
  --train-queries N       training queries the teacher solves (default 1000)
  --validation N          validation queries evaluated at the end (default 100)
  --test N                held-out test queries (default 100; \`evaluate --split test\`)
  --tool-qa N             tool-QA episodes in the SFT data (default 250; N/4 unseen ones are the OOD suite)
  --context N             context length in tokens (default 576)
  --checkpoint-every N    save the resume state every N steps (default 100)
  --backend wasm|cpu|webgpu  tfjs backend (default wasm; cpu is 6–40× slower; webgpu: Dawn, docs/performance.md)
  --from DIR              start from a pretrain checkpoint (\`npm run cli -- pretrain --out DIR\`) instead of a random init;
                          its preset and context must match; the card records both stages`,
  async run(args) {
    const { flags, positional } = parseFlags(args);
    rejectUnknownFlags(flags, positional, KNOWN, ['resume', 'force', 'allow-dirty']);
    const out = flagText(flags, 'out');
    const backend = flagChoice(flags, 'backend', NODE_BACKENDS, 'wasm');
    const o: SftPipelineOptions = {
      preset: flagChoice(flags, 'preset', ['s', 'm', 'l'] as const, 's'),
      worldSize: flagChoice(flags, 'world', ['tiny', 'small', 'standard'] as const, 'tiny'),
      seed: flagInt(flags, 'seed', 1),
      steps: flagInt(flags, 'steps', 1500, 1),
      batchSize: flagInt(flags, 'batch', 8, 1),
      peakLr: Number(flagText(flags, 'lr', '3e-3')),
      trainQueries: flagInt(flags, 'train-queries', 1000, 1),
      validationQueries: flagInt(flags, 'validation', 100),
      testQueries: flagInt(flags, 'test', 100),
      toolQa: flagInt(flags, 'tool-qa', 250),
      model: { contextLength: flagInt(flags, 'context', 576, 16) },
    };
    if (!(o.peakLr! > 0)) throw new Error(`--lr needs a positive number, got "${String(flags.get('lr'))}"`);
    const every = flagInt(flags, 'checkpoint-every', 100, 1);
    const fromDir = flags.has('from') ? flagText(flags, 'from') : undefined;
    // the pretrain checkpoint is checked before anything is written: a wrong --from must cost nothing
    const from = fromDir === undefined ? undefined : await readPretrainDir(fromDir);
    if (from) checkStart(from.card, o);
    // the card's record of the run, pasted into a shell by repro and readers: quoted, without how this session treats
    // the folder
    const command = shellCommand(
      'npm run cli -- sft',
      args.filter((a) => a !== '--resume' && a !== '--force'),
    );
    // a resumed run must be the same run: everything that shapes the batches and the model
    const fingerprint = JSON.stringify({ ...o, backend, ...(from ? { from: from.card.weights.sha256 } : {}) });
    let data: ReturnType<typeof sftPipelineData> | null = null;
    return runSftSession({
      command: 'sft',
      out,
      flags,
      resumeArgs: args,
      fingerprint,
      kind: SFT_RUN_KIND,
      backend,
      label: `sft ${o.preset} `,
      every,
      start(resumed) {
        const t0 = performance.now();
        data = sftPipelineData(o);
        const { config, data: d } = data;
        let { trainer } = sftPipelineTrainer(o, config, d.examples);
        if (from) trainer.policy.loadWeights(from.weights, from.specs); // AdamW's moments start at zero either way
        if (resumed) {
          trainer.dispose();
          trainer.policy.dispose();
          trainer = SftTrainer.restore(resumed.ckpt, d.examples, trainer.config);
          console.error(`resuming ${out} at step ${trainer.step}/${o.steps}`);
        }
        if (from)
          console.error(
            `starting from ${fromDir} (${from.card.name}: ${(from.card.tokens.consumed / 1e6).toFixed(2)}M tokens of ${from.card.worlds.count} worlds)`,
          );
        console.error(
          `SFT of preset ${o.preset} (${(countParameters(config) / 1e6).toFixed(2)}M parameters) on ${d.travel} teacher trajectories + ` +
            `${d.toolQa} tool-QA episodes (${o.worldSize} world, seed ${o.seed}), ${o.steps} steps of ${o.batchSize}, ${backend}; ` +
            `data ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
        );
        return { trainer, totalSteps: o.steps };
      },
      async step(trainer) {
        const m = await trainer.sftStep();
        return { loss: m[METRIC.lossesSft], finished: trainer.step >= o.steps };
      },
      savedWords: (trainer) => `step ${trainer.step} of ${o.steps} saved`,
      async finish(trainer, { trainSeconds, lastLoss, commit, dirtyFiles }) {
        const { config, world, validation, data: d } = data!;
        const policy = trainer.policy;
        const tEval = performance.now();
        const { free, constrained } = await evaluateSftPolicy(policy, data!, o.seed);
        const check = await verdictCheck(policy, world, validation);
        const evalSeconds = (performance.now() - tEval) / 1000;

        const { buffer, specs } = await policy.saveWeights();
        writePolicyFiles(out, config, buffer, specs);
        const card: SftCard = {
          format: CARD_FORMAT,
          name: `${o.preset}-${o.worldSize}`,
          preset: o.preset,
          modelConfig: config as SftCard['modelConfig'],
          parameters: countParameters(config),
          world: { size: o.worldSize as 'tiny' | 'small' | 'standard', seed: o.seed },
          data: {
            trainQueries: o.trainQueries,
            validationQueries: o.validationQueries,
            testQueries: o.testQueries ?? 0,
            toolQa: o.toolQa,
            mix: [4, 3, 3],
            examples: d.examples.length,
            travelExamples: d.travel,
          },
          sft: {
            steps: o.steps,
            batchSize: trainer.config.batchSize,
            peakLr: trainer.config.peakLr,
            minLr: trainer.config.minLr,
            warmupSteps: trainer.config.warmupSteps,
          },
          ...(await cardProvenance(
            { seed: o.seed, backend, command, commit, dirtyFiles, finalLoss: lastLoss, trainSeconds },
            buffer,
          )),
          evaluation: {
            split: 'validation',
            free: evaluationFigures(free),
            constrained: evaluationFigures(constrained),
            evalSeconds,
          },
          verdictCheck: { decoding: 'free', batchSize: check.length, queries: check },
          ...(from && fromDir !== undefined
            ? {
                pretrain: {
                  path: fromDir,
                  name: from.card.name,
                  sha256: from.card.weights.sha256,
                  tokens: from.card.tokens.consumed,
                  worlds: from.card.worlds.count,
                  steps: from.card.schedule.steps,
                  trainSeconds: from.card.trainSeconds,
                  command: from.card.command,
                  commit: from.card.commit,
                },
              }
            : {}),
        };
        writeCard(out, card);
        const f = card.evaluation.free;
        const c = card.evaluation.constrained;
        const n = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));
        console.log(
          `wrote ${join(out, 'card.json')}: ${card.pretrain ? `pretrain ${(card.pretrain.tokens / 1e6).toFixed(2)}M tokens, then ` : ''}${o.steps} steps in ${formatDuration(trainSeconds)} (loss ${lastLoss.toFixed(3)}); ` +
            `validation (${f.queries} queries): delivery ${n(f.delivery)}, success ${n(f.success)} free / ` +
            `delivery ${n(c.delivery)}, success ${n(c.success)} constrained; OOD ${n(f.oodAccuracy)} (${f.toolQaTasks} tool-QA tasks)`,
        );
      },
    });
  },
};

/** a pretrain checkpoint fits this SFT run only with the very same model shape */
function checkStart(card: PretrainCard, o: SftPipelineOptions): void {
  if (card.preset !== o.preset)
    throw new Error(`--from: the pretrain checkpoint is preset ${card.preset}, this SFT is preset ${o.preset}`);
  const want = { ...preset(o.preset, VOCAB.size), ...o.model };
  for (const k of [
    'vocabSize',
    'contextLength',
    'dModel',
    'nLayers',
    'nHeads',
    'dFF',
    'positions',
    'embedding',
  ] as const) {
    if (card.modelConfig[k] !== want[k])
      throw new Error(
        `--from: the pretrain checkpoint has ${k} ${String(card.modelConfig[k])}, this SFT ${String(want[k])}`,
      );
  }
}
