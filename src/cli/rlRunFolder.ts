// An RL run's folder as the run loop's sink (src/rl/rlRunLoop.ts: RunSink): where the CLI's run writes its
// records, its samples and its training state, reads them back on resume, and writes its end. Its files:
//   metrics.jsonl   one JSON object per step (and per evaluation), the trainer's metric names
//   metrics.csv     the same as a table (written at the end)
//   events.out.tfevents.star-lab  the same for TensorBoard, with the config as text (written at the end)
//   summary.json    config, start and final in-domain / OOD figures, wall time, backend (and on webgpu its adapter),
//   samples.jsonl   a few scored rollouts at each evaluation, the page's picks (the episode viewer's format)
//   policy/         the final weights (model.json + weights.bin) and card.json (star-lab-rl-policy-card/1: the
//                   run's config, its SFT start, the world and data that rebuild its splits), so
//                   `cli evaluate --checkpoint DIR/policy` scores it on any split
//   resume/         the full training state at each save of the run loop, while the run is unfinished; a finished
//                   run that wrote its policy keeps its final state here, so `--resume` with more steps extends it
import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { LabConfig } from '../lab/config.ts';
import { withMetricNames } from '../lab/metrics.ts';
import { METRIC } from '../lab/metricNames.ts';
import type { RlConfig } from '../rl/rlConfig.ts';
import type { Checkpoint } from '../rl/checkpoint.ts';
import type { Metrics, RlTrainer } from '../rl/rlTrainer.ts';
import type { PickedRollouts, RlStepResult, RunSink, SavedRun } from '../rl/rlRunLoop.ts';
import { RL_POLICY_CARD_FORMAT, sha256Hex, WEIGHTS_FILE, type RlPolicyCard, type ValidCheckpoint } from '../rl/checkpointFiles.ts';
import { readResumeState, writePolicyFiles, writeResumeState, writeRlPolicyCard } from '../node/checkpointDir.ts';
import { writeAtomic } from '../node/atomicWrite.ts';
import type { NodeBackend } from '../node/nodeBackend.ts';
import { nodeWebgpuAdapter, type WebgpuAdapterInfo } from '../node/nodeWebgpu.ts';
import type { DirtyFile, Provenance } from '../node/provenance.ts';
import { evalFigures } from '../findings/findingRuns.ts';
import type { RunFigures } from '../findings/findingTable.ts';
import { rlSampleContext, rlSampleEpisodes } from '../worker/rlSample.ts';
import { metricsCsv } from './metricsCsv.ts';
import { writeRunEvents } from './runEvents.ts';
import { Interrupted } from './interrupt.ts';

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
  /** the extensions this run went through, oldest first: each `--resume` with more steps, from the steps it was
   *  set to (absent: never extended) */
  extended?: { from: number; to: number }[];
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

/** what the folder's run is: its config as trained, its start, and who made it */
export interface RunFolderRun {
  out: string;
  hash: string;
  lab: LabConfig;
  rl: RlConfig;
  ckpt: ValidCheckpoint;
  /** the start's folder as the card records it */
  ckptPath: string;
  fingerprint: string;
  backend: NodeBackend;
  made: Provenance;
  /** write the final weights to policy/ */
  keepPolicy: boolean;
  /** keep the final training state in resume/ (what an extension continues from) */
  keepFinalState: boolean;
}

/** CPU seconds this process has spent (user + system) */
function processCpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

export class RunFolder implements RunSink {
  /** the run's summary, once finished */
  summary: RlSummary | null = null;
  private wallBefore = 0;
  private cpuBefore = 0;
  private startFigures: RunFigures | null = null;
  private extended: { from: number; to: number }[] = [];
  // this run's clocks, not the process's: a sweep with --jobs 1 runs its runs one after another in one process
  private readonly t0 = performance.now();
  private readonly cpuAtStart = processCpuSeconds();

  constructor(
    readonly run: RunFolderRun,
    /** the run loop's trainer now (a restore replaces it) */
    private readonly trainer: () => RlTrainer,
    /** the host's part: a cached start, and what it does after each step (progress, its own checks) */
    private readonly host: Pick<RunSink, 'evaluateStart' | 'started' | 'stepped'> = {},
  ) {}

  started(step: number): void {
    this.host.started?.(step);
  }

  evaluateStart(evaluate: () => Promise<Metrics>): Promise<Metrics> {
    return this.host.evaluateStart ? this.host.evaluateStart(evaluate) : evaluate();
  }

  async stepped(result: RlStepResult, last: Metrics): Promise<void> {
    await this.host.stepped?.(result, last);
  }

  /** a stop asked for (Ctrl-C, SIGTERM): the loop saves the last completed step */
  isStop(e: unknown): boolean {
    return e instanceof Interrupted;
  }

  private file(name: string): string {
    return join(this.run.out, name);
  }

  private wallSeconds(): number {
    return this.wallBefore + (performance.now() - this.t0) / 1000;
  }

  private cpuSeconds(): number {
    return this.cpuBefore + processCpuSeconds() - this.cpuAtStart;
  }

  /** the saved state, its lines past the saved step dropped (they are redone; the saved step's own stay) */
  loadState(): SavedRun | null {
    const saved = readResumeState(this.run.out, this.run.fingerprint);
    if (!saved) return null;
    const step = saved.ckpt.step;
    this.wallBefore = Number(saved.extra.wallSeconds ?? 0);
    this.cpuBefore = Number(saved.extra.cpuSeconds ?? 0);
    this.startFigures = (saved.extra.start as RunFigures) ?? null;
    this.extended = savedExtensions(saved.extra);
    const kept = readLines(this.file('metrics.jsonl')).map(withMetricNames).filter((m) => m.step <= step);
    writeAtomic(this.file('metrics.jsonl'), kept.map((m) => JSON.stringify(m) + '\n').join(''));
    const samples = readLines(this.file('samples.jsonl')).filter((m) => m.step <= step);
    writeAtomic(this.file('samples.jsonl'), samples.map((m) => JSON.stringify(m) + '\n').join(''));
    return { checkpoint: saved.ckpt, evaluated: kept.some((m) => m.kind === 'eval' && m.step === step) };
  }

  private log(kind: 'train' | 'eval', step: number, m: Metrics): void {
    appendFileSync(this.file('metrics.jsonl'), JSON.stringify({ kind, step, ...m }) + '\n');
  }

  trained(step: number, m: Metrics): void {
    this.log('train', step, m);
  }

  evaluated(step: number, m: Metrics): void {
    this.log('eval', step, m);
    if (step === 0) this.startFigures = evalFigures(m);
  }

  samples(step: number, picked: PickedRollouts, m: Metrics): void {
    const lines = sampleLines(step, picked, rlSampleContext(this.trainer().env.world, this.run.rl.algorithm, m));
    appendFileSync(this.file('samples.jsonl'), lines.map((l) => JSON.stringify(l) + '\n').join(''));
  }

  saveState(state: Checkpoint): void {
    writeResumeState(this.run.out, state, this.run.fingerprint, {
      wallSeconds: this.wallSeconds(),
      cpuSeconds: this.cpuSeconds(),
      start: this.startFigures,
      ...(this.extended.length > 0 ? { extended: this.extended } : {}),
    });
  }

  /** the step of the resume state saved here (null: none) */
  savedStep(): number | null {
    try {
      const s = JSON.parse(readFileSync(join(this.run.out, 'resume', 'state.json'), 'utf8')) as { step?: unknown };
      return typeof s.step === 'number' ? s.step : null;
    } catch {
      return null;
    }
  }

  /** the end: the policy (its card last), the final training state when kept, the table, the summary; then
   *  the resume state goes, unless kept */
  async finish(last: Metrics): Promise<void> {
    const { run } = this;
    const trainer = this.trainer();
    // the summary's final figures: a resumed run whose last evaluation came before the stop, or one evaluated
    // without validation queries, has no success figure here, and is evaluated once more
    const success = last[METRIC.evalSuccess];
    if (trainer.step > 0 && !success && success !== 0) last = await trainer.evaluate();
    if (run.keepPolicy) await this.writePolicy(trainer);
    if (run.keepFinalState) this.saveState(await trainer.checkpoint());
    writeAtomic(this.file('metrics.csv'), metricsCsv(readLines(this.file('metrics.jsonl')).map(withMetricNames)));
    this.summary = {
      format: 'star-lab-rl-summary/1',
      hash: run.hash,
      lab: run.lab,
      rl: run.rl,
      world: { ...run.ckpt.card.world },
      checkpoint: run.ckpt.card.name,
      checkpointSha256: run.ckpt.card.weights.sha256,
      steps: trainer.step,
      ...(this.extended.length > 0 ? { extended: this.extended } : {}),
      start: this.startFigures ?? evalFigures({}),
      final: evalFigures(last),
      wallSeconds: this.wallSeconds(),
      cpuSeconds: this.cpuSeconds(),
      backend: run.backend,
      ...adapterField(run.backend),
      ...run.made,
      finishedAt: new Date().toISOString(),
    };
    writeAtomic(this.file('summary.json'), JSON.stringify(this.summary, null, 1) + '\n');
    writeRunEvents(run.out, this.summary);
    if (!run.keepFinalState) rmSync(join(run.out, 'resume'), { recursive: true, force: true });
  }

  private async writePolicy(trainer: RlTrainer): Promise<void> {
    const { run } = this;
    const { ckpt } = run;
    const { buffer, specs } = await trainer.policy.saveWeights();
    const dir = this.file('policy');
    rmSync(join(dir, 'card.json'), { force: true }); // weights without their card are not a policy: the card goes last
    writePolicyFiles(dir, trainer.policy.config, buffer, specs);
    const d = ckpt.card.data;
    const card: RlPolicyCard = {
      format: RL_POLICY_CARD_FORMAT,
      hash: run.hash,
      lab: { ...run.lab },
      rl: { ...run.rl },
      sft: { name: ckpt.card.name, path: run.ckptPath, sha256: ckpt.card.weights.sha256 },
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
      backend: run.backend,
      ...run.made,
      createdAt: new Date().toISOString(),
    };
    writeRlPolicyCard(dir, card);
  }
}

/** the extensions a resume state records (none in one written before runs were extended) */
export function savedExtensions(extra: Record<string, unknown>): { from: number; to: number }[] {
  return Array.isArray(extra.extended) ? (extra.extended as { from: number; to: number }[]) : [];
}

/** the progress a step shows: its reward and the latest validation success */
export function stepShown(result: RlStepResult, last: Metrics): Record<string, string> {
  const valSuccess = last[METRIC.evalSuccess];
  return {
    reward: result.train[METRIC.rewardMean]!.toFixed(3),
    ...(valSuccess !== undefined ? { 'val succ': valSuccess.toFixed(3) } : {}),
  };
}

/** `adapter` for a webgpu run's summary (nothing on the other backends) */
function adapterField(backend: NodeBackend): { adapter?: WebgpuAdapterInfo } {
  const adapter = backend === 'webgpu' ? nodeWebgpuAdapter() : null;
  return adapter ? { adapter } : {};
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

/** samples.jsonl's lines of a step: the page's sample episodes, with the step and the rollout's place in its group */
function sampleLines(step: number, picked: PickedRollouts, context: ReturnType<typeof rlSampleContext>) {
  const episodes = rlSampleEpisodes(picked, context);
  return picked.chosen.map((index, i) => {
    const e = picked.group[index];
    return { step, group: e.group, reward: e.reward, advantage: e.advantage, parent: e.parent,
      branch: e.episode.branch ?? null, trajectory: episodes[i].trajectory };
  });
}
