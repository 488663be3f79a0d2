// A run's records say what it trained: RL trains in its SFT start's world at its preset, so
// summary.json and the policy card record that world (not the World size setting's default), a config that
// contradicts the start (another scale, stage=sft, another world) is refused with the reason, and
// export-job writes the lab run's world by default, so the run and its veRL job are one experiment.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runRl } from '../../src/cli/rlRun.ts';
import { exportJobCommand } from '../../src/cli/commands/exportJob.ts';
import { defaultConfig, type LabConfig } from '../../src/lab/config.ts';
import { parseHash } from '../../src/lab/urlState.ts';

const tmp = mkdtempSync(join(tmpdir(), 'star-true-records-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
// the default link's World size (standard) is not the shipped start's (tiny)
const LAB: LabConfig = { ...defaultConfig(), scale: 's', steps: 1, queriesPerStep: 1, groupSize: 2, evalEvery: 1, evalQueries: 2, evalToolQa: 1, trainSize: 10, seed: 2 };
const base = { backend: 'wasm' as const, quiet: true, resume: false };

describe('a run records the world, scale and stage it trained', () => {
  it('refuses a config that contradicts its start, before writing anything', async () => {
    const out = join(tmp, 'refused');
    await expect(runRl({ ...base, lab: LAB, out, checkpoint: 'public/checkpoints/m-tiny' })).rejects.toThrow(/scale=s, but the start m-tiny .* is preset m: set scale=m/);
    await expect(runRl({ ...base, lab: { ...LAB, stage: 'sft' }, out })).rejects.toThrow(/stage=sft: this command trains RL.*`npm run cli -- sft`/);
    await expect(runRl({ ...base, lab: { ...LAB, worldSize: 'small' }, out })).rejects.toThrow(/worldSize=small, but RL trains in its start's world: s-tiny was trained on the tiny world/);
  }, 60_000);

  it('summary.json, the card and the exported job agree on the world', async () => {
    const out = join(tmp, 'run');
    const s = await runRl({ ...base, lab: LAB, out, keepPolicy: true });
    expect(s.lab.worldSize).toBe('tiny');
    expect(s.world).toEqual({ size: 'tiny', seed: 1 });
    expect(parseHash(s.hash).config.worldSize).toBe('tiny');
    const card = JSON.parse(readFileSync(join(out, 'policy', 'card.json'), 'utf8')) as { hash: string; lab: LabConfig; origin: { world: unknown } };
    expect(card.lab.worldSize).toBe('tiny');
    expect(card.hash).toBe(s.hash);
    expect(card.origin.world).toEqual(s.world);

    vi.spyOn(console, 'log').mockImplementation(() => {});
    // the link the run was given (no worldSize) and the one it recorded export the same world: the run's
    const job = (dir: string) => JSON.parse(readFileSync(join(dir, 'job.json'), 'utf8')) as { hash: string; world: { source: string; seed: number } };
    const readme = (dir: string) => readFileSync(join(dir, 'README.md'), 'utf8');
    for (const [name, link] of [['given', '#scale=s&trainSize=10&seed=2'], ['recorded', s.hash]] as const) {
      const dir = join(tmp, `job-${name}`);
      expect(await exportJobCommand.run(['--config', link, '--engine', 'verl', '--out', dir, '--validation', '5', '--test', '0'])).toBe(0);
      expect(job(dir).world).toMatchObject({ source: 'tiny', seed: 1 });
      expect(parseHash(job(dir).hash).config.worldSize).toBe('tiny');
      expect(readme(dir)).toContain("world: tiny, seed 1 (the lab run's world: its SFT start s-tiny's)");
    }
    // another world only by a flag, which the job's README names
    const other = join(tmp, 'job-standard');
    expect(await exportJobCommand.run(['--config', s.hash, '--engine', 'verl', '--out', other, '--world-size', 'small', '--validation', '5', '--test', '0'])).toBe(0);
    expect(job(other).world.source).toBe('small');
    expect(readme(other)).toMatch(/chosen with --world-size small: NOT the lab run's world \(tiny, seed 1\)/);
    await expect(exportJobCommand.run(['--config', '#scale=s&worldSize=small', '--engine', 'verl', '--out', join(tmp, 'job-bad')])).rejects.toThrow(/worldSize=small, but RL trains in its start's world/);
    vi.restoreAllMocks();
  }, 120_000);
});
