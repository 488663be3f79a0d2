// One source for usage: docs/cli.md's usage block of each command is its --help (the help
// strings imported, no process spawned); every command refuses unknown flags, switch values and stray
// arguments before running anything (bench included); a --config error says nothing was run, not what the
// page would do instead.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands/index.ts';
import { usageBlocks } from '../../src/cli/usageDocs.ts';
import { benchCommand } from '../../src/cli/commands/bench.ts';
import { runCommand } from '../../src/cli/commands/run.ts';
import { reproCommand } from '../../src/cli/commands/repro.ts';
import { labConfigWithOptions } from '../../src/cli/labConfigArg.ts';

describe('docs/cli.md and --help', () => {
  it('every command has a usage block in docs/cli.md equal to its --help', () => {
    const blocks = usageBlocks(readFileSync('docs/cli.md', 'utf8'), commands.map((c) => c.name));
    for (const c of commands) {
      expect(blocks.has(c.name), `docs/cli.md has no usage block under "### ${c.name}"`).toBe(true);
      expect(blocks.get(c.name)!.text, `docs/cli.md's block for ${c.name} differs from its --help: run npx tsx scripts/sync-cli-docs.ts`).toBe(c.help);
    }
  });
});

describe("docs/cli.md's command table", () => {
  it('lists every command', () => {
    const md = readFileSync('docs/cli.md', 'utf8');
    const listed = new Set([...md.matchAll(/^\| \[?`([\w-]+)`/gm)].map((m) => m[1]));
    expect(commands.map((c) => c.name).filter((n) => !listed.has(n))).toEqual([]);
  });
});

describe('bad flags run nothing', () => {
  it('each command refuses an unknown flag', async () => {
    for (const c of commands) {
      const args = c.name === 'repro' ? ['sft', 's', '--bogus', 'x'] : ['--bogus', 'x'];
      await expect(c.run(args), c.name).rejects.toThrow(/unknown option --bogus.*nothing was run/);
    }
  });

  it('bench refuses an unknown suite and names the suites; a switch with a value and a stray word are refused', async () => {
    await expect(benchCommand.run(['--only', 'nosuch'])).rejects.toThrow(/--only: no suite "nosuch" \(suites: evaluator, .*\); nothing was run/);
    await expect(benchCommand.run(['--only', 'nosuch', '--bogus'])).rejects.toThrow(/unknown option --bogus/);
    await expect(runCommand.run(['--config', '#steps=2', '--out', 'x', '--resume', 'yes'])).rejects.toThrow(/--resume takes no value, got "yes"/);
    await expect(benchCommand.run(['extra'])).rejects.toThrow(/unexpected argument "extra"/);
    await expect(reproCommand.run(['sft', 's', '--bogus'])).rejects.toThrow(/unknown option --bogus/);
  });

  it('a bad --config says nothing was run, not that a default is used', async () => {
    const e = await runCommand.run(['--config', '#steps=0', '--out', 'x']).catch((x: Error) => x.message);
    expect(e).toMatch(/--config has problems, so nothing was run:\n {2}steps: .*between 1 and/);
    expect(e).not.toMatch(/using the default/);
    // nor that an unknown key is "ignored": nothing ran at all
    const unknown = await runCommand.run(['--config', '#scale=s&nosuchkey=1', '--out', 'x']).catch((x: Error) => x.message);
    expect(unknown).toMatch(/nothing was run:\n {2}nosuchkey: is not a setting of this lab\n\(every setting.*npm run cli -- settings\)$/);
  });

  it('a setting typed wrong gets the nearest name; a setting given as an option is taken by run, pointed to --config elsewhere', async () => {
    const typo = await runCommand.run(['--config', '#stpes=3', '--out', 'x']).catch((x: Error) => x.message);
    expect(typo).toMatch(/stpes: is not a setting of this lab \(did you mean steps\?\)/);
    expect(labConfigWithOptions('#scale=s&seed=5', new Map([['seed', '2'], ['steps', '7'], ['out', 'x']]))).toMatchObject({ scale: 's', seed: 2, steps: 7 });
    expect(() => labConfigWithOptions(undefined, new Map([['seed', true]]))).toThrow(/--seed needs a value/);
    expect(() => labConfigWithOptions(undefined, new Map([['steps', '0']]))).toThrow(/steps: .*between 1 and/);
    const sweep = commands.find((c) => c.name === 'sweep')!;
    await expect(sweep.run(['--seed', '2'])).rejects.toThrow(/--seed \(seed is a setting: pass it in --config/);
    await expect(runCommand.run(['--ot', 'x'])).rejects.toThrow(/--ot \(did you mean --out\?\)/);
  });
});
