// A policy checkpoint as files: tfjs's own layout — `model.json` with a weights manifest
// (what tf.io.loadWeights reads) and one binary shard — plus `card.json`, which says how the
// weights were made and how they score. The CLI writes these with node:fs; the page and the worker
// fetch them from the lab's origin. This module only builds and validates: no fs, no fetch, no DOM.
//
// Validation is strict because a checkpoint crosses a trust boundary (a file on disk, a download, a
// user's folder): every failure names the file and what is wrong, and nothing is built from a file
// that does not match its card (byte length and SHA-256 of the shard, model shape, parameter list).
import * as v from 'valibot';
import { parameterShapes, type ModelConfig } from '../model/config.ts';

export const MODEL_JSON_FORMAT = 'star-lab-policy/1';
export const CARD_FORMAT = 'star-lab-sft-card/1';
export const RL_POLICY_CARD_FORMAT = 'star-lab-rl-policy-card/1';
export const PRETRAIN_CARD_FORMAT = 'star-lab-pretrain-card/1';
export const WEIGHTS_FILE = 'weights.bin';

export interface WeightEntry {
  name: string;
  shape: number[];
  dtype: 'float32';
}

/** model.json: tfjs's weights-manifest layout, with the policy's shape beside it */
export interface ModelJson {
  format: typeof MODEL_JSON_FORMAT;
  modelConfig: ModelConfig;
  weightsManifest: { paths: string[]; weights: WeightEntry[] }[];
}

/** one validation query's verdict, as the card records it (and the checkpoint test re-derives) */
export interface QueryVerdict {
  id: string;
  delivered: boolean;
  success: boolean;
  /** checks that failed, by name (empty when the plan passed or was not delivered) */
  failed: string[];
  tokens: number;
  calls: number;
}

/** aggregate figures of one greedy evaluation (PolicyEvaluation, without the episodes) */
export interface EvaluationFigures {
  queries: number;
  toolQaTasks: number;
  delivery: number;
  success: number;
  commonsenseMicro: number;
  commonsenseMacro: number;
  hardMicro: number;
  hardMacro: number;
  oodAccuracy: number;
  callParseRate: number;
  meanCalls: number;
  meanTokens: number;
}

const Finite = v.pipe(v.number(), v.finite());
const NumberOrNull = v.nullable(v.number()); // JSON writes NaN as null
const Int = (min: number) => v.pipe(v.number(), v.integer(), v.minValue(min));

const ModelConfigSchema = v.object({
  vocabSize: Int(1), contextLength: Int(1), dModel: Int(1), nLayers: Int(1), nHeads: Int(1), dFF: Int(1),
  embedding: v.optional(v.picklist(['gather', 'onehot'])),
  positions: v.optional(v.picklist(['learned', 'alibi'])),
});

const ModelJsonSchema = v.object({
  format: v.literal(MODEL_JSON_FORMAT),
  modelConfig: ModelConfigSchema,
  weightsManifest: v.pipe(v.array(v.object({
    paths: v.pipe(v.array(v.string()), v.minLength(1)),
    weights: v.array(v.object({ name: v.string(), shape: v.array(Int(1)), dtype: v.literal('float32') })),
  })), v.length(1, 'one weights group (one shard) expected')),
});

const FiguresSchema = v.object({
  queries: Int(0), toolQaTasks: Int(0), delivery: NumberOrNull, success: NumberOrNull,
  commonsenseMicro: NumberOrNull, commonsenseMacro: NumberOrNull, hardMicro: NumberOrNull, hardMacro: NumberOrNull,
  oodAccuracy: NumberOrNull, callParseRate: NumberOrNull, meanCalls: NumberOrNull, meanTokens: NumberOrNull,
});

const VerdictSchema = v.object({
  id: v.string(),
  delivered: v.boolean(),
  success: v.boolean(),
  failed: v.array(v.string()),
  tokens: Int(0),
  calls: Int(0),
});

/** a 95 % interval of a rate (stats/intervals.ts); JSON writes an undefined end as null */
const IntervalSchema = v.object({ lo: NumberOrNull, hi: NumberOrNull });

/** figures of a greedy evaluation with the 95 % Wilson intervals of its success and delivery rates */
const FiguresWithIntervalsSchema = v.object({
  ...FiguresSchema.entries,
  successInterval: IntervalSchema,
  deliveryInterval: IntervalSchema,
});

const Sha256 = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/));

/** the files that differed from a record's commit when it was made (written only with --allow-dirty; null: deleted) */
export const DirtyFilesSchema = v.array(v.object({ path: v.string(), sha256: v.nullable(Sha256) }));

/** the card's checkpoint scored again on a grown held-out split (≥ 300 queries), beside the original evaluation */
const GrownEvaluationSchema = v.object({
  split: v.picklist(['validation', 'test']),
  /** how the split was built, in words */
  splitRule: v.string(),
  batchSize: Int(1),
  free: FiguresWithIntervalsSchema,
  constrained: FiguresWithIntervalsSchema,
  backend: v.string(),
  commit: v.string(),
  dirtyFiles: v.optional(DirtyFilesSchema),
  command: v.string(),
  createdAt: v.string(),
  evalSeconds: Finite,
});

export type GrownEvaluation = v.InferOutput<typeof GrownEvaluationSchema>;


/** what an SFT card says about the pretraining its start came from (`sft --from`) */
const PretrainStageSchema = v.object({
  /** the pretrain checkpoint folder as given to --from */
  path: v.string(),
  name: v.string(),
  /** SHA-256 of the pretrain weights the SFT started from */
  sha256: Sha256,
  tokens: Int(0),
  worlds: Int(0),
  steps: Int(0),
  trainSeconds: Finite,
  command: v.string(),
  commit: v.string(),
});

/** the weight shard a card vouches for: its file name, byte length and SHA-256 */
const WeightsRecordSchema = v.object({ file: v.string(), bytes: Int(1), sha256: Sha256 });

/**
 * How a trained checkpoint was made and what it ended at: the fields a pretrain card and an SFT card
 * share, in this order (both cards spread them at the same place, so their JSON keeps its key order).
 */
const ProvenanceSchema = v.object({
  seed: v.pipe(v.number(), v.integer()),
  backend: v.string(),
  command: v.string(),
  commit: v.string(),
  dirtyFiles: v.optional(DirtyFilesSchema),
  createdAt: v.string(),
  finalLoss: Finite,
  trainSeconds: Finite,
  weights: WeightsRecordSchema,
});

export type CardProvenance = v.InferOutput<typeof ProvenanceSchema>;

/** a card's provenance block for weights just saved (createdAt now, the shard's length and SHA-256) */
export async function cardProvenance(
  run: Pick<CardProvenance, 'seed' | 'backend' | 'command' | 'commit' | 'dirtyFiles' | 'finalLoss' | 'trainSeconds'>,
  weights: ArrayBuffer,
): Promise<CardProvenance> {
  return {
    seed: run.seed,
    backend: run.backend,
    command: run.command,
    commit: run.commit,
    ...(run.dirtyFiles?.length ? { dirtyFiles: run.dirtyFiles } : {}),
    createdAt: new Date().toISOString(),
    finalLoss: run.finalLoss,
    trainSeconds: run.trainSeconds,
    weights: { file: WEIGHTS_FILE, bytes: weights.byteLength, sha256: await sha256Hex(weights) },
  };
}

/** the card of a pretraining run (`npm run cli -- pretrain`): trained on the teacher data of many generated worlds */
export const PretrainCardSchema = v.object({
  format: v.literal(PRETRAIN_CARD_FORMAT),
  name: v.string(),
  preset: v.picklist(['s', 'm', 'l']),
  modelConfig: ModelConfigSchema,
  parameters: Int(1),
  /** the budget asked for, the real (unpadded) tokens trained on, and the latter per parameter */
  tokens: v.object({ budget: Int(1), consumed: Int(0), perParameter: Finite }),
  /** the world stream: how many worlds were (at least partly) trained on, their sizes and seed range */
  worlds: v.object({
    count: Int(0),
    sizes: v.array(v.string()),
    firstSeed: Int(0),
    lastSeed: Int(0),
    queriesPerWorld: Int(1),
    toolQaPerWorld: Int(0),
  }),
  schedule: v.object({
    steps: Int(0),
    plannedSteps: Int(1),
    batchSize: Int(1),
    peakLr: Finite,
    minLr: Finite,
    warmupSteps: Int(0),
  }),
  ...ProvenanceSchema.entries,
});

export type PretrainCard = v.InferOutput<typeof PretrainCardSchema>;

export const SftCardSchema = v.object({
  format: v.literal(CARD_FORMAT),
  name: v.string(),
  preset: v.picklist(['s', 'm', 'l']),
  modelConfig: ModelConfigSchema,
  parameters: Int(1),
  world: v.object({ size: v.picklist(['tiny', 'small', 'standard']), seed: v.pipe(v.number(), v.integer()) }),
  data: v.object({
    trainQueries: Int(1),
    validationQueries: Int(0),
    testQueries: Int(0),
    toolQa: Int(0),
    mix: v.tuple([Finite, Finite, Finite]),
    examples: Int(1),
    travelExamples: Int(0),
  }),
  sft: v.object({ steps: Int(1), batchSize: Int(1), peakLr: Finite, minLr: Finite, warmupSteps: Int(0) }),
  ...ProvenanceSchema.entries,
  evaluation: v.object({ split: v.string(), free: FiguresSchema, constrained: FiguresSchema, evalSeconds: Finite }),
  /** a fixed handful of validation queries rolled out on their own (greedy, free): the test re-derives these */
  verdictCheck: v.object({
    decoding: v.picklist(['free', 'constrained']),
    batchSize: Int(1),
    queries: v.array(VerdictSchema),
  }),
  /** the same weights scored on the validation split grown to 300 queries (added after the card was made) */
  evaluation300: v.optional(GrownEvaluationSchema),
  /** the pretraining stage the SFT started from (absent: SFT from a random init) */
  pretrain: v.optional(PretrainStageSchema),
});

export type SftCard = v.InferOutput<typeof SftCardSchema>;

/** where an RL policy's world and held-out splits come from: its SFT start's world and data (rlEnvironment
 * SftOrigin) */
const OriginSchema = v.object({
  world: v.object({ size: v.picklist(['tiny', 'small', 'standard']), seed: v.pipe(v.number(), v.integer()) }),
  data: v.object({
    trainQueries: Int(0),
    validationQueries: Int(0),
    testQueries: Int(0),
    toolQa: Int(0),
    mix: v.tuple([Finite, Finite, Finite]),
  }),
  contextLength: Int(1),
});

/** the card of an RL run's final weights (OUT/policy/card.json, written by `cli run`) */
export const RlPolicyCardSchema = v.object({
  format: v.literal(RL_POLICY_CARD_FORMAT),
  /** the run's lab config as a link hash (urlState serializeHash; '' = the defaults) and in full */
  hash: v.string(),
  lab: v.record(v.string(), v.unknown()),
  /** the RL config the run trained with (rlConfig.ts) */
  rl: v.record(v.string(), v.unknown()),
  /** the SFT checkpoint the run started from */
  sft: v.object({ name: v.string(), path: v.string(), sha256: Sha256 }),
  origin: OriginSchema,
  steps: Int(0),
  modelConfig: ModelConfigSchema,
  weights: WeightsRecordSchema,
  backend: v.string(),
  commit: v.string(),
  dirtyFiles: v.optional(DirtyFilesSchema),
  createdAt: v.string(),
});

export type RlPolicyCard = v.InferOutput<typeof RlPolicyCardSchema>;

export function modelJson(
  config: ModelConfig,
  specs: readonly { name: string; shape: readonly number[]; dtype: string }[],
): ModelJson {
  return {
    format: MODEL_JSON_FORMAT,
    modelConfig: { ...config },
    weightsManifest: [
      {
        paths: [WEIGHTS_FILE],
        weights: specs.map((s) => {
          if (s.dtype !== 'float32')
            throw new Error(`checkpoint: weight ${s.name} is ${s.dtype}, only float32 is written`);
          return { name: s.name, shape: [...s.shape], dtype: 'float32' as const };
        }),
      },
    ],
  };
}

export async function sha256Hex(data: ArrayBuffer): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', data);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function issues(e: { issues: v.BaseIssue<unknown>[] }): string {
  return e.issues.slice(0, 3).map((i) => `${v.getDotPath(i) ?? '(root)'}: ${i.message}`).join('; ');
}

/** parses a card with its schema; a mismatch throws naming the file, the kind of card and the first issues */
function parseWith<S extends v.GenericSchema>(schema: S, kind: string, json: unknown, where: string): v.InferOutput<S> {
  try {
    return v.parse(schema, json);
  } catch (e) {
    if (v.isValiError(e)) throw new Error(`${where} is not a STAR Lab ${kind} (${issues(e)})`, { cause: e });
    throw e;
  }
}

export function parseCard(json: unknown, where = 'card.json'): SftCard {
  return parseWith(SftCardSchema, 'SFT card', json, where);
}

export function parsePretrainCard(json: unknown, where = 'card.json'): PretrainCard {
  return parseWith(PretrainCardSchema, 'pretrain card', json, where);
}

export function parseRlPolicyCard(json: unknown, where = 'card.json'): RlPolicyCard {
  return parseWith(RlPolicyCardSchema, 'RL policy card', json, where);
}

/** weights that match their model.json and their card (what a policy is built from) */
export interface ValidWeights {
  config: ModelConfig;
  specs: WeightEntry[];
  weights: ArrayBuffer;
}

export interface ValidCheckpoint extends ValidWeights {
  card: SftCard;
}

export interface ValidRlPolicy extends ValidWeights {
  card: RlPolicyCard;
}

/**
 * Checks that model.json, the weight shard and the card belong together and are whole: formats,
 * the model's shape (the card's and model.json's must agree, and every parameter the shape implies
 * must be listed once with its shape), the shard's byte length and SHA-256. Throws with the reason.
 */
export async function validateCheckpoint(
  modelJsonValue: unknown,
  weights: ArrayBuffer,
  cardValue: unknown,
): Promise<ValidCheckpoint> {
  const card = parseCard(cardValue);
  return { card, ...(await validateWeights(modelJsonValue, weights, card)) };
}

/** validateCheckpoint for an RL run's policy folder (model.json, weights.bin and an RL policy card) */
export async function validateRlPolicy(
  modelJsonValue: unknown,
  weights: ArrayBuffer,
  cardValue: unknown,
): Promise<ValidRlPolicy> {
  const card = parseRlPolicyCard(cardValue);
  return { card, ...(await validateWeights(modelJsonValue, weights, card)) };
}

/** validateCheckpoint for a pretraining run's folder (model.json, weights.bin and a pretrain card) */
export async function validatePretrain(
  modelJsonValue: unknown,
  weights: ArrayBuffer,
  cardValue: unknown,
): Promise<ValidWeights & { card: PretrainCard }> {
  const card = parsePretrainCard(cardValue);
  return { card, ...(await validateWeights(modelJsonValue, weights, card)) };
}

async function validateWeights(
  modelJsonValue: unknown,
  weights: ArrayBuffer,
  card: { modelConfig: v.InferOutput<typeof ModelConfigSchema>; weights: { bytes: number; sha256: string } },
): Promise<ValidWeights> {
  const mj = parseWith(ModelJsonSchema, 'policy', modelJsonValue, 'model.json');
  const config = mj.modelConfig as ModelConfig;
  for (const k of [
    'vocabSize',
    'contextLength',
    'dModel',
    'nLayers',
    'nHeads',
    'dFF',
    'positions',
    'embedding',
  ] as const) {
    if (config[k] !== card.modelConfig[k])
      throw new Error(
        `model.json and card.json disagree on ${k} (${String(config[k])} vs ${String(card.modelConfig[k])})`,
      );
  }
  const expected = parameterShapes(config);
  const specs = mj.weightsManifest[0].weights;
  const listed = new Set<string>();
  let bytes = 0;
  for (const s of specs) {
    const want = expected[s.name];
    if (!want) throw new Error(`model.json lists ${s.name}, which a policy of this shape does not have`);
    if (listed.has(s.name)) throw new Error(`model.json lists ${s.name} twice`);
    if (want.join('x') !== s.shape.join('x'))
      throw new Error(`model.json gives ${s.name} the shape [${s.shape}], the model config implies [${want}]`);
    listed.add(s.name);
    bytes += 4 * s.shape.reduce((a, b) => a * b, 1);
  }
  const missing = Object.keys(expected).filter((n) => !listed.has(n));
  if (missing.length > 0)
    throw new Error(
      `model.json lacks ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ` and ${missing.length - 3} more` : ''}`,
    );
  if (weights.byteLength !== bytes) {
    throw new Error(
      `${WEIGHTS_FILE} has ${weights.byteLength} bytes, model.json describes ${bytes}${weights.byteLength < bytes ? ' (truncated?)' : ''}`,
    );
  }
  if (card.weights.bytes !== bytes)
    throw new Error(`card.json says ${card.weights.bytes} weight bytes, model.json describes ${bytes}`);
  const digest = await sha256Hex(weights);
  if (digest !== card.weights.sha256)
    throw new Error(
      `${WEIGHTS_FILE} does not match its card (SHA-256 ${digest.slice(0, 12)}…, card ${card.weights.sha256.slice(0, 12)}…): corrupt or from another run`,
    );
  return { config, specs, weights };
}
