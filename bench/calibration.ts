// The backend calibration in headless Chromium: what choosing the backend by measurement costs
// on a first visit and on a later one, and each backend's figures as it saw them — on this machine webgpu
// is SwiftShader, on a device with a GPU both figures come side by side. From the bench page
// (bench.html?only=calibration, bench/browser/calibrationFigures.ts). Keys, per scale and backend:
//   calibration.first_visit_s.<scale>          measure every backend offered and start the faster (wall s)
//   calibration.later_visit_ms.<scale>         the stored figures read back and the backend started (wall ms)
//   calibration.choice_is_wasm.<scale>         1 when the measurement chose wasm
//   calibration.step_ms.<scale>.<backend>      the figure compared: one default RL step, estimated (a lower bound when
// dropped)
//   calibration.decode_step_ms / micro_batch_ms / cost_s .<scale>.<backend>   what it is made of, and what measuring it
// cost
// Wall clock (a browser has no CPU clock); `--quick` measures s only, otherwise s and m.
import type { BenchSuite } from './harness.ts';
import { runBenchPage } from './webgpu.ts';

export const calibrationSuite: BenchSuite = {
  name: 'calibration',
  async run(report, { quick }) {
    await runBenchPage(`only=calibration&scales=${quick ? 's' : 's,m'}`, (r) => {
      report('calibration.adapter_is_swiftshader', /swiftshader/i.test(r.adapter) ? 1 : 0, '', r.adapter);
      for (const [key, f] of Object.entries(r.figures)) report(key, f.value, f.unit, f.note);
      if (r.error) throw new Error(`bench page: ${r.error}`);
    });
  },
};
