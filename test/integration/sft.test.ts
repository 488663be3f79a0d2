// Integration (issue 4): SFT the smallest preset on teacher trajectories and tool-QA episodes of a
// `tiny` world, then roll it out greedily on the validation split. The agent must have learned the
// token language (delivery ≥ 95 %) and real planning (success well above zero).
//
// Backend: `wasm` by default. The same code runs on tfjs `cpu` (STAR_TEST_BACKEND=cpu), but `cpu`
// trains this model ~18× slower here (bench: train.sft_tokens_per_s.s 127 vs .s.wasm 2,340 tokens/s),
// which would make this test take many hours. Measured numbers: see the log line.
//
// Opt-in (STAR_INTEGRATION=1): the bar is NOT met yet, and reaching it takes longer than a test run
// should. Learning curves measured 2026-11-30 on this 2-core machine (wasm, one core each; validation
// = 40 queries; tmp curve script = this pipeline with an evaluation every few hundred steps):
//   learned positions, batch 8, lr 5e-3, 1,000 train queries: step 500 delivery 0, 1,000 → 0.125,
//     1,500 → 0.50, 2,000 → 0.50 (loss 0.28, OOD 0.54), success 0 throughout; ~1.2 s/step.
//   ALiBi (the presets' default since), 1,200 steps, lr 5e-3: 300 → 0.025, 600 → 0.175, 900 → 0.45,
//     1,200 → delivery 0.675, success 0.075 (3/40), commonsense micro 0.54, hard micro 0.30, OOD 0.51,
//     loss 0.34 — 1,260 CPU s (21 min) of one core incl. data and evaluations.
//   ALiBi, this test's config (1,800 steps, lr 3e-3): 600 → 0.075, 1,200 → 0.775, 1,800 → delivery 0.725,
//     success 0.275 (11/40), commonsense micro 0.66, hard micro 0.60, OOD 0.48 — 1,834 CPU s (31 min).
// What fails, in order: plans citing a leg or city the calls never searched, then accommodation refs
// or flight refs past the end of the observed list. Success needs every constraint met.
import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { runSftPipeline } from '../../src/rl/sftPipeline.ts';

const BACKEND = process.env.STAR_TEST_BACKEND ?? 'wasm';

describe.skipIf(!process.env.STAR_INTEGRATION)(`SFT then evaluate (tiny world, preset s, ${BACKEND})`, () => {
  it('delivers plans and solves some validation queries', async () => {
    await tf.setBackend(BACKEND);
    await tf.ready();
    const r = await runSftPipeline({
      worldSize: 'tiny', seed: 1, trainQueries: 1000, validationQueries: 40, toolQa: 250, preset: 's',
      model: { contextLength: 576 }, steps: 1800, batchSize: 8, peakLr: 3e-3,
    });
    const e = r.evaluation;
    console.log(`[sft integration, ${BACKEND}] ${r.examples} examples (${r.travelExamples} travel), ${r.stepsDone} steps, loss ${r.finalLoss.toFixed(3)}, ` +
      `train ${r.trainSeconds.toFixed(0)} s, eval ${r.evalSeconds.toFixed(0)} s | delivery ${e.deliveryRate}, success ${e.success}, ` +
      `commonsense micro ${e.commonsenseMicro.toFixed(3)}, hard micro ${e.hardMicro.toFixed(3)}, OOD ${e.oodAccuracy.toFixed(3)}, ` +
      `undelivered: ${JSON.stringify(e.failureReasons.slice(0, 3))}`);
    r.policy.dispose();
    expect(e.deliveryRate).toBeGreaterThanOrEqual(0.95);
    expect(e.success).toBeGreaterThanOrEqual(0.1);
  }, 90 * 60_000);
});
