// Times one tfjs backend on the chosen scale's model: a few decode steps of a rollout-sized
// batch through the KV cache, and one training micro-batch (forward, backward, AdamW), each after an
// untimed first call that pays the backend's one-off costs (shader compiles on WebGPU). The caller has
// started the backend. Stops early — `dropped` — once the backend is already slower than another's
// finished figure, and gives up — `capped` — past CALIBRATION.capMs. The shapes, the weights and the
// choice are src/lab/backendChoice.ts; the orchestration and the stored figures are backendChooser.ts.
import { createPolicy, type Policy } from '../model/transformer.ts';
import { preset } from '../model/config.ts';
import type { KVCache } from '../model/kvcache.ts';
import { SftTrainer, type SftExample } from '../rl/sft.ts';
import { VOCAB } from '../agent/vocab.ts';
import { Rng } from '../env/random.ts';
import {
  alreadySlower,
  CALIBRATION,
  CALIBRATION_CONTEXT,
  stepEstimateMs,
  type BackendFigure,
  type BackendName,
  type Scale,
} from '../lab/backendChoice.ts';

export interface MeasureOptions {
  /** the best finished figure of the backends measured before (null: none yet) */
  best: number | null;
  /** default CALIBRATION.capMs */
  capMs?: number;
  /** what it is doing now, for the page ('warming up', 'timing decode steps', …) */
  onPhase?: (phase: string) => void;
}

class Capped extends Error {}

/** Measures the current tfjs backend, named `backend`/`label` in the figure. Never throws: a failure is a 'failed'
 * figure. */
export async function measureBackend(
  backend: BackendName,
  label: string,
  scale: Scale,
  options: MeasureOptions,
): Promise<BackendFigure> {
  const t0 = performance.now();
  const capMs = options.capMs ?? CALIBRATION.capMs;
  const figure = (rest: Partial<BackendFigure> & Pick<BackendFigure, 'status'>): BackendFigure => ({
    backend,
    label,
    decodeStepMs: null,
    trainMicroBatchMs: null,
    stepMs: null,
    atLeastMs: null,
    costMs: performance.now() - t0,
    ...rest,
  });
  // what must be freed, and the op still running when the cap struck (it is freed once that op ends)
  const owned: { dispose(): void }[] = [];
  let inFlight: Promise<unknown> = Promise.resolve();
  const freeAll = () =>
    owned
      .splice(0)
      .reverse()
      .forEach((o) => o.dispose());
  /** starts `start()` and awaits it, unless the cap has struck or strikes first */
  const capped = async <T>(start: () => Promise<T>): Promise<T> => {
    const left = capMs - (performance.now() - t0);
    if (left <= 0) throw new Capped();
    const work = start();
    inFlight = work.catch(() => undefined);
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await Promise.race([
        work,
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Capped()), left))),
      ]);
    } finally {
      clearTimeout(timer);
    }
  };
  const decodeMs: number[] = [];
  let trainMs: number | null = null;
  try {
    options.onPhase?.('building the model');
    const config = preset(scale, VOCAB.size, CALIBRATION_CONTEXT);
    const policy = createPolicy(config, 7);
    owned.push(policy);
    const rng = new Rng(11);
    const { decodeBatch: B, cacheSlots, decodeSteps: N } = CALIBRATION;
    const cache = policy.newCache(B, cacheSlots);
    owned.push(cache);
    cache.reserve(cacheSlots); // every step attends over the same capacity: one set of shaders
    const randomRow = (n: number) => Array.from({ length: n }, () => rng.int(config.vocabSize));
    const decodeStep = () => decodeOnce(policy, cache, randomRow(B));

    options.onPhase?.('warming up decoding');
    await capped(decodeStep); // the first step compiles: not timed
    options.onPhase?.('timing decode steps');
    for (let i = 0; i < N; i++) {
      const s = performance.now();
      await capped(decodeStep);
      decodeMs.push(performance.now() - s);
      const behind = alreadySlower(decodeMs, null, options.best);
      if (behind.slower) {
        return figure({
          status: 'dropped',
          decodeStepMs: mean(decodeMs),
          atLeastMs: behind.atLeastMs,
          note: `already slower after ${decodeMs.length} decode step${decodeMs.length > 1 ? 's' : ''}`,
        });
      }
    }

    options.onPhase?.('warming up training');
    const examples = randomExamples(rng, config.vocabSize, 2 * CALIBRATION.trainRows, CALIBRATION.trainTokens);
    const trainer = new SftTrainer(policy, examples, { batchSize: CALIBRATION.trainRows, padMultiple: 1 });
    owned.splice(1, 0, trainer); // freed before the policy it trains
    await capped(() => trainer.sftStep()); // compiles the backward pass and the optimiser: not timed
    options.onPhase?.('timing a training micro-batch');
    const s = performance.now();
    await capped(() => trainer.sftStep());
    trainMs = performance.now() - s;
    const decode = mean(decodeMs);
    const behind = alreadySlower(decodeMs, trainMs, options.best);
    if (behind.slower)
      return figure({
        status: 'dropped',
        decodeStepMs: decode,
        trainMicroBatchMs: trainMs,
        atLeastMs: behind.atLeastMs,
        note: 'slower with its training micro-batch',
      });
    return figure({
      status: 'measured',
      decodeStepMs: decode,
      trainMicroBatchMs: trainMs,
      stepMs: stepEstimateMs(decode, trainMs),
    });
  } catch (e) {
    if (e instanceof Capped) {
      const held = owned.splice(0);
      void inFlight.finally(() => held.reverse().forEach((o) => o.dispose())); // the op the cap left running still uses them
      return figure({
        status: 'capped',
        decodeStepMs: decodeMs.length ? mean(decodeMs) : null,
        trainMicroBatchMs: trainMs,
        note: `no figure after ${Math.round(capMs / 1000)} s (${decodeMs.length ? 'training still warming up' : 'decoding still warming up'})`,
      });
    }
    return figure({ status: 'failed', note: e instanceof Error ? e.message : String(e) });
  } finally {
    freeAll();
  }
}

/** one decode step of every row, read back (the readback is what makes the time real on a GPU) */
async function decodeOnce(policy: Policy, cache: KVCache, tokens: number[]): Promise<void> {
  const logits = policy.step(cache, tokens);
  try {
    await logits.data();
  } finally {
    logits.dispose();
  }
}

function randomExamples(rng: Rng, vocab: number, n: number, T: number): SftExample[] {
  return Array.from({ length: n }, () => ({
    tokens: Array.from({ length: T }, () => rng.int(vocab)),
    lossMask: new Array<number>(T).fill(1),
  }));
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
