// Compaction (finished rows leave the KV cache, the live ones move into a smaller batch) and bucketed
// observation prefills are pure speed: a rollout must sample exactly the episodes it samples without
// them. The shipped preset-s checkpoint on its world makes rows finish at many different steps, so
// the batch is compacted several times (16 → 8 → 4) and observations of very different lengths meet.
import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { readCheckpointDir } from '../../src/node/checkpointDir.ts';
import { policyFromCheckpoint } from '../../src/rl/loadPolicy.ts';
import { rlEnvironment } from '../../src/rl/rlEnvironment.ts';
import { rollout } from '../../src/agent/rollout.ts';
import { type AgentTask } from '../../src/agent/episode.ts';
import { Rng } from '../../src/env/random.ts';
import { Policy } from '../../src/model/transformer.ts';

// wasm only: the same rollout on `cpu` takes ~90 s, too long for the suite
describe.each(['wasm'])('rollout compaction on %s', (backend) => {
  it('samples the same episodes as a rollout that keeps every row, and leaks no tensor', async () => {
    expect(await tf.setBackend(backend)).toBe(true);
    const ckpt = await readCheckpointDir('public/checkpoints/s-tiny');
    const env = rlEnvironment({ world: ckpt.card.world, data: ckpt.card.data, contextLength: ckpt.config.contextLength }, { trainSize: 100, mix: [4, 3, 3] });
    const policy = policyFromCheckpoint(ckpt);
    const batches: number[] = [];
    const step = Policy.prototype.step;
    Policy.prototype.step = function (this: Policy, cache, last, active) { batches.push(cache.batch); return step.call(this, cache, last, active); };
    try {
      const tasks: AgentTask[] = env.train.slice(0, 16).map((query) => ({ kind: 'travel', query }));
      const before = tf.memory().numTensors;
      const compacted = await rollout(policy, tasks, { world: env.world, rng: new Rng(4), failureRate: 0.1 });
      expect(tf.memory().numTensors).toBe(before);
      const sizes = [...new Set(batches)];
      batches.length = 0;
      const full = await rollout(policy, tasks, { world: env.world, rng: new Rng(4), failureRate: 0.1, compact: false });
      expect(sizes.length).toBeGreaterThanOrEqual(3); // 16, then smaller batches
      expect([...new Set(batches)]).toEqual([16]);
      compacted.forEach((e, b) => {
        expect(e.tokens).toEqual(full[b].tokens);
        expect(e.finish).toBe(full[b].finish);
        expect(e.toolFailures).toBe(full[b].toolFailures);
        e.logProbs.forEach((lp, i) => expect(lp).toBeCloseTo(full[b].logProbs[i], 4));
      });
    } finally {
      Policy.prototype.step = step;
      policy.dispose();
    }
  }, 240_000); // ~55 s alone; a loaded 2-core machine has needed more than 120
});
