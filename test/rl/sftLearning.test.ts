// SFT learns the agent's language (the hour-long SFT runs are the
// shipped checkpoints, re-checked by `npm run repro -- sft <preset>`). A narrow policy (preset s's
// heads, dModel 32, 2 layers, dFF 128, context 576) trains 200 steps of 8 on the teacher's
// trajectories and tool-QA episodes of a `tiny` world on `wasm`; then
//   - the training loss falls well below its start (ln |vocab| ≈ 6.4 for the untrained policy),
//   - the loss on teacher trajectories of held-out validation queries falls too (not memorised), and
//   - greedy rollouts of held-out queries and tool-QA tasks write calls that parse
//     (a 30-step policy parses none of its calls: it has not learned the syntax yet).
// 200 steps, not 300: the claims need the loss well down and the calls parsing, not the last third of the
// fall, and the suite has 15 minutes. Measured 2026-12-07 (wasm, deterministic; a shared 2-core machine):
//   training loss 6.43 (first step) → 1.04 (mean of the last 10; bound 1.93), held-out 6.43 → 0.93 (bound 2.25);
//   97 % of the generated calls parsed (bound 80 %), 24 per episode (the plans are not delivered yet, they
//   run out of turns or tokens); 37 CPU s for data, 200 steps and the rollouts. At 300 steps (2026-12-01):
//   loss → 0.77, every call parsed.
import { beforeAll, describe, expect, it } from 'vitest';
import { useNodeBackend } from '../../src/node/nodeBackend.ts';
import { sftPipelineData, sftPipelineTrainer, type SftPipelineOptions } from '../../src/rl/sftPipeline.ts';
import { evaluatePolicy } from '../../src/agent/evaluatePolicy.ts';
import { teachTrajectory } from '../../src/env/teacher.ts';
import { encodeTrajectory } from '../../src/agent/encode.ts';
import { Rng } from '../../src/env/random.ts';

const OPTIONS: SftPipelineOptions = {
  worldSize: 'tiny', seed: 1, trainQueries: 300, validationQueries: 4, toolQa: 60, preset: 's',
  model: { contextLength: 576, dModel: 32, nLayers: 2, dFF: 128 }, steps: 200, batchSize: 8, peakLr: 5e-3,
};

beforeAll(async () => {
  await useNodeBackend('wasm');
});

describe('SFT on a tiny world (wasm, 200 steps of a narrow policy)', () => {
  it('the loss falls well below its start, on training and held-out trajectories, and generated calls parse', async () => {
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const { config, world, validation, data, heldOutQa } = sftPipelineData(OPTIONS);
    const { policy, trainer } = sftPipelineTrainer(OPTIONS, config, data.examples);
    try {
      const heldOut = validation.map((q, i) => {
        const traj = teachTrajectory(world, q, { rng: new Rng(100 + i) });
        if (!traj) throw new Error('the teacher solves every generated query');
        return encodeTrajectory(traj);
      });
      const heldOutBefore = await trainer.evaluateLoss(heldOut);
      const losses: number[] = [];
      while (trainer.step < OPTIONS.steps) losses.push((await trainer.sftStep())['losses/sft']);
      const heldOutAfter = await trainer.evaluateLoss(heldOut);
      const e = await evaluatePolicy(policy, world, validation, heldOutQa.slice(0, 4), { batchSize: 8, seed: 1 });
      const cpu = process.cpuUsage(cpu0);
      const start = losses[0];
      const end = losses.slice(-10).reduce((a, b) => a + b, 0) / 10;
      console.log(`[sft learning] loss ${start.toFixed(2)} → ${end.toFixed(2)}, held-out ${heldOutBefore.toFixed(2)} → ${heldOutAfter.toFixed(2)}; ` +
        `calls that parse ${e.callParseRate.toFixed(3)} (${e.meanCalls.toFixed(1)} per episode), delivery ${e.deliveryRate}; ` +
        `${((cpu.user + cpu.system) / 1e6).toFixed(0)} CPU s, ${((performance.now() - t0) / 1000).toFixed(0)} s wall`);

      expect(start).toBeGreaterThan(5.5); // untrained: about ln |vocab|
      expect(end).toBeLessThan(0.3 * start); // measured 1.04 of 6.43
      expect(heldOutAfter).toBeLessThan(0.35 * heldOutBefore);
      expect(e.meanCalls).toBeGreaterThanOrEqual(4); // the episodes do call tools…
      expect(e.callParseRate).toBeGreaterThanOrEqual(0.8); // …and most calls parse (measured 0.97)
    } finally {
      trainer.dispose();
      policy.dispose();
    }
  }, 600_000);
});
