// Integration (issue 4): SFT the smallest preset on teacher trajectories and tool-QA episodes of a
// `tiny` world, then roll it out greedily on the validation split. The agent must have learned the
// token language (delivery ≥ 95 %) and real planning (success well above zero).
//
// Backend: `wasm` by default. The same code runs on tfjs `cpu` (STAR_TEST_BACKEND=cpu), but `cpu`
// trains this model about 6× slower here (measured: ~3 CPU s vs ~0.5 CPU s for a forward+backward of
// 512 tokens), which would make this test take well over an hour. Measured numbers: see the log line.
//
// Opt-in (STAR_INTEGRATION=1): it trains for ~35 min wall on this shared 2-core machine (~17 CPU min),
// too long for every `vitest run`. Measured 2026-11-29 with this config: loss 5.35 → 1.56, delivery 0/40,
// call parse rate 0.67 — the plan grammar is learned except copying the route's second city
// (`<from> A <tr>`), so this budget is NOT enough yet; the thresholds below are the target.
// A longer probe (2 layers, batch 4, 1,200 steps, lr 3e-3, ~1,900 CPU-s on wasm): loss 0.50, call parse
// 0.92, OOD 6/13, but delivery still 0/40 — the plans name drives/flights between cities the calls never
// searched (the plan and the calls disagree), so the gap is consistency, not the grammar.
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
      worldSize: 'tiny', seed: 1, trainQueries: 200, validationQueries: 40, toolQa: 50, preset: 's',
      model: { contextLength: 512 }, steps: 150, batchSize: 8, peakLr: 3e-3,
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
