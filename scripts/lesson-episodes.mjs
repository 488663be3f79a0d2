#!/usr/bin/env node
// The episodes a lesson page shows: for each setting a lesson runs, one rollout of its committed seed-1 run after
// training (its samples.jsonl, kept at the last step) — the one that passes (else the first), and on a setting with
// tool failures one with a failed call, so the page can show what the agent did next. Observations are cut to 400
// characters to keep the file small. Reads results/lessons/reference.json (its settings and their folders); writes
// results/lessons/episodes.json. No training: the episodes are the committed runs' own.
//
//   node scripts/lesson-episodes.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(new URL('..', import.meta.url).pathname);
const reference = JSON.parse(readFileSync(join(root, 'results/lessons/reference.json'), 'utf8'));
const CUT = 400;
const cut = (s) => (typeof s === 'string' && s.length > CUT ? `${s.slice(0, CUT)}…` : s);

const settings = {};
for (const [key, s] of Object.entries(reference.settings)) {
  const where = s.where[0];
  const samples = readFileSync(join(root, where, 'samples.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    .filter((x) => x.trajectory?.kind === 'travel');
  const failures = /toolFailureRate=/.test(key);
  const failed = (x) => x.trajectory.calls.some((c) => c.error);
  const pick = (failures && samples.find((x) => failed(x) && x.trajectory.success)) ||
    (failures && samples.find(failed)) || samples.find((x) => x.trajectory.success) || samples[0];
  if (!pick) continue;
  const t = pick.trajectory;
  settings[key] = {
    where, seed: s.seeds[0], step: pick.step, reward: pick.reward,
    trajectory: { ...t, calls: t.calls.map((c) => ({ ...c, observation: cut(c.observation) })) },
  };
}
const out = join(root, 'results/lessons/episodes.json');
writeFileSync(out, JSON.stringify({ command: 'node scripts/lesson-episodes.mjs', settings }) + '\n');
console.log(`wrote ${out}: ${Object.keys(settings).length} settings`);
