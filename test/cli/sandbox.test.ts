// The sandbox CLI commands, run in-process on a temp folder: export writes TravelPlanner's layout
// with teacher plans that the eval command (reading the folder back) passes in full; a malformed
// plan line becomes an error line with its number, and every other line is still scored.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { worldCommand } from '../../src/cli/commands/world.ts';
import { queriesCommand } from '../../src/cli/commands/queries.ts';
import { exportCommand } from '../../src/cli/commands/export.ts';
import { evalCommand } from '../../src/cli/commands/eval.ts';
import { commands } from '../../src/cli/commands/index.ts';
import { COMMONSENSE_KEYS, HARD_KEYS } from '../../src/env/types.ts';

const tmp = mkdtempSync(join(tmpdir(), 'star-cli-'));
const out: string[] = [];
beforeAll(() => {
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
});
afterAll(() => {
  vi.restoreAllMocks();
  rmSync(tmp, { recursive: true, force: true });
});

const readLines = (path: string) => readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

describe('export then eval', () => {
  const dir = join(tmp, 'export');

  it('export writes the layout, and every teacher plan passes everything', async () => {
    expect(await exportCommand.run(['--size', 'tiny', '--queries', '12', '--seed', '5', '--mix', '1:1:1', '--out', dir])).toBe(0);
    const verdicts = readLines(join(dir, 'verdicts.jsonl'));
    expect(verdicts).toHaveLength(12);
    expect(verdicts.every((v) => v.final_pass === true)).toBe(true);
    const plans = readLines(join(dir, 'plans.jsonl'));
    expect(plans.map((p) => p.idx)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(Object.keys(plans[0])).toEqual(['idx', 'query', 'plan']);
  });

  it('eval of the exported plans: one line per plan, in order, all passing, TravelPlanner keys', async () => {
    const result = join(tmp, 'eval.jsonl');
    expect(await evalCommand.run(['--dir', dir, '--plans', join(dir, 'plans.jsonl'), '--out', result])).toBe(0);
    const lines = readLines(result);
    expect(lines.map((l) => l.idx)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    for (const l of lines) {
      expect(l.final_pass).toBe(true);
      expect(Object.keys(l.commonsense as object)).toEqual([...COMMONSENSE_KEYS]);
      expect(Object.keys(l.hard as object)).toEqual([...HARD_KEYS]);
      expect(l.reasons).toEqual({});
    }
    expect(out.join('\n')).toMatch(/final pass rate\s+100\.0%/);
  });

  it('a malformed line yields an error line with its number; the rest is scored', async () => {
    const good = readFileSync(join(dir, 'plans.jsonl'), 'utf8').trim().split('\n');
    const broken = join(tmp, 'broken.jsonl');
    // line 3 is cut short, line 6 names an unknown idx, line 8 has a plan that is not a list
    const lines = [...good.slice(0, 2), good[2].slice(0, 40), ...good.slice(3, 5), '{"idx": 999, "plan": null}', good[5], '{"idx": 2, "plan": "Day 1: fly"}'];
    writeFileSync(broken, lines.join('\n') + '\n');
    const result = join(tmp, 'broken-eval.jsonl');
    expect(await evalCommand.run(['--dir', dir, '--plans', broken, '--queries', join(dir, 'queries.jsonl'), '--out', result])).toBe(1);
    const res = readLines(result);
    expect(res).toHaveLength(8);
    expect(res[2]).toMatchObject({ line: 3 });
    expect(String(res[2].error)).toMatch(/not JSON/);
    expect(res[5]).toEqual({ line: 6, error: expect.stringMatching(/idx 999 is not in/) });
    expect(res[7]).toEqual({ line: 8, error: expect.stringMatching(/"plan" must be a list/) });
    expect([0, 1, 3, 4, 6].map((i) => [res[i].idx, res[i].final_pass])).toEqual([[1, true], [2, true], [4, true], [5, true], [6, true]]);
  });

  it('an undelivered or broken plan is scored as failing, with reasons', async () => {
    const plans = readLines(join(dir, 'plans.jsonl'));
    const day1 = (plans[0].plan as Record<string, unknown>[])[0];
    const edited = join(tmp, 'edited.jsonl');
    writeFileSync(edited, [
      JSON.stringify({ idx: 1, plan: null }),
      JSON.stringify({ idx: 1, plan: [{ ...day1, breakfast: 'Nowhere Diner, Atlantis' }, ...(plans[0].plan as unknown[]).slice(1)] }),
    ].join('\n'));
    const result = join(tmp, 'edited-eval.jsonl');
    expect(await evalCommand.run(['--dir', dir, '--plans', edited, '--out', result])).toBe(0);
    const [undelivered, hallucinated] = readLines(result);
    expect(undelivered).toMatchObject({ idx: 1, final_pass: false, hard: null });
    expect(hallucinated.final_pass).toBe(false);
    expect((hallucinated.commonsense as Record<string, unknown>).is_valid_information_in_sandbox).toBe(false);
    expect((hallucinated.reasons as Record<string, string>).is_valid_information_in_sandbox).toMatch(/Nowhere Diner/);
  });
});

describe('export of the real world', () => {
  it('gold plans (default) and teacher plans pass every official check; an unsolved query is undelivered', async () => {
    for (const kind of ['gold', 'teacher']) {
      const dir = join(tmp, `real-${kind}`);
      expect(await exportCommand.run(['--world', 'real', '--plans', kind, '--queries', '15', '--out', dir])).toBe(0);
      const verdicts = readLines(join(dir, 'verdicts.jsonl'));
      const plans = readLines(join(dir, 'plans.jsonl'));
      expect(verdicts, kind).toHaveLength(15);
      const delivered = verdicts.filter((_, i) => plans[i].plan !== null);
      expect(delivered.filter((v) => v.final_pass !== true), kind).toEqual([]);
      // the teacher samples among valid choices and may find nothing within a tight real budget
      // (seed 1: query 14, a 7-day Texas trip on $3,600); the gold plans exist for all
      expect(delivered.length, kind).toBeGreaterThanOrEqual(kind === 'gold' ? 15 : 13);
      for (const [i, v] of verdicts.entries()) if (plans[i].plan === null) expect(v).toMatchObject({ final_pass: false, hard: null });
    }
  });
});

describe('world and queries', () => {
  it('world prints a summary of a generated or the real world', async () => {
    out.length = 0;
    expect(await worldCommand.run(['--size', 'tiny', '--seed', '2', '--json'])).toBe(0);
    expect(JSON.parse(out[0])).toMatchObject({ source: 'tiny', seed: 2 });
    out.length = 0;
    expect(await worldCommand.run(['--size', 'real'])).toBe(0);
    expect(out.join('\n')).toMatch(/restaurants\s+1989/);
  });

  it('queries writes N TravelPlanner query objects with idx', async () => {
    const file = join(tmp, 'q', 'train.jsonl');
    expect(await queriesCommand.run(['--size', 'tiny', '--seed', '3', '--count', '9', '--mix', '1:1:1', '--validation', '0', '--test', '0', '--out', file])).toBe(0);
    const qs = readLines(file);
    expect(qs.map((q) => q.idx)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(qs.map((q) => q.level).sort()).toEqual(['easy', 'easy', 'easy', 'hard', 'hard', 'hard', 'medium', 'medium', 'medium']);
    const real = join(tmp, 'q', 'real.jsonl');
    expect(await queriesCommand.run(['--size', 'real', '--count', '45', '--out', real])).toBe(0);
    expect(readLines(real)).toHaveLength(45);
  });
});

describe('flags', () => {
  it('every sandbox command is registered and has help', () => {
    for (const name of ['world', 'queries', 'export', 'eval']) {
      const c = commands.find((x) => x.name === name);
      expect(c?.help, name).toMatch(/^usage: npm run cli -- /);
    }
  });

  it('bad flags are clear errors', async () => {
    await expect(worldCommand.run(['--size', 'huge'])).rejects.toThrow('--size must be one of tiny|small|standard|real, got "huge"');
    await expect(worldCommand.run(['--colour', 'red'])).rejects.toThrow(/unknown option --colour/);
    await expect(queriesCommand.run(['--out', join(tmp, 'x.jsonl'), '--mix', '4:3'])).rejects.toThrow(/--mix needs three/);
    await expect(queriesCommand.run(['--size', 'tiny'])).rejects.toThrow('--out needs a value');
    await expect(exportCommand.run(['--out', join(tmp, 'e'), '--queries', 'many'])).rejects.toThrow(/--queries needs an integer/);
    await expect(exportCommand.run(['--out', join(tmp, 'e'), '--world', 'real', '--size', 'tiny'])).rejects.toThrow(/--world real takes no --size/);
    await expect(exportCommand.run(['--out', join(tmp, 'e'), '--size', 'tiny', '--plans', 'gold'])).rejects.toThrow(/--plans gold needs --world real/);
    await expect(evalCommand.run(['--dir', join(tmp, 'nope'), '--plans', 'p', '--out', 'o'])).rejects.toThrow(/no database\/ folder/);
    await expect(evalCommand.run(['--dir', join(tmp, 'export'), '--plans', join(tmp, 'missing.jsonl'), '--out', join(tmp, 'o.jsonl')])).rejects.toThrow(/no such file: .*missing.jsonl/);
  });
});
