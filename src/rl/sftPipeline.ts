// The lab's SFT recipe end to end: a world, a dataset, teacher trajectories and
// tool-QA episodes as training sequences, SFT on the policy's tokens, then greedy evaluation on the
// validation split and on unseen tool-QA tasks. Shared by the `sft` command, the SFT learning test
// and the `agent` bench.
import type { WorldSize } from '../env/types.ts';
import { generateWorld } from '../env/world.ts';
import { buildDataset } from '../env/queries.ts';
import { buildSftData, heldOutToolQa } from '../agent/sftData.ts';
import { evaluatePolicy, type PolicyEvaluation } from '../agent/evaluatePolicy.ts';
import { PAD, VOCAB } from '../agent/vocab.ts';
import { createPolicy, type Policy } from '../model/transformer.ts';
import { preset, type ModelConfig, type PresetName } from '../model/config.ts';
import { SftTrainer, type SftExample } from './sft.ts';
import { METRIC } from '../lab/metricNames.ts';

export interface SftPipelineOptions {
  worldSize: WorldSize;
  seed: number;
  trainQueries: number;
  validationQueries: number;
  /** held-out test queries (drawn first, so they also shape the validation split; default 0) */
  testQueries?: number;
  /** tool-QA episodes in the SFT data; as many unseen ones (÷4, at least 10) are evaluated */
  toolQa: number;
  preset: PresetName;
  /** overrides of the preset (e.g. a shorter context for tests) */
  model?: Partial<ModelConfig>;
  steps: number;
  batchSize?: number;
  peakLr?: number;
  /** stop training early after this many seconds (the bench's --quick) */
  maxSeconds?: number;
  onStep?: (step: number, loss: number) => void;
}

export interface SftPipelineResult {
  policy: Policy;
  /** greedy, free decoding: the policy's own delivery */
  evaluation: PolicyEvaluation;
  /** greedy, constrained plan decoding (RolloutOptions.constrainPlan) on the same tasks */
  constrained: PolicyEvaluation;
  examples: number;
  travelExamples: number;
  stepsDone: number;
  finalLoss: number;
  trainSeconds: number;
  evalSeconds: number;
  parameters: number;
}

/** The run's model config, world, data and evaluation tasks (deterministic in the options). */
export function sftPipelineData(o: SftPipelineOptions) {
  const config: ModelConfig = { ...preset(o.preset, VOCAB.size), ...o.model };
  const world = generateWorld(o.worldSize, o.seed);
  const ds = buildDataset(world, {
    size: o.trainQueries,
    mix: [4, 3, 3],
    seed: o.seed,
    validationSize: o.validationQueries,
    testSize: o.testQueries ?? 0,
  });
  const data = buildSftData(world, ds.train, { seed: o.seed + 1, toolQa: o.toolQa, maxLength: config.contextLength });
  const heldOutQa = heldOutToolQa(world, data, o.seed + 2, Math.max(10, Math.round(o.toolQa / 4)));
  return { config, world, validation: ds.validation, test: ds.test, data, heldOutQa };
}

/** the recipe's evaluation of a trained policy on the validation queries and the held-out tool-QA: free
 *  decoding and constrained decoding (constrainPlan), batches of 64 */
export async function evaluateSftPolicy(policy: Policy, d: ReturnType<typeof sftPipelineData>, seed: number):
  Promise<{ free: PolicyEvaluation; constrained: PolicyEvaluation }> {
  const { world, validation, heldOutQa } = d;
  const free = await evaluatePolicy(policy, world, validation, heldOutQa, { batchSize: 64, seed });
  const constrained = await evaluatePolicy(policy, world, validation, heldOutQa, {
    batchSize: 64,
    seed,
    constrainPlan: true,
  });
  return { free, constrained };
}

/** A fresh policy and its SFT trainer for the options (the caller disposes both). */
export function sftPipelineTrainer(
  o: SftPipelineOptions,
  config: ModelConfig,
  examples: readonly SftExample[],
): { policy: Policy; trainer: SftTrainer } {
  const policy = createPolicy(config, o.seed);
  const trainer = new SftTrainer(policy, examples, {
    batchSize: o.batchSize ?? 16,
    totalSteps: o.steps,
    warmupSteps: Math.min(20, Math.ceil(o.steps / 10)),
    peakLr: o.peakLr ?? 3e-3,
    minLr: (o.peakLr ?? 3e-3) / 10,
    padId: PAD,
    seed: o.seed,
  });
  return { policy, trainer };
}

export async function runSftPipeline(o: SftPipelineOptions): Promise<SftPipelineResult> {
  const prepared = sftPipelineData(o);
  const { config, data } = prepared;
  const { policy, trainer } = sftPipelineTrainer(o, config, data.examples);
  const t0 = performance.now();
  let loss = NaN;
  try {
    while (trainer.step < o.steps) {
      const m = await trainer.sftStep();
      loss = m[METRIC.lossesSft];
      o.onStep?.(trainer.step, loss);
      if (o.maxSeconds !== undefined && (performance.now() - t0) / 1000 > o.maxSeconds) break;
    }
  } finally {
    trainer.dispose();
  }
  const trainSeconds = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  const { free: evaluation, constrained } = await evaluateSftPolicy(policy, prepared, o.seed);
  let parameters = 0;
  for (const v of policy.params.values()) parameters += v.size;
  return {
    policy,
    evaluation,
    constrained,
    examples: data.examples.length,
    travelExamples: data.travel,
    stepsDone: trainer.step,
    finalLoss: loss,
    trainSeconds,
    evalSeconds: (performance.now() - t1) / 1000,
    parameters,
  };
}
