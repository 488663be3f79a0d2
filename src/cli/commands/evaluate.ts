// `npm run cli -- evaluate`: greedy rollouts of a checkpoint with real tool calls, scored by the
// official-faithful evaluator (issue 9). The world, the splits and the unseen tool-QA suite are rebuilt
// from the checkpoint's card, so with the defaults this reproduces the card's own evaluation; a
// checkpoint that fails validation is refused before anything is computed or written.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Command } from '../command.ts';
import { parseFlags } from '../command.ts';
import { flagChoice, flagInt, flagOptionalText, flagText, rejectUnknownFlags } from '../envFlags.ts';
import { readCheckpointDir, writeAtomic } from '../checkpointDir.ts';
import { formatDuration } from '../progress.ts';
import { NODE_BACKENDS, useNodeBackend, wasmThreads } from '../nodeBackend.ts';
import { sftPipelineData } from '../../rl/sftPipeline.ts';
import { pipelineOptionsFromCard, policyFromCheckpoint } from '../../rl/loadPolicy.ts';
import { evaluationFigures, queryVerdicts } from '../../rl/sftCard.ts';
import type { SftCard, ValidCheckpoint } from '../../rl/checkpointFiles.ts';
import { sameFigures, type Figures } from '../cardCompare.ts';
import { evaluatePolicy } from '../../agent/evaluatePolicy.ts';

const KNOWN = ['checkpoint', 'world', 'seed', 'split', 'n', 'ood', 'decoding', 'failure-rate', 'batch', 'json', 'backend'];
/** the batch the sft command evaluates with (the card's figures are only comparable at the same one) */
const CARD_BATCH = 64;

export const evaluateCommand: Command = {
  name: 'evaluate',
  summary: 'greedy rollouts of a checkpoint with real tool calls, scored by the official-faithful evaluator',
  help: `usage: npm run cli -- evaluate --checkpoint DIR [options]

  --checkpoint DIR        a folder with model.json, weights.bin and card.json (e.g. public/checkpoints/s-tiny);
                          checked against its card first: a damaged or mismatched one is refused (exit 1)
  --world tiny|small|standard   the world to evaluate on (default: the card's)
  --seed K                world and dataset seed (default: the card's)
  --split validation|test which held-out queries (default validation)
  --n N                   the first N queries of the split (default all of them)
  --ood N                 the first N unseen tool-QA tasks (default all of the card's suite; 0 for none)
  --decoding free|constrained   plan decoding (constrained masks choices the calls cannot resolve; default free)
  --failure-rate F        probability that a tool call fails (default 0)
  --batch B               rollouts decoded together (default ${CARD_BATCH})
  --json FILE             also write the figures and every query's verdict as JSON
  --backend wasm|cpu      tfjs backend (default wasm)

Prints delivery, success (final pass rate), commonsense and hard micro/macro, tool-QA (OOD) accuracy,
call parse rate, mean tool calls and tokens; beside them the card's figures when the setup is the card's.`,
  async run(args) {
    const { flags, positional } = parseFlags(args);
    rejectUnknownFlags(flags, positional, KNOWN);
    const dir = flagText(flags, 'checkpoint');
    const split = flagChoice(flags, 'split', ['validation', 'test'] as const, 'validation');
    const decoding = flagChoice(flags, 'decoding', ['free', 'constrained'] as const, 'free');
    const failureRate = Number(flagText(flags, 'failure-rate', '0'));
    if (!(failureRate >= 0 && failureRate <= 1)) throw new Error(`--failure-rate needs a number in [0, 1], got "${String(flags.get('failure-rate'))}"`);
    const batchSize = flagInt(flags, 'batch', CARD_BATCH, 1);
    const jsonFile = flagOptionalText(flags, 'json');
    const backend = flagChoice(flags, 'backend', NODE_BACKENDS, 'wasm');

    let checkpoint: ValidCheckpoint;
    try {
      checkpoint = await readCheckpointDir(dir);
    } catch (e) {
      throw new Error(`checkpoint ${dir} refused: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    const { card } = checkpoint;
    const o = pipelineOptionsFromCard(card);
    o.worldSize = flagChoice(flags, 'world', ['tiny', 'small', 'standard'] as const, card.world.size);
    o.seed = flagInt(flags, 'seed', card.seed);

    const t0 = performance.now();
    const { world, validation, test, heldOutQa } = sftPipelineData(o);
    const pool = split === 'test' ? test : validation;
    const n = flagInt(flags, 'n', pool.length, 1);
    if (n > pool.length) throw new Error(`--n ${n}: the card's ${split} split has ${pool.length} queries`);
    const ood = flagInt(flags, 'ood', heldOutQa.length);
    if (ood > heldOutQa.length) throw new Error(`--ood ${ood}: the card's unseen tool-QA suite has ${heldOutQa.length} tasks`);
    const queries = pool.slice(0, n);
    const qa = heldOutQa.slice(0, ood);

    await useNodeBackend(backend, wasmThreads());
    const policy = policyFromCheckpoint(checkpoint);
    let e;
    try {
      e = await evaluatePolicy(policy, world, queries, qa, { batchSize, seed: o.seed, failureRate, constrainPlan: decoding === 'constrained' });
    } finally {
      policy.dispose();
    }
    const seconds = (performance.now() - t0) / 1000;
    const figures = evaluationFigures(e);
    const sameAsCard = split === card.evaluation.split && n === pool.length && ood === heldOutQa.length && failureRate === 0 &&
      batchSize === CARD_BATCH && o.worldSize === card.world.size && o.seed === card.seed;

    console.log(`${card.name}: preset ${card.preset}, ${(card.parameters / 1e6).toFixed(2)}M parameters, ${card.sft.steps} SFT steps; ` +
      `${queries.length} ${split} queries + ${qa.length} unseen tool-QA tasks of the ${o.worldSize} world (seed ${o.seed}), greedy, ` +
      `${decoding} decoding, tool failure rate ${failureRate}, ${backend}: ${formatDuration(seconds)}\n`);
    const cardFigures = sameAsCard ? card.evaluation[decoding] : null;
    console.log(figuresTable(figures, cardFigures));
    if (cardFigures) {
      console.log(sameFigures(figures, cardFigures)
        ? '\nthe card\'s evaluation is reproduced'
        : `\nthis differs from the card's evaluation (the card was made on ${card.backend} at commit ${card.commit.slice(0, 12)})`);
    }
    if (e.failureReasons.length > 0) {
      console.log(`\nundelivered plans: ${e.failureReasons.slice(0, 5).map(([r, k]) => `${r} (×${k})`).join('; ')}`);
    }
    if (jsonFile) {
      mkdirSync(dirname(jsonFile), { recursive: true });
      writeAtomic(jsonFile, JSON.stringify({
        checkpoint: dir, card: cardIdentity(card),
        setup: { world: { size: o.worldSize, seed: o.seed }, split, queries: queries.length, toolQaTasks: qa.length, decoding, failureRate, batchSize, backend },
        figures, failureReasons: e.failureReasons, verdicts: queryVerdicts(e, queries), seconds,
      }, null, 1) + '\n');
      console.log(`\nwrote ${jsonFile}`);
    }
    return 0;
  },
};

function cardIdentity(card: SftCard) {
  return { name: card.name, preset: card.preset, steps: card.sft.steps, commit: card.commit, sha256: card.weights.sha256 };
}

const ROWS: [string, (f: Figures) => string][] = [
  ['delivery', (f) => pct(f.delivery)],
  ['success (final pass rate)', (f) => pct(f.success)],
  ['commonsense micro / macro', (f) => `${pct(f.commonsenseMicro)} / ${pct(f.commonsenseMacro)}`],
  ['hard micro / macro', (f) => `${pct(f.hardMicro)} / ${pct(f.hardMacro)}`],
  ['tool-QA (OOD) accuracy', (f) => pct(f.oodAccuracy)],
  ['calls that parse', (f) => pct(f.callParseRate)],
  ['mean tool calls', (f) => num(f.meanCalls)],
  ['mean tokens', (f) => num(f.meanTokens)],
];

/** the figures, with the card's beside them when the setup is the card's own evaluation */
export function figuresTable(figures: Figures, card: Figures | null): string {
  const lines = [`${''.padEnd(28)}${'this run'.padStart(16)}${card ? 'card'.padStart(16) : ''}`];
  for (const [label, show] of ROWS) lines.push(`${label.padEnd(28)}${show(figures).padStart(16)}${card ? show(card).padStart(16) : ''}`);
  return lines.join('\n');
}

function pct(x: number | null): string {
  return x === null || !Number.isFinite(x) ? 'n/a' : `${(100 * x).toFixed(1)}%`;
}

function num(x: number | null): string {
  return x === null || !Number.isFinite(x) ? 'n/a' : x.toFixed(1);
}
