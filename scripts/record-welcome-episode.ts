// Records the episode the welcome view replays (src/ui/welcome/episode.json): greedy rollouts of the shipped
// m checkpoint on its first validation queries, one at a time, keeping the first that shows the most — a plan
// delivered after calls to several tools, that passes most checks but fails at least one, so the four rewards
// differ. test/worker/welcomeEpisode.test.ts replays the recorded query and must get the same episode.
//   npx tsx scripts/record-welcome-episode.ts
import { writeFileSync } from 'node:fs';
import { episodeRewards } from '../src/env/episodeRewards.ts';
import { readCheckpointDir } from '../src/node/checkpointDir.ts';
import { useNodeBackend } from '../src/node/nodeBackend.ts';
import { pipelineOptionsFromCard, policyFromCheckpoint } from '../src/rl/loadPolicy.ts';
import { sftPipelineData } from '../src/rl/sftPipeline.ts';
import { playWelcomeEpisode, type WelcomeEpisodeRecord } from '../src/worker/welcomeEpisode.ts';

const CHECKPOINT = 'm-tiny';
const OUT = 'src/ui/welcome/episode.json';
const TRIES = 30;

await useNodeBackend('wasm');
const checkpoint = await readCheckpointDir(`public/checkpoints/${CHECKPOINT}`);
const { world, validation } = sftPipelineData(pipelineOptionsFromCard(checkpoint.card));
const policy = policyFromCheckpoint(checkpoint);
let kept: WelcomeEpisodeRecord | null = null;
for (let i = 0; i < Math.min(TRIES, validation.length) && !kept; i++) {
  const episode = await playWelcomeEpisode(policy, world, validation[i], true);
  const tools = new Set(episode.calls.map((c) => c.call.split('(')[0]));
  const failed = episode.checks.filter((c) => c.pass === false).length;
  const r = episodeRewards(episode, { step: 0, totalSteps: 1, curriculumSwitches: [1 / 3, 2 / 3], reward: 'sum' });
  console.log(`query ${i}: ${episode.calls.length} calls, ${tools.size} tools, plan ${episode.plan ? 'yes' : 'no'}, ${failed} checks failed, sum ${r?.sum.toFixed(2)}`);
  if (episode.plan && tools.size >= 4 && failed >= 1 && failed <= 2 && episode.calls.every((c) => !c.error))
    kept = {
      format: 'star-lab-welcome-episode/1',
      checkpoint: CHECKPOINT,
      weightsSha256: checkpoint.card.weights.sha256,
      validationIndex: i,
      constrainPlan: true,
      command: 'npx tsx scripts/record-welcome-episode.ts',
      episode,
    };
}
policy.dispose();
if (!kept) throw new Error(`none of the first ${TRIES} validation queries gives a delivered plan failing 1–2 checks`);
writeFileSync(OUT, `${JSON.stringify(kept, null, 1)}\n`);
console.log(`wrote ${OUT} (validation query ${kept.validationIndex})`);
