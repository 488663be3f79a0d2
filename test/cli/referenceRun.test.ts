// A committed run reproduces metric for metric: results/reference/arpo-s-3steps (made by `npm run cli -- run`
// on the commit its summary names) is run again from the link its summary recorded, on the backend it
// recorded, and every metric of every line of its metrics.jsonl must come back to the bit — wall-clock
// timings aside. ARPO with branching, tool failures, the curriculum reward and an evaluation schedule
// (every 2 steps of 3, so also at the last) whose updates move the weights: a change to the run loop,
// the trainer or the evaluation that changes the numbers fails here. Remake the reference only for a change
// meant to change the numbers, and say so in its commit.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RL_RUN_KIND, readSummary, resumeFingerprint, runRl, type RlSummary } from '../../src/cli/rlRun.ts';
import { prepareRunDir } from '../../src/cli/outDir.ts';
import { configAsTrained } from '../../src/rl/startConfig.ts';
import { parseHash } from '../../src/lab/urlState.ts';
import { withMetricNames } from '../../src/lab/metrics.ts';
import { rlConfigFromLab, rlConfigFromRecord } from '../../src/rl/rlConfig.ts';
import type { NodeBackend } from '../../src/node/nodeBackend.ts';
import { SETTINGS_ADDED_SINCE, withoutAdded } from './referenceAdditions.ts';

const REF = 'results/reference/arpo-s-3steps';
const tmp = mkdtempSync(join(tmpdir(), 'star-reference-run-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** a metrics file's lines without their wall-clock timings, under today's metric names (the reference was written
 * before the rollout metrics took their `charts/` names: the mapping that reads old records reads it too) and
 * without the metrics added since (each checked present on a training line) */
const lines = (dir: string) => readFileSync(join(dir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => {
  const read = withMetricNames(JSON.parse(l) as Record<string, unknown>);
  const m = dir === REF ? read : withoutAdded(read, read.kind === 'train');
  for (const k of Object.keys(m)) if (k.startsWith('time/') || k === 'eval/seconds') delete m[k];
  return m;
});

describe(`the committed run ${REF} reproduces from its recorded link`, () => {
  const summary = JSON.parse(readFileSync(join(REF, 'summary.json'), 'utf8')) as RlSummary;

  it('its link still means the config it trained', () => {
    // a settings default that moved would make the link another experiment: said here, before any number
    const lab = parseHash(summary.hash).config;
    expect(lab).toEqual({ ...summary.lab, ...SETTINGS_ADDED_SINCE });
    // recorded before the trainer's config took the settings table's names: read through the map
    expect(Object.keys(summary.rl)).toContain('constrainPlan');
    expect(rlConfigFromLab(lab)).toEqual(rlConfigFromRecord(summary.rl as unknown as Record<string, unknown>));
    expect(readSummary(REF)!.rl).toEqual(rlConfigFromLab(lab));
  });

  it('its fingerprint is the one a run of its link computes today, so the folder is still this run\'s', () => {
    const lab = configAsTrained(parseHash(summary.hash).config, summary.world!);
    const fingerprint = resumeFingerprint(lab, rlConfigFromLab(lab), summary.checkpointSha256, summary.backend as NodeBackend);
    const recorded = (JSON.parse(readFileSync(join(REF, 'run.json'), 'utf8')) as { fingerprint: string }).fingerprint;
    expect(fingerprint).toBe(recorded);
    // `--resume` finds the finished run, not another run's folder
    const copy = join(tmp, 'committed');
    cpSync(REF, copy, { recursive: true });
    expect(prepareRunDir(copy, { resume: true, force: false, fingerprint, kind: RL_RUN_KIND }).action).toBe('finished');
  });

  it('every metric of every line, to the bit', async () => {
    const out = join(tmp, 'again');
    await runRl({ lab: parseHash(summary.hash).config, out, resume: false, backend: summary.backend as NodeBackend,
      quiet: true, keepPolicy: false });
    const want = lines(REF);
    const got = lines(out);
    expect(got.map((m) => `${String(m.kind)} ${String(m.step)}`)).toEqual(want.map((m) => `${String(m.kind)} ${String(m.step)}`));
    for (let i = 0; i < want.length; i++) expect(got[i], `${String(want[i].kind)} line of step ${String(want[i].step)}`).toEqual(want[i]);
    // the summary as written (JSON: a NaN reads back as null)
    const written = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as RlSummary;
    expect(written.start).toEqual(summary.start);
    expect(written.final).toEqual(summary.final);
  }, 180_000);
});
