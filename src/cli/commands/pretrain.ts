// `npm run cli -- pretrain`: trains a fresh policy of a preset on the teacher trajectories
// and tool-QA of an unlimited stream of generated worlds other than the evaluation world
// (rl/pretrainData.ts) until a token budget is consumed, then writes model.json + weights.bin + a
// pretrain card. `sft --from DIR` starts the tiny-world SFT from it. Like `sft`, it saves its full
// training state every --checkpoint-every steps, and `--resume` continues exactly (same batches, same
// AdamW moments): the stream's cursor (group, batch) and the tokens so far are part of the state.
import { join } from 'node:path';
import type { Command } from '../command.ts';
import { parseFlags } from '../command.ts';
import { flagChoice, flagInt, flagText, rejectUnknownFlags } from '../envFlags.ts';
import { formatDuration } from '../progress.ts';
import { writeCard, writePolicyFiles } from '../../node/checkpointDir.ts';
import type { RunKind } from '../outDir.ts';
import { NODE_BACKENDS } from '../../node/nodeBackend.ts';
import { runSftSession } from '../sftSession.ts';
import { SftTrainer } from '../../rl/sft.ts';
import {
  batchTokens,
  GROUP_WORLDS,
  PRETRAIN_SIZES,
  pretrainGroup,
  pretrainWorld,
  TOKENS_PER_PARAMETER,
  type PretrainDataOptions,
} from '../../rl/pretrainData.ts';
import { cardProvenance, PRETRAIN_CARD_FORMAT, WEIGHTS_FILE, type PretrainCard } from '../../rl/checkpointFiles.ts';
import { PAD, VOCAB } from '../../agent/vocab.ts';
import { createPolicy } from '../../model/transformer.ts';
import { countParameters, preset, type ModelConfig } from '../../model/config.ts';
import { shellCommand } from '../shellQuote.ts';
import { METRIC } from '../../lab/metricNames.ts';

/** the peak learning rates the shipped tiny-world SFT cards use (README: l at 3e-3 diverged to success 0.04) */
const DEFAULT_LR = { s: '3e-3', m: '3e-3', l: '1.5e-3' } as const;

const KNOWN = [
  'preset',
  'tokens',
  'out',
  'resume',
  'force',
  'allow-dirty',
  'seed',
  'backend',
  'batch',
  'lr',
  'context',
  'world-queries',
  'world-tool-qa',
  'checkpoint-every',
  'session-steps',
];

/** what a pretraining run's folder holds (outDir.ts): a checkpoint for `sft --from` once card.json is written */
export const PRETRAIN_RUN_KIND: RunKind = {
  noun: 'pretraining run',
  finishedFile: 'card.json',
  files: ['model.json', WEIGHTS_FILE, 'card.json'],
};

export const pretrainCommand: Command = {
  name: 'pretrain',
  summary:
    'pretrains a preset on the teacher data of many generated worlds (never the evaluation world); writes a checkpoint for sft --from',
  help: `usage: npm run cli -- pretrain --preset s|m|l --out DIR [options]

  --preset s|m|l          policy size (as sft)
  --tokens N              token budget: train until N real (unpadded) sequence tokens are consumed
                          (default ${TOKENS_PER_PARAMETER} × the preset's parameters: Chinchilla's compute-optimal ratio, so every
                          preset gets the same data per weight and the larger ones the more experience; docs/scale.md)
  --out DIR               writes DIR/model.json, DIR/${WEIGHTS_FILE}, DIR/card.json (and DIR/resume/ while running)
  --resume                continue the run saved in DIR/resume (same options required); a finished DIR is left as is
  --force                 replace what DIR holds; without --resume or --force a DIR holding a run is refused
  --allow-dirty           write into the repository from code that differs from HEAD (the card lists the differing
                          files and their SHA-256; without it such a run is refused before it starts: commit first)
  --seed K                world stream, data order and init (default 1); world k is ${PRETRAIN_SIZES.join('/')} (alternating)
                          with seed 1e6·(K+1)+k, never the tiny evaluation world
  --batch B               sequences per step (default 8, as sft)
  --lr X                  peak learning rate (default: the shipped SFT's, 3e-3 for s and m, 1.5e-3 for l, where 3e-3 failed;
                          warm-up, then cosine to X/10 at the planned end)
  --context N             context length in tokens (default 576, as sft: longer sequences are dropped)
  --world-queries N       travel queries the teacher solves per world (default 64)
  --world-tool-qa N       tool-QA episodes per world (default 16: the sft data's 4 : 1)
  --checkpoint-every N    save the resume state every N steps (default 100)
  --session-steps N       stop after N steps of this session, leaving the resume state (run in chunks)
  --backend wasm|cpu|webgpu  tfjs backend (default wasm; webgpu: Dawn, docs/performance.md)`,
  async run(args) {
    const { flags, positional } = parseFlags(args);
    rejectUnknownFlags(flags, positional, KNOWN, ['resume', 'force', 'allow-dirty']);
    // every flag is checked before anything is written
    const out = flagText(flags, 'out');
    const backend = flagChoice(flags, 'backend', NODE_BACKENDS, 'wasm');
    const presetName = flagChoice(flags, 'preset', ['s', 'm', 'l'] as const, 's');
    const config: ModelConfig = {
      ...preset(presetName, VOCAB.size),
      contextLength: flagInt(flags, 'context', 576, 16),
    };
    const parameters = countParameters(config);
    const budget = flagInt(flags, 'tokens', TOKENS_PER_PARAMETER * parameters, 1);
    const seed = flagInt(flags, 'seed', 1);
    const peakLr = Number(flagText(flags, 'lr', DEFAULT_LR[presetName]));
    if (!(peakLr > 0)) throw new Error(`--lr needs a positive number, got "${String(flags.get('lr'))}"`);
    const data: PretrainDataOptions = {
      seed,
      batchSize: flagInt(flags, 'batch', 8, 1),
      contextLength: config.contextLength,
      worldQueries: flagInt(flags, 'world-queries', 64, 1),
      worldToolQa: flagInt(flags, 'world-tool-qa', 16),
    };
    const every = flagInt(flags, 'checkpoint-every', 100, 1);
    const sessionSteps = flagInt(flags, 'session-steps', Infinity, 1);
    const command = shellCommand('npm run cli -- pretrain', stripSessionFlags(args));
    const fingerprint = JSON.stringify({ presetName, config, budget, peakLr, ...data, backend });
    // the data stream's state: the world group, the cursor in it (group, batch), the tokens consumed
    let group: ReturnType<typeof pretrainGroup>;
    let cursor = { group: 0, batch: 0 };
    let tokens = 0;
    let plannedSteps = 0;
    return runSftSession({
      command: 'pretrain',
      out,
      flags,
      resumeArgs: stripSessionFlags(args),
      fingerprint,
      kind: PRETRAIN_RUN_KIND,
      backend,
      label: `pretrain ${presetName} `,
      every,
      session: { steps: sessionSteps, words: () => `${fmtTokens(tokens)} tokens` },
      start(resumed) {
        const t0 = performance.now();
        group = pretrainGroup(data, 0);
        // the cosine's length: the budget over group 0's mean batch (a pure function of the options)
        const meanBatch = group.batches.reduce((n, b) => n + batchTokens(b), 0) / group.batches.length;
        plannedSteps = Math.max(1, Math.ceil(budget / meanBatch));
        const trainerConfig = {
          batchSize: data.batchSize,
          totalSteps: plannedSteps,
          warmupSteps: Math.min(100, Math.ceil(plannedSteps / 10)),
          peakLr,
          minLr: peakLr / 10,
          padId: PAD,
          seed,
        };
        let trainer = new SftTrainer(createPolicy(config, seed), group.examples, trainerConfig);
        if (resumed) {
          cursor = resumed.extra.cursor as typeof cursor;
          tokens = Number(resumed.extra.tokens);
          if (cursor.group !== 0) group = pretrainGroup(data, cursor.group);
          trainer.dispose();
          trainer.policy.dispose();
          trainer = SftTrainer.restore(resumed.ckpt, group.examples, trainer.config);
          console.error(
            `resuming ${out} at step ${trainer.step} (${fmtTokens(tokens)} of ${fmtTokens(budget)} tokens, world group ${cursor.group})`,
          );
        }
        console.error(
          `pretraining preset ${presetName} (${(parameters / 1e6).toFixed(2)}M parameters) on ${fmtTokens(budget)} tokens ` +
            `(${(budget / parameters).toFixed(1)} per parameter) of ${PRETRAIN_SIZES.join('/')} worlds, ${data.worldQueries} trajectories + ` +
            `${data.worldToolQa} tool-QA each; ~${plannedSteps} steps of ${data.batchSize}, ${backend}; data ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
        );
        return { trainer, totalSteps: plannedSteps };
      },
      async step(trainer) {
        if (cursor.batch >= group.batches.length) {
          cursor = { group: cursor.group + 1, batch: 0 };
          group = pretrainGroup(data, cursor.group);
        }
        const batch = group.batches[cursor.batch];
        const m = await trainer.sftStep(batch);
        cursor = { ...cursor, batch: cursor.batch + 1 };
        tokens += batchTokens(batch);
        return {
          loss: m[METRIC.lossesSft],
          finished: tokens >= budget,
          bar: { tokens: `${fmtTokens(tokens)}/${fmtTokens(budget)}` },
        };
      },
      extra: () => ({ tokens, cursor, plannedSteps }),
      savedWords: (trainer) => `step ${trainer.step} saved (${fmtTokens(tokens)} tokens)`,
      async finish(trainer, { trainSeconds, lastLoss, commit, dirtyFiles }) {
        const { buffer, specs } = await trainer.policy.saveWeights();
        writePolicyFiles(out, config, buffer, specs);
        const worlds = (cursor.group + 1) * GROUP_WORLDS;
        const card: PretrainCard = {
          format: PRETRAIN_CARD_FORMAT,
          name: `${presetName}-pretrain`,
          preset: presetName,
          modelConfig: config as PretrainCard['modelConfig'],
          parameters,
          tokens: { budget, consumed: tokens, perParameter: tokens / parameters },
          worlds: {
            count: worlds,
            sizes: [...PRETRAIN_SIZES],
            firstSeed: pretrainWorld(seed, 0).seed,
            lastSeed: pretrainWorld(seed, worlds - 1).seed,
            queriesPerWorld: data.worldQueries,
            toolQaPerWorld: data.worldToolQa,
          },
          schedule: {
            steps: trainer.step,
            plannedSteps,
            batchSize: data.batchSize,
            peakLr,
            minLr: trainer.config.minLr,
            warmupSteps: trainer.config.warmupSteps,
          },
          ...(await cardProvenance(
            { seed, backend, command, commit, dirtyFiles, finalLoss: lastLoss, trainSeconds },
            buffer,
          )),
        };
        writeCard(out, card);
        console.log(
          `wrote ${join(out, 'card.json')}: ${trainer.step} steps, ${fmtTokens(tokens)} tokens of ${worlds} worlds in ` +
            `${formatDuration(trainSeconds)} (${Math.round(tokens / Math.max(1e-9, trainSeconds))} tokens/s), loss ${lastLoss.toFixed(3)}`,
        );
      },
    });
  },
};

/** the arguments that define the run (a card's command): without --resume, --force and --session-steps N */
function stripSessionFlags(args: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--resume' || args[i] === '--force' || args[i].startsWith('--session-steps=')) continue;
    if (args[i] === '--session-steps') i++;
    else kept.push(args[i]);
  }
  return kept;
}

function fmtTokens(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : String(n);
}
