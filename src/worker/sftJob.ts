// The SFT stage as a TrainingJob: from an experiment config it builds the world,
// the training queries, the teacher's trajectories and tool-QA episodes, and the policy; each step
// is one SftTrainer step; every `evalEvery` steps (and at the last) it rolls the policy out greedily
// on a few held-out queries and tool-QA tasks and keeps sample episodes for the page.
//
// Backend-agnostic: the worker runs it on webgpu, the Node tests on cpu — the same code.
import type { LabConfig } from '../lab/config.ts';
import type { Query, World, WorldSize } from '../env/types.ts';
import { Rng } from '../env/random.ts';
import { generateWorld } from '../env/world.ts';
import { buildDataset } from '../env/queries.ts';
import type { ToolQaTask } from '../env/toolqa.ts';
import { buildSftData, heldOutToolQa } from '../agent/sftData.ts';
import { evaluatePolicy, type PolicyEvaluation } from '../agent/evaluatePolicy.ts';
import { PAD, VOCAB } from '../agent/vocab.ts';
import { createPolicy, type Policy } from '../model/transformer.ts';
import { preset, type ModelConfig, type PresetName } from '../model/config.ts';
import { SftTrainer, type SftExample } from '../rl/sft.ts';
import { sampleEpisode } from './sampleEpisode.ts';
import { jobState, type JobEpisode, type JobState, type SteppedJob } from './trainingJob.ts';
import { METRIC } from '../lab/metricNames.ts';

export interface SftJobOptions {
  worldSize: WorldSize;
  seed: number;
  preset: PresetName;
  /** overrides of the preset (a smaller model or context for the browser's tiny runs and tests) */
  model?: Partial<ModelConfig>;
  /** teacher trajectories are made for this many training queries (those longer than the context are dropped) */
  trainQueries: number;
  mix: readonly [number, number, number];
  /** tool-QA episodes in the SFT data (the OOD skill) */
  toolQa: number;
  /** tool failures in the teacher's episodes */
  teacherFailureRate: number;
  /** held-out queries and unseen tool-QA tasks rolled out at each evaluation */
  validationQueries: number;
  validationToolQa: number;
  steps: number;
  batchSize: number;
  /** pad batches to a multiple of this many tokens; = contextLength gives one shape (WebGPU compiles each new shape's
   * shaders) */
  padMultiple?: number;
  peakLr: number;
  /** evaluate every this many steps (and always after the last) */
  evalEvery: number;
  /** sample episodes kept per evaluation */
  keepEpisodes: number;
  /** cut evaluation rollouts at this many tokens (default: the context length) */
  evalMaxTokens?: number;
  /** mask plan choices the calls cannot resolve while evaluating (RolloutOptions.constrainPlan) */
  constrainPlan?: boolean;
}

/** The world sizes the lab runs SFT at in a browser tab: `tiny` is the smoke-test scale (also the model's). */
const TINY_MODEL: Partial<ModelConfig> = { contextLength: 256 };

/** Maps the lab's experiment config to this job's options. */
export function sftJobOptions(config: LabConfig): SftJobOptions {
  const tiny = config.worldSize === 'tiny';
  const base = preset(config.scale, VOCAB.size);
  // `tiny` is the smoke-test scale (the e2e test, a first look on a machine without a GPU): the
  // model is a quarter of the width and half the depth, batches are small and evaluation rollouts
  // are cut short. SwiftShader's CPU-emulated WebGPU still takes seconds per step for it (measured
  // in the closing note), so this scale shows the mechanics, not a trained agent.
  const model: Partial<ModelConfig> = tiny
    ? { ...TINY_MODEL, dModel: base.dModel / 4, nLayers: Math.max(1, base.nLayers / 2), nHeads: 2, dFF: base.dFF / 4 }
    : {};
  return {
    worldSize: config.worldSize,
    seed: config.seed,
    preset: config.scale,
    model,
    trainQueries: config.trainSize,
    mix: [...config.mix],
    toolQa: Math.max(4, Math.round(config.trainSize / 4)),
    teacherFailureRate: config.teacherFailureRate,
    validationQueries: tiny ? 2 : 32,
    validationToolQa: tiny ? 2 : 16,
    steps: config.steps,
    batchSize: tiny ? 4 : 16,
    // one batch shape at tiny: SwiftShader's shader compiles cost far more than the padding
    padMultiple: tiny ? TINY_MODEL.contextLength : 64,
    peakLr: config.sftLearningRate,
    evalEvery: Math.max(5, Math.ceil(config.steps / (tiny ? 2 : 4))),
    keepEpisodes: 3,
    evalMaxTokens: tiny ? 64 : undefined,
    constrainPlan: config.planDecoding === 'constrained',
  };
}

/** the policy shape an SFT job of these options trains (what its checkpoints must fit) */
export function sftModelConfig(options: Pick<SftJobOptions, 'preset' | 'model'>): ModelConfig {
  return { ...preset(options.preset, VOCAB.size), ...options.model };
}

interface Prepared {
  world: World;
  examples: SftExample[];
  validation: Query[];
  heldOutQa: ToolQaTask[];
  travelExamples: number;
  policy: Policy;
  trainer: SftTrainer;
}

export class SftJob implements SteppedJob {
  readonly kind = 'sft';
  readonly totalSteps: number;
  description: string;
  private prepared: Prepared | null = null;
  private lastEvalStep = -1;
  private fresh: JobEpisode[] = [];

  constructor(readonly options: SftJobOptions) {
    if (!Number.isInteger(options.steps) || options.steps < 1)
      throw new Error(`SFT job: steps must be a positive integer, got ${options.steps}`);
    if (!Number.isInteger(options.evalEvery) || options.evalEvery < 1)
      throw new Error(`SFT job: evalEvery must be a positive integer, got ${options.evalEvery}`);
    this.totalSteps = options.steps;
    this.description = `SFT of preset ${options.preset} on teacher trajectories (${options.worldSize} world)`;
  }

  get stepsDone(): number {
    return this.prepared?.trainer.step ?? 0;
  }

  /** evaluates every this many steps and after the last (step()) */
  get evalEvery(): number {
    return this.options.evalEvery;
  }

  /** the model's shape (after init) */
  get modelConfig(): ModelConfig {
    return this.ready().policy.config;
  }

  async init(): Promise<void> {
    const o = this.options;
    const config = sftModelConfig(o);
    const world = generateWorld(o.worldSize, o.seed);
    const ds = buildDataset(world, {
      size: o.trainQueries,
      mix: o.mix,
      seed: o.seed,
      validationSize: o.validationQueries,
      testSize: 0,
    });
    const data = buildSftData(world, ds.train, {
      seed: o.seed + 1,
      toolQa: o.toolQa,
      failureRate: o.teacherFailureRate,
      maxLength: config.contextLength,
    });
    if (data.examples.length === 0) {
      throw new Error(
        `SFT job: no teacher trajectory fits the context of ${config.contextLength} tokens; use more training queries or a larger world`,
      );
    }
    // unseen tool-QA tasks for the OOD accuracy
    const heldOutQa = heldOutToolQa(world, data, o.seed + 2, o.validationToolQa);
    const policy = createPolicy(config, o.seed);
    const trainer = new SftTrainer(policy, data.examples, {
      batchSize: o.batchSize, totalSteps: o.steps, warmupSteps: Math.min(20, Math.ceil(o.steps / 10)),
      peakLr: o.peakLr, minLr: o.peakLr / 10, padId: PAD, seed: o.seed, padMultiple: o.padMultiple ?? 16,
    });
    this.prepared = {
      world,
      examples: data.examples,
      validation: ds.validation,
      heldOutQa,
      travelExamples: data.travel,
      policy,
      trainer,
    };
    let parameters = 0;
    for (const v of policy.params.values()) parameters += v.size;
    this.description =
      `SFT of a ${(parameters / 1e6).toFixed(2)}M-parameter policy (preset ${o.preset}, d=${config.dModel}, ${config.nLayers} layers, ` +
      `context ${config.contextLength}) on ${data.travel} teacher trajectories + ${data.toolQa} tool-QA episodes (${o.worldSize} world)`;
  }

  async step(): Promise<Record<string, number>> {
    const { trainer } = this.ready();
    const metrics = await trainer.sftStep();
    if (trainer.step % this.options.evalEvery === 0 || trainer.step === this.totalSteps) {
      Object.assign(metrics, await this.evaluate());
    }
    return metrics;
  }

  /** Greedy rollouts on the held-out queries and tool-QA tasks; keeps sample episodes. */
  async evaluate(): Promise<Record<string, number>> {
    const { policy, world, validation, heldOutQa, trainer } = this.ready();
    const t0 = performance.now();
    const e = await evaluatePolicy(policy, world, validation, heldOutQa, {
      batchSize: 64,
      seed: this.options.seed + trainer.step,
      maxTokens: this.options.evalMaxTokens ?? policy.config.contextLength,
      constrainPlan: this.options.constrainPlan,
    });
    this.lastEvalStep = trainer.step;
    this.fresh = this.pickEpisodes(e);
    const out: Record<string, number> = {
      [METRIC.evalDelivery]: e.deliveryRate,
      [METRIC.evalParseRate]: e.parseRate,
      [METRIC.evalCallParseRate]: e.callParseRate,
      [METRIC.evalSuccess]: e.success,
      [METRIC.evalCommonsenseMicro]: e.commonsenseMicro,
      [METRIC.evalHardMicro]: e.hardMicro,
      [METRIC.evalOodAccuracy]: e.oodAccuracy,
      [METRIC.evalMeanCalls]: e.meanCalls,
      [METRIC.evalSeconds]: (performance.now() - t0) / 1000,
      // the n behind eval/success (one greedy rollout a query): a shared run shows its interval from it
      ...(e.queries > 0 ? { [METRIC.evalQueries]: e.queries } : {}),
    };
    // the run loop treats a non-finite metric as divergence; an empty split is just not reported
    for (const [k, v] of Object.entries(out)) if (!Number.isFinite(v)) delete out[k];
    return out;
  }

  /** episodes of the latest evaluation not yet handed out (the run loop stores them) */
  drainEpisodes(): JobEpisode[] {
    const out = this.fresh;
    this.fresh = [];
    return out;
  }

  async saveState(): Promise<JobState> {
    return jobState(await this.ready().trainer.checkpoint());
  }

  async loadState(state: JobState): Promise<void> {
    const { policy, trainer } = this.ready();
    try {
      policy.loadWeights(state.weights, state.weightSpecs);
      trainer.optimizer.load(state.optimizer, state.optimizerSpecs);
    } catch (e) {
      throw new Error(`checkpoint does not fit this model: ${e instanceof Error ? e.message : String(e)}`, {
        cause: e,
      });
    }
    trainer.rng = Rng.fromState(state.rngState);
    trainer.step = state.step;
  }

  /** the final evaluation's episodes (evaluating now if the last step did not) */
  async sampleEpisodes(): Promise<JobEpisode[]> {
    if (this.lastEvalStep !== this.stepsDone) await this.evaluate();
    return this.drainEpisodes();
  }

  dispose(): void {
    if (!this.prepared) return;
    this.prepared.trainer.dispose();
    this.prepared.policy.dispose();
    this.prepared = null;
  }

  /** the first travel episodes (delivered ones first) and one tool-QA episode */
  private pickEpisodes(e: PolicyEvaluation): JobEpisode[] {
    const { world } = this.ready();
    const travel = e.episodes
      .map((ep, i) => ({ ep, v: e.verdicts[i] }))
      .filter(({ ep }) => ep.task.kind === 'travel')
      .sort((a, b) => Number(b.ep.plan !== null) - Number(a.ep.plan !== null));
    const qa = e.episodes.filter((ep) => ep.task.kind === 'toolqa');
    const picked = [
      ...travel.slice(0, Math.max(1, this.options.keepEpisodes - 1)).map(({ ep, v }) => sampleEpisode(world, ep, v)),
      ...qa.slice(0, 1).map((ep) => sampleEpisode(world, ep)),
    ].slice(0, this.options.keepEpisodes);
    return picked.map((s) => ({ trajectory: s, reward: s.success ? 1 : 0 }));
  }

  private ready(): Prepared {
    if (!this.prepared) throw new Error('SFT job: call init() first');
    return this.prepared;
  }
}
