// One headless RL run, shared by `cli run` and `cli sweep`: from a shipped SFT checkpoint, train with the lab
// config's algorithm / reward / data / failure rate, evaluating at step 0, every evalEvery steps and at the
// end. The run's life is the run loop's (src/rl/rlRunLoop.ts), the page's too; its folder (rlRunFolder.ts)
// is the loop's sink on disk; this file opens the folder, hosts the loop and says what happens on stderr.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { defaultConfig, SETTINGS, type LabConfig } from '../lab/config.ts';
import { ignoredSettingLines } from './labConfigArg.ts';
import { parseHash, serializeHash } from '../lab/urlState.ts';
import { checkConfigAgainstStart, configAsTrained, rlRunKey } from '../rl/startConfig.ts';
import { rlConfigAsRecorded, rlConfigFromLab, rlConfigFromRecord, type RlConfig } from '../rl/rlConfig.ts';
import { rlEnvironment, type RlEnvironment } from '../rl/rlEnvironment.ts';
import { RlTrainer, type Metrics } from '../rl/rlTrainer.ts';
import { policyFromCheckpoint } from '../rl/loadPolicy.ts';
import { RlRunLoop } from '../rl/rlRunLoop.ts';
import { readCheckpointDir, restampResumeState, shippedCheckpointDir } from '../node/checkpointDir.ts';
import { writeAtomic, writeFailure } from '../node/atomicWrite.ts';
import { prepareRunDir, writeRunFile, type RunKind } from './outDir.ts';
import { useNodeBackend, wasmThreads, type NodeBackend } from '../node/nodeBackend.ts';
import { Heartbeat, plural, ProgressBar } from './progress.ts';
import { Interrupted, yielder, type StopRequests } from './interrupt.ts';
import { provenance } from '../node/provenance.ts';
import { TENSORBOARD_FILE } from '../store/tensorboardEvents.ts';
import { createHash } from 'node:crypto';
import { RunFolder, savedExtensions, stepShown, type RlSummary, type RunFolderRun } from './rlRunFolder.ts';

export type { RlSummary };

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
  /** write the training state (resume/) every N steps besides each evaluation (default: the run loop's
   *  SAVE_EVERY, the page's too) */
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

/** what an RL run's folder holds (outDir.ts decides from it whether a folder is this run, another, or not a run) */
export const RL_RUN_KIND: RunKind = {
  noun: 'RL run',
  finishedFile: 'summary.json',
  files: ['metrics.jsonl', 'metrics.csv', 'summary.json', 'samples.jsonl', 'policy', TENSORBOARD_FILE],
  kept: ['run.log'],
  // a run finished before run.json was written: its summary says what it trained
  legacyFingerprint: (dir) => {
    const s = readSummary(dir);
    // a setting added since the run was recorded is read at its default, the value the run trained with
    if (!s) return null;
    return resumeFingerprint({ ...defaultConfig(), ...s.lab }, s.rl, s.checkpointSha256, s.backend as NodeBackend);
  },
  describeFinished: (dir) => {
    const s = readSummary(dir);
    const f = (x: number | null | undefined) => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(3) : 'n/a');
    return s
      ? `${plural(s.steps, 'step')}, validation success ${f(s.start.success)} → ${f(s.final.success)}`
      : 'its summary.json is unreadable';
  },
  // steps aside, so that `--resume` with more steps extends a run instead of refusing another setting
  stepsOf: (fingerprint) => {
    try {
      const f = JSON.parse(fingerprint) as { hash: string; rl: { steps: number } };
      const { steps, ...rl } = f.rl;
      const lab = { ...parseHash(f.hash).config, steps: SETTINGS.steps.default };
      return { steps, rest: JSON.stringify({ ...f, hash: serializeHash(lab), rl }) };
    } catch {
      return null;
    }
  },
};

export { shippedCheckpointDir };

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
  let s: RlSummary;
  try {
    s = JSON.parse(readFileSync(p, 'utf8')) as RlSummary;
  } catch {
    return null;
  }
  // a summary written before the trainer's config took the table's names is read under today's
  return s && typeof s === 'object' && s.rl ? { ...s, rl: rlConfigFromRecord(s.rl as unknown as Record<string, unknown>) } : s;
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
  // in the form runs recorded before the trainer's config took the table's names: a run saved then resumes
  return JSON.stringify({ hash, rl: rlConfigAsRecorded(update), checkpoint: checkpointSha256, backend });
}

export async function runRl(o: RlRunOptions): Promise<RlSummary> {
  stage(o, `loading the ${o.backend} backend…`);
  await useNodeBackend(o.backend, wasmThreads());
  const opened = await openRun(o);
  if ('finished' in opened) return opened.finished;
  const { run, env } = opened;
  const { rl } = run;
  const reference = rl.klCoef > 0 ? policyFromCheckpoint(run.ckpt) : null;
  const loop = new RlRunLoop(new RlTrainer(policyFromCheckpoint(run.ckpt), reference, env, rl), rl, o.resumeEvery);
  const beat = o.quiet ? null : new Heartbeat(o.label ?? '');
  const letSignalsIn = yielder();
  // each rollout turn and micro-batch: a heartbeat when the step is slow, and the place a stop is taken
  loop.trainer.pause = async (at) => {
    await letSignalsIn();
    beat?.beat(loop.trainer.step, rl.steps, at);
    o.stops?.check();
  };
  let bar: ProgressBar | null = null;
  const folder = new RunFolder(run, () => loop.trainer, {
    evaluateStart: (evaluate) => {
      stage(o, `evaluating the start (step 0) on ${plural(rl.evalQueries, 'validation query', 'validation queries')} + ` +
        `${rl.evalToolQa} tool-QA tasks…`);
      return o.startCache ? cachedStart(o.startCache, startKey(run), evaluate) : evaluate();
    },
    started: (step) => {
      if (step > 0 && !o.quiet) console.error(`resuming ${o.out} at step ${step}/${rl.steps}`);
      if (!o.quiet) bar = new ProgressBar(rl.steps, step, o.label ?? `rl ${rl.algorithm} `, 5);
    },
    stepped: (result, last) => {
      o.afterStep?.(result.step);
      bar?.update(result.step, stepShown(result, last));
      beat?.reset();
    },
  });
  try {
    await loop.run(folder);
    return folder.summary!;
  } catch (e) {
    if (e instanceof Interrupted) {
      const step = loop.trainer.step;
      e.saved = step > 0 ? `step ${step} of ${rl.steps} saved in ${join(o.out, 'resume')}` : 'stopped before the first step: nothing to save';
      throw e;
    }
    const reason = writeFailure(e);
    if (!reason) throw e;
    const step = folder.savedStep();
    throw new WriteFailed(
      `could not write to ${o.out}: ${reason} (${e instanceof Error ? e.message : String(e)}); ` +
        (step !== null ? `the last saved state, step ${step} of ${rl.steps}, is kept` : 'nothing was saved yet'),
      { cause: e },
    );
  } finally {
    loop.dispose();
  }
}

/** a line per loading stage: the first evaluation's numbers come tens of seconds in */
function stage(o: RlRunOptions, what: string): void {
  if (!o.quiet) console.error(what);
}

/** the run's folder made ready (refused before anything is written when it holds another run, or when a run that
 *  lands in results/ would not name code one can check out), and what the run trains; a finished run's summary */
async function openRun(o: RlRunOptions): Promise<{ finished: RlSummary } | { run: RunFolderRun; env: RlEnvironment }> {
  const rl = { ...rlConfigFromLab(o.lab), ...o.rl };
  for (const line of ignoredSettingLines(o.lab)) console.error(line);
  const ckptPath = cardPath(o.checkpoint ?? shippedCheckpointDir(o.lab.scale));
  stage(o, `reading the checkpoint ${ckptPath}…`);
  const ckpt = await readCheckpointDir(ckptPath);
  stage(o, `building the ${ckpt.card.world.size} world's training and validation queries…`);
  // the start decides the world and the preset: a config that says otherwise is refused, and the run records what it
  // trained
  checkConfigAgainstStart(o.lab, ckpt.card, ckptPath);
  const lab = configAsTrained(o.lab, ckpt.card.world);
  const fingerprint = resumeFingerprint(lab, rl, ckpt.card.weights.sha256, o.backend);
  const made = provenance(join(o.out, 'summary.json'), { allowDirty: o.allowDirty });
  const begin = prepareRunDir(o.out, { resume: o.resume, force: o.force ?? false, fingerprint, kind: RL_RUN_KIND });
  if (begin.action === 'finished') {
    const finished = readSummary(o.out);
    if (!finished)
      throw new Error(`${join(o.out, 'summary.json')} is not readable; pass --force to run again (nothing was written)`);
    return { finished };
  }
  if (begin.action === 'extend') extendRun(o.out, begin, fingerprint, rl);
  // what it loaded and what it will do, before the first (slow) evaluation
  console.error(
    `${begin.action === 'extend' ? `extending from ${begin.from} steps` : begin.action === 'resume' ? 'resuming' : 'starting'} ${o.out}: ${rl.algorithm.toUpperCase()} with the ${rl.reward} reward from ` +
      `${ckpt.card.name} (${ckptPath}: preset ${ckpt.card.preset}, the ${ckpt.card.world.size} world, seed ${ckpt.card.world.seed}), ` +
      `${plural(rl.steps, 'step')} of ${plural(rl.queriesPerStep, 'query', 'queries')} × ${rl.groupSize} rollouts, ${o.backend}; ` +
      `evaluated at step 0, every ${plural(rl.evalEvery, 'step')} ` +
      `and at the end on ${rl.evalQueries} validation queries + ${rl.evalToolQa} unseen tool-QA tasks`,
  );
  const env = rlEnvironment(
    { world: ckpt.card.world, data: ckpt.card.data, contextLength: ckpt.config.contextLength },
    { trainSize: o.lab.trainSize, mix: o.lab.mix },
  );
  const keepPolicy = o.keepPolicy !== false;
  // the final training state (weights and AdamW's two moments: three times the policy) is kept with the policy: a
  // run whose weights are kept is one to go on from, while a sweep's hundreds of runs keep curves only
  const keepFinalState = keepPolicy;
  const hash = serializeHash(lab);
  const run = { out: o.out, hash, lab, rl, ckpt, ckptPath, fingerprint, made, keepPolicy, keepFinalState };
  return { run: { ...run, backend: o.backend }, env };
}

/**
 * The folder's run handed on to `to` steps, before anything trains: its saved state takes the longer setting and
 * records the extension, run.json the longer setting, and the summary goes (the folder holds an unfinished run
 * then, which a stop leaves to `--resume`). Each write is whole, and a second try after a crash between them
 * does the rest. Refused, with nothing written, when nothing was kept to go on from, or when the schedule
 * depends on the total steps.
 */
function extendRun(
  out: string,
  ext: { from: number; to: number; finished: boolean; fingerprint: string },
  fingerprint: string,
  rl: RlConfig,
): void {
  const refuse = (why: string) => {
    throw new Error(
      `--resume with --steps ${ext.to}: ${out} holds a run of ${plural(ext.from, 'step')} that cannot be extended: ` +
        `${why}; run the longer one fresh in another --out (nothing was written)`,
    );
  };
  if (rl.reward === 'curriculum' && rl.curriculumSignalShare === undefined)
    refuse('a Curriculum with fixed switches places its stages at shares of the total steps, so its steps so far followed the shorter schedule');
  if (ext.finished) {
    const end = readSummary(out)?.steps;
    let step: unknown = null;
    try {
      step = (JSON.parse(readFileSync(join(out, 'resume', 'state.json'), 'utf8')) as { step?: unknown }).step;
    } catch {
      refuse('it kept no final training state (runs with --no-policy, and runs finished before runs kept it, keep none)');
    }
    if (step !== end) refuse(`its saved state is of step ${String(step)}, not its end (step ${String(end)})`);
  }
  const saved = restampResumeState(out, ext.fingerprint, fingerprint, (extra) => {
    const before = savedExtensions(extra);
    const last = before[before.length - 1];
    const again = last?.from === ext.from && last.to === ext.to; // a second try after a crash records it once
    return { extended: again ? before : [...before, { from: ext.from, to: ext.to }] };
  });
  if (saved === null) refuse('it saved no training state');
  rmSync(join(out, 'summary.json'), { force: true });
  writeRunFile(out, fingerprint);
}

/** what a step-0 evaluation depends on: a greedy evaluation draws nothing (evaluation has no tool failures), so
 *  its seeds share one entry; sampled evaluation (evalSamples > 0) draws from the seed */
function startKey({ rl, ckpt, backend }: RunFolderRun): Record<string, unknown> {
  return {
    checkpoint: ckpt.card.weights.sha256,
    evalQueries: rl.evalQueries,
    evalToolQa: rl.evalToolQa,
    seed: rl.evalSamples > 0 ? rl.seed : null,
    // the cache's key as its first entries were written (its files are named by its hash)
    constrainPlan: rl.planDecoding === 'constrained',
    maxTurns: rl.maxTurns,
    temperature: rl.temperature,
    backend,
    evalSamples: rl.evalSamples,
  };
}

/** the step-0 evaluation, from `dir` (start evaluations shared by runs) when an identical one was computed before */
async function cachedStart(
  dir: string,
  key: Record<string, unknown>,
  evaluate: () => Promise<Metrics>,
): Promise<Metrics> {
  const file = join(dir, `${createHash('sha256').update(JSON.stringify(key)).digest('hex').slice(0, 16)}.json`);
  if (existsSync(file)) {
    try {
      const cached = JSON.parse(readFileSync(file, 'utf8')) as { key: unknown; metrics: Metrics };
      if (JSON.stringify(cached.key) === JSON.stringify(key)) return cached.metrics;
    } catch {
      /* a torn or foreign file: evaluate again and overwrite it */
    }
  }
  const metrics = await evaluate();
  mkdirSync(dir, { recursive: true });
  writeAtomic(file, JSON.stringify({ key, metrics }, null, 1) + '\n');
  return metrics;
}
