// The RL stage as a TrainingJob: it starts from an SFT policy —
// the checkpoint shipped for the chosen scale, or a stored SFT run's — rebuilds that policy's world,
// validation split and unseen tool-QA suite, draws the RL training queries by the lab's data axes, and
// trains with GRPO, DAPO or ARPO as the lab config says (rlConfigFromLab, the same mapping as `cli run`).
// Its run is the run loop's (src/rl/rlRunLoop.ts, the CLI's too): the starting point evaluated (step 0) or a
// stored checkpoint restored, then each step trained and, every evalEvery steps and after the last, a few
// scored training rollouts kept for the episode viewer and the policy evaluated; its state saved when the
// loop says. The job hands the loop the page's sink (storeSink.ts), which stores through the worker's loop
// (activeRun.ts), as the CLI hands it a folder.
//
// Backend-agnostic: the worker runs it on webgpu, the Node tests on wasm or cpu — the same code.
import type { WorldSize } from '../env/types.ts';
import type { LabConfig } from '../lab/config.ts';
import { SETTINGS } from '../lab/config.ts';
import { createPolicy, type Policy } from '../model/transformer.ts';
import { countParameters } from '../model/config.ts';
import { rlConfigFromLab, type RlConfig } from '../rl/rlConfig.ts';
import { rlEnvironment, type RlEnvironment } from '../rl/rlEnvironment.ts';
import { RlTrainer } from '../rl/rlTrainer.ts';
import { RlRunLoop, SAVE_EVERY } from '../rl/rlRunLoop.ts';
import type { LabStore } from '../store/labStore.ts';
import type { StartingPointSource, StartingPointSummary } from './api.ts';
import { loadStartingPoint } from './startingPoint.ts';
import { StopAsked, StoreSink } from './storeSink.ts';
import { jobState, type JobState, type RunHost, type RunningJob } from './trainingJob.ts';

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
  /** the run loop around the trainer: it restores a saved state and frees the trainer, its policy and the reference */
  loop: RlRunLoop;
  startingPoint: StartingPointSummary;
  world: { size: WorldSize; seed: number };
}

export class RlJob implements RunningJob {
  readonly kind = 'rl';
  readonly totalSteps: number;
  readonly rl: RlConfig;
  description: string;
  phase = '';
  onPhase: (() => void) | undefined;
  private prepared: Prepared | null = null;

  constructor(readonly options: RlJobOptions) {
    this.rl = rlConfigFromLab(options.lab); // throws with the knob's name on a bad config
    this.totalSteps = this.rl.steps;
    this.description = `${SETTINGS.algorithm.choiceLabels[this.rl.algorithm]} with the ${SETTINGS.reward.choiceLabels[this.rl.reward]} reward`;
  }

  get stepsDone(): number {
    return this.prepared?.loop.trainer.step ?? 0;
  }

  /** evaluates every this many steps and after the last (the run loop's schedule) */
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
    return this.ready().loop.trainer;
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
      const loop = new RlRunLoop(trainer, this.rl, SAVE_EVERY, o.keepEpisodes ?? 3);
      this.prepared = { env, loop, startingPoint: loaded.summary, world: loaded.origin.world };
      const c = this.rl;
      const group =
        c.algorithm === 'arpo'
          ? `a tree of M=${c.groupSize} rollouts (N=${c.arpoInitial} from the prompt)`
          : `G=${c.groupSize} rollouts`;
      this.description =
        `${this.description} from ${loaded.label} (${(countParameters(loaded.config) / 1e6).toFixed(2)}M parameters, ` +
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

  /** the run, from its start or `host.resumeFrom` to its end or a stop, stored through `host` */
  async run(host: RunHost): Promise<void> {
    const { loop, env } = this.ready();
    try {
      await loop.run(new StoreSink(host, loop, env.world, this.rl, (phase) => this.setPhase(phase)));
    } catch (e) {
      if (!(e instanceof StopAsked)) throw e; // a stop: the loop saved the last step
    } finally {
      this.setPhase('');
    }
  }

  async saveState(): Promise<JobState> {
    return jobState(await this.ready().loop.trainer.checkpoint());
  }

  dispose(): void {
    this.prepared?.loop.dispose();
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
