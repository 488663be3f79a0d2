// An RL run in the page's store as the run loop's sink (src/rl/rlRunLoop.ts: RunSink), the counterpart of the
// CLI's run folder (src/cli/rlRunFolder.ts): the worker's loop (activeRun.ts, the RunHost) stores what it is
// given in IndexedDB — one point per step (its training metrics and, at an evaluation, the evaluation's), the
// sample rollouts of each evaluation, the checkpoints the loop's save rule asks for — paces the steps, and
// holds a pause or takes a stop between them. A resumed run's state comes back from the stored checkpoint.
import type { Checkpoint } from '../rl/checkpoint.ts';
import type { RlConfig } from '../rl/rlConfig.ts';
import type { Metrics } from '../rl/rlTrainer.ts';
import type { PickedRollouts, RlRunLoop, RlStepResult, RunSink, SavedRun } from '../rl/rlRunLoop.ts';
import type { World } from '../env/types.ts';
import { rlSampleContext, rlSampleEpisodes } from './rlSample.ts';
import { jobState, type JobEpisode, type JobState, type RunHost } from './trainingJob.ts';

/** a stop asked for on the page, taken between two steps: the loop saves the last one and ends the run */
export class StopAsked extends Error {
  override name = 'StopAsked';
}

export class StoreSink implements RunSink {
  /** the step in flight: its training metrics (and its evaluation's, once evaluated) */
  private point: Metrics | null = null;
  /** the step's state, when the save rule asked for one: written with the step's point, after it */
  private due: JobState | null = null;
  private episodes: JobEpisode[] = [];
  /** when the step in flight began, and when its training or evaluation ended */
  private t0 = 0;
  private t1 = 0;

  constructor(
    private readonly host: RunHost,
    private readonly loop: RlRunLoop,
    private readonly world: World,
    private readonly rl: RlConfig,
    /** what the job is doing now, for the page ('' between phases) */
    private readonly phase: (what: string) => void,
  ) {}

  loadState(): SavedRun | null {
    const state = this.host.resumeFrom;
    if (!state) return null;
    const checkpoint: Checkpoint = { ...state, config: { ...this.loop.trainer.policy.config } };
    return { checkpoint, evaluated: this.host.evaluatedAt(state.step) };
  }

  async evaluateStart(evaluate: () => Promise<Metrics>): Promise<Metrics> {
    this.phase('evaluating the starting point');
    try {
      return await evaluate();
    } finally {
      this.phase('');
    }
  }

  async started(): Promise<void> {
    await this.next();
  }

  trained(_step: number, metrics: Metrics): void {
    this.point = { ...metrics };
    this.t1 = performance.now();
  }

  samples(_step: number, picked: PickedRollouts, metrics: Metrics): void {
    this.episodes = rlSampleEpisodes(picked, rlSampleContext(this.world, this.rl.algorithm, metrics));
  }

  evaluating(): void {
    this.phase('evaluating');
  }

  async evaluated(step: number, metrics: Metrics): Promise<void> {
    if (this.point) {
      // one point per step: its training metrics and its evaluation's
      this.point = Object.assign(this.point, metrics);
      this.t1 = performance.now();
    } else await this.host.evaluation(step, metrics, this.takeEpisodes());
  }

  async saveState(state: Checkpoint): Promise<void> {
    // within a step the state waits for the step's point (a checkpoint is never ahead of the points); a stop's
    // comes after its step is stored
    if (this.point) this.due = jobState(state);
    else await this.host.checkpoint(jobState(state));
  }

  async stepped(result: RlStepResult): Promise<void> {
    this.phase('');
    const point = this.point!;
    const due = this.due;
    this.point = null;
    this.due = null;
    await this.host.stepped(point, this.t1 - this.t0, this.takeEpisodes(), due ?? false);
    if (result.step < this.rl.steps) await this.next();
  }

  isStop(e: unknown): boolean {
    return e instanceof StopAsked;
  }

  /** the end's checkpoint: a reload after it finds the run trained to its last step */
  async finish(): Promise<void> {
    await this.host.checkpoint(jobState(await this.loop.trainer.checkpoint()));
  }

  /** between two steps: a pause waits, a stop ends the run; then the next step begins */
  private async next(): Promise<void> {
    if (!(await this.host.between())) throw new StopAsked('stopped');
    this.phase('rolling out and updating');
    this.t0 = performance.now();
  }

  private takeEpisodes(): JobEpisode[] {
    const out = this.episodes;
    this.episodes = [];
    return out;
  }
}
