// `sweep --standard` without running anything (--tables-only over hand-made finished runs): the run
// folders it expects per seed (runDirName, so --resume reuses them), the null control's runs, and the
// gain table it writes — intervals, an unfinished cell, the direction call — which the page's schema reads.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runDirName, STANDARD, STANDARD_SEEDS, sweepCommand } from '../../src/cli/commands/sweep.ts';
import { cellConfig, findingById, nullControls } from '../../src/findings/findings.ts';
import type { LabConfig } from '../../src/lab/config.ts';
import { serializeHash } from '../../src/lab/urlState.ts';
import { readGainTables } from '../../src/ui/findings/referenceTables.ts';
import type { GainTable } from '../../src/findings/findingGains.ts';
import { powerPlanCommand } from '../../src/cli/commands/powerPlan.ts';

const tmp = mkdtempSync(join(tmpdir(), 'star-sweep-standard-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const sha = (JSON.parse(readFileSync('public/checkpoints/m-tiny/card.json', 'utf8')) as { weights: { sha256: string } }).weights.sha256;
const figures = (success: number) => ({ success, delivery: 1, csMicro: 1, hardMicro: 1, ood: 0.4, queries: 300 });

/** a finished run's summary.json where the sweep looks for it */
function finished(lab: LabConfig, end: number): void {
  const dir = join(tmp, 'runs', runDirName(lab));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'summary.json'), JSON.stringify({ format: 'star-lab-rl-summary/1', hash: serializeHash(lab), lab, checkpointSha256: sha,
    steps: lab.steps, start: figures(0.2), final: figures(end), wallSeconds: 900, cpuSeconds: 720 }));
}

describe('sweep --standard --tables-only', () => {
  it('reads seeded runs and the null control into a gain table with intervals, an unfinished cell and a direction call', async () => {
    const t5 = findingById('T5');
    const common = { ...STANDARD };
    const [mixed, hard] = t5.cells.map((c) => cellConfig(t5, c, common)!);
    STANDARD_SEEDS.forEach((seed, i) => {
      finished({ ...mixed, seed }, 0.4 + 0.01 * i);
      if (seed !== 3) finished({ ...hard, seed }, 0.1 + 0.01 * i); // hard-only seed 3 has not finished
      finished({ ...nullControls(t5, common)[0].config, seed }, 0.2 - 0.01 * i);
    });
    expect(runDirName({ ...mixed, seed: 2 })).toMatch(/seed=2/);
    const quiet = [vi.spyOn(console, 'log').mockImplementation(() => {}), vi.spyOn(console, 'error').mockImplementation(() => {})];
    try {
      expect(await sweepCommand.run(['--preset', 'T5', '--standard', '--tables-only', '--out', tmp])).toBe(0);
    } finally {
      quiet.forEach((q) => q.mockRestore());
    }
    const text = readFileSync(join(tmp, 'T5', 'table.json'), 'utf8');
    const read = readGainTables({ '/results/findings/T5/table.json': text }).get('T5');
    expect(read?.error).toBeUndefined();
    const t = read!.table as GainTable;
    const [a, b] = t.cells;
    expect(a.seeds).toEqual([1, 2, 3]);
    expect(a.mean.gain).toBeCloseTo(21, 5);
    expect(a.coreMinutes).toBe(36); // 3 × 720 CPU seconds
    expect(b.seeds).toEqual([1, 2]);
    expect(b.planned).toBe(3);
    expect(t.nullControl[0].mean.gain).toBeCloseTo(-1, 5);
    expect(t.direction.call).toBe('interim'); // hard-only seed 3 missing: no call, though +21 against −9.5 is far apart
    expect(t.compares.pairs[0].call).toBe('interim');
    expect(t.compares.pairs[0].difference).toBeCloseTo(30.5, 5);
    expect(t.direction.sentence).toMatch(/^1 of the compared cells/);
    expect(readFileSync(join(tmp, 'T5', 'table.md'), 'utf8')).toMatch(/\(2\/3 seeds\)/);
    // a sweep of other scales (an s sweep beside an m one) rewrites every table from the runs folder: T5's m runs stay in it
    const quiet2 = [vi.spyOn(console, 'log').mockImplementation(() => {}), vi.spyOn(console, 'error').mockImplementation(() => {})];
    try {
      expect(await sweepCommand.run(['--preset', 'all', '--standard', '--tables-only', '--scales', 's', '--out', tmp])).toBe(0);
    } finally {
      quiet2.forEach((q) => q.mockRestore());
    }
    const again = readGainTables({ '/results/findings/T5/table.json': readFileSync(join(tmp, 'T5', 'table.json'), 'utf8') }).get('T5')!.table as GainTable;
    expect(again.cells[0].seeds).toEqual([1, 2, 3]);
    // the same runs again: the tables keep their files (commit and date unchanged), so a commit of new runs touches only theirs
    const before = readFileSync(join(tmp, 'T5', 'table.json'), 'utf8');
    const quiet3 = [vi.spyOn(console, 'log').mockImplementation(() => {}), vi.spyOn(console, 'error').mockImplementation(() => {})];
    try {
      expect(await sweepCommand.run(['--preset', 'all', '--standard', '--tables-only', '--scales', 's', '--out', tmp])).toBe(0);
    } finally {
      quiet3.forEach((q) => q.mockRestore());
    }
    expect(readFileSync(join(tmp, 'T5', 'table.json'), 'utf8')).toBe(before);
  });

  it('refuses --quick with --standard and --seeds without --standard', async () => {
    await expect(sweepCommand.run(['--preset', 'T5', '--quick', '--standard', '--out', join(tmp, 'bad')])).rejects.toThrow(/choose one/);
    await expect(sweepCommand.run(['--preset', 'T5', '--seeds', '1,2', '--out', join(tmp, 'bad')])).rejects.toThrow(/--seeds goes with --standard/);
    await expect(sweepCommand.run(['--preset', 'T5', '--standard', '--seeds', '1,1', '--out', join(tmp, 'bad')])).rejects.toThrow(/distinct seeds/);
  });

  it('under a power plan: runs and tests each finding at its planned seeds, refuses --seeds, and the plan is not remade', async () => {
    const dir = join(tmp, 'planned');
    mkdirSync(join(dir, 'T5'), { recursive: true });
    writeFileSync(join(dir, 'T5', 'table.json'), readFileSync(join(tmp, 'T5', 'table.json'), 'utf8'));
    const quiet = [vi.spyOn(console, 'log').mockImplementation(() => {}), vi.spyOn(console, 'error').mockImplementation(() => {})];
    try {
      expect(await powerPlanCommand.run(['--out', dir])).toBe(0);
      await expect(powerPlanCommand.run(['--out', dir])).rejects.toThrow(/fixed before its runs/);
      await expect(sweepCommand.run(['--preset', 'T5', '--standard', '--seeds', '1,2,3,4', '--tables-only', '--out', dir])).rejects.toThrow(/fixes the seeds/);
      const plan = JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8')) as { findings: { id: string; seeds: number }[] };
      const seeds = plan.findings.find((f) => f.id === 'T5')!.seeds;
      expect(seeds).toBe(2); // the hand-made gains spread by ~1 point: two seeds a cell suffice
      expect(await sweepCommand.run(['--preset', 'T5', '--standard', '--tables-only', '--out', dir, '--runs', join(tmp, 'runs')])).toBe(0);
      // --status: T5's 3 arms × 2 planned seeds, all finished; without a plan it says what it needs
      quiet[0].mockClear();
      expect(await sweepCommand.run(['--preset', 'T5', '--standard', '--status', '--out', dir, '--runs', join(tmp, 'runs')])).toBe(0);
      const status = quiet[0].mock.calls.flat().join('\n');
      expect(status).toContain('| T5 | 2 | 6 | 6 | 0 | 0 (complete: its table makes its call) | 0.0 |');
      expect(status).not.toContain('| T1 |');
      await expect(sweepCommand.run(['--preset', 'T5', '--standard', '--status', '--out', tmp])).rejects.toThrow(/--status reads a power plan/);
    } finally {
      quiet.forEach((q) => q.mockRestore());
    }
    const t = JSON.parse(readFileSync(join(dir, 'T5', 'table.json'), 'utf8')) as GainTable;
    expect(t.cells[0].planned).toBe(JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8')).findings.find((f: { id: string }) => f.id === 'T5').seeds);
    expect(t.cells[0].seeds).toEqual([1, 2]); // seed 3 has finished, but the plan's test reads its own seeds only
    expect(t.direction.call).toBe('agrees'); // +20.5 against −9.5, both planned seeds of both cells in
    // --cost-to-resolve prices the pairs left not resolved (none here) and leaves the plan as it was
    const planBefore = readFileSync(join(dir, 'plan.json'), 'utf8');
    const quiet2 = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      expect(await powerPlanCommand.run(['--out', dir, '--cost-to-resolve'])).toBe(0);
    } finally {
      quiet2.mockRestore();
    }
    expect(readFileSync(join(dir, 'cost-to-resolve.md'), 'utf8')).toMatch(/No called finding leaves a pair not resolved/);
    expect(readFileSync(join(dir, 'plan.json'), 'utf8')).toBe(planBefore);
    // a damaged table is named, with how to rewrite it
    const broken = join(tmp, 'broken');
    mkdirSync(join(broken, 'T5'), { recursive: true });
    writeFileSync(join(broken, 'T5', 'table.json'), '{"format": "star-lab-fin');
    await expect(powerPlanCommand.run(['--out', broken, '--cost-to-resolve'])).rejects.toThrow(/T5\/table\.json is not readable JSON.*--tables-only/);
  });
});
