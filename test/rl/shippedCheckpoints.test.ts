// The shipped SFT checkpoints (public/checkpoints/<preset>-tiny): each loads on `wasm`,
// passes validation against its card, and its greedy rollouts of the card's verdict-check queries
// (the first few validation queries, one batch) reproduce the per-query verdicts the card recorded —
// greedy decoding on wasm is deterministic, so any difference means the weights, the model code,
// the token language, the tools or the evaluator changed under the checkpoint.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useNodeBackend } from '../../src/node/nodeBackend.ts';
import { readCheckpointDir } from '../../src/node/checkpointDir.ts';
import { pipelineOptionsFromCard, policyFromCheckpoint } from '../../src/rl/loadPolicy.ts';
import { sftPipelineData } from '../../src/rl/sftPipeline.ts';
import { verdictCheck } from '../../src/rl/sftCard.ts';

const PRESETS = ['s', 'm', 'l'] as const;
const dirOf = (p: string) => join('public', 'checkpoints', `${p}-tiny`);

beforeAll(async () => {
  await useNodeBackend('wasm');
});

describe.each(PRESETS)('shipped checkpoint %s-tiny', (p) => {
  const dir = dirOf(p);
  const shipped = existsSync(join(dir, 'card.json'));
  if (!shipped) console.warn(`[shipped checkpoints] ${dir} holds no checkpoint yet: its test is skipped`);

  it.skipIf(!shipped)("loads on wasm and reproduces its card's verdict check", async () => {
    const checkpoint = await readCheckpointDir(dir);
    const { card } = checkpoint;
    expect(card.preset).toBe(p);
    expect(card.verdictCheck.queries.length).toBeGreaterThan(0);
    const { world, validation } = sftPipelineData(pipelineOptionsFromCard(card));
    const policy = policyFromCheckpoint(checkpoint);
    try {
      const verdicts = await verdictCheck(policy, world, validation, card.verdictCheck.decoding === 'constrained');
      expect(verdicts).toEqual(card.verdictCheck.queries);
    } finally {
      policy.dispose();
    }
  }, 240_000);
});
