// The RL stage's starting point on tfjs `cpu`: a shipped checkpoint is fetched from the lab's origin
// (fetch stubbed with Responses) and every way it can be broken — missing, truncated, corrupt,
// mismatched with its card, not JSON — is refused with a reason that names the file and the fault;
// a stored SFT run's newest checkpoint loads too, and nothing is written to the store either way.
import 'fake-indexeddb/auto';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { VOCAB } from '../../src/agent/vocab.ts';
import { defaultConfig, type LabConfig } from '../../src/lab/config.ts';
import { createPolicy } from '../../src/model/transformer.ts';
import { type ModelConfig } from '../../src/model/config.ts';
import { CARD_FORMAT, modelJson, sha256Hex, type EvaluationFigures, type SftCard } from '../../src/rl/checkpointFiles.ts';
import { LabStore } from '../../src/store/labStore.ts';
import type { RunRecord } from '../../src/store/records.ts';
import { loadStartingPoint } from '../../src/worker/startingPoint.ts';
import { sftJobOptions, sftModelConfig } from '../../src/worker/sftJob.ts';

const BASE = 'http://lab.test/';
const CONFIG: ModelConfig = { vocabSize: VOCAB.size, contextLength: 32, dModel: 16, nLayers: 1, nHeads: 2, dFF: 32, positions: 'alibi' };

interface Files {
  model: unknown;
  weights: ArrayBuffer;
  card: SftCard;
}

function figures(delivery: number, success: number): EvaluationFigures {
  return {
    queries: 8, toolQaTasks: 4, delivery, success, commonsenseMicro: 0.5, commonsenseMacro: 0.25, hardMicro: 0.5, hardMacro: 0.25,
    oodAccuracy: 0.75, callParseRate: 0.9, meanCalls: 9, meanTokens: 300,
  };
}

/** a whole, consistent checkpoint of a micro policy (weights from seed 5) */
async function shippedFiles(): Promise<Files> {
  const policy = createPolicy(CONFIG, 5);
  const { buffer, specs } = await policy.saveWeights();
  policy.dispose();
  const card: SftCard = {
    format: CARD_FORMAT, name: 's-tiny', preset: 's', modelConfig: { ...CONFIG }, parameters: 12345,
    world: { size: 'tiny', seed: 1 },
    data: { trainQueries: 100, validationQueries: 8, testQueries: 8, toolQa: 20, mix: [4, 3, 3], examples: 120, travelExamples: 100 },
    sft: { steps: 30, batchSize: 8, peakLr: 3e-3, minLr: 3e-4, warmupSteps: 3 },
    seed: 1, backend: 'wasm', command: 'npm run cli -- sft --preset s', commit: 'abc123', createdAt: '2026-01-01T00:00:00Z',
    finalLoss: 1.5, trainSeconds: 60,
    weights: { file: 'weights.bin', bytes: buffer.byteLength, sha256: await sha256Hex(buffer) },
    evaluation: { split: 'validation', free: figures(0.875, 0.25), constrained: figures(1, 0.375), evalSeconds: 3 },
    verdictCheck: { decoding: 'free', batchSize: 6, queries: [] },
  };
  return { model: modelJson(CONFIG, specs), weights: buffer, card };
}

type Served = Record<string, Response | Error>;

/** stubs the global fetch with these answers by path (anything else: 404); returns the URLs asked for */
function serve(answers: Served): string[] {
  const asked: string[] = [];
  vi.stubGlobal('fetch', async (input: URL | string) => {
    const url = new URL(String(input));
    asked.push(url.href);
    const answer = answers[url.pathname];
    if (answer instanceof Error) throw answer;
    return answer?.clone() ?? new Response('not found', { status: 404 });
  });
  return asked;
}

const json = (value: unknown) => new Response(JSON.stringify(value), { headers: { 'content-type': 'application/json' } });
const bin = (buffer: ArrayBuffer) => new Response(buffer, { headers: { 'content-type': 'application/octet-stream' } });

function serveFolder(f: Files, overrides: Served = {}): string[] {
  return serve({
    '/checkpoints/s-tiny/model.json': json(f.model),
    '/checkpoints/s-tiny/weights.bin': bin(f.weights),
    '/checkpoints/s-tiny/card.json': json(f.card),
    ...overrides,
  });
}

const loadShipped = () => loadStartingPoint({ kind: 'shipped', scale: 's' }, { baseUrl: BASE });

beforeAll(async () => {
  await tf.setBackend('cpu');
  await tf.ready();
});
afterEach(() => vi.unstubAllGlobals());

describe('a shipped checkpoint', () => {
  it('loads from the lab origin into a policy with its weights, its card summarised', async () => {
    const f = await shippedFiles();
    const asked = serveFolder(f);
    const before = tf.memory().numTensors;
    const loaded = await loadShipped();
    expect(asked.sort()).toEqual(['card.json', 'model.json', 'weights.bin'].map((n) => `${BASE}checkpoints/s-tiny/${n}`));
    expect(loaded.label).toBe('shipped checkpoint s-tiny');
    expect(loaded.config).toEqual(CONFIG);
    const reference = createPolicy(CONFIG, 5);
    for (const [name, v] of reference.params) expect(Array.from(loaded.policy.params.get(name)!.dataSync())).toEqual(Array.from(v.dataSync()));
    reference.dispose();
    expect(loaded.summary).toMatchObject({
      preset: 's', parameters: 12345, world: { size: 'tiny', seed: 1 }, sftSteps: 30, command: 'npm run cli -- sft --preset s', commit: 'abc123',
      evaluation: { split: 'validation', queries: 8, free: { delivery: 0.875, success: 0.25, oodAccuracy: 0.75 }, constrained: { delivery: 1, success: 0.375 } },
    });
    expect(structuredClone(loaded.summary)).toEqual(loaded.summary);
    loaded.policy.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });

  it('fetches under a sub-path base, never from another origin', async () => {
    const f = await shippedFiles();
    const asked: string[] = [];
    vi.stubGlobal('fetch', async (input: URL | string) => {
      asked.push(String(input));
      const name = String(input).split('/').pop();
      return name === 'weights.bin' ? bin(f.weights) : json(name === 'card.json' ? f.card : f.model);
    });
    const loaded = await loadStartingPoint({ kind: 'shipped', scale: 's' }, { baseUrl: 'http://lab.test/star/' });
    loaded.policy.dispose();
    expect(asked.every((u) => u.startsWith('http://lab.test/star/checkpoints/s-tiny/'))).toBe(true);
  });

  const cases: [string, (f: Files) => Served | Promise<Served>, RegExp][] = [
    ['a missing model.json (404)', () => ({ '/checkpoints/s-tiny/model.json': new Response('nope', { status: 404 }) }),
      /^the shipped checkpoint s-tiny is missing \(\/checkpoints\/s-tiny\/model\.json: 404\)$/],
    ['a missing file answered with the app page (SPA fallback)', () => ({ '/checkpoints/s-tiny/card.json': new Response('<!doctype html>', { headers: { 'content-type': 'text/html; charset=utf-8' } }) }),
      /s-tiny is missing \(\/checkpoints\/s-tiny\/card\.json: the server sent a web page instead\)/],
    ['a server error', () => ({ '/checkpoints/s-tiny/weights.bin': new Response('', { status: 503, statusText: 'Service Unavailable' }) }),
      /s-tiny could not be downloaded \(\/checkpoints\/s-tiny\/weights\.bin: HTTP 503 Service Unavailable\)/],
    ['a network failure', () => ({ '/checkpoints/s-tiny/weights.bin': new TypeError('Failed to fetch') }),
      /s-tiny could not be downloaded \(\/checkpoints\/s-tiny\/weights\.bin: Failed to fetch\)/],
    ['a truncated weights.bin', (f) => ({ '/checkpoints/s-tiny/weights.bin': bin(f.weights.slice(0, f.weights.byteLength - 100)) }),
      /s-tiny is damaged or mismatched: weights\.bin has \d+ bytes, model\.json describes \d+ \(truncated\?\)/],
    ['a corrupt weights.bin (same length)', (f) => {
      const bad = f.weights.slice(0);
      new Uint8Array(bad)[17] ^= 0xff;
      return { '/checkpoints/s-tiny/weights.bin': bin(bad) };
    }, /s-tiny is damaged or mismatched: weights\.bin does not match its card \(SHA-256 [0-9a-f]{12}…, card [0-9a-f]{12}…\)/],
    ['a card whose SHA-256 is another run\'s', (f) => ({ '/checkpoints/s-tiny/card.json': json({ ...f.card, weights: { ...f.card.weights, sha256: '0'.repeat(64) } }) }),
      /weights\.bin does not match its card .*card 000000000000…/],
    ['a card for another model shape', (f) => ({ '/checkpoints/s-tiny/card.json': json({ ...f.card, modelConfig: { ...CONFIG, dModel: 32 } }) }),
      /s-tiny is damaged or mismatched: model\.json and card\.json disagree on dModel \(16 vs 32\)/],
    ['a card of another preset', (f) => ({ '/checkpoints/s-tiny/card.json': json({ ...f.card, preset: 'm' }) }),
      /s-tiny is mislabelled: its card is for preset m, not s/],
    ['a card that is not JSON', () => ({ '/checkpoints/s-tiny/card.json': new Response('{"format": "star-lab-sft-ca', { headers: { 'content-type': 'application/json' } }) }),
      /s-tiny is damaged: \/checkpoints\/s-tiny\/card\.json is not JSON \(/],
    ['a card missing its fields', (f) => ({ '/checkpoints/s-tiny/card.json': json({ ...f.card, weights: undefined }) }),
      /s-tiny is damaged or mismatched: card\.json is not a STAR Lab SFT card \(weights: /],
    ['a model.json missing a parameter', (f) => {
      const m = structuredClone(f.model) as { weightsManifest: { weights: { name: string }[] }[] };
      m.weightsManifest[0].weights = m.weightsManifest[0].weights.filter((w) => w.name !== 'ln_f.b');
      return { '/checkpoints/s-tiny/model.json': json(m) };
    }, /model\.json lacks ln_f\.b/],
    ['weights of an older vocabulary', async () => {
      const old = await shippedFilesWithVocab(VOCAB.size - 1);
      return {
        '/checkpoints/s-tiny/model.json': json(old.model), '/checkpoints/s-tiny/weights.bin': bin(old.weights), '/checkpoints/s-tiny/card.json': json(old.card),
      };
    }, new RegExp(`s-tiny was made for a vocabulary of ${VOCAB.size - 1} tokens; this build's has ${VOCAB.size}`)],
  ];

  for (const [name, override, reason] of cases) {
    it(`refuses ${name}, with the reason`, async () => {
      const f = await shippedFiles();
      serveFolder(f, await override(f));
      const before = tf.memory().numTensors;
      await expect(loadShipped()).rejects.toThrow(reason);
      expect(tf.memory().numTensors).toBe(before);
    });
  }

  it('refuses a source that is neither a scale nor a run', async () => {
    serve({});
    await expect(loadStartingPoint({ kind: 'shipped', scale: 'xl' } as never, { baseUrl: BASE })).rejects.toThrow(/unknown starting point .*"xl"/);
    await expect(loadStartingPoint({ kind: 'run', runId: '' }, { baseUrl: BASE })).rejects.toThrow(/unknown starting point/);
  });
});

async function shippedFilesWithVocab(vocabSize: number): Promise<Files> {
  const config = { ...CONFIG, vocabSize };
  const policy = createPolicy(config, 5);
  const { buffer, specs } = await policy.saveWeights();
  policy.dispose();
  const f = await shippedFiles();
  return { model: modelJson(config, specs), weights: buffer, card: { ...f.card, modelConfig: config, weights: { file: 'weights.bin', bytes: buffer.byteLength, sha256: await sha256Hex(buffer) } } };
}

describe('a stored SFT run', () => {
  // a tiny-world run of preset s: the browser's quarter-width model
  const labConfig: LabConfig = { ...defaultConfig(), scale: 's', worldSize: 'tiny', trainSize: 40, steps: 20, seed: 3 };
  const runConfig = sftModelConfig(sftJobOptions(labConfig));
  let dbCount = 0;

  async function storeWithRun(weightsConfig: ModelConfig, weightsSeed = 9): Promise<{ store: LabStore; run: RunRecord }> {
    const store = await LabStore.open(`star-lab-starting-point-${++dbCount}`);
    const run: RunRecord = {
      id: 'run-a', kind: 'sft', config: { ...labConfig }, status: 'completed', createdAt: 1, updatedAt: 2, backend: 'cpu',
      summary: { steps: 20, totalSteps: 20, last: {} },
    };
    await store.putRun(run);
    const policy = createPolicy(weightsConfig, weightsSeed);
    const { buffer, specs } = await policy.saveWeights();
    policy.dispose();
    const empty = new ArrayBuffer(0);
    await store.putCheckpoint({ runId: run.id, step: 20, createdAt: 3, weights: buffer, weightSpecs: specs as never, optimizer: empty, optimizerSpecs: [], rngState: [1, 2, 3, 4] });
    await store.appendMetrics([
      { runId: run.id, step: 10, t: 1, values: { 'losses/sft': 2, 'eval/delivery': 0.5, 'eval/success': 0, 'eval/ood_accuracy': 0.5 } },
      { runId: run.id, step: 20, t: 2, values: { 'losses/sft': 1, 'eval/delivery': 1, 'eval/success': 0.5, 'eval/ood_accuracy': 1 } },
    ]);
    return { store, run };
  }

  async function counts(store: LabStore): Promise<number[]> {
    return Promise.all((['runs', 'metrics', 'checkpoints', 'episodes'] as const).map((s) => store.db.count(s)));
  }

  it('loads its newest checkpoint into a policy of the run\'s shape; the store is unchanged', async () => {
    const { store } = await storeWithRun(runConfig);
    const before = await counts(store);
    const loaded = await loadStartingPoint({ kind: 'run', runId: 'run-a' }, { store });
    expect(loaded.config).toEqual(runConfig);
    const reference = createPolicy(runConfig, 9);
    expect(Array.from(loaded.policy.params.get('wte')!.dataSync())).toEqual(Array.from(reference.params.get('wte')!.dataSync()));
    reference.dispose();
    loaded.policy.dispose();
    expect(loaded.label).toBe('run run-a at step 20');
    expect(loaded.summary).toMatchObject({ preset: 's', world: { size: 'tiny', seed: 3 }, sftSteps: 20, evaluation: { step: 20, free: { delivery: 1, success: 0.5, oodAccuracy: 1 } } });
    expect(await counts(store)).toEqual(before);
    store.close();
  });

  it('refuses weights of another shape, a missing run, a run without a checkpoint, and a non-SFT run', async () => {
    const { store } = await storeWithRun({ ...runConfig, dModel: runConfig.dModel * 2 });
    const before = await counts(store);
    await expect(loadStartingPoint({ kind: 'run', runId: 'run-a' }, { store }))
      .rejects.toThrow(/^the checkpoint of run run-a at step 20 does not load into a policy of its shape: policy\.loadWeights: wte has shape \[\d+,32\], expected \[\d+,16\]/);
    await expect(loadStartingPoint({ kind: 'run', runId: 'run-gone' }, { store })).rejects.toThrow('run run-gone is not in the store');
    await store.putRun({ ...(await store.getRun('run-a'))!, id: 'run-b' });
    await expect(loadStartingPoint({ kind: 'run', runId: 'run-b' }, { store })).rejects.toThrow('run run-b has no checkpoint yet');
    await store.putRun({ ...(await store.getRun('run-a'))!, id: 'run-c', kind: 'rl' });
    await expect(loadStartingPoint({ kind: 'run', runId: 'run-c' }, { store })).rejects.toThrow('run run-c is not an SFT run (its kind is rl)');
    await expect(loadStartingPoint({ kind: 'run', runId: 'run-a' }, {})).rejects.toThrow('the browser store did not open');
    const after = await counts(store);
    expect(after).toEqual([before[0] + 2, ...before.slice(1)]); // only the two runs this test put
    store.close();
  });

  it('refuses a truncated stored checkpoint', async () => {
    const { store } = await storeWithRun(runConfig);
    const cp = (await store.latestCheckpoint('run-a'))!;
    await store.putCheckpoint({ ...cp, step: 21, weights: cp.weights.slice(0, 1000) });
    await expect(loadStartingPoint({ kind: 'run', runId: 'run-a' }, { store }))
      .rejects.toThrow(/^the checkpoint of run run-a at step 21 is damaged: 1000 bytes of weights, their specs describe \d+/);
    store.close();
  });
});
