// The S-seed PPO update (src/rl/seedStackUpdate.ts) on the CLI's webgpu backend (Dawn in Node; SwiftShader
// without a GPU): two seeds' weights and update metrics after two updates equal each seed's own ppoUpdate on
// webgpu (each with the lab's fused kernels) to the kernel checks' tolerance. The cpu/wasm checks, and the
// whole step's, are in test/rl/seedStackStep.test.ts.
// Opt-in (STAR_SEEDS_WEBGPU_TEST=1), as test/node/seedStackWebgpu.test.ts: SwiftShader's shader compiles take
// tens of seconds on the 2-core machine.
import { describe, expect, it } from 'vitest';
import { useNodeBackend } from '../../src/node/nodeBackend.ts';
import { Policy } from '../../src/model/transformer.ts';
import { type ModelConfig } from '../../src/model/config.ts';
import { SeedStackedPolicy } from '../../src/model/seedStack.ts';
import { AdamW } from '../../src/rl/optimizer.ts';
import { rlConfigFor } from '../../src/rl/rlConfig.ts';
import { ppoUpdate, type UpdateRow } from '../../src/rl/rlUpdate.ts';
import { RL_ADAMW } from '../../src/rl/rlTrainer.ts';
import { SeedStackedAdamW } from '../../src/rl/seedStackOptimizer.ts';
import { seedStackUpdate } from '../../src/rl/seedStackUpdate.ts';
import { Rng } from '../../src/env/random.ts';

const TOLERANCE = 1e-5;
const skip = process.env.STAR_WEBGPU_TEST === 'skip' || process.env.STAR_SEEDS_WEBGPU_TEST !== '1';
const config: ModelConfig = { vocabSize: 16, contextLength: 32, dModel: 8, nLayers: 2, nHeads: 2, dFF: 12, positions: 'alibi' };

function maxErr(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let e = a.length === b.length ? 0 : Infinity;
  for (let i = 0; i < a.length; i++) e = Math.max(e, Math.abs(a[i] - b[i]) / (1 + Math.abs(b[i])));
  return Number.isNaN(e) ? Infinity : e;
}

/** groups of 2 rows (token 0 is the padding id, never drawn); groups in `flat` carry no advantage */
function rows(groups: number, flat: readonly number[], seed: number): UpdateRow[] {
  const rng = new Rng(seed);
  const out: UpdateRow[] = [];
  for (let g = 0; g < groups; g++) {
    for (let k = 0; k < 2; k++) {
      const tokens = Array.from({ length: 8 + rng.int(20) }, () => 1 + rng.int(config.vocabSize - 1));
      const lossMask = tokens.map((_, t) => (t >= 4 && t % 7 !== 3 ? 1 : 0));
      const logProbs = lossMask.map((m, t) => (m ? -2 + 1.5 * Math.sin(t + 3 * k + g + seed) : 0));
      const bans = lossMask.flatMap((m, index) => (m && index % 5 === 0 ? [{ index, ids: [1 + rng.int(4)] }] : []));
      out.push({ episode: { tokens, lossMask, logProbs, bans }, group: g, advantage: flat.includes(g) ? 0 : rng.next() * 2 - 1 });
    }
  }
  return out;
}

describe.skipIf(skip)('the S-seed PPO update on webgpu (Dawn in Node)', () => {
  it('equals each seed\'s own ppoUpdate: weights and metrics after two updates', async () => {
    await useNodeBackend('webgpu');
    const c = rlConfigFor('grpo', { miniBatches: 2, microBatchTokens: 48, klCoef: 0.01, learningRate: 1e-3 });
    const own = [4, 9].map((s) => new Policy(config, s));
    const refs = [4, 9].map((s) => new Policy(config, s + 50));
    const adams = own.map((p) => new AdamW(p.params, RL_ADAMW));
    const stack = SeedStackedPolicy.fromPolicies(own);
    const refStack = SeedStackedPolicy.fromPolicies(refs);
    const stackAdam = new SeedStackedAdamW(stack.params, 2, RL_ADAMW);
    try {
      for (let step = 0; step < 2; step++) {
        const data = [rows(3, [], 10 + step), rows(2, [1], 20 + step)];
        const separate: Record<string, number>[] = [];
        for (let s = 0; s < 2; s++) separate.push(await ppoUpdate({ policy: own[s], reference: refs[s], optimizer: adams[s], config: c, step }, data[s], null));
        const together = await seedStackUpdate({ stack, reference: refStack, optimizer: stackAdam, config: c, step }, data, [null, null]);
        expect(separate.map((m) => m['charts/minibatches'])).toEqual([2, 1]);
        for (let s = 0; s < 2; s++) {
          for (const k of Object.keys(separate[s])) expect(maxErr([together[s][k]], [separate[s][k]]), `step ${step} seed ${s} ${k}`).toBeLessThan(TOLERANCE);
          const copy = stack.seedPolicy(s);
          for (const [name, v] of own[s].params) {
            const e = maxErr(await copy.params.get(name)!.data(), await v.data());
            // the key bias (b_qkv's middle third) moves on rounding noise alone: test/rl/seedStackStep.test.ts
            expect(e, `step ${step} seed ${s} ${name}`).toBeLessThan(name.endsWith('.attn.b_qkv') ? 2 * c.learningRate * adams[s].step + TOLERANCE : TOLERANCE);
          }
          copy.dispose();
        }
      }
      expect(stackAdam.steps).toEqual([4, 2]);
    } finally {
      [stackAdam, stack, refStack, ...adams, ...own, ...refs].forEach((x) => x.dispose());
    }
  }, 600_000);
});
