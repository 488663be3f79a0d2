// One RL run's loop, the same for the page and the CLI: evaluate the start (step 0); then each step
// trains, and on the evaluation schedule (every evalEvery steps and after the last) picks the sample
// rollouts of the step just taken and evaluates; the step then says whether its training state is due
// to be saved. Two hosts drive it: the worker's RL job (src/worker/rlJob.ts: its points go to the page
// and IndexedDB) and the CLI's run (src/cli/rlRun.ts: its lines go to files). Neither keeps a schedule or
// a sample rule of its own, so the page and the CLI cannot drift: the same link gives the same metrics.
//
// No DOM and no Node: the hosts own the messages, the files and the stops.
import type { RlConfig } from './rlConfig.ts';
import type { Metrics, RlTrainer, ScoredEpisode } from './rlTrainer.ts';

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
  /** the training state is due to be saved now: at each evaluation and every `saveEvery` steps, never after
   *  the last step (the run is finished then, and each host writes its end itself) */
  saveState: boolean;
}

export class RlRunLoop {
  /**
   * @param trainer   the trainer (a host that restores a saved state replaces it: `trainer = …`)
   * @param saveEvery steps between saves of the training state besides the evaluations
   * @param keepSamples rollouts kept as samples at each evaluation
   */
  constructor(
    public trainer: RlTrainer,
    readonly rl: RlConfig,
    readonly saveEvery: number,
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

  /** whether the state after `step` is due to be saved */
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
}
