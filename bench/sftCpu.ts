// What an SFT of each preset costs on tfjs `cpu` here, measured side by side with `wasm`
// on the very same batches (same data, seed and batch order as the `agent` suite's SFT at `small`):
//   sft.step_s.<s|m|l>.<cpu|wasm>   CPU seconds per SFT step (batch 8, mean of the timed steps after
//                                   one warm-up step; the batches are the run's first ones)
//   sft.cpu_over_wasm.<s|m|l>       how many times slower `cpu` trains than `wasm`
//   sft.run_h.<s|m|l>.<cpu|wasm>    the agent suite's whole SFT (800 steps) at that rate, in hours
// A full SFT on `cpu` takes hours, so it is timed per step, not run; `wasm` runs it (agent suite).
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { cpuSeconds, type BenchSuite } from './harness.ts';
import { sftPipelineData, sftPipelineTrainer } from '../src/rl/sftPipeline.ts';
import { SFT_BENCH_STEPS as RUN_STEPS, sftBenchOptions } from './agent.ts';
import type { PresetName } from '../src/model/config.ts';

export const sftCpuSuite: BenchSuite = {
  name: 'sft-cpu',
  async run(report, { quick }) {
    const previous = tf.getBackend() as string | undefined;
    try {
      for (const p of (quick ? ['s'] : ['s', 'm', 'l']) as PresetName[]) {
        const o = { ...sftBenchOptions(p, quick), batchSize: 8 };
        const { config, data } = sftPipelineData(o);
        const perStep: Record<string, number> = {};
        for (const [backend, timed] of [['wasm', quick ? 1 : 6], ['cpu', quick ? 1 : 2]] as const) {
          await tf.setBackend(backend);
          await tf.ready();
          const { policy, trainer } = sftPipelineTrainer(o, config, data.examples);
          try {
            await trainer.sftStep(); // warm-up: kernels and first allocations
            const t0 = cpuSeconds();
            for (let i = 0; i < timed; i++) await trainer.sftStep();
            perStep[backend] = (cpuSeconds() - t0) / timed;
          } finally {
            trainer.dispose();
            policy.dispose();
          }
          report(`sft.step_s.${p}.${backend}`, perStep[backend], 's', `${timed} steps of 8 after one warm-up`);
          report(
            `sft.run_h.${p}.${backend}`,
            (perStep[backend] * RUN_STEPS) / 3600,
            'h',
            `${RUN_STEPS} steps at that rate`,
          );
        }
        report(`sft.cpu_over_wasm.${p}`, perStep.cpu / perStep.wasm, '×', 'same batches, side by side');
      }
    } finally {
      if (previous) await tf.setBackend(previous);
    }
  },
};
