// The welcome view replays a recorded episode (src/ui/welcome/episode.json): it must be what the shipped
// checkpoint does. Greedy decoding on wasm is deterministic, so replaying the recorded query gives the same
// calls, observations, plan and verdicts, or the weights, the model, the tools or the evaluator changed under it
// (then rerun scripts/record-welcome-episode.ts).
import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { readCheckpointDir } from '../../src/node/checkpointDir.ts';
import { useNodeBackend } from '../../src/node/nodeBackend.ts';
import { pipelineOptionsFromCard, policyFromCheckpoint } from '../../src/rl/loadPolicy.ts';
import { sftPipelineData } from '../../src/rl/sftPipeline.ts';
import { playWelcomeEpisode, type WelcomeEpisodeRecord } from '../../src/worker/welcomeEpisode.ts';

const recorded = JSON.parse(readFileSync('src/ui/welcome/episode.json', 'utf8')) as WelcomeEpisodeRecord;

beforeAll(async () => {
  await useNodeBackend('wasm');
});

it("the welcome's episode is what the shipped checkpoint plays", async () => {
  const checkpoint = await readCheckpointDir(`public/checkpoints/${recorded.checkpoint}`);
  expect(checkpoint.card.weights.sha256).toBe(recorded.weightsSha256);
  const { world, validation } = sftPipelineData(pipelineOptionsFromCard(checkpoint.card));
  const policy = policyFromCheckpoint(checkpoint);
  try {
    const episode = await playWelcomeEpisode(policy, world, validation[recorded.validationIndex], recorded.constrainPlan);
    expect(episode).toEqual(recorded.episode);
  } finally {
    policy.dispose();
  }
}, 120_000);
