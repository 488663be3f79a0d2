// The RL stage's starting point: an SFT policy, either a shipped checkpoint served from the
// lab's own origin (public/checkpoints/<scale>-tiny/: model.json, weights.bin, card.json) or the
// newest checkpoint of an SFT run in the store. Loading checks everything before a policy is built —
// the files against their card, the weights against the model's shape — and throws an Error whose
// message says what is wrong, in words a user can act on. Loading only reads: nothing is stored.
import { VOCAB } from '../agent/vocab.ts';
import { configFromRecord } from '../lab/urlState.ts';
import { createPolicy, type Policy } from '../model/transformer.ts';
import { countParameters, type ModelConfig } from '../model/config.ts';
import { validateCheckpoint, WEIGHTS_FILE, type SftCard } from '../rl/checkpointFiles.ts';
import type { SftOrigin } from '../rl/rlEnvironment.ts';
import type { LabStore } from '../store/labStore.ts';
import type { WeightSpec } from '../store/records.ts';
import type { StartingPointFigures, StartingPointSource, StartingPointSummary } from './api.ts';
import { sftJobOptions, sftModelConfig } from './sftJob.ts';
import { METRIC } from '../lab/metricNames.ts';

/** the world the shipped checkpoints were trained on (and the RL stage starts on by default) */
export const SHIPPED_WORLD = 'tiny';
const SCALES = ['s', 'm', 'l'] as const;

export function shippedCheckpointName(scale: 's' | 'm' | 'l'): string {
  return `${scale}-${SHIPPED_WORLD}`;
}

export interface LoadedStartingPoint {
  /** the policy holding the checkpoint's weights (the caller disposes it) */
  policy: Policy;
  config: ModelConfig;
  /** the card of a shipped checkpoint */
  card?: SftCard;
  /** the world and SFT data the policy was trained on (RL rebuilds them: its validation split, its unseen tool-QA) */
  origin: SftOrigin;
  label: string;
  summary: StartingPointSummary;
}

export interface LoadOptions {
  /** the store, for `run` sources */
  store?: LabStore | null;
  /** where the lab is served from (default: this page's or worker's origin + Vite's base) */
  baseUrl?: string | URL;
}

/** Loads and checks a starting point; throws with the reason when it cannot be used. */
export async function loadStartingPoint(
  source: StartingPointSource,
  options: LoadOptions = {},
): Promise<LoadedStartingPoint> {
  const checked = checkSource(source);
  return checked.kind === 'shipped'
    ? loadShipped(checked.scale, options.baseUrl ?? labBase())
    : loadRun(checked.runId, options.store ?? null);
}

/** the source as sent across the worker boundary may be anything: accept only the two shapes */
export function checkSource(source: unknown): StartingPointSource {
  const s = source as Partial<Record<string, unknown>> | null;
  if (s?.kind === 'shipped' && SCALES.includes(s.scale as 's'))
    return { kind: 'shipped', scale: s.scale as 's' | 'm' | 'l' };
  if (s?.kind === 'run' && typeof s.runId === 'string' && s.runId) return { kind: 'run', runId: s.runId };
  throw new Error(
    `unknown starting point ${JSON.stringify(source)} (expected a shipped scale s, m or l, or a stored run)`,
  );
}

function labBase(): URL {
  const origin = globalThis.location?.origin;
  if (!origin || origin === 'null')
    throw new Error("the lab's origin is unknown here, so shipped checkpoints cannot be fetched");
  // BASE_URL is '/' unless the lab is deployed under a sub-path; a relative base means the origin's root
  return new URL(import.meta.env.BASE_URL?.startsWith('/') ? import.meta.env.BASE_URL : '/', origin);
}

// ---- shipped checkpoints --------------------------------------------------------------------------

async function loadShipped(scale: 's' | 'm' | 'l', base: string | URL): Promise<LoadedStartingPoint> {
  const name = shippedCheckpointName(scale);
  const what = `the shipped checkpoint ${name}`;
  const origin = new URL(base).origin;
  const urls = ['model.json', WEIGHTS_FILE, 'card.json'].map((f) => new URL(`checkpoints/${name}/${f}`, base));
  // fetched together; the first failure in file order is the one reported
  const settled = await Promise.allSettled(urls.map((url) => fetchFile(url, origin, what)));
  const failure = settled.find((r) => r.status === 'rejected');
  if (failure) throw failure.reason;
  const [modelBuffer, weights, cardBuffer] = settled.map((r) => (r as PromiseFulfilledResult<ArrayBuffer>).value);
  const modelValue = parseJson(modelBuffer, urls[0], what);
  const cardValue = parseJson(cardBuffer, urls[2], what);
  let valid;
  try {
    valid = await validateCheckpoint(modelValue, weights, cardValue);
  } catch (e) {
    throw new Error(`${what} is damaged or mismatched: ${messageOf(e)}`, { cause: e });
  }
  const { card, config, specs } = valid;
  if (card.preset !== scale)
    throw new Error(`${what} is mislabelled: its card is for preset ${card.preset}, not ${scale}`);
  const policy = buildPolicy(config, weights, specs, what);
  const trainedOn: SftOrigin = { world: card.world, data: card.data, contextLength: config.contextLength };
  return {
    policy,
    config,
    card,
    origin: trainedOn,
    label: `shipped checkpoint ${name}`,
    summary: cardSummary(card, { kind: 'shipped', scale }, `shipped checkpoint ${name}`),
  };
}

/** one file's bytes, or an Error saying why not (missing, unreachable, another origin) */
async function fetchFile(url: URL, origin: string, what: string): Promise<ArrayBuffer> {
  const where = url.pathname;
  if (url.origin !== origin)
    throw new Error(`${what}: ${url.href} is not on the lab's origin; only same-origin files are loaded`);
  let response: Response;
  try {
    // same-origin only; revalidate so the three files come from the same version of the folder
    response = await fetch(url, { mode: 'same-origin', credentials: 'same-origin', cache: 'no-cache' });
  } catch (e) {
    throw new Error(`${what} could not be downloaded (${where}: ${messageOf(e)})`, { cause: e });
  }
  if (response.url && new URL(response.url).origin !== origin)
    throw new Error(`${what}: ${where} redirected to another origin; only same-origin files are loaded`);
  if (response.status === 404 || response.status === 410)
    throw new Error(`${what} is missing (${where}: ${response.status})`);
  if (!response.ok)
    throw new Error(
      `${what} could not be downloaded (${where}: HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''})`,
    );
  // a single-page-app server answers a missing file with the page itself
  if ((response.headers.get('content-type') ?? '').startsWith('text/html')) {
    throw new Error(`${what} is missing (${where}: the server sent a web page instead)`);
  }
  try {
    return await response.arrayBuffer();
  } catch (e) {
    throw new Error(`${what} could not be downloaded (${where}: ${messageOf(e)})`, { cause: e });
  }
}

function parseJson(buffer: ArrayBuffer, url: URL, what: string): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(buffer));
  } catch (e) {
    throw new Error(`${what} is damaged: ${url.pathname} is not JSON (${messageOf(e)})`, { cause: e });
  }
}

function figures(f: SftCard['evaluation']['free']): StartingPointFigures {
  return { delivery: f.delivery, success: f.success, oodAccuracy: f.oodAccuracy };
}

function cardSummary(card: SftCard, source: StartingPointSource, label: string): StartingPointSummary {
  const c = card.modelConfig;
  return {
    source,
    label,
    preset: card.preset,
    parameters: card.parameters,
    model: { dModel: c.dModel, nLayers: c.nLayers, nHeads: c.nHeads, contextLength: c.contextLength },
    world: { ...card.world },
    sftSteps: card.sft.steps,
    batchSize: card.sft.batchSize,
    trainQueries: card.data.trainQueries,
    evaluation: {
      split: card.evaluation.split,
      queries: card.evaluation.free.queries,
      step: card.sft.steps,
      free: figures(card.evaluation.free),
      constrained: figures(card.evaluation.constrained),
    },
    backend: card.backend,
    trainSeconds: card.trainSeconds,
    command: card.command,
    commit: card.commit,
    createdAt: card.createdAt,
  };
}

// ---- a stored SFT run -----------------------------------------------------------------------------

async function loadRun(runId: string, store: LabStore | null): Promise<LoadedStartingPoint> {
  if (!store) throw new Error('stored runs cannot be read: the browser store did not open');
  const run = await store.getRun(runId);
  if (!run) throw new Error(`run ${runId} is not in the store (deleted, or unreadable)`);
  if (run.kind !== 'sft')
    throw new Error(`run ${runId} is not an SFT run (its kind is ${run.kind}); only SFT runs can be starting points`);
  const checkpoint = await store.latestCheckpoint(runId);
  if (!checkpoint) throw new Error(`run ${runId} has no checkpoint yet (one is saved as it trains and when it ends)`);
  const labConfig = configFromRecord(run.config).config;
  const options = sftJobOptions(labConfig);
  const config = sftModelConfig(options);
  const label = `run ${runId} at step ${checkpoint.step}`;
  const what = `the checkpoint of ${label}`;
  const described = specBytes(checkpoint.weightSpecs);
  if (described !== checkpoint.weights.byteLength) {
    throw new Error(
      `${what} is damaged: ${checkpoint.weights.byteLength} bytes of weights, their specs describe ${described}`,
    );
  }
  const policy = buildPolicy(config, checkpoint.weights, checkpoint.weightSpecs, what);
  // the newest evaluation at or before the checkpoint (the run evaluates periodically and at its end)
  const points = (await store.readMetrics(runId)).items;
  const evaluated = points
    .filter((p) => p.step <= checkpoint.step && p.values[METRIC.evalDelivery] !== undefined)
    .at(-1);
  const value = (k: string) => evaluated?.values[k] ?? null;
  const summary: StartingPointSummary = {
    source: { kind: 'run', runId },
    label,
    preset: labConfig.scale,
    parameters: countParameters(config),
    model: {
      dModel: config.dModel,
      nLayers: config.nLayers,
      nHeads: config.nHeads,
      contextLength: config.contextLength,
    },
    world: { size: labConfig.worldSize, seed: labConfig.seed },
    sftSteps: checkpoint.step,
    batchSize: options.batchSize,
    trainQueries: labConfig.trainSize,
    evaluation: evaluated
      ? {
          split: 'validation',
          queries: null,
          step: evaluated.step,
          constrained: null,
          free: {
            delivery: value(METRIC.evalDelivery),
            success: value(METRIC.evalSuccess),
            oodAccuracy: value(METRIC.evalOodAccuracy),
          },
        }
      : null,
    backend: run.backend,
    trainSeconds: null,
    command: null,
    commit: null,
    createdAt: new Date(checkpoint.createdAt).toISOString(),
  };
  // the SFT job's dataset, as sftJob.ts builds it (no test split)
  const origin: SftOrigin = {
    world: { size: options.worldSize, seed: options.seed },
    data: {
      trainQueries: options.trainQueries,
      validationQueries: options.validationQueries,
      testQueries: 0,
      toolQa: options.toolQa,
      mix: options.mix,
    },
    contextLength: config.contextLength,
  };
  return { policy, config, origin, label, summary };
}

const DTYPE_BYTES: Record<WeightSpec['dtype'], number> = {
  float32: 4,
  int32: 4,
  bool: 1,
  complex64: 8,
  string: Number.NaN,
};

function specBytes(specs: readonly WeightSpec[]): number {
  return specs.reduce((n, s) => n + DTYPE_BYTES[s.dtype] * s.shape.reduce((a, b) => a * b, 1), 0);
}

// ---- the policy -----------------------------------------------------------------------------------

/** a policy of `config` holding `weights`; throws (and frees what it built) when they do not fit */
function buildPolicy(config: ModelConfig, weights: ArrayBuffer, specs: WeightSpec[], what: string): Policy {
  if (config.vocabSize !== VOCAB.size) {
    throw new Error(
      `${what} was made for a vocabulary of ${config.vocabSize} tokens; this build's has ${VOCAB.size} (made by another version of the lab?)`,
    );
  }
  let policy: Policy;
  try {
    policy = createPolicy(config, 0);
  } catch (e) {
    throw new Error(`${what} has an unusable model shape: ${messageOf(e)}`, { cause: e });
  }
  try {
    policy.loadWeights(weights, specs);
  } catch (e) {
    policy.dispose();
    throw new Error(`${what} does not load into a policy of its shape: ${messageOf(e)}`, { cause: e });
  }
  return policy;
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
