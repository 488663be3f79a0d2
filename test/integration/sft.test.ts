// Integration (issue 4): SFT the smallest preset on teacher trajectories and tool-QA episodes of a
// `tiny` world, then roll it out greedily on the 40 validation queries and unseen tool-QA tasks.
// The agent must have learned the token language (delivery ≥ 95 %) and real planning (success well
// above zero). Part of `npm test`: scripts/test.sh starts it first, in the background (~55 min of one
// core), and runs everything else beside it.
//
// Backend: `wasm` (tfjs's WebAssembly kernels on the CPU, in Node) by default. The same code runs on
// tfjs `cpu` (STAR_TEST_BACKEND=cpu), ~6× slower for this model on the same batches (bench sft-cpu:
// sft.cpu_over_wasm.s), i.e. ~5 h here: too long for a test.
//
// Measured 2026-11-30 on this 2-core machine (wasm, one core; curve = this pipeline with an evaluation
// every 600 steps; the run is deterministic, so this test reproduces the last row):
//   step                      600    1,200  1,800  2,400  3,000
//   delivery (free)           0.15   0.625  0.725  0.875  0.875
//   success                   0      0.05   0.20   0.60   0.55
//   commonsense micro         0.11   0.51   0.63   0.87   0.86
//   loss                      0.54   0.34   0.28   0.29   0.22
// At 3,000 steps with constrained plan decoding (the choices the calls cannot resolve masked, plan.ts
// unresolvableNext): delivery 0.975 (39/40; the other stopped at the turn limit before a plan),
// success 0.55 (22/40), commonsense micro 0.95, hard micro 0.80; tool-QA (OOD) accuracy 0.46.
// 3,265 CPU s of training and evaluation. Undelivered free plans cite a restaurant one row past a
// short list (4) or a city whose rooms were never searched (1).
// Earlier: learned positions needed 3,000 steps for delivery 0.75 and success 0.075; a 1,800-step
// schedule at lr 3e-3 ended at delivery 0.725, success 0.275.
import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { runSftPipeline } from '../../src/rl/sftPipeline.ts';
import type { PolicyEvaluation } from '../../src/agent/evaluatePolicy.ts';

const BACKEND = process.env.STAR_TEST_BACKEND ?? 'wasm';
const FREE_DELIVERY_FLOOR = 0.75; // measured 0.875

describe.skipIf(!process.env.STAR_INTEGRATION)(`SFT then evaluate (tiny world, preset s, ${BACKEND})`, () => {
  it('delivers plans and solves some validation queries', async () => {
    await tf.setBackend(BACKEND);
    await tf.ready();
    const r = await runSftPipeline({
      worldSize: 'tiny', seed: 1, trainQueries: 1000, validationQueries: 40, toolQa: 250, preset: 's',
      model: { contextLength: 576 }, steps: 3000, batchSize: 8, peakLr: 3e-3,
    });
    const line = (name: string, e: PolicyEvaluation) => `${name}: delivery ${e.deliveryRate}, success ${e.success}, ` +
      `commonsense micro ${e.commonsenseMicro.toFixed(3)}, hard micro ${e.hardMicro.toFixed(3)}, OOD ${e.oodAccuracy.toFixed(3)}, ` +
      `undelivered: ${JSON.stringify(e.failureReasons.slice(0, 3))}`;
    console.log(`[sft integration, ${BACKEND}] ${r.examples} examples (${r.travelExamples} travel), ${r.stepsDone} steps, loss ${r.finalLoss.toFixed(3)}, ` +
      `train ${r.trainSeconds.toFixed(0)} s, eval ${r.evalSeconds.toFixed(0)} s\n  ${line('free', r.evaluation)}\n  ${line('constrained', r.constrained)}`);
    r.policy.dispose();
    // the bar, with constrained plan decoding (measured: delivery 0.975, success 0.55)
    expect(r.constrained.deliveryRate).toBeGreaterThanOrEqual(0.95);
    expect(r.constrained.success).toBeGreaterThanOrEqual(0.1);
    // and the policy's own plans, unmasked: most resolve (a regression here is a learning problem)
    expect(r.evaluation.deliveryRate).toBeGreaterThanOrEqual(FREE_DELIVERY_FLOOR);
  }, 85 * 60_000);
});
