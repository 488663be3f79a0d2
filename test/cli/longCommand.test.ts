// What a long command shows: Ctrl-C asks for a stop, a second one prints the exact --resume command
// (shell-quoted) and exits 130; a sweep writes its grid as one CSV (one row per run: settings, end figures, finished or not); a quick
// table gives each end value's n and 95 % interval. (The start line of `run` is checked in runFolder.test.ts.)
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { catchStopSignals, Interrupted, resumeCommand } from '../../src/cli/interrupt.ts';
import { Heartbeat } from '../../src/cli/progress.ts';
import { splitShellWords } from '../../src/cli/shellQuote.ts';
import { QUICK, runDirName, sweepCommand } from '../../src/cli/commands/sweep.ts';
import { cellConfig, findingById } from '../../src/findings/findings.ts';
import type { LabConfig } from '../../src/lab/config.ts';
import { serializeHash } from '../../src/lab/urlState.ts';
import { wilson } from '../../src/stats/intervals.ts';

const tmp = mkdtempSync(join(tmpdir(), 'star-long-command-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

describe('Ctrl-C says how to resume', () => {
  it('the first signal asks for a stop (no exit); a second prints the exact command with --resume, quoted, and exits 130', () => {
    const args = ['--config', '#steps=20&evalQueries=8', '--out', 'my runs/a', '--force'];
    const lines: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => { lines.push(a.join(' ')); });
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const stops = catchStopSignals(resumeCommand('npm run cli -- run', args));
    expect(() => stops.check()).not.toThrow();
    process.emit('SIGINT');
    expect(exit).not.toHaveBeenCalled();
    expect(stops.signal).toBe('SIGINT');
    expect(() => stops.check()).toThrow(Interrupted);
    process.emit('SIGTERM');
    expect(exit).toHaveBeenCalledWith(130); // the first signal's status
    stops.release();
    const said = lines.join('\n');
    expect(said).toContain(resumeCommand('npm run cli -- run', args));
    expect(splitShellWords(said.split('\n').pop()!.trim())).toEqual(['npm', 'run', 'cli', '--', 'run', '--config', '#steps=20&evalQueries=8', '--out', 'my runs/a', '--resume']);
    expect(process.listenerCount('SIGINT')).toBe(0);
    expect(process.listenerCount('SIGTERM')).toBe(0);
  });

  it('the same signal twice at once (a group signal, and npm forwarding it) is one request, not a second Ctrl-C', () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const stops = catchStopSignals('npm run cli -- run --resume');
    process.emit('SIGINT');
    process.emit('SIGINT');
    expect(exit).not.toHaveBeenCalled();
    expect(() => stops.check()).toThrow(Interrupted);
    stops.release();
    vi.restoreAllMocks();
  });
});

describe('a heartbeat in slow steps', () => {
  it('says where the step stands (rollouts n of m, micro-batch k of n) once the interval has passed, else nothing', () => {
    const written: string[] = [];
    const out = { isTTY: false, write: (s: string) => { written.push(s); return true; } } as unknown as NodeJS.WriteStream;
    const beat = new Heartbeat('rl grpo ', 10_000, out);
    beat.beat(2, 40, { phase: 'rollouts', done: 3, total: 32 });
    expect(written).toEqual([]); // a quick step prints nothing
    const slow = new Heartbeat('rl grpo ', 0, out);
    slow.beat(2, 40, { phase: 'rollouts', done: 12, total: 32 });
    slow.beat(2, 40, { phase: 'update', done: 1, total: 6 });
    slow.beat(3, 40, { phase: 'evaluation', done: 40, total: 132 });
    expect(written.map((l) => l.replace(/ · \S+ into this step\n$/, ''))).toEqual(['rl grpo step 3/40: rollouts 12 of 32 finished',
      'rl grpo step 3/40: micro-batch 2 of 6', 'rl grpo step 3/40: evaluation rollouts 40 of 132 finished']);
  });
});

describe('a quick sweep writes its grid as a CSV and its table with n and intervals', () => {
  it('one row per run of the grid; the table shows [lo, hi] and n', async () => {
    const f = findingById('T7');
    const cells = f.cells.map((c) => cellConfig(f, c, QUICK)).filter((l): l is LabConfig => l !== null);
    const sha = (scale: string) => (JSON.parse(readFileSync(`public/checkpoints/${scale}-tiny/card.json`, 'utf8')) as { weights: { sha256: string } }).weights.sha256;
    const fig = (success: number) => ({ success, delivery: 0.5, csMicro: 0.5, hardMicro: 0.5, ood: 0.5, queries: 40 });
    // every cell but the last has finished
    for (const lab of cells.slice(0, -1)) {
      const dir = join(tmp, 'runs', runDirName(lab));
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'summary.json'), JSON.stringify({ format: 'star-lab-rl-summary/1', hash: serializeHash(lab), lab, rl: { evalQueries: 40, evalToolQa: 32 },
        checkpointSha256: sha(lab.scale), steps: lab.steps, start: fig(0.2), final: fig(0.25), wallSeconds: 60, cpuSeconds: 50 }));
    }
    vi.spyOn(console, 'log').mockImplementation(() => {});
    vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(await sweepCommand.run(['--preset', 'T7', '--quick', '--tables-only', '--out', tmp])).toBe(0);
    const csv = readFileSync(join(tmp, 'T7', 'runs.csv'), 'utf8').trim().split('\n');
    const head = csv[0].split(',');
    expect(head.slice(0, 3)).toEqual(['run', 'finished', 'scale']);
    expect(csv).toHaveLength(1 + cells.length);
    const rows = csv.slice(1).map((l) => Object.fromEntries(l.split(',').map((v, i) => [head[i], v])));
    expect(rows.map((r) => r.run)).toEqual(cells.map(runDirName));
    expect(rows.map((r) => r.finished)).toEqual(cells.map((_, i) => String(i < cells.length - 1)));
    expect(rows[0]).toMatchObject({ final_success: '0.25', queries: '40', ood_tasks: '32', seed: String(cells[0].seed) });
    const md = readFileSync(join(tmp, 'T7', 'table.md'), 'utf8');
    const iv = wilson(10, 40);
    expect(md).toContain(`20.0 → 25.0 [${(100 * iv.lo).toFixed(1)}, ${(100 * iv.hi).toFixed(1)}]`);
    expect(md).toMatch(/n = 40 validation queries.*95 % Wilson interval/);
  });
});
