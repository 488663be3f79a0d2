// One RL run's life, the same for the page and the CLI: start (evaluate the starting point, step 0) or restore
// a saved state (and finish an evaluation a stop cut short); then each step trains, and on the evaluation
// schedule (every evalEvery steps and after the last) picks the sample rollouts of the step just taken and
// evaluates; the state is saved by one rule (saveDue); at the end the run finishes, and its policies are
// disposed. Two hosts hand `run` a RunSink: the CLI's run (src/cli/rlRun.ts) one of files, the worker's RL
// job (src/worker/rlJob.ts) one of IndexedDB records (src/worker/storeSink.ts). Neither keeps a schedule, a
// save rule, a sample rule or a resume of its own, so the page and the CLI cannot drift: the same link gives
// the same metrics.
//
// No DOM and no Node: the hosts own the messages, the files and the stops.
import type { Checkpoint } from './checkpoint.ts';
import type { RlConfig } from './rlConfig.ts';
import { RlTrainer, type Metrics, type ScoredEpisode } from './rlTrainer.ts';

/** steps between two saves of the training state besides the evaluations: a save of an `l` policy is
 *  ~15 MB and well under a second, a step seconds to minutes, so a stop or a crash loses at most these */
export const SAVE_EVERY = 5;

/** whether the run evaluates after `step` (step 0, the start, is always evaluated: RlRunLoop.start) */
export function isEvaluationStep(step: number, rl: Pick<RlConfig, 'evalEvery' | 'steps'>): boolean {
  return step % rl.evalEvery === 0 || step === rl.steps;
}

/** the rollouts kept as samples at an evaluation: one group's, and which of them (indices into it) */
export interface PickedRollouts {
  group: readonly ScoredEpisode[];
  chosen: number[];
}

/** Of the latest step's groups, the one whose rewards spread the widest (where the advantage says the
 *  most; among equals the bushier ARPO tree, then the earlier group): its best rollout, its worst and,
 *  for ARPO, its first branched one — at most `keep`. Null when the step kept no rollout. */
export function pickSampleRollouts(episodes: readonly ScoredEpisode[], keep = 3): PickedRollouts | null {
  if (episodes.length === 0 || keep < 1) return null;
  const groups = new Map<number, ScoredEpisode[]>();
  for (const e of episodes) groups.set(e.group, [...(groups.get(e.group) ?? []), e]);
  const rewards = (g: readonly ScoredEpisode[]) => g.map((e) => e.reward);
  const spread = (g: readonly ScoredEpisode[]) => Math.max(...rewards(g)) - Math.min(...rewards(g));
  const branched = (g: readonly ScoredEpisode[]) => g.filter((e) => e.parent !== null).length;
  const group = [...groups.values()].sort((a, b) => spread(b) - spread(a) || branched(b) - branched(a))[0];
  const byReward = group.map((_, i) => i).sort((a, b) => group[b].reward - group[a].reward || a - b);
  const chosen = [byReward[0]];
  const firstBranch = group.findIndex((e) => e.parent !== null);
  if (firstBranch >= 0 && !chosen.includes(firstBranch)) chosen.push(firstBranch);
  const worst = byReward[byReward.length - 1];
  if (!chosen.includes(worst)) chosen.splice(1, 0, worst);
  return { group, chosen: chosen.slice(0, keep) };
}

/** what a host hears in a step, in this order (each awaited): the training metrics, then — at an
 *  evaluation — the picked samples and the start of the evaluation */
export interface RlStepHooks {
  /** the step is trained (the CLI writes its line: a stop during the evaluation keeps it) */
  trained?(step: number, metrics: Metrics): void | Promise<void>;
  /** the step's sample rollouts, before its evaluation (a stop during the evaluation keeps them) */
  samples?(step: number, picked: PickedRollouts, metrics: Metrics): void | Promise<void>;
  /** the evaluation begins */
  evaluating?(step: number): void;
}

export interface RlStepResult {
  step: number;
  /** the training metrics of the step */
  train: Metrics;
  /** the evaluation after it, on the schedule (null: not an evaluation step) */
  evaluation: Metrics | null;
  /** the training state is due to be saved now (saveDue) */
  saveState: boolean;
}

/** a state an earlier session of the run saved */
export interface SavedRun {
  checkpoint: Checkpoint;
  /** whether the saved step's evaluation was recorded (false: a stop cut it short, and it is done first) */
  evaluated: boolean;
}

/** where a run's records and state go, and come back from (the CLI's: files) */
export interface RunSink extends RlStepHooks {
  /** the state an earlier session saved (null: the run starts afresh) */
  loadState(): Promise<SavedRun | null> | SavedRun | null;
  /** the starting point's evaluation (a host may answer from a cache of the same evaluation) */
  evaluateStart?(evaluate: () => Promise<Metrics>): Promise<Metrics>;
  /** an evaluation's metrics, at `step` (0: the start) */
  evaluated(step: number, metrics: Metrics): void | Promise<void>;
  saveState(state: Checkpoint): void | Promise<void>;
  /** the run stands at `step`, started or restored and evaluated there: the steps begin (what this throws
   *  ends the run, as `stepped`'s does) */
  started?(step: number): void | Promise<void>;
  /** a step is done: its records written, its state saved if due; what this throws ends the run */
  stepped?(result: RlStepResult, lastEvaluation: Metrics): void | Promise<void>;
  /** whether an error ends the run as a stop asked for (the last completed step is saved first) */
  isStop?(error: unknown): boolean;
  /** every step trained and evaluated: write the end (`lastEvaluation`: the last step's, empty when a resumed
   *  run had no step left to evaluate) */
  finish(lastEvaluation: Metrics): Promise<void> | void;
}

export class RlRunLoop {
  /**
   * @param trainer   the trainer; the loop owns it from here (restore replaces it, dispose frees it and its policies)
   * @param saveEvery steps between saves of the training state besides the evaluations
   * @param keepSamples rollouts kept as samples at each evaluation
   */
  constructor(
    public trainer: RlTrainer,
    readonly rl: RlConfig,
    readonly saveEvery = SAVE_EVERY,
    readonly keepSamples = 3,
  ) {}

  /** every step is trained */
  get done(): boolean {
    return this.trainer.step >= this.rl.steps;
  }

  /** the starting point's evaluation, the curves' step 0 (`evaluate`: a host's cached one of the same) */
  start(evaluate: () => Promise<Metrics> = () => this.trainer.evaluate()): Promise<Metrics> {
    return evaluate();
  }

  /** continues from a saved state: a new trainer on its weights, optimizer, rng and step (the old one freed) */
  restore(ckpt: Checkpoint): void {
    const before = this.trainer;
    let next: RlTrainer;
    try {
      next = RlTrainer.restore(ckpt, before.reference, before.env, this.rl);
    } catch (e) {
      throw new Error(`checkpoint does not fit this model: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    next.pause = before.pause;
    before.dispose();
    before.policy.dispose();
    this.trainer = next;
  }

  /** whether the state after `step` is due to be saved: at each evaluation and every `saveEvery` steps, never
   *  after the last step (the run is finished then, and each host writes its end itself) */
  saveDue(step: number): boolean {
    return step < this.rl.steps && (isEvaluationStep(step, this.rl) || step % this.saveEvery === 0);
  }

  /** one step: train; on the schedule, pick its samples and evaluate */
  async step(hooks: RlStepHooks = {}): Promise<RlStepResult> {
    const trainer = this.trainer;
    const train = await trainer.trainStep();
    const step = trainer.step;
    await hooks.trained?.(step, train);
    let evaluation: Metrics | null = null;
    if (isEvaluationStep(step, this.rl)) {
      // the rollouts of the step just taken, scored with the reward it was trained on
      const picked = pickSampleRollouts(trainer.lastEpisodes, this.keepSamples);
      if (picked) await hooks.samples?.(step, picked, train);
      hooks.evaluating?.(step);
      evaluation = await trainer.evaluate();
    }
    return { step, train, evaluation, saveState: this.saveDue(step) };
  }

  /** the whole run into `sink`, from its start or its saved state to its finish; a stop (sink.isStop) saves
   *  the last completed step first — a step stopped part-way is done again on resume */
  async run(sink: RunSink): Promise<void> {
    const saveState = async () => sink.saveState(await this.trainer.checkpoint());
    try {
      let last: Metrics = {};
      const saved = await sink.loadState();
      if (saved) {
        this.restore(saved.checkpoint);
        // a run stopped during the evaluation of its saved step evaluates it first (its samples are written)
        if (isEvaluationStep(this.trainer.step, this.rl) && !saved.evaluated) {
          last = await this.trainer.evaluate();
          await sink.evaluated(this.trainer.step, last);
        }
      } else {
        last = await this.start(sink.evaluateStart && (() => sink.evaluateStart!(() => this.trainer.evaluate())));
        await sink.evaluated(0, last);
      }
      await sink.started?.(this.trainer.step);
      while (!this.done) {
        // the step's line and its samples are written before its evaluation: a run stopped during it resumes with them
        const result = await this.step(sink);
        if (result.evaluation) {
          last = result.evaluation;
          await sink.evaluated(result.step, last);
        }
        if (result.saveState) await saveState();
        await sink.stepped?.(result, last);
      }
      // trained and evaluated: what is left is writing it down, which a stop no longer interrupts
      this.trainer.pause = null;
      await sink.finish(last);
    } catch (e) {
      if (sink.isStop?.(e) && this.trainer.step > 0) await saveState();
      throw e;
    }
  }

  /** frees the trainer, its policy and the frozen reference */
  dispose(): void {
    const { trainer } = this;
    trainer.dispose();
    trainer.policy.dispose();
    trainer.reference?.dispose();
  }
}
