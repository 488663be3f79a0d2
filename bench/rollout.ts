// How close a batched, tool-interleaved rollout runs to the model's own decode speed, on
// `wasm` from the shipped preset-s checkpoint on its tiny world, 64 RL training queries, T = 1:
//   rollout.trajectories_per_s.b64  episodes per CPU second of one batch-64 rollout
//   rollout.tokens_per_s.b64        trajectory tokens (policy + observation, prompt excluded) per CPU second
//   rollout.decode_tokens_per_s.b64 the bare decode step's tokens per CPU second: policy.step at batch 64
//                                   with every row at the rollout's mean generation context, plus its readback
//                                   (each side measured twice, alternating, its fastest kept)
//   rollout.efficiency              tokens_per_s over decode_tokens_per_s (target ≥ 0.6): what the rollout
//                                   loses to observation prefills, finished rows, sampling, tools and JS
//   rollout.efficiency_policy       the same counting policy-sampled tokens only (a stricter view: the
//                                   observation tokens then count as pure overhead)
//   rollout.share.step|prefill|other where the rollout's CPU time goes
//   rollout.attention_kernel_speedup the same rollout's CPU time with the attention products as tf.matMul
//                                   over with the SIMD kernel (kernels/wasmAttentionMatMul.ts), twice each,
//                                   alternating, fastest kept; the bench throws if the tokens differ
// Both sides are measured in the same process, one after the other, in CPU time (the machine is shared).
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { cpuSeconds, type BenchSuite } from './harness.ts';
import { readCheckpointDir } from '../src/node/checkpointDir.ts';
import { policyFromCheckpoint } from '../src/rl/loadPolicy.ts';
import { rlEnvironment } from '../src/rl/rlEnvironment.ts';
import { rollout } from '../src/agent/rollout.ts';
import { type AgentTask, type Episode } from '../src/agent/episode.ts';
import { Rng } from '../src/env/random.ts';
import { Policy } from '../src/model/transformer.ts';
import { setWasmAttentionKernel } from '../src/model/kernels/wasmAttentionMatMul.ts';

const B = 64;

/** CPU seconds spent inside Policy.step / Policy.prefill while `fn` runs (the methods are wrapped, then restored) */
async function timedModelCalls<T>(fn: () => Promise<T>): Promise<{ result: T; step: number; prefill: number }> {
  const spent = { step: 0, prefill: 0 };
  const originals = { step: Policy.prototype.step, prefill: Policy.prototype.prefill };
  for (const name of ['step', 'prefill'] as const) {
    const f = originals[name] as (...a: unknown[]) => unknown;
    (Policy.prototype as unknown as Record<string, unknown>)[name] = function (this: Policy, ...a: unknown[]) {
      const t0 = cpuSeconds();
      try { return f.apply(this, a); } finally { spent[name] += cpuSeconds() - t0; }
    };
  }
  try {
    const result = await fn();
    return { result, ...spent };
  } finally {
    Object.assign(Policy.prototype, originals);
  }
}

export const rolloutSuite: BenchSuite = {
  name: 'rollout',
  async run(report, { quick }) {
    const previous = tf.getBackend() as string | undefined;
    await tf.setBackend('wasm');
    await tf.ready();
    const ckpt = await readCheckpointDir('public/checkpoints/s-tiny');
    const env = rlEnvironment(
      { world: ckpt.card.world, data: ckpt.card.data, contextLength: ckpt.config.contextLength },
      { trainSize: 1000, mix: [4, 3, 3] },
    );
    const policy = policyFromCheckpoint(ckpt);
    try {
      const tasks: AgentTask[] = Array.from({ length: B }, (_, i) => ({
        kind: 'travel',
        query: env.train[i % env.train.length],
      }));
      await rollout(policy, tasks, { world: env.world, rng: new Rng(1) }); // warm-up at full size: kernels, the heap grown to what a batch-64 rollout needs
      const bareStepS = async (context: number): Promise<number> => {
        const rng = new Rng(5);
        const last = new Int32Array(B).fill((tasks.length % 7) + 5);
        const reps = quick ? 5 : 15;
        let fastest = Infinity;
        for (let c = 0; c < 3; c++) {
          const cache = policy.newCache(B, ckpt.config.contextLength);
          try {
            policy.prefill(
              cache,
              tasks.map((_, b) => b),
              tasks.map(() => Array.from({ length: context }, () => 5 + rng.int(20))),
            );
            const once = async () => {
              const l = policy.step(cache, last);
              await l.data();
              l.dispose();
            };
            await once();
            const times: number[] = []; // the median step: one slow step (another process) does not move it
            for (let i = 0; i < reps; i++) {
              const s0 = cpuSeconds();
              await once();
              times.push(cpuSeconds() - s0);
            }
            fastest = Math.min(fastest, times.sort((x, y) => x - y)[reps >> 1]);
          } finally {
            cache.dispose();
          }
        }
        return fastest;
      };
      // Both sides twice, alternating, each side's fastest kept: step times are bimodal on wasm (a
      // decode step ~17 or ~23 ms here, by where tensors land on the heap), and a slow bare step would
      // flatter the rollout. The rollout is seeded, so both passes sample the same episodes.
      let total = Infinity;
      let stepS = Infinity;
      let timed: Awaited<ReturnType<typeof timedModelCalls<Episode[]>>> | null = null;
      let context = 0;
      for (let pass = 0; pass < 2; pass++) {
        const t0 = cpuSeconds();
        const run = await timedModelCalls(() => rollout(policy, tasks, { world: env.world, rng: new Rng(3) }));
        const spent = cpuSeconds() - t0;
        if (spent < total) {
          total = spent;
          timed = run;
        }
        let at = 0; // mean context a policy token was generated at
        let sampled = 0;
        for (const e of run.result)
          e.lossMask.forEach((m, i) => {
            if (m) {
              at += i;
              sampled++;
            }
          });
        context = Math.round(at / sampled);
        stepS = Math.min(stepS, await bareStepS(context)); // policy.step at batch B and that context
      }
      const { result: eps, step, prefill } = timed!;
      const policyTokens = eps.reduce((s, e) => s + e.lossMask.reduce((a, m) => a + m, 0), 0);
      const tokens = eps.reduce((s, e) => s + e.tokens.length - e.promptLength, 0);
      const decodeTps = B / stepS;
      report('rollout.trajectories_per_s.b64', B / total, 'traj/s', `${total.toFixed(1)} CPU s for ${B} episodes`);
      report(
        'rollout.tokens_per_s.b64',
        tokens / total,
        'tok/s',
        `${tokens} trajectory tokens, ${policyTokens} sampled by the policy`,
      );
      report(
        'rollout.decode_tokens_per_s.b64',
        decodeTps,
        'tok/s',
        `policy.step at batch ${B}, context ${context}: ${(stepS * 1000).toFixed(1)} ms`,
      );
      report('rollout.efficiency', tokens / total / decodeTps, 'ratio', 'target ≥ 0.6');
      report('rollout.efficiency_policy', policyTokens / total / decodeTps, 'ratio', 'policy tokens only');
      report('rollout.share.step', step / total, 'fraction');
      report('rollout.share.prefill', prefill / total, 'fraction', 'observation (and prompt) prefills');
      report('rollout.share.other', (total - step - prefill) / total, 'fraction', 'sampling, tools, plan decoding, JS');
      // the attention kernel, side by side: tf.matMul's scalar loop vs the SIMD kernel, the same floats
      const fastest = { plain: Infinity, kernel: Infinity };
      try {
        for (let pass = 0; pass < 2; pass++) {
          for (const mode of ['plain', 'kernel'] as const) {
            setWasmAttentionKernel(mode === 'kernel');
            const t0 = cpuSeconds();
            const run = await rollout(policy, tasks, { world: env.world, rng: new Rng(3) });
            fastest[mode] = Math.min(fastest[mode], cpuSeconds() - t0);
            if (run.some((e, i) => e.tokens.join() !== eps[i].tokens.join()))
              throw new Error(`rollout: the ${mode} attention sampled other tokens`);
          }
        }
      } finally {
        setWasmAttentionKernel(true);
      }
      report(
        'rollout.attention_kernel_speedup',
        fastest.plain / fastest.kernel,
        '×',
        `${fastest.plain.toFixed(2)} → ${fastest.kernel.toFixed(2)} CPU s for the same ${B} episodes`,
      );
    } finally {
      policy.dispose();
      if (previous) await tf.setBackend(previous);
    }
  },
};
