// One headless RL run, shared by `cli run` and `cli sweep`: from a shipped SFT checkpoint,
// train with the lab config's algorithm / reward / data / failure rate, evaluating at step 0, every
// evalEvery steps and at the end. The steps are the run loop's (src/rl/rlRunLoop.ts), the page's too;
// this file is its host on disk. Writes into DIR:
//   metrics.jsonl   one JSON object per step (and per evaluation), the trainer's metric names
//   metrics.csv     the same as a table (written at the end)
//   events.out.tfevents.star-lab  the same for TensorBoard, with the config as text (written at the end)
//   summary.json    config, start and final in-domain / OOD figures, wall time, backend (and on webgpu its adapter),
// commit samples.jsonl   a few scored rollouts at each evaluation, the page's picks (the episode viewer's format)
//   policy/         the final weights (model.json + weights.bin) and card.json (star-lab-rl-policy-card/1: the
//                   run's config, its SFT start, the world and data that rebuild its splits), so
//                   `cli evaluate --checkpoint DIR/policy` scores it on any split
//   resume/         the full training state every resumeEvery steps and at each evaluation, while the run is unfinished
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { SETTINGS, type LabConfig } from '../lab/config.ts';
import { ignoredSettingLines } from './labConfigArg.ts';
import { parseHash, serializeHash } from '../lab/urlState.ts';
import { withMetricNames } from '../lab/metrics.ts';
import { checkConfigAgainstStart, configAsTrained, rlRunKey } from '../rl/startConfig.ts';
import { rlConfigFromLab, type RlConfig } from '../rl/rlConfig.ts';
import { rlEnvironment } from '../rl/rlEnvironment.ts';
import { RlTrainer, type Metrics, type StepProgress } from '../rl/rlTrainer.ts';
import { policyFromCheckpoint } from '../rl/loadPolicy.ts';
import { rlSampleContext, rlSampleEpisodes } from '../worker/rlSample.ts';
import { isEvaluationStep, RlRunLoop, type PickedRollouts } from '../rl/rlRunLoop.ts';
import {
  readCheckpointDir,
  shippedCheckpointDir,
  readResumeState,
  writeAtomic,
  writePolicyFiles,
  writeResumeState,
  writeRlPolicyCard,
} from '../node/checkpointDir.ts';
import { RL_POLICY_CARD_FORMAT, sha256Hex, WEIGHTS_FILE, type RlPolicyCard } from '../rl/checkpointFiles.ts';
import { prepareRunDir, type RunKind } from './outDir.ts';
import { useNodeBackend, wasmThreads, type NodeBackend } from '../node/nodeBackend.ts';
import { nodeWebgpuAdapter, type WebgpuAdapterInfo } from '../node/nodeWebgpu.ts';
import { Heartbeat, plural, ProgressBar } from './progress.ts';
import { Interrupted, yielder, type StopRequests } from './interrupt.ts';
import { writeFailure } from '../node/atomicWrite.ts';
import { metricsCsv } from './metricsCsv.ts';
import { writeRunEvents } from './runEvents.ts';
import { TENSORBOARD_FILE } from '../store/tensorboardEvents.ts';
import { provenance, type DirtyFile } from '../node/provenance.ts';
import { createHash } from 'node:crypto';
import type { RunFigures } from '../findings/findingTable.ts';

export interface RlRunOptions {
  lab: LabConfig;
  out: string;
  /** the SFT checkpoint folder (default: the shipped one of the config's scale) */
  checkpoint?: string;
  /** continue the run saved in `out` (the same setting); a finished one is returned as it is, untrained.
   *  'if-saved': the same, without a word when there is nothing to continue (a sweep's runs) */
  resume: boolean | 'if-saved';
  /** replace whatever `out` holds (said on stderr); without it or `resume` a folder holding a run is refused */
  force?: boolean;
  backend: NodeBackend;
  /** overrides of the RL config derived from the lab config (e.g. a sweep's --quick evaluation size) */
  rl?: Partial<RlConfig>;
  /** label on the progress bar */
  label?: string;
  quiet?: boolean;
  /** write the final weights to DIR/policy (default true; sweeps keep only curves and summaries) */
  keepPolicy?: boolean;
  /** a folder of step-0 evaluations shared by runs: the greedy evaluation of a checkpoint depends only on
   *  the checkpoint and the evaluation settings, so a grid of 23 runs from 3 checkpoints needs 3 of them */
  startCache?: string;
  /** write the training state (resume/) every N steps besides each evaluation (default RESUME_EVERY): a
   *  findings run evaluates only at its end, and a session that ends mid-run should not lose the run */
  resumeEvery?: number;
  /** called after each step once its lines and any resume state are written; what it throws stops the
   *  run there, as a crash would (the tests stop a run with it) */
  afterStep?: (step: number) => void;
  /** a stop asked for (Ctrl-C, SIGTERM) is taken at the next rollout turn or micro-batch: the last completed
   *  step is saved and Interrupted thrown, its `saved` saying what was kept */
  stops?: StopRequests;
  /** write a run into the repository from code that differs from HEAD (the summary lists the differing files) */
  allowDirty?: boolean;
}

/** a run's writes refused by the disk (full, read-only): the message says what and what was kept */
export class WriteFailed extends Error {}

/** steps between two saves of the training state: a save at l is ~15 MB and well under a second */
export const RESUME_EVERY = 10;


export interface RlSummary {
  format: 'star-lab-rl-summary/1';
  /** the config as trained (serializeHash of `lab`): its worldSize is the start's world, whatever the config said */
  hash: string;
  lab: LabConfig;
  /** the world the run trained and was evaluated in: its SFT start's (absent in older summaries) */
  world?: { size: LabConfig['worldSize']; seed: number };
  rl: RlConfig;
  checkpoint: string;
  /** the SFT checkpoint's weights.sha256: a sweep reuses a finished run only from the same start */
  checkpointSha256: string;
  steps: number;
  start: RunFigures;
  final: RunFigures;
  wallSeconds: number;
  /** CPU seconds of this process (user + system, summed over resumes): a run's cost on a shared machine, where wall
   * time counts the neighbours */
  cpuSeconds: number;
  backend: string;
  /** on webgpu, the adapter it ran on (a fallback one is SwiftShader's CPU emulation, not a GPU) */
  adapter?: WebgpuAdapterInfo;
  commit: string;
  /** files that differed from `commit` when the run started (only with --allow-dirty) */
  dirtyFiles?: DirtyFile[];
  finishedAt: string;
}

/** what an RL run's folder holds (outDir.ts decides from it whether a folder is this run, another, or not a run) */
export const RL_RUN_KIND: RunKind = {
  noun: 'RL run',
  finishedFile: 'summary.json',
  files: ['metrics.jsonl', 'metrics.csv', 'summary.json', 'samples.jsonl', 'policy', TENSORBOARD_FILE],
  kept: ['run.log'],
  // a run finished before run.json was written: its summary says what it trained
  legacyFingerprint: (dir) => {
    const s = readSummary(dir);
    return s ? resumeFingerprint(s.lab, s.rl, s.checkpointSha256, s.backend as NodeBackend) : null;
  },
  describeFinished: (dir) => {
    const s = readSummary(dir);
    const f = (x: number | null | undefined) => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(3) : 'n/a');
    return s
      ? `${plural(s.steps, 'step')}, validation success ${f(s.start.success)} → ${f(s.final.success)}`
      : 'its summary.json is unreadable';
  },
};

export { shippedCheckpointDir };

function figures(m: Metrics): RunFigures {
  const at = (k: string) => m[k] ?? NaN;
  return {
    success: at('eval/success'),
    delivery: at('eval/delivery'),
    csMicro: at('eval/cs_micro'),
    hardMicro: at('eval/hard_micro'),
    ood: at('eval/ood_accuracy'),
    successLo: at('eval/success_lo'),
    successHi: at('eval/success_hi'),
    queries: at('eval/queries'),
    sampleSuccess: at('eval/sample_success'),
    sampleSuccessLo: at('eval/sample_success_lo'),
    sampleSuccessHi: at('eval/sample_success_hi'),
    samples: at('eval/samples'),
  };
}

/** a path as the card records it: relative to the working directory (the repository root) when inside it */
function cardPath(p: string): string {
  const r = relative(process.cwd(), resolve(p));
  return r && !r.startsWith('..') && !isAbsolute(r) ? r : resolve(p);
}

/** whether a finished run's summary is a run of `lab` (World size aside: the start decides it, and summaries
 *  written before runs recorded their start's world recorded the setting's default instead) */
export function summaryIsOf(s: RlSummary, lab: LabConfig): boolean {
  return rlRunKey(parseHash(s.hash).config) === rlRunKey(lab);
}

export function readSummary(dir: string): RlSummary | null {
  const p = join(dir, 'summary.json');
  if (!existsSync(p)) return null;
  try {
    return JSON.parse(readFileSync(p, 'utf8')) as RlSummary;
  } catch {
    return null;
  }
}

/** what a resumed run must share with the one that saved: everything but the micro-batch token budget, which
 *  sets memory, not the update (a run that ran out of memory resumes with a smaller one), and the World size,
 *  which the start checkpoint (its hash is here) decides */
export function resumeFingerprint(
  lab: LabConfig,
  rl: RlConfig,
  checkpointSha256: string,
  backend: NodeBackend,
): string {
  const { microBatchTokens: _budget, ...update } = rl;
  const hash = rlRunKey({ ...lab, microBatchTokens: SETTINGS.microBatchTokens.default });
  return JSON.stringify({ hash, rl: update, checkpoint: checkpointSha256, backend });
}

/** `adapter` for a webgpu run's summary (nothing on the other backends) */
function adapterField(backend: NodeBackend): { adapter?: WebgpuAdapterInfo } {
  const adapter = backend === 'webgpu' ? nodeWebgpuAdapter() : null;
  return adapter ? { adapter } : {};
}

/** CPU seconds this process has spent (user + system) */
function processCpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

export async function runRl(o: RlRunOptions): Promise<RlSummary> {
  // a line per loading stage: the first evaluation's numbers come tens of seconds in
  const stage = (what: string) => { if (!o.quiet) console.error(what); };
  stage(`loading the ${o.backend} backend…`);
  await useNodeBackend(o.backend, wasmThreads());
  const rl = { ...rlConfigFromLab(o.lab), ...o.rl };
  for (const line of ignoredSettingLines(o.lab)) console.error(line);
  const ckptDir = o.checkpoint ?? shippedCheckpointDir(o.lab.scale);
  stage(`reading the checkpoint ${cardPath(ckptDir)}…`);
  const ckpt = await readCheckpointDir(ckptDir);
  stage(`building the ${ckpt.card.world.size} world's training and validation queries…`);
  // the start decides the world and the preset: a config that says otherwise is refused, and the run records what it
  // trained
  checkConfigAgainstStart(o.lab, ckpt.card, cardPath(ckptDir));
  const lab = configAsTrained(o.lab, ckpt.card.world);
  const env = rlEnvironment(
    { world: ckpt.card.world, data: ckpt.card.data, contextLength: ckpt.config.contextLength },
    { trainSize: o.lab.trainSize, mix: o.lab.mix },
  );
  const hash = serializeHash(lab);
  const fingerprint = resumeFingerprint(lab, rl, ckpt.card.weights.sha256, o.backend);
  // checked before anything is written: a folder holding another run is refused, not overwritten
  // refused before anything is written or trained: a run that lands in results/ must name code one can check out
  const made = provenance(join(o.out, 'summary.json'), { allowDirty: o.allowDirty });
  const begin = prepareRunDir(o.out, { resume: o.resume, force: o.force ?? false, fingerprint, kind: RL_RUN_KIND });
  if (begin.action === 'finished') {
    const done = readSummary(o.out);
    if (!done)
      throw new Error(
        `${join(o.out, 'summary.json')} is not readable; pass --force to run again (nothing was written)`,
      );
    return done;
  }

  // what it loaded and what it will do, before the first (slow) evaluation
  console.error(
    `${begin.action === 'resume' ? 'resuming' : 'starting'} ${o.out}: ${rl.algorithm.toUpperCase()} with the ${rl.reward} reward from ` +
      `${ckpt.card.name} (${cardPath(ckptDir)}: preset ${ckpt.card.preset}, the ${ckpt.card.world.size} world, seed ${ckpt.card.world.seed}), ` +
      `${plural(rl.steps, 'step')} of ${plural(rl.queriesPerStep, 'query', 'queries')} × ${rl.groupSize} rollouts, ${o.backend}; evaluated at step 0, every ${plural(rl.evalEvery, 'step')} ` +
      `and at the end on ${rl.evalQueries} validation queries + ${rl.evalToolQa} unseen tool-QA tasks`,
  );
  const start = policyFromCheckpoint(ckpt);
  const reference = rl.klCoef > 0 ? policyFromCheckpoint(ckpt) : null;
  let trainer = new RlTrainer(start, reference, env, rl);
  let wallBefore = 0;
  let cpuBefore = 0;
  // this run's CPU, not the process's: a sweep with --jobs 1 runs its runs one after another in one process
  let cpuAtStart = 0; // set where the wall clock starts
  const cpuNow = () => cpuBefore + processCpuSeconds() - cpuAtStart;
  let startFigures: RunFigures | null = null;
  const saved = begin.action === 'resume' ? readResumeState(o.out, fingerprint) : null;
  let pendingEval = false;
  if (saved) {
    trainer.dispose();
    start.dispose();
    trainer = RlTrainer.restore(saved.ckpt, reference, env, rl);
    wallBefore = Number(saved.extra.wallSeconds ?? 0);
    cpuBefore = Number(saved.extra.cpuSeconds ?? 0);
    startFigures = (saved.extra.start as RunFigures) ?? null;
    // the lines past the saved step are redone; the saved step's own (train, eval) stay
    const kept = readLines(join(o.out, 'metrics.jsonl')).map(withMetricNames).filter((m) => m.step <= trainer.step);
    writeAtomic(join(o.out, 'metrics.jsonl'), kept.map((m) => JSON.stringify(m) + '\n').join(''));
    const samples = readLines(join(o.out, 'samples.jsonl')).filter((m) => m.step <= trainer.step);
    writeAtomic(join(o.out, 'samples.jsonl'), samples.map((m) => JSON.stringify(m) + '\n').join(''));
    // a run stopped during the evaluation of its saved step evaluates it first (its samples are written)
    pendingEval = isEvaluationStep(trainer.step, rl) && !kept.some((m) => m.kind === 'eval' && m.step === trainer.step);
    if (!o.quiet) console.error(`resuming ${o.out} at step ${trainer.step}/${rl.steps}`);
  }
  const t0 = performance.now();
  cpuAtStart = processCpuSeconds();
  const log = (kind: 'train' | 'eval', step: number, m: Metrics) =>
    appendFileSync(join(o.out, 'metrics.jsonl'), JSON.stringify({ kind, step, ...m }) + '\n');
  const writeSamples = (step: number, picked: PickedRollouts, m: Metrics) => {
    const lines = sampleLines(step, picked, rlSampleContext(trainer.env.world, rl.algorithm, m));
    appendFileSync(join(o.out, 'samples.jsonl'), lines.map((l) => JSON.stringify(l) + '\n').join(''));
  };
  let lastEval: Metrics = {};
  const beat = o.quiet ? null : new Heartbeat(o.label ?? '');
  const letSignalsIn = yielder();
  // each rollout turn and micro-batch: a heartbeat when the step is slow, and the place a stop is taken
  const pausePoint = async (at: StepProgress) => {
    await letSignalsIn();
    beat?.beat(trainer.step, rl.steps, at);
    o.stops?.check();
  };
  trainer.pause = pausePoint;
  const saveState = async () => writeResumeState(o.out, await trainer.checkpoint(), fingerprint,
    { wallSeconds: wallBefore + (performance.now() - t0) / 1000, cpuSeconds: cpuNow(), start: startFigures });
  try {
    if (pendingEval) {
      lastEval = await trainer.evaluate();
      log('eval', trainer.step, lastEval);
    }
    const loop = new RlRunLoop(trainer, rl, o.resumeEvery ?? RESUME_EVERY);
    if (!saved) {
      stage(`evaluating the start (step 0) on ${plural(rl.evalQueries, 'validation query', 'validation queries')} + ${rl.evalToolQa} tool-QA tasks…`);
      lastEval = await loop.start(() => startEvaluation(trainer, rl, ckpt.card.weights.sha256, o));
      log('eval', 0, lastEval);
      startFigures = figures(lastEval);
    }
    const bar = o.quiet ? null : new ProgressBar(rl.steps, trainer.step, o.label ?? `rl ${rl.algorithm} `, 5);
    while (!loop.done) {
      // the step's line and its samples are written before its evaluation: a run stopped during it resumes with them
      const { step, train: m, evaluation, saveState: saveDue } = await loop.step({
        trained: (at, metrics) => log('train', at, metrics),
        samples: writeSamples,
      });
      if (evaluation) {
        lastEval = evaluation;
        log('eval', step, lastEval);
      }
      if (saveDue) await saveState();
      o.afterStep?.(step);
      const valSuccess = lastEval['eval/success'];
      const shown: Record<string, string> = valSuccess !== undefined ? { 'val succ': valSuccess.toFixed(3) } : {};
      bar?.update(step, { reward: m['reward/mean'].toFixed(3), ...shown });
      beat?.reset();
    }
    bar?.done();
    // trained and evaluated: what is left is writing it down, which a stop no longer interrupts
    trainer.pause = null;
    if (trainer.step > 0 && !lastEval['eval/success'] && lastEval['eval/success'] !== 0)
      lastEval = await trainer.evaluate();
    if (o.keepPolicy !== false) {
      const { buffer, specs } = await trainer.policy.saveWeights();
      const dir = join(o.out, 'policy');
      rmSync(join(dir, 'card.json'), { force: true }); // weights without their card are not a policy: the card goes last
      writePolicyFiles(dir, trainer.policy.config, buffer, specs);
      const d = ckpt.card.data;
      const card: RlPolicyCard = {
        format: RL_POLICY_CARD_FORMAT,
        hash,
        lab: { ...lab },
        rl: { ...rl },
        sft: { name: ckpt.card.name, path: cardPath(ckptDir), sha256: ckpt.card.weights.sha256 },
        origin: {
          world: { ...ckpt.card.world },
          data: {
            trainQueries: d.trainQueries,
            validationQueries: d.validationQueries,
            testQueries: d.testQueries,
            toolQa: d.toolQa,
            mix: [...d.mix],
          },
          contextLength: ckpt.config.contextLength,
        },
        steps: trainer.step,
        modelConfig: { ...trainer.policy.config },
        weights: { file: WEIGHTS_FILE, bytes: buffer.byteLength, sha256: await sha256Hex(buffer) },
        backend: o.backend,
        ...made,
        createdAt: new Date().toISOString(),
      };
      writeRlPolicyCard(dir, card);
    }
    writeAtomic(join(o.out, 'metrics.csv'), metricsCsv(readLines(join(o.out, 'metrics.jsonl')).map(withMetricNames)));
    const summary: RlSummary = {
      format: 'star-lab-rl-summary/1',
      hash,
      lab,
      rl,
      world: { ...ckpt.card.world },
      checkpoint: ckpt.card.name,
      checkpointSha256: ckpt.card.weights.sha256,
      steps: trainer.step,
      start: startFigures ?? figures({}),
      final: figures(lastEval),
      wallSeconds: wallBefore + (performance.now() - t0) / 1000,
      cpuSeconds: cpuNow(),
      backend: o.backend,
      ...adapterField(o.backend),
      ...made,
      finishedAt: new Date().toISOString(),
    };
    writeAtomic(join(o.out, 'summary.json'), JSON.stringify(summary, null, 1) + '\n');
    writeRunEvents(o.out, summary);
    rmSync(join(o.out, 'resume'), { recursive: true, force: true });
    return summary;
  } catch (e) {
    if (e instanceof Interrupted) {
      // the last completed step, whole: a step stopped part-way is done again on resume
      if (trainer.step > 0) await saveState();
      e.saved =
        trainer.step > 0
          ? `step ${trainer.step} of ${rl.steps} saved in ${join(o.out, 'resume')}`
          : 'stopped before the first step: nothing to save';
      throw e;
    }
    const reason = writeFailure(e);
    if (reason) {
      const step = savedStep(o.out);
      throw new WriteFailed(
        `could not write to ${o.out}: ${reason} (${e instanceof Error ? e.message : String(e)}); ` +
          (step !== null ? `the last saved state, step ${step} of ${rl.steps}, is kept` : 'nothing was saved yet'),
        { cause: e },
      );
    }
    throw e;
  } finally {
    trainer.dispose();
    trainer.policy.dispose();
    reference?.dispose();
  }
}

/** the step-0 evaluation, from o.startCache when an identical one was computed before */
async function startEvaluation(
  trainer: RlTrainer,
  rl: RlConfig,
  checkpointSha: string,
  o: RlRunOptions,
): Promise<Metrics> {
  if (!o.startCache) return trainer.evaluate();
  // a greedy evaluation draws nothing (evaluation has no tool failures), so its seeds share one entry;
  // sampled evaluation (evalSamples > 0) draws from the seed
  const key = {
    checkpoint: checkpointSha,
    evalQueries: rl.evalQueries,
    evalToolQa: rl.evalToolQa,
    seed: rl.evalSamples > 0 ? rl.seed : null,
    constrainPlan: rl.constrainPlan,
    maxTurns: rl.maxTurns,
    temperature: rl.temperature,
    backend: o.backend,
    evalSamples: rl.evalSamples,
  };
  const file = join(
    o.startCache,
    `${createHash('sha256').update(JSON.stringify(key)).digest('hex').slice(0, 16)}.json`,
  );
  if (existsSync(file)) {
    try {
      const cached = JSON.parse(readFileSync(file, 'utf8')) as { key: unknown; metrics: Metrics };
      if (JSON.stringify(cached.key) === JSON.stringify(key)) return cached.metrics;
    } catch {
      /* a torn or foreign file: evaluate again and overwrite it */
    }
  }
  const metrics = await trainer.evaluate();
  mkdirSync(o.startCache, { recursive: true });
  writeAtomic(file, JSON.stringify({ key, metrics }, null, 1) + '\n');
  return metrics;
}

/** the lines of a JSON-lines file the run appends to; a last line cut short (a full disk mid-append) is dropped */
function readLines(path: string): ({ kind: string; step: number } & Record<string, number | string>)[] {
  if (!existsSync(path)) return [];
  const lines = readFileSync(path, 'utf8').split('\n').filter((l) => l.trim());
  return lines.flatMap((l, i) => {
    try {
      return [JSON.parse(l)];
    } catch (e) {
      if (i === lines.length - 1) return [];
      throw new Error(`${path}: line ${i + 1} is not JSON (${e instanceof Error ? e.message : String(e)})`, {
        cause: e,
      });
    }
  });
}

/** the step of the resume state saved in `dir` (null: none) */
function savedStep(dir: string): number | null {
  try {
    const s = JSON.parse(readFileSync(join(dir, 'resume', 'state.json'), 'utf8')) as { step?: unknown };
    return typeof s.step === 'number' ? s.step : null;
  } catch {
    return null;
  }
}

/** samples.jsonl's lines of a step: the page's sample episodes, with the step and the rollout's place in its group */
function sampleLines(step: number, picked: PickedRollouts, context: ReturnType<typeof rlSampleContext>) {
  const episodes = rlSampleEpisodes(picked, context);
  return picked.chosen.map((index, i) => {
    const e = picked.group[index];
    return { step, group: e.group, reward: e.reward, advantage: e.advantage, parent: e.parent,
      branch: e.episode.branch ?? null, trajectory: episodes[i].trajectory };
  });
}
