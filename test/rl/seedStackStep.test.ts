// The S-seed RL step (rl/seedStackStep.ts) against S separate runs (RlTrainer, one per seed, each its own
// seed and initial weights): after each step every seed's weights, losses and rewards within 1e-5.
// The settings exercise what can tell seeds apart: two mini-batches, several micro-batches per mini-batch
// (the update test's small token budget), a seed with a mini-batch fewer, the KL reference, constrained plans
// (bans) and seeds with different weights.
import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { readCheckpointDir } from '../../src/node/checkpointDir.ts';
import { policyFromCheckpoint } from '../../src/rl/loadPolicy.ts';
import { rlEnvironment } from '../../src/rl/rlEnvironment.ts';
import { rlConfigFor, type RlConfig } from '../../src/rl/rlConfig.ts';
import { RlTrainer, type Metrics, RL_ADAMW } from '../../src/rl/rlTrainer.ts';
import { SeedStackTrainer } from '../../src/rl/seedStackStep.ts';
import { Rng } from '../../src/env/random.ts';
import { Policy } from '../../src/model/transformer.ts';
import { type ModelConfig } from '../../src/model/config.ts';
import { PAD } from '../../src/agent/vocab.ts';
import { AdamW } from '../../src/rl/optimizer.ts';
import { ppoUpdate, type UpdateRow } from '../../src/rl/rlUpdate.ts';
import { SeedStackedPolicy } from '../../src/model/seedStack.ts';
import { SeedStackedAdamW } from '../../src/rl/seedStackOptimizer.ts';
import { seedStackUpdate } from '../../src/rl/seedStackUpdate.ts';

const TOLERANCE = 1e-5;
const ckpt = await readCheckpointDir('public/checkpoints/s-tiny');
const env = rlEnvironment({ world: ckpt.card.world, data: ckpt.card.data, contextLength: ckpt.config.contextLength }, { trainSize: 200, mix: [4, 3, 3] });
const SEEDS = [3, 8];

function maxErr(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let e = 0;
  for (let i = 0; i < a.length; i++) e = Math.max(e, Math.abs(a[i] - b[i]) / (1 + Math.abs(b[i])));
  return Number.isNaN(e) ? Infinity : e;
}

/** seed s's start: the SFT checkpoint, the second seed's nudged (seeds of a stack may start apart) */
function start(s: number): Policy {
  const p = policyFromCheckpoint(ckpt);
  if (s > 0) {
    const rng = new Rng(100 + s);
    tf.tidy(() => { for (const v of p.params.values()) v.assign(v.add(tf.tensor(Float32Array.from({ length: v.size }, () => (rng.next() - 0.5) * 2e-3), v.shape))); });
  }
  return p;
}

/**
 * The key bias (the middle third of b_qkv) has a gradient of 0 in exact arithmetic (a query's scores all
 * shift by q·b, which softmax ignores), so in ANY run AdamW moves it by up to lr a step on rounding noise
 * alone (m̂/√v̂ of noise is ±1), and two float orders move it differently: it is held to that bound, the
 * rest of b_qkv (its query and value thirds) and every other weight to 1e-5.
 */
function keyBiasBound(config: RlConfig, optimizerSteps: number): number {
  return 2 * config.learningRate * optimizerSteps + TOLERANCE;
}

async function compare(backend: 'cpu' | 'wasm', config: RlConfig, steps: number): Promise<void> {
  await tf.setBackend(backend);
  const own = SEEDS.map((_, s) => start(s));
  const ownRefs = SEEDS.map(() => policyFromCheckpoint(ckpt));
  const runs = SEEDS.map((seed, s) => new RlTrainer(own[s], ownRefs[s], env, { ...config, seed }));
  const stacked = SEEDS.map((_, s) => start(s));
  const stackedRefs = SEEDS.map(() => policyFromCheckpoint(ckpt));
  const before = tf.memory().numTensors;
  const stack = new SeedStackTrainer(stacked, stackedRefs, env, { config, seeds: SEEDS });
  try {
    for (let step = 0; step < steps; step++) {
      const separate: Metrics[] = [];
      for (const r of runs) separate.push(await r.trainStep());
      const together = await stack.trainStep();
      SEEDS.forEach((_, s) => {
        const a = together[s] as Record<string, number>;
        const b = separate[s] as Record<string, number>;
        const keys = Object.keys(b).filter((k) => !k.startsWith('time/'));
        expect(Object.keys(a).filter((k) => !k.startsWith('time/'))).toEqual(keys);
        for (const k of keys) expect(maxErr([a[k]], [b[k]]), `step ${step} seed ${s} ${k}: ${a[k]} vs ${b[k]}`).toBeLessThan(TOLERANCE);
        const copy = stack.stack.seedPolicy(s);
        const errs = [...own[s].params].map(([name, v]) => [name, maxErr(copy.params.get(name)!.dataSync(), v.dataSync())] as const);
        if (process.env.DEBUG_SEEDS) console.log(step, s, ['time/rollout', 'time/update', 'response_len', 'charts/microbatches'].map((k) => [k, a[k], b[k]]));
        copy.dispose();
        for (const [name, e] of errs) {
          expect(e, `step ${step} seed ${s} ${name}`).toBeLessThan(name.endsWith('.attn.b_qkv') ? keyBiasBound(config, stack.optimizer.steps[s]) : TOLERANCE);
        }
      });
      // the rollouts decoded together (one stacked step for the seeds' steps) and gave each seed its own run's
      SEEDS.forEach((_, s) => {
        const mine = stack.trainers[s].lastEpisodes.map((e) => e.episode.tokens);
        expect(mine, `step ${step} seed ${s} episodes`).toEqual(runs[s].lastEpisodes.map((e) => e.episode.tokens));
        expect(stack.trainers[s].lastEpisodes.map((e) => e.episode.logProbs))
          .toEqual(runs[s].lastEpisodes.map((e) => e.episode.logProbs));
      });
      const { steps: decodeSteps, seedSteps } = stack.decoder.counts;
      if (process.env.DEBUG_SEEDS) console.log('decode steps', decodeSteps, 'seed-steps', seedSteps);
      expect(seedSteps).toBeGreaterThan(decodeSteps);
      // what is compared is learnt: the step moved the weights and was driven by rewards that differ between seeds
      expect(separate.every((m) => m['charts/minibatches']! >= 1)).toBe(true);
      expect(separate[0]['reward/mean'] === separate[1]['reward/mean'] && separate[0]['losses/pg'] === separate[1]['losses/pg']).toBe(false);
    }
    // a seed's own Policy takes the stack's weights when next used: a prefill through its own Policy (off webgpu),
    // as the next step's rollouts would make, or syncPolicies() (before evaluating or saving)
    const followsStack = (s: number) => {
      const copy = stack.stack.seedPolicy(s);
      const err = Math.max(...[...copy.params].map(([name, v]) => maxErr(stacked[s].params.get(name)!.dataSync(), v.dataSync())));
      copy.dispose();
      return err === 0;
    };
    expect(SEEDS.map((_, s) => followsStack(s))).toEqual([false, false]);
    const view = stack.decoder.views[0];
    const cache = view.newCache(1, 8);
    await view.prefill(cache, [0], [[5, 6]]); // seed 0 alone: no other seed to wait for
    cache.dispose();
    expect(SEEDS.map((_, s) => followsStack(s))).toEqual([true, false]);
    stack.syncPolicies();
    expect(SEEDS.map((_, s) => followsStack(s))).toEqual([true, true]);
    stack.dispose();
    expect(tf.memory().numTensors).toBe(before); // the stack leaves nothing behind
  } finally {
    stack.dispose();
    [...own, ...ownRefs, ...stacked, ...stackedRefs].forEach((p) => p.dispose());
  }
}

/** a seed's rows: groups of 2 (prompt, policy tokens, an "observation" every 7th token, a few bans); groups
 *  listed in `flat` have all-zero advantages (no signal: a seed with fewer mini-batches than another) */
function syntheticRows(groups: number, flat: readonly number[], seed: number): UpdateRow[] {
  const rng = new Rng(seed);
  const out: UpdateRow[] = [];
  for (let g = 0; g < groups; g++) {
    for (let k = 0; k < 2; k++) {
      const tokens = Array.from({ length: 12 + rng.int(28) }, () => 1 + rng.int(15)); // 0 is the padding id
      const lossMask = tokens.map((_, t) => (t >= 6 && t % 7 !== 3 ? 1 : 0));
      const logProbs = lossMask.map((m, t) => (m ? -2.5 + 2 * Math.sin(t + 3 * k + g + seed) : 0)); // ratios from clipped to not
      const bans = lossMask.flatMap((m, index) => (m && index % 5 === 0 ? [{ index, ids: [1 + rng.int(4), 8 + rng.int(4)] }] : []));
      out.push({ episode: { tokens, lossMask, logProbs, bans }, group: g, advantage: flat.includes(g) ? 0 : rng.next() * 2 - 1 });
    }
  }
  return out;
}

describe('S-seed PPO update = S separate updates (synthetic rows, a small model)', () => {
  it('the padding id is 0, which the rows never draw', () => expect(PAD).toBe(0));
  // seed 0: 3 groups with signal → 2 mini-batches; seed 1: one of 2 → 1 (its optimizer skips the second, and its
  // bias corrections then run a step behind seed 0's); a 64-token budget gives each seed its own micro-batch count
  const config = rlConfigFor('grpo', { miniBatches: 2, microBatchTokens: 64, klCoef: 0.01 });
  const model: ModelConfig = { vocabSize: 16, contextLength: 48, dModel: 16, nLayers: 2, nHeads: 2, dFF: 32, positions: 'alibi' };
  it.each(['cpu', 'wasm'] as const)('%s: weights and metrics within 1e-5 after two updates', async (backend) => {
    await tf.setBackend(backend);
    const seeds = [4, 9];
    const own = seeds.map((s) => new Policy(model, s));
    const refs = seeds.map((s) => new Policy(model, s + 50));
    const adams = own.map((p) => new AdamW(p.params, RL_ADAMW));
    const stack = SeedStackedPolicy.fromPolicies(own);
    const refStack = SeedStackedPolicy.fromPolicies(refs);
    const stackAdam = new SeedStackedAdamW(stack.params, 2, RL_ADAMW);
    try {
      for (let step = 0; step < 2; step++) {
        const data = [syntheticRows(3, [], 10 + step), syntheticRows(2, [1], 20 + step)];
        const separate: Record<string, number>[] = [];
        for (let s = 0; s < 2; s++) separate.push(await ppoUpdate({ policy: own[s], reference: refs[s], optimizer: adams[s], config, step }, data[s], null));
        const together = await seedStackUpdate({ stack, reference: refStack, optimizer: stackAdam, config, step }, data, [null, null]);
        expect(separate.map((m) => m['charts/minibatches'])).toEqual([2, 1]);
        expect(separate[0]['charts/microbatches']).not.toBe(separate[1]['charts/microbatches'] * 2);
        for (let s = 0; s < 2; s++) {
          for (const k of Object.keys(separate[s])) expect(maxErr([together[s][k]], [separate[s][k]]), `step ${step} seed ${s} ${k}`).toBeLessThan(TOLERANCE);
          const copy = stack.seedPolicy(s);
          const errs = [...own[s].params].map(([name, v]) => [name, maxErr(copy.params.get(name)!.dataSync(), v.dataSync())] as const);
          copy.dispose();
          for (const [name, e] of errs) expect(e, `step ${step} seed ${s} ${name}`).toBeLessThan(name.endsWith('.attn.b_qkv') ? keyBiasBound(config, adams[s].step) : TOLERANCE);
        }
      }
      expect(stackAdam.steps).toEqual(adams.map((a) => a.step));
      expect(adams.map((a) => a.step)).toEqual([4, 2]);
    } finally {
      [stackAdam, stack, refStack, ...adams, ...own, ...refs].forEach((x) => x.dispose());
    }
  }, 60_000);
});

describe('S-seed RL step = S separate runs (tiny world, shipped s checkpoint)', () => {
  const config = rlConfigFor('grpo', { queriesPerStep: 2, groupSize: 2, steps: 4, miniBatches: 2, klCoef: 0.01 });

  // one step: the rollout copies are checked to hold the stack's weights exactly after it (so a next step's
  // rollouts are the separate runs'), and the optimizer's state across steps is the test above's
  it('wasm: two seeds, one step', async () => {
    await compare('wasm', config, 1);
  }, 300_000);
});
