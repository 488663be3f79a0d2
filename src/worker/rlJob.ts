// The RL stage as a TrainingJob: it starts from an SFT policy —
// the checkpoint shipped for the chosen scale, or a stored SFT run's — rebuilds that policy's world,
// validation split and unseen tool-QA suite, draws the RL training queries by the lab's data axes, and
// trains with GRPO, DAPO or ARPO as the lab config says (rlConfigFromLab, the same mapping as `cli run`).
// It evaluates the starting point before the first step (step 0), every evalEvery steps and after the
// last, and keeps a few scored training rollouts of the step it evaluated at for the episode viewer.
//
// Backend-agnostic: the worker runs it on webgpu, the Node tests on wasm or cpu — the same code.
import type { WorldSize } from '../env/types.ts';
import type { LabConfig } from '../lab/config.ts';
import { SETTINGS } from '../lab/config.ts';
import { rewardStageOf } from '../lab/metrics.ts';
import { createPolicy, countParameters, type Policy } from '../model/transformer.ts';
import { rlConfigFromLab, type RlConfig } from '../rl/rlConfig.ts';
import { rlEnvironment, type RlEnvironment } from '../rl/rlEnvironment.ts';
import { RlTrainer } from '../rl/rlTrainer.ts';
import type { Checkpoint } from '../rl/checkpoint.ts';
import type { LabStore } from '../store/labStore.ts';
import type { StartingPointSource, StartingPointSummary } from './api.ts';
import { pickRlSamples } from './rlSample.ts';
import { loadStartingPoint } from './startingPoint.ts';
import { jobState, type JobEpisode, type JobState, type TrainingJob } from './trainingJob.ts';

export interface RlJobOptions {
  lab: LabConfig;
  /** where RL starts (default: the checkpoint shipped for the lab's scale) */
  source?: StartingPointSource;
  /** the store, for a stored SFT run as the starting point */
  store?: LabStore | null;
  /** where shipped checkpoints are fetched from (default: the lab's origin) */
  baseUrl?: string | URL;
  /** scored training rollouts kept at each evaluation */
  keepEpisodes?: number;
}

interface Prepared {
  env: RlEnvironment;
  trainer: RlTrainer;
  /** the frozen starting policy for the KL term (null when klCoef is 0) */
  reference: Policy | null;
  startingPoint: StartingPointSummary;
  world: { size: WorldSize; seed: number };
}

export class RlJob implements TrainingJob {
  readonly kind = 'rl';
  readonly totalSteps: number;
  readonly rl: RlConfig;
  /** an RL step takes seconds to minutes: checkpoint every few (a reload loses at most these) */
  readonly checkpointEvery: number;
  description: string;
  phase = '';
  onPhase: (() => void) | undefined;
  private prepared: Prepared | null = null;
  private fresh: JobEpisode[] = [];

  constructor(readonly options: RlJobOptions) {
    this.rl = rlConfigFromLab(options.lab); // throws with the knob's name on a bad config
    this.totalSteps = this.rl.steps;
    this.checkpointEvery = Math.max(1, Math.min(5, this.rl.evalEvery));
    this.description = `${SETTINGS.algorithm.choiceLabels[this.rl.algorithm]} with the ${SETTINGS.reward.choiceLabels[this.rl.reward]} reward`;
  }

  get stepsDone(): number {
    return this.prepared?.trainer.step ?? 0;
  }

  /** evaluates every this many steps and after the last (step()) */
  get evalEvery(): number {
    return this.rl.evalEvery;
  }

  /** the world RL trains and is judged in: its starting point's (after init), whatever the lab's World size says */
  get world(): { size: WorldSize; seed: number } {
    return { ...this.ready().world };
  }

  /** the starting point as loaded and checked (after init) */
  get startingPoint(): StartingPointSummary {
    return this.ready().startingPoint;
  }

  get trainer(): RlTrainer {
    return this.ready().trainer;
  }

  async init(): Promise<void> {
    const o = this.options;
    const source = o.source ?? { kind: 'shipped', scale: o.lab.scale };
    this.setPhase('loading the starting point');
    const loaded = await loadStartingPoint(source, { store: o.store, baseUrl: o.baseUrl });
    let reference: Policy | null = null;
    try {
      const env = rlEnvironment(loaded.origin, { trainSize: o.lab.trainSize, mix: o.lab.mix });
      reference = this.rl.klCoef > 0 ? await copyOf(loaded.policy) : null;
      const trainer = new RlTrainer(loaded.policy, reference, env, this.rl);
      this.prepared = { env, trainer, reference, startingPoint: loaded.summary, world: loaded.origin.world };
      const c = this.rl;
      const group = c.algorithm === 'arpo' ? `a tree of M=${c.groupSize} rollouts (N=${c.arpoInitial} from the prompt)` : `G=${c.groupSize} rollouts`;
      this.description = `${this.description} from ${loaded.label} (${(countParameters(loaded.config) / 1e6).toFixed(2)}M parameters, ` +
        `${loaded.origin.world.size} world): ${c.queriesPerStep} quer${c.queriesPerStep === 1 ? 'y' : 'ies'} per step, ${group} each, ` +
        `from ${env.train.length} training queries (${o.lab.mix.join(':')})`;
    } catch (e) {
      reference?.dispose();
      loaded.policy.dispose();
      throw e;
    } finally {
      this.setPhase('');
    }
  }

  /** step 0: the starting point's evaluation, the curve's first point */
  async initialMetrics(): Promise<Record<string, number>> {
    this.setPhase('evaluating the starting point');
    try {
      return await this.evaluate();
    } finally {
      this.setPhase('');
    }
  }

  async step(): Promise<Record<string, number>> {
    const { trainer, env } = this.ready();
    this.setPhase('rolling out and updating');
    try {
      const metrics = await trainer.trainStep();
      if (trainer.step % this.rl.evalEvery === 0 || trainer.step === this.totalSteps) {
        // the rollouts of the step just taken, scored with the reward it was trained on
        const rewardStage = rewardStageOf(metrics['charts/curriculum_stage']) ?? 'sum'; // the trainer always reports it
        this.fresh = pickRlSamples(trainer.lastEpisodes, { world: env.world, algorithm: this.rl.algorithm, rewardStage }, this.options.keepEpisodes ?? 3);
        this.setPhase('evaluating');
        Object.assign(metrics, await this.evaluate());
      }
      return metrics;
    } finally {
      this.setPhase('');
    }
  }

  /** greedy rollouts on the validation queries and the unseen tool-QA tasks */
  async evaluate(): Promise<Record<string, number>> {
    return this.ready().trainer.evaluate();
  }

  /** sample rollouts of the latest evaluated step not yet handed out (the run loop stores them) */
  drainEpisodes(): JobEpisode[] {
    const out = this.fresh;
    this.fresh = [];
    return out;
  }

  /** the last step's samples: it always evaluates, so the loop has usually drained them already */
  async sampleEpisodes(): Promise<JobEpisode[]> {
    return this.drainEpisodes();
  }

  async saveState(): Promise<JobState> {
    return jobState(await this.ready().trainer.checkpoint());
  }

  /** continues from a saved state: a new trainer on the saved weights, optimizer, rng and step */
  async loadState(state: JobState): Promise<void> {
    const prepared = this.ready();
    const before = prepared.trainer;
    const ckpt: Checkpoint = { ...state, config: { ...before.policy.config } };
    let next: RlTrainer;
    try {
      next = RlTrainer.restore(ckpt, prepared.reference, prepared.env, this.rl);
    } catch (e) {
      throw new Error(`checkpoint does not fit this model: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    before.dispose();
    before.policy.dispose();
    prepared.trainer = next;
    this.fresh = [];
  }

  dispose(): void {
    if (!this.prepared) return;
    const { trainer, reference } = this.prepared;
    trainer.dispose();
    trainer.policy.dispose();
    reference?.dispose();
    this.prepared = null;
  }

  /** a new phase is told to the page at once (the loop's onPhase); the end of one comes with the step's point */
  private setPhase(phase: string): void {
    this.phase = phase;
    if (phase) this.onPhase?.();
  }

  private ready(): Prepared {
    if (!this.prepared) throw new Error('RL job: call init() first');
    return this.prepared;
  }
}

/** a second policy holding the same weights (the frozen reference of the KL term) */
async function copyOf(policy: Policy): Promise<Policy> {
  const { buffer, specs } = await policy.saveWeights();
  const copy = createPolicy(policy.config, 0);
  try {
    copy.loadWeights(buffer, specs);
  } catch (e) {
    copy.dispose();
    throw e;
  }
  return copy;
}
