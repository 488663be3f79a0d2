// Integration (issue 4): SFT the smallest preset on teacher trajectories and tool-QA episodes of a
// `tiny` world on tfjs `cpu`, then roll it out greedily on the validation split. The agent must
// have learned the token language (delivery ≥ 95 %) and real planning (success well above zero).
// Sized to take a few minutes on 2 uncontended cores (SFT_STEPS); measured numbers in the log.
import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { runSftPipeline } from '../../src/rl/sftPipeline.ts';

export const INTEGRATION = {
  worldSize: 'tiny', seed: 1, trainQueries: 200, validationQueries: 40, toolQa: 50, preset: 's',
  model: { contextLength: 512 }, steps: 200, batchSize: 16, peakLr: 3e-3,
} as const;

describe('SFT then evaluate (tiny world, preset s, cpu)', () => {
  it('delivers plans and solves some validation queries', async () => {
    await tf.setBackend('cpu');
    const r = await runSftPipeline({ ...INTEGRATION, model: { ...INTEGRATION.model } });
    const e = r.evaluation;
    console.log(`[sft integration] ${r.examples} examples (${r.travelExamples} travel), ${r.stepsDone} steps, loss ${r.finalLoss.toFixed(3)}, ` +
      `train ${r.trainSeconds.toFixed(0)} s, eval ${r.evalSeconds.toFixed(0)} s | delivery ${e.deliveryRate}, success ${e.success}, ` +
      `commonsense micro ${e.commonsenseMicro.toFixed(3)}, hard micro ${e.hardMicro.toFixed(3)}, OOD ${e.oodAccuracy.toFixed(3)}, ` +
      `failures ${JSON.stringify(e.failureReasons.slice(0, 3))}`);
    r.policy.dispose();
    expect(e.deliveryRate).toBeGreaterThanOrEqual(0.95);
    expect(e.success).toBeGreaterThanOrEqual(0.1);
  }, 30 * 60_000);
});
