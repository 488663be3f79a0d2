// A validated checkpoint (checkpointFiles.ts) as a working policy, and the SFT run its card
// describes as pipeline options, so an evaluation rebuilds the very world, splits and tool-QA suite
// the checkpoint was scored on. Shared by the CLI and the browser worker: no node:fs, no fetch.
import { createPolicy, type Policy } from '../model/transformer.ts';
import { VOCAB } from '../agent/vocab.ts';
import type { SftCard, ValidWeights } from './checkpointFiles.ts';
import type { SftPipelineOptions } from './sftPipeline.ts';
import type { SftOrigin } from './rlEnvironment.ts';

/** a policy holding the checkpoint's weights (an SFT checkpoint or an RL run's policy; the caller disposes it) */
export function policyFromCheckpoint(checkpoint: ValidWeights): Policy {
  // weights of another token language would run, and emit nonsense
  if (checkpoint.config.vocabSize !== VOCAB.size) {
    throw new Error(
      `the checkpoint's vocabulary has ${checkpoint.config.vocabSize} tokens, this lab's has ${VOCAB.size}: ` +
        'it was trained on another version of the token language',
    );
  }
  // the seed only draws the initial weights, which loadWeights overwrites entirely
  const policy = createPolicy(checkpoint.config, 0);
  try {
    policy.loadWeights(checkpoint.weights, checkpoint.specs);
  } catch (e) {
    policy.dispose();
    throw e;
  }
  return policy;
}

/** the options of the SFT run that made the card's checkpoint (world, data, model, schedule) */
export function pipelineOptionsFromCard(card: SftCard): SftPipelineOptions {
  const [easy, medium, hard] = card.data.mix;
  if (easy !== 4 || medium !== 3 || hard !== 3)
    throw new Error(`card.json's data mix ${card.data.mix.join(':')} is not the SFT pipeline's 4:3:3`);
  return {
    preset: card.preset,
    worldSize: card.world.size,
    seed: card.seed,
    trainQueries: card.data.trainQueries,
    validationQueries: card.data.validationQueries,
    testQueries: card.data.testQueries,
    toolQa: card.data.toolQa,
    // the whole shape, so the data is cut at the same context even if a preset changed since
    model: { ...card.modelConfig },
    steps: card.sft.steps,
    batchSize: card.sft.batchSize,
    peakLr: card.sft.peakLr,
  };
}

/** the world and data an SFT card's checkpoint was made and scored on, as rlEnvironment / originEvaluationTasks take
 * them (the same world, splits and tool-QA suite as sftPipelineData of the card's options, with the splits grown) */
export function sftOriginFromCard(card: SftCard): SftOrigin {
  const o = pipelineOptionsFromCard(card); // refuses a mix the SFT pipeline never used
  const { trainQueries, validationQueries, testQueries, toolQa } = card.data;
  return {
    world: { size: o.worldSize, seed: o.seed },
    data: { trainQueries, validationQueries, testQueries, toolQa, mix: [4, 3, 3] },
    contextLength: card.modelConfig.contextLength,
  };
}
