// Checkpoint files: validateCheckpoint accepts model.json + weights.bin + card.json that
// belong together, and refuses, with a reason naming what is wrong, every way they can fail to —
// a truncated or altered shard, a card or model.json of another shape, a parameter list that is not
// the model's. A validated checkpoint loads into a policy with exactly the saved weights.
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { createPolicy } from '../../src/model/transformer.ts';
import { type ModelConfig } from '../../src/model/config.ts';
import { VOCAB } from '../../src/agent/vocab.ts';
import { CARD_FORMAT, modelJson, sha256Hex, validateCheckpoint, type SftCard } from '../../src/rl/checkpointFiles.ts';
import { pipelineOptionsFromCard, policyFromCheckpoint } from '../../src/rl/loadPolicy.ts';

// a micro policy with the lab's vocabulary (so it loads), small enough for tfjs cpu
const CONFIG: ModelConfig = { vocabSize: VOCAB.size, contextLength: 64, dModel: 8, nLayers: 1, nHeads: 2, dFF: 16, positions: 'alibi' };

const FIGURES = { queries: 2, toolQaTasks: 10, delivery: 0.5, success: 0, commonsenseMicro: 0.5, commonsenseMacro: 0, hardMicro: null,
  hardMacro: null, oodAccuracy: 0.1, callParseRate: 0.9, meanCalls: 8, meanTokens: 300 };

function card(bytes: number, sha256: string, config: ModelConfig = CONFIG): SftCard {
  return {
    format: CARD_FORMAT, name: 's-tiny', preset: 's', modelConfig: { ...config }, parameters: 1, world: { size: 'tiny', seed: 1 },
    data: { trainQueries: 20, validationQueries: 2, testQueries: 2, toolQa: 4, mix: [4, 3, 3], examples: 24, travelExamples: 20 },
    sft: { steps: 1, batchSize: 2, peakLr: 3e-3, minLr: 3e-4, warmupSteps: 1 }, seed: 1, backend: 'cpu',
    command: 'npm run cli -- sft --preset s --steps 1 --out x', commit: 'test', createdAt: '2026-12-01T00:00:00.000Z',
    finalLoss: 6.4, trainSeconds: 1, weights: { file: 'weights.bin', bytes, sha256 },
    evaluation: { split: 'validation', free: FIGURES, constrained: FIGURES, evalSeconds: 1 },
    verdictCheck: { decoding: 'free', batchSize: 2, queries: [] },
  };
}

let files: { model: ReturnType<typeof modelJson>; weights: ArrayBuffer; card: SftCard };
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

beforeAll(async () => {
  await tf.setBackend('cpu');
  const policy = createPolicy(CONFIG, 3);
  const { buffer, specs } = await policy.saveWeights();
  policy.dispose();
  files = { model: modelJson(CONFIG, specs), weights: buffer, card: card(buffer.byteLength, await sha256Hex(buffer)) };
});

describe('validateCheckpoint', () => {
  it('accepts files that belong together, and the policy built from them holds the saved weights', async () => {
    const valid = await validateCheckpoint(files.model, files.weights, files.card);
    expect(valid.config).toEqual(CONFIG);
    const policy = policyFromCheckpoint(valid);
    const again = await policy.saveWeights();
    policy.dispose();
    expect(await sha256Hex(again.buffer)).toBe(files.card.weights.sha256);
  });

  it('refuses a truncated shard', async () => {
    await expect(validateCheckpoint(files.model, files.weights.slice(0, files.weights.byteLength - 4), files.card))
      .rejects.toThrow(/weights\.bin has \d+ bytes, model\.json describes \d+ \(truncated\?\)/);
  });

  it('refuses a shard with one byte changed (SHA-256 against the card)', async () => {
    const flipped = files.weights.slice(0);
    new Uint8Array(flipped)[100] ^= 0xff;
    await expect(validateCheckpoint(files.model, flipped, files.card)).rejects.toThrow(/weights\.bin does not match its card \(SHA-256/);
  });

  it('refuses a card of another shape than model.json', async () => {
    const c = clone(files.card);
    c.modelConfig.dModel = 16;
    await expect(validateCheckpoint(files.model, files.weights, c)).rejects.toThrow('model.json and card.json disagree on dModel (8 vs 16)');
  });

  it('refuses a card that is not a card, and a model.json that is not a policy', async () => {
    await expect(validateCheckpoint(files.model, files.weights, { ...files.card, format: 'something/1' })).rejects.toThrow(/card\.json is not a STAR Lab SFT card \(format:/);
    await expect(validateCheckpoint(files.model, files.weights, { ...files.card, weights: { ...files.card.weights, sha256: 'abc' } }))
      .rejects.toThrow(/card\.json is not a STAR Lab SFT card \(weights\.sha256:/);
    await expect(validateCheckpoint({ ...files.model, weightsManifest: [] }, files.weights, files.card)).rejects.toThrow(/model\.json is not a STAR Lab policy \(weightsManifest:/);
  });

  it('refuses a parameter list that is not the model\'s: a missing, an unknown, a doubled or a misshapen weight', async () => {
    const withWeights = (edit: (w: { name: string; shape: number[] }[]) => void) => {
      const m = clone(files.model);
      edit(m.weightsManifest[0].weights);
      return validateCheckpoint(m, files.weights, files.card);
    };
    await expect(withWeights((w) => void w.pop())).rejects.toThrow('model.json lacks ln_f.b');
    await expect(withWeights((w) => void (w[0].name = 'wpe'))).rejects.toThrow('model.json lists wpe, which a policy of this shape does not have');
    await expect(withWeights((w) => void (w[1] = { ...w[0] }))).rejects.toThrow('model.json lists wte twice');
    await expect(withWeights((w) => void (w[0].shape = [CONFIG.vocabSize, 4]))).rejects.toThrow(`model.json gives wte the shape [${CONFIG.vocabSize},4], the model config implies [${CONFIG.vocabSize},8]`);
  });

  it('refuses a card whose byte count disagrees with model.json', async () => {
    const c = clone(files.card);
    c.weights.bytes += 4;
    await expect(validateCheckpoint(files.model, files.weights, c)).rejects.toThrow(/card\.json says \d+ weight bytes, model\.json describes \d+/);
  });
});

describe('loading a checkpoint', () => {
  it('refuses weights of another token language', async () => {
    const other = { ...CONFIG, vocabSize: VOCAB.size + 1 };
    const policy = createPolicy(other, 3);
    const { buffer, specs } = await policy.saveWeights();
    policy.dispose();
    const valid = await validateCheckpoint(modelJson(other, specs), buffer, card(buffer.byteLength, await sha256Hex(buffer), other));
    expect(() => policyFromCheckpoint(valid)).toThrow(`the checkpoint's vocabulary has ${VOCAB.size + 1} tokens, this lab's has ${VOCAB.size}`);
  });

  it('rebuilds the SFT run from the card, and refuses a data mix the pipeline cannot rebuild', () => {
    expect(pipelineOptionsFromCard(files.card)).toMatchObject({ preset: 's', worldSize: 'tiny', seed: 1, trainQueries: 20, validationQueries: 2,
      testQueries: 2, toolQa: 4, steps: 1, batchSize: 2, model: CONFIG });
    const c = clone(files.card);
    c.data.mix = [1, 1, 1];
    expect(() => pipelineOptionsFromCard(c)).toThrow("card.json's data mix 1:1:1 is not the SFT pipeline's 4:3:3");
  });
});
