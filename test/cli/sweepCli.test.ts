// `npm run cli -- sweep` as a user runs it (a real process, as `npm run cli` starts it): a tiny T7 grid
// (3 tool-failure rates; --config shrinks every run to one step of one query × 2 rollouts on the s
// checkpoint) with --jobs 2, so the runs go to child processes. Checks the table, the run folders, the
// step-0 evaluation shared by the three runs, the reuse of finished runs, and a bad --config.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliProcess } from './cliProcess.ts';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { FindingTable } from '../../src/findings/findingTable.ts';
import type { RlSummary } from '../../src/cli/rlRun.ts';
import { sweepCommand } from '../../src/cli/commands/sweep.ts';

const tmp = mkdtempSync(join(tmpdir(), 'star-sweep-'));
const TINY = '#scale=s&steps=1&queriesPerStep=1&groupSize=2&evalEvery=1&evalQueries=1&evalToolQa=1&trainSize=20';
afterAll(() => rmSync(tmp, { recursive: true, force: true }));


describe('sweep --jobs 2 (child processes)', () => {
  it('runs a tiny T7 grid, writes its table, shares the step-0 evaluation, and reuses finished runs', async () => {
    const first = await cliProcess(['sweep', '--preset', 'T7', '--config', TINY, '--jobs', '2', '--out', tmp], 600_000);
    expect(first.code, first.stderr).toBe(0);
    const table = JSON.parse(readFileSync(join(tmp, 'T7', 'table.json'), 'utf8')) as FindingTable;
    expect(table.cells.map((c) => c.col)).toEqual(['0 %', '5 %', '10 %']);
    // the table records the world its runs trained in: the SFT start's, not the setting's default
    expect(table.world).toEqual({ size: 'tiny', seed: 1 });
    expect(readFileSync(join(tmp, 'T7', 'table.md'), 'utf8')).toContain('the tiny world (seed 1)');
    for (const c of table.cells) expect(c.run).not.toBeNull();
    expect(first.stdout).toContain('Tool failures');

    const runs = readdirSync(join(tmp, 'runs')).filter((d) => !d.startsWith('.'));
    expect(runs).toHaveLength(3);
    const card = JSON.parse(readFileSync('public/checkpoints/s-tiny/card.json', 'utf8')) as { weights: { sha256: string } };
    const starts: string[] = [];
    for (const r of runs) {
      const dir = join(tmp, 'runs', r);
      const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as RlSummary;
      expect(s.checkpointSha256).toBe(card.weights.sha256);
      expect(s.lab.scale).toBe('s');
      expect(s.lab.reward).toBe('curriculum'); // T7's base, kept where --config says nothing
      expect(existsSync(join(dir, 'run.log'))).toBe(true);
      expect(existsSync(join(dir, 'resume'))).toBe(false);
      expect(existsSync(join(dir, 'policy'))).toBe(false);
      starts.push(readFileSync(join(dir, 'metrics.jsonl'), 'utf8').split('\n')[0]);
    }
    expect(new Set(s3(starts)).size).toBe(1); // one step-0 evaluation, shared
    expect(readdirSync(join(tmp, 'runs', '.start-evaluations'))).toHaveLength(1);

    const again = await cliProcess(['sweep', '--preset', 'T7', '--config', TINY, '--jobs', '2', '--out', tmp], 600_000);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr.match(/reused/g)).toHaveLength(3);

    // --tables-only runs nothing: T5's mixed cell is T7's 0 % run (the same config), its hard-only cell never ran
    const logged = vi.spyOn(console, 'log').mockImplementation(() => {});
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect(await sweepCommand.run(['--preset', 'T5', '--config', TINY, '--tables-only', '--out', tmp])).toBe(0);
    } finally {
      logged.mockRestore();
      errors.mockRestore();
    }
    const t5 = JSON.parse(readFileSync(join(tmp, 'T5', 'table.json'), 'utf8')) as FindingTable;
    expect(t5.cells.map((c) => [c.col, c.run !== null])).toEqual([['4:3:3', true], ['hard only', false]]);
    expect(readdirSync(join(tmp, 'runs')).filter((d) => !d.startsWith('.'))).toHaveLength(3);
  }, 600_000);

  it('refuses a bad --config or --scales with the reason, before running anything', async () => {
    await expect(sweepCommand.run(['--preset', 'T7', '--config', '#scale=xl', '--out', join(tmp, 'bad')])).rejects.toThrow(/scale.*“xl”/);
    await expect(sweepCommand.run(['--preset', 'T7', '--config', '{"nope":1}', '--out', join(tmp, 'bad')])).rejects.toThrow(/nope: unknown setting/);
    await expect(sweepCommand.run(['--preset', 'T7', '--scales', 's,xl', '--out', join(tmp, 'bad')])).rejects.toThrow(/"xl" is not a scale/);
    expect(existsSync(join(tmp, 'bad'))).toBe(false);
  });
});

/** the step-0 lines without their timing (`eval/seconds` differs between a computed and a cached one only if recomputed) */
function s3(lines: string[]): string[] {
  return lines.map((l) => JSON.stringify({ ...JSON.parse(l), 'eval/seconds': 0 }));
}
