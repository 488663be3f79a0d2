// The episodes a lesson page shows, before and after training, for each setting a lesson runs:
// - after: one rollout of its committed seed-1 run at its last step (its samples.jsonl): one that passes (else the
//   first); on a setting with tool failures, one with a failed call, preferring one where the agent went on calling.
// - before: the run's starting checkpoint (the shipped one its summary names, checked by its SHA-256) on the same
//   request, rolled out as the run's training rollouts were (its temperature, injected failure rate and plan
//   decoding), from the first sampling seed (0, 1, …) that gives, on a setting with tool failures, a failed call.
// Observations are cut to 300 characters to keep the file small. Reads results/lessons/reference.json (its settings
// and their folders); writes results/lessons/episodes.json. No training. TypeScript (run with tsx) because the
// before-training rollouts need the agent's own code.
//
//   npx tsx scripts/lesson-episodes.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rollout } from '../src/agent/rollout.ts';
import { episodeRewards } from '../src/env/episodeRewards.ts';
import { Rng } from '../src/env/random.ts';
import { afterFailure } from '../src/lessons/lessons.ts';
import { readCheckpointDir } from '../src/node/checkpointDir.ts';
import { useNodeBackend } from '../src/node/nodeBackend.ts';
import { policyFromCheckpoint, sftOriginFromCard } from '../src/rl/loadPolicy.ts';
import { rlEnvironment } from '../src/rl/rlEnvironment.ts';
import { sampleEpisode, type SampleEpisode } from '../src/worker/sampleEpisode.ts';

const COMMAND = 'npx tsx scripts/lesson-episodes.ts';
const OUT = 'results/lessons/episodes.json';
const CUT = 300;
const SEEDS_TRIED = 40;

interface Sample {
  step: number;
  reward: number;
  trajectory: SampleEpisode;
}
interface Summary {
  checkpoint: string;
  checkpointSha256: string;
  steps: number;
  lab: { trainSize: number; mix: [number, number, number] };
  rl: {
    reward: string;
    temperature: number;
    toolFailureRate: number;
    constrainPlan: boolean;
    maxTurns: number;
    curriculumSwitches: [number, number];
  };
}

const cutCalls = (t: SampleEpisode): SampleEpisode => ({
  ...t,
  rl: undefined,
  calls: t.calls.map((c) => ({ ...c, observation: c.observation.length > CUT ? `${c.observation.slice(0, CUT)}…` : c.observation })),
});
/** a failed call, then another call: what the agent did next is a call the page can name */
const failedThenCalled = (t: SampleEpisode) => afterFailure(t.calls)?.next != null;
const failed = (t: SampleEpisode) => afterFailure(t.calls) !== null;

await useNodeBackend('wasm');
const reference = JSON.parse(readFileSync(join('results/lessons/reference.json'), 'utf8')) as {
  settings: Record<string, { where: string[]; seeds: number[] }>;
};
const settings: Record<string, unknown> = {};
for (const [key, s] of Object.entries(reference.settings)) {
  const where = s.where[0];
  const summary = JSON.parse(readFileSync(join(where, 'summary.json'), 'utf8')) as Summary;
  const samples = (readFileSync(join(where, 'samples.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)) as Sample[])
    .filter((x) => x.trajectory?.kind === 'travel');
  const failures = summary.rl.toolFailureRate > 0;
  const after =
    (failures && samples.find((x) => failedThenCalled(x.trajectory) && x.trajectory.success)) ||
    (failures && samples.find((x) => failedThenCalled(x.trajectory))) ||
    (failures && samples.find((x) => failed(x.trajectory))) ||
    samples.find((x) => x.trajectory.success) ||
    samples[0];
  if (!after) throw new Error(`${where}/samples.jsonl holds no travel episode`);

  const checkpoint = await readCheckpointDir(`public/checkpoints/${summary.checkpoint}`);
  if (checkpoint.card.weights.sha256 !== summary.checkpointSha256)
    throw new Error(`${where} started from ${summary.checkpoint} ${summary.checkpointSha256}, but the shipped one is ${checkpoint.card.weights.sha256}`);
  const data = { trainSize: summary.lab.trainSize, mix: summary.lab.mix };
  const env = rlEnvironment(sftOriginFromCard(checkpoint.card), data);
  const query = env.train.find((q) => q.query === after.trajectory.prompt);
  if (!query) throw new Error(`${where}: the after-training request is none of the run's training queries`);
  const policy = policyFromCheckpoint(checkpoint);
  let before: { rngSeed: number; episode: SampleEpisode } | null = null;
  for (let seed = 0; seed < SEEDS_TRIED && !before; seed++) {
    const [e] = await rollout(policy, [{ kind: 'travel', query }], {
      world: env.world,
      temperature: summary.rl.temperature,
      failureRate: summary.rl.toolFailureRate,
      constrainPlan: summary.rl.constrainPlan,
      maxTurns: summary.rl.maxTurns,
      rng: new Rng(seed),
    });
    const episode = sampleEpisode(env.world, e);
    if (!failures || failedThenCalled(episode)) before = { rngSeed: seed, episode };
  }
  policy.dispose();
  if (!before) throw new Error(`${where}: none of ${SEEDS_TRIED} sampling seeds gave a before-training episode with a failed call`);
  const rewards = episodeRewards(before.episode, {
    step: 0,
    totalSteps: summary.steps,
    curriculumSwitches: summary.rl.curriculumSwitches,
    reward: summary.rl.reward,
  });
  if (!rewards) throw new Error(`${where}: the before-training episode keeps no full verdicts`);
  const reward = summary.rl.reward === 'curriculum' ? rewards[rewards.curriculumStage] : rewards[summary.rl.reward as 'sum' | 'macro' | 'success'];
  settings[key] = {
    where,
    seed: s.seeds[0],
    before: {
      checkpoint: summary.checkpoint,
      rngSeed: before.rngSeed,
      step: 0,
      reward,
      trajectory: cutCalls(before.episode),
    },
    after: { step: after.step, reward: after.reward, trajectory: cutCalls(after.trajectory) },
  };
  console.log(
    `${key}: before (${summary.checkpoint}, seed ${before.rngSeed}) ${before.episode.calls.length} calls, success ${before.episode.success}, reward ${reward.toFixed(2)}; ` +
      `after (step ${after.step}) ${after.trajectory.calls.length} calls, success ${after.trajectory.success}, reward ${after.reward}`,
  );
}
writeFileSync(OUT, `${JSON.stringify({ command: COMMAND, settings })}\n`);
console.log(`wrote ${OUT}: ${Object.keys(settings).length} settings`);
