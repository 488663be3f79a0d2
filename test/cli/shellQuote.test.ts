// Every command the project writes for pasting is shell-quoted and reads back, through a real
// shell, as the arguments it was made from: the quoting itself over arbitrary strings, the command a sweep
// writes into its tables (e.g. `--config #evalQueries=8&evalToolQa=4`), and a card's command as
// repro reads it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { shellCommand, shellQuote, splitShellWords } from '../../src/cli/shellQuote.ts';
import { sweepCommand } from '../../src/cli/commands/sweep.ts';
import { rerunArgs } from '../../src/cli/commands/repro.ts';

const tmp = mkdtempSync(join(tmpdir(), 'star-shell-quote-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** the words bash reads from each command line (one bash for all of them): each line's word count, then its words, NUL-separated */
function bashWords(lines: string[]): string[][] {
  const script = lines.map((l) => `set -- ${l}; printf '%s\\0' "$#" "$@"`).join('\n');
  const r = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  const parts = r.stdout.split('\0');
  const out: string[][] = [];
  for (let i = 0; out.length < lines.length; ) {
    const n = Number(parts[i]);
    out.push(parts.slice(i + 1, i + 1 + n));
    i += 1 + n;
  }
  return out;
}

describe('shell quoting', () => {
  it('any argument reads back unchanged through bash and through splitShellWords', () => {
    const args = fc.sample(fc.array(fc.string({ unit: 'binary', minLength: 0, maxLength: 12 }).map((s) => s.replace(/\0/g, '')), { minLength: 1, maxLength: 4 }), { numRuns: 300, seed: 43 });
    args.push(['#evalQueries=8&evalToolQa=4', "it's", 'a b', '$HOME', '`x`', '~', '--seeds', '1,2,3', '*', '!', '\\', '\n']);
    const lines = args.map((a) => a.map(shellQuote).join(' '));
    expect(bashWords(lines)).toEqual(args);
    for (let i = 0; i < args.length; i++) expect(splitShellWords(lines[i])).toEqual(args[i]);
    // readable where nothing needs quoting
    expect(shellCommand('npm run cli -- sweep', ['--preset', 'all', '--seeds', '1,2,3', '--out', 'results/findings'])).toBe('npm run cli -- sweep --preset all --seeds 1,2,3 --out results/findings');
    expect(shellQuote('#a=1&b=2')).toBe("'#a=1&b=2'");
  });

  it("a sweep's table records a command that pastes", async () => {
    const out = join(tmp, 'sweep');
    const args = ['--preset', 'T7', '--quick', '--config', '#evalQueries=8&evalToolQa=4', '--tables-only', '--out', out];
    vi.spyOn(console, 'log').mockImplementation(() => {});
    vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(await sweepCommand.run(args)).toBe(0);
    vi.restoreAllMocks();
    const { command } = JSON.parse(readFileSync(join(out, 'T7', 'table.json'), 'utf8')) as { command: string };
    expect(readFileSync(join(out, 'T7', 'table.md'), 'utf8')).toContain(`\`${command}\``);
    expect(bashWords([command])[0]).toEqual(['npm', 'run', 'cli', '--', 'sweep', ...args]);
  });

  it("repro reads a card's quoted command back into its arguments", () => {
    const card = shellCommand('npm run cli -- sft', ['--preset', 's', '--from', 'my pretrain/s', '--out', "Bob's run"]);
    expect(rerunArgs(card, '/tmp/re run')).toEqual(['--preset', 's', '--from', 'my pretrain/s', '--out', '/tmp/re run']);
    expect(bashWords([card])[0].slice(5)).toEqual(['--preset', 's', '--from', 'my pretrain/s', '--out', "Bob's run"]);
  });
});
