// `npm run cli -- evaluate`: greedy rollouts of a checkpoint with real tool calls, scored by the
// official-faithful evaluator, each success rate with its 95 % interval. The
// checkpoint is an SFT checkpoint (public/checkpoints/*) or an RL run's policy folder (`cli run` writes
// OUT/policy with a card naming the run's SFT start); the world, the held-out splits (grown to 300
// queries each: the card's own queries first) and the unseen tool-QA suite are rebuilt from the card.
// With --n set to the card's split size an SFT card's own evaluation is reproduced; with the whole grown
// split, its `evaluation300`. --samples K adds the success of K samples per query at a temperature.
// A checkpoint that fails validation is refused before anything is computed or written.
import { rlConfigFromRecord } from '../../rl/rlConfig.ts';
import type { Command } from '../command.ts';
import { parseFlags } from '../command.ts';
import { flagChoice, flagInt, flagOptionalText, flagText, rejectUnknownFlags } from '../envFlags.ts';
import { readPolicyDir } from '../../node/checkpointDir.ts';
import { writeAtomic } from '../../node/atomicWrite.ts';
import { formatDuration } from '../progress.ts';
import { NODE_BACKENDS, useNodeBackend, wasmThreads } from '../../node/nodeBackend.ts';
import { policyFromCheckpoint, sftOriginFromCard } from '../../rl/loadPolicy.ts';
import { cardToolQa, originEvaluationTasks, type SftOrigin } from '../../rl/rlEnvironment.ts';
import { evaluationFigures, failedCheckCounts, queryVerdicts } from '../../rl/sftCard.ts';
import type { RlPolicyCard, SftCard, ValidWeights } from '../../rl/checkpointFiles.ts';
import { sameFigures, type Figures } from '../cardCompare.ts';
import { evaluatePolicy, type PolicyEvaluation } from '../../agent/evaluatePolicy.ts';
import { wilsonOfMeans, type Interval } from '../../stats/intervals.ts';
import { checkOutFile, makeOutFileParent } from '../outDir.ts';
import { SETTINGS } from '../../lab/config.ts';

const KNOWN = [
  'checkpoint',
  'world',
  'seed',
  'split',
  'n',
  'ood',
  'decoding',
  'failure-rate',
  'batch',
  'json',
  'backend',
  'samples',
  'temperature',
];
/** the batch the sft command evaluates with (the card's figures are only comparable at the same one) */
const CARD_BATCH = 64;

export const evaluateCommand: Command = {
  name: 'evaluate',
  summary:
    'greedy (and sampled) rollouts of an SFT checkpoint or an RL policy with real tool calls, scored by the official-faithful evaluator, with 95 % intervals',
  help: `usage: npm run cli -- evaluate --checkpoint DIR [options]

  --checkpoint DIR        an SFT checkpoint (model.json, weights.bin, card.json; e.g. public/checkpoints/s-tiny) or an RL
                          run's policy folder (OUT/policy of \`cli run\`); checked against its card first: a damaged or
                          mismatched one is refused (exit 1)
  --world tiny|small|standard   the world to evaluate on (default: the card's)
  --seed K                world and dataset seed (default: the card's)
  --split validation|test which held-out queries (default validation; each grown to 300: the card's own first)
  --n N                   the first N queries of the split (default all of them)
  --ood N                 the first N unseen tool-QA tasks (default the card's own; the suite is grown to 100; 0 for none)
  --decoding free|constrained   plan decoding (constrained masks choices the calls cannot resolve); default: as a run
                          evaluates, an RL policy's run's decoding, else the planDecoding setting's default (constrained)
  --failure-rate F        probability that a tool call fails (default 0)
  --samples K             also K samples per query at --temperature: sampled success, pass@1 averaged over the samples
                          (default 0: greedy only)
  --temperature T         sampling temperature of --samples (default: an RL policy's training temperature, else 1)
  --batch B               rollouts decoded together (default ${CARD_BATCH})
  --json FILE             also write the figures, intervals and every query's verdict as JSON
  --backend wasm|cpu|webgpu  tfjs backend (default wasm; webgpu: Dawn, docs/performance.md)

Prints delivery, success (final pass rate) with their 95 % Wilson intervals, commonsense and hard micro/macro,
tool-QA (OOD) accuracy, call parse rate, mean tool calls and tokens; with --samples the sampled success and
its interval (Wilson over queries, a query's K samples one trial: conservative); beside them an SFT card's
figures when the setup is the card's; then which checks the delivered plans failed, each as a share of the
queries and as the only check failed (what fixing it alone would win).`,
  async run(args) {
    const { flags, positional } = parseFlags(args);
    rejectUnknownFlags(flags, positional, KNOWN);
    const dir = flagText(flags, 'checkpoint');
    const split = flagChoice(flags, 'split', ['validation', 'test'] as const, 'validation');
    const failureRate = Number(flagText(flags, 'failure-rate', '0'));
    if (!(failureRate >= 0 && failureRate <= 1))
      throw new Error(`--failure-rate needs a number in [0, 1], got "${String(flags.get('failure-rate'))}"`);
    const batchSize = flagInt(flags, 'batch', CARD_BATCH, 1);
    const samples = flagInt(flags, 'samples', 0);
    const jsonFile = flagOptionalText(flags, 'json');
    const backend = flagChoice(flags, 'backend', NODE_BACKENDS, 'wasm');
    if (jsonFile) checkOutFile(jsonFile, '--json'); // before the evaluation: a bad path must cost nothing (and a refusal writes nothing)

    let loaded: Awaited<ReturnType<typeof readPolicyDir>>;
    try {
      loaded = await readPolicyDir(dir);
    } catch (e) {
      throw new Error(`checkpoint ${dir} refused: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    const sftCard = loaded.kind === 'sft' ? loaded.checkpoint.card : null;
    const rlCard = loaded.kind === 'rl' ? loaded.policy.card : null;
    const weights: ValidWeights = loaded.kind === 'sft' ? loaded.checkpoint : loaded.policy;
    const origin: SftOrigin = sftCard
      ? sftOriginFromCard(sftCard)
      : { ...rlCard!.origin, world: { ...rlCard!.origin.world } };
    const cardWorld = { ...origin.world };
    origin.world = {
      size: flagChoice(flags, 'world', ['tiny', 'small', 'standard'] as const, cardWorld.size),
      seed: flagInt(flags, 'seed', cardWorld.seed),
    };
    // scored as a run evaluates: an RL policy as its run did, an SFT start as a run of the default config does at
    // its step 0, so `evaluate` and a run's start figures agree
    const decoding = flagChoice(
      flags,
      'decoding',
      ['free', 'constrained'] as const,
      rlCard ? rlConfigFromRecord(rlCard.rl).planDecoding : SETTINGS.planDecoding.default,
    );
    const trainedAt = rlCard && typeof rlCard.rl.temperature === 'number' ? rlCard.rl.temperature : 1;
    const temperature = Number(flagText(flags, 'temperature', String(trainedAt)));
    if (!(temperature > 0) || !Number.isFinite(temperature))
      throw new Error(`--temperature needs a positive number, got "${String(flags.get('temperature'))}"`);

    const t0 = performance.now();
    const { world, sft, heldOutQa } = originEvaluationTasks(origin);
    const pool = split === 'test' ? sft.test : sft.validation;
    const n = flagInt(flags, 'n', pool.length, 1);
    if (n > pool.length) throw new Error(`--n ${n}: the ${split} split has ${pool.length} queries`);
    // by default the tasks the card was scored on (the grown suite's first ones)
    const ood = flagInt(flags, 'ood', Math.min(cardToolQa(origin), heldOutQa.length));
    if (ood > heldOutQa.length) throw new Error(`--ood ${ood}: the unseen tool-QA suite has ${heldOutQa.length} tasks`);
    const queries = pool.slice(0, n);
    const qa = heldOutQa.slice(0, ood);

    await useNodeBackend(backend, wasmThreads());
    const policy = policyFromCheckpoint(weights);
    const options = { batchSize, seed: origin.world.seed, failureRate, constrainPlan: decoding === 'constrained' };
    let e: PolicyEvaluation;
    let sampled: PolicyEvaluation | null = null;
    try {
      e = await evaluatePolicy(policy, world, queries, qa, options);
      if (samples > 0) sampled = await evaluatePolicy(policy, world, queries, [], { ...options, samples, temperature });
    } finally {
      policy.dispose();
    }
    const seconds = (performance.now() - t0) / 1000;
    const figures = evaluationFigures(e);
    const intervals = rateIntervals(e);
    const sampledFigures = sampled
      ? { samples, temperature, success: sampled.success, delivery: sampled.deliveryRate, ...rateIntervals(sampled) }
      : null;

    // an SFT card's own evaluations: the original (its split size) and the grown one (evaluation300)
    const cardSetup =
      sftCard !== null &&
      ood === cardToolQa(origin) &&
      failureRate === 0 &&
      batchSize === CARD_BATCH &&
      origin.world.size === cardWorld.size &&
      origin.world.seed === cardWorld.seed;
    const cardFigures: (Figures & Partial<Intervals>) | null = !cardSetup
      ? null
      : split === sftCard.evaluation.split && n === sftCard.evaluation.free.queries
        ? sftCard.evaluation[decoding]
        : sftCard.evaluation300 && split === sftCard.evaluation300.split && n === sftCard.evaluation300.free.queries
          ? sftCard.evaluation300[decoding]
          : null;

    const what = sftCard
      ? `${sftCard.name}: preset ${sftCard.preset}, ${(sftCard.parameters / 1e6).toFixed(2)}M parameters, ${sftCard.sft.steps} SFT steps`
      : `RL policy of run ${rlCard!.hash || '(the default config)'}: ${String(rlCard!.rl.algorithm)}, ${rlCard!.steps} steps from ${rlCard!.sft.name} (${rlCard!.sft.path})`;
    console.log(
      `${what}; ${queries.length} ${split} queries + ${qa.length} unseen tool-QA tasks of the ${origin.world.size} world (seed ${origin.world.seed}), greedy` +
        `${sampled ? ` and ${samples} samples per query at temperature ${temperature}` : ''}, ` +
        `${decoding} decoding${flags.has('decoding') ? '' : ` (as a run ${rlCard ? 'of this policy' : 'from this start'} evaluates; --decoding chooses)`}, tool failure rate ${failureRate}, ${backend}: ` +
        `${formatDuration(seconds)}\n`,
    );
    console.log(figuresTable(figures, cardFigures, intervals, sampledFigures));
    if (cardFigures) {
      console.log(
        sameFigures(figures, cardFigures)
          ? "\nthe card's evaluation is reproduced"
          : `\nthis differs from the card's evaluation (the card was made on ${sftCard!.backend} at commit ${sftCard!.commit.slice(0, 12)})`,
      );
    }
    if (e.failureReasons.length > 0) {
      console.log(
        `\nundelivered plans: ${e.failureReasons
          .slice(0, 5)
          .map(([r, k]) => `${r} (×${k})`)
          .join('; ')}`,
      );
    }
    const checks = failedCheckCounts(e.verdicts);
    if (checks.length > 0) {
      const pct = (k: number) => `${((100 * k) / e.verdicts.length).toFixed(1)}%`;
      console.log(
        `\nfailed checks (share of the ${e.verdicts.length} queries; in parentheses, failed alone): ` +
          checks.map((c) => `${c.check} ${pct(c.failed)} (${pct(c.soleCause)})`).join('; '),
      );
    }
    if (jsonFile) {
      makeOutFileParent(jsonFile, '--json');
      writeAtomic(
        jsonFile,
        JSON.stringify(
          {
            checkpoint: dir,
            card: sftCard ? cardIdentity(sftCard) : rlCardIdentity(rlCard!),
            setup: {
              world: { ...origin.world },
              split,
              queries: queries.length,
              toolQaTasks: qa.length,
              decoding,
              failureRate,
              batchSize,
              backend,
              samples,
              temperature,
            },
            figures,
            intervals,
            sampled: sampledFigures && { ...sampledFigures, querySuccess: sampled!.querySuccess },
            failureReasons: e.failureReasons,
            failedChecks: checks,
            verdicts: queryVerdicts(e, queries),
            seconds,
          },
          null,
          1,
        ) + '\n',
      );
      console.log(`\nwrote ${jsonFile}`);
    }
    return 0;
  },
};

function cardIdentity(card: SftCard) {
  return {
    name: card.name,
    preset: card.preset,
    steps: card.sft.steps,
    commit: card.commit,
    sha256: card.weights.sha256,
  };
}

function rlCardIdentity(card: RlPolicyCard) {
  return {
    kind: 'rl',
    hash: card.hash,
    steps: card.steps,
    sft: card.sft,
    commit: card.commit,
    sha256: card.weights.sha256,
  };
}

export interface Intervals {
  successInterval: { lo: number; hi: number };
  deliveryInterval: { lo: number; hi: number };
}

/** 95 % intervals of an evaluation's success and delivery over its queries (wilsonOfMeans: a query's samples are one
 * trial) */
export function rateIntervals(e: PolicyEvaluation): Intervals {
  const k = e.samplesPerTask;
  const delivered = Array.from(
    { length: e.queries },
    (_, i) => e.verdicts.slice(i * k, i * k + k).filter((v) => v.delivered).length / k,
  );
  const ends = (iv: Interval) => ({ lo: iv.lo, hi: iv.hi });
  return { successInterval: ends(wilsonOfMeans(e.querySuccess)), deliveryInterval: ends(wilsonOfMeans(delivered)) };
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

type ShownInterval = { lo: number | null; hi: number | null } | undefined;

/** the figures, with the card's beside them when the setup is the card's own evaluation, the success and delivery
 *  intervals under them, and the sampled success when there is one */
export function figuresTable(figures: Figures, card: (Figures & Partial<Intervals>) | null, intervals?: Intervals,
  sampled?: { samples: number; temperature: number; success: number; delivery: number } & Intervals | null): string {
  const lines = [`${''.padEnd(32)}${'this run'.padStart(18)}${card ? 'card'.padStart(18) : ''}`];
  const row = (label: string, mine: string, theirs: string | null) =>
    lines.push(`${label.padEnd(32)}${mine.padStart(18)}${card ? (theirs ?? 'n/a').padStart(18) : ''}`);
  for (const [label, show] of ROWS) {
    row(label, show(figures), card ? show(card) : null);
    if (label === 'delivery' && intervals)
      row('  95 % interval', span(intervals.deliveryInterval), span(card?.deliveryInterval));
    if (label === 'success (final pass rate)' && intervals)
      row('  95 % interval', span(intervals.successInterval), span(card?.successInterval));
  }
  if (sampled) {
    row(`sampled success (k ${sampled.samples}, T ${sampled.temperature})`, pct(sampled.success), null);
    row('  95 % interval (conservative)', span(sampled.successInterval), null);
    row('sampled delivery', pct(sampled.delivery), null);
  }
  return lines.join('\n');
}

function span(iv: ShownInterval): string {
  return iv ? `[${pct(iv.lo)}, ${pct(iv.hi)}]` : 'n/a';
}

function pct(x: number | null): string {
  return x === null || !Number.isFinite(x) ? 'n/a' : `${(100 * x).toFixed(1)}%`;
}

function num(x: number | null): string {
  return x === null || !Number.isFinite(x) ? 'n/a' : x.toFixed(1);
}
