// The walking skeleton's demo job (a one-block transformer sorting 6 digits, batch 16) on the
// current tfjs backend (`cpu` in Node):
//   demo.cpu_step_ms.<scale>   one optimiser step (forward, backward, Adam, loss readback), in the
//                              process's CPU time so the figure holds on a shared, loaded machine
// The browser figure (webgpu) is printed by `node scripts/e2e.mjs` (`e2e timings`).
import * as tf from '@tensorflow/tfjs';
import type { BenchSuite } from './harness.ts';
import { DEMO_DEFAULTS, DEMO_WIDTH, DemoSortJob } from '../src/worker/demoSortJob.ts';

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

export const demoSuite: BenchSuite = {
  name: 'demo',
  async run(report, { quick }) {
    await tf.setBackend('cpu');
    const reps = quick ? 5 : 20;
    for (const scale of ['s', 'm', 'l'] as const) {
      const job = new DemoSortJob({ ...DEMO_DEFAULTS, width: DEMO_WIDTH[scale], steps: reps + 3, seed: 1 });
      await job.init();
      for (let i = 0; i < 3; i++) await job.step(); // warm-up
      const t0 = cpuMs();
      for (let i = 0; i < reps; i++) await job.step();
      report(`demo.cpu_step_ms.${scale}`, (cpuMs() - t0) / reps, 'ms', `width ${DEMO_WIDTH[scale]}, batch ${DEMO_DEFAULTS.batch}`);
      job.dispose();
    }
  },
};
