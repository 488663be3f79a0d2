// The checkpoint commands end to end, on a checkpoint this file makes with the `sft`
// command itself (1 step on a handful of queries, context 256: the mechanics, not the learning):
// `evaluate` with the card's setup reproduces the card's evaluation (with intervals); a truncated, altered, mismatched
// or incomplete copy is refused with its reason by readCheckpointDir and by the CLI (`npm run cli --
// evaluate`, a real process: exit 1, the reason on stderr, no --json file); `repro` of the checkpoint
// is identical.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliProcess } from './cliProcess.ts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sftCommand } from '../../src/cli/commands/sft.ts';
import { evaluateCommand } from '../../src/cli/commands/evaluate.ts';
import { reproCommand } from '../../src/cli/commands/repro.ts';
import { readCard, readCheckpointDir } from '../../src/node/checkpointDir.ts';
import type { QueryVerdict } from '../../src/rl/checkpointFiles.ts';

const tmp = mkdtempSync(join(tmpdir(), 'star-ckpt-cli-'));
const ck = join(tmp, 'ck');
const SFT_ARGS = ['--preset', 's', '--steps', '1', '--batch', '2', '--train-queries', '12', '--validation', '3', '--test', '2', '--tool-qa', '4', '--seed', '3', '--context', '256'];
const out: string[] = [];

beforeAll(async () => {
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  expect(await sftCommand.run([...SFT_ARGS, '--out', ck])).toBe(0);
}, 300_000);
afterAll(() => {
  vi.restoreAllMocks();
  rmSync(tmp, { recursive: true, force: true });
});


describe('sft then evaluate', () => {
  it('sft writes a checkpoint that validates, with a card that says how it was made', async () => {
    const { card } = await readCheckpointDir(ck);
    expect(card.command).toBe(`npm run cli -- sft ${[...SFT_ARGS, '--out', ck].join(' ')}`);
    expect(card).toMatchObject({ preset: 's', seed: 3, backend: 'wasm', sft: { steps: 1, batchSize: 2 },
      data: { trainQueries: 12, validationQueries: 3, testQueries: 2, toolQa: 4 } });
    expect(card.evaluation.free.queries).toBe(3);
    expect(card.verdictCheck.queries).toHaveLength(3);
    expect(existsSync(join(ck, 'resume'))).toBe(false);
  });

  it("evaluate with the card's setup reproduces the card's evaluation; --json holds the figures and every verdict", async () => {
    const json = join(tmp, 'eval', 'free.json');
    out.length = 0;
    // the split is grown to 300 queries (the card's 3 first): --n 3 is the card's own evaluation
    expect(await evaluateCommand.run(['--checkpoint', ck, '--n', '3', '--json', json])).toBe(0);
    expect(out.join('\n')).toContain("the card's evaluation is reproduced");
    const written = JSON.parse(readFileSync(json, 'utf8')) as { figures: unknown; verdicts: QueryVerdict[]; setup: { queries: number }; failedChecks: { failed: number }[] };
    const card = readCard(ck);
    // the card stores NaN as null, as JSON.stringify does
    expect(written.figures).toEqual(JSON.parse(JSON.stringify(card.evaluation.free)));
    expect(written.setup.queries).toBe(3);
    expect(written.verdicts.map((v) => v.id)).toEqual(card.verdictCheck.queries.map((v) => v.id));
    expect(written.verdicts.filter((v) => v.delivered).length / 3).toBe(card.evaluation.free.delivery);
    expect(out.join('\n')).toMatch(/95 % interval +\[\d+\.\d%, \d+\.\d%\]/);
    // the failed-check breakdown counts exactly the checks the verdicts name
    const failed = written.verdicts.flatMap((v) => v.failed);
    expect(written.failedChecks.reduce((a, c) => a + c.failed, 0)).toBe(failed.length);
    if (failed.length > 0) expect(out.join('\n')).toContain(`failed checks (share of the 3 queries`);
  }, 120_000);

  it('evaluate --split test --n 1 --ood 0 --decoding constrained evaluates what it is asked', async () => {
    const json = join(tmp, 'eval', 'test.json');
    out.length = 0;
    expect(await evaluateCommand.run(['--checkpoint', ck, '--split', 'test', '--n', '1', '--ood', '0', '--decoding', 'constrained', '--json', json])).toBe(0);
    const written = JSON.parse(readFileSync(json, 'utf8')) as { setup: Record<string, unknown>; verdicts: unknown[]; figures: { toolQaTasks: number } };
    expect(written.setup).toMatchObject({ split: 'test', queries: 1, toolQaTasks: 0, decoding: 'constrained' });
    expect(written.verdicts).toHaveLength(1);
    expect(written.figures.toolQaTasks).toBe(0);
    expect(out.join('\n')).not.toContain("card's evaluation"); // another setup: nothing to compare with
    await expect(evaluateCommand.run(['--checkpoint', ck, '--n', '301'])).rejects.toThrow('--n 301: the validation split has 300 queries');
  }, 120_000);
});

// each damage, and the words that must appear in the reason
const DAMAGE: [string, (dir: string) => void, RegExp][] = [
  ['a truncated weights.bin', (d) => truncateSync(join(d, 'weights.bin'), 1000), /weights\.bin has 1000 bytes, model\.json describes \d+ \(truncated\?\)/],
  ['a weights.bin with one byte flipped', (d) => {
    const b = readFileSync(join(d, 'weights.bin'));
    b[4321] ^= 0x01;
    writeFileSync(join(d, 'weights.bin'), b);
  }, /weights\.bin does not match its card \(SHA-256/],
  ["a card with another dModel", (d) => {
    const card = JSON.parse(readFileSync(join(d, 'card.json'), 'utf8')) as { modelConfig: { dModel: number } };
    card.modelConfig.dModel = 128;
    writeFileSync(join(d, 'card.json'), JSON.stringify(card));
  }, /model\.json and card\.json disagree on dModel \(64 vs 128\)/],
  ['no model.json', (d) => rmSync(join(d, 'model.json')), /is not a checkpoint: model\.json is missing/],
  ['a card.json that is not JSON', (d) => writeFileSync(join(d, 'card.json'), '{"format": "star-lab-sft-card/1",'), /card\.json is not valid JSON/],
];

describe('a damaged checkpoint is refused with its reason, and nothing is written', () => {
  const damaged = DAMAGE.map(([what, damage], i) => {
    const dir = join(tmp, `damaged-${i}`);
    return { what, dir, damage };
  });
  beforeAll(() => {
    for (const { dir, damage } of damaged) {
      mkdirSync(dir);
      for (const f of ['model.json', 'weights.bin', 'card.json']) copyFileSync(join(ck, f), join(dir, f));
      damage(dir);
    }
  });

  it.each(DAMAGE.map(([what, , reason], i) => ({ what, reason, i })))('readCheckpointDir: $what', async ({ reason, i }) => {
    await expect(readCheckpointDir(damaged[i].dir)).rejects.toThrow(reason);
  });

  it('npm run cli -- evaluate: exit 1, the reason on stderr, no --json file', async () => {
    const runs = await Promise.all(damaged.map(({ dir }, i) => cliProcess(['evaluate', '--checkpoint', dir, '--json', join(tmp, `out-${i}`, 'eval.json')])));
    runs.forEach((r, i) => {
      expect(r.code, `${damaged[i].what}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toContain(`checkpoint ${damaged[i].dir} refused: `);
      expect(r.stderr).toMatch(DAMAGE[i][2]);
      expect(existsSync(join(tmp, `out-${i}`)), damaged[i].what).toBe(false);
    });
  }, 180_000);
});

describe('repro', () => {
  it("reruns the card's command into a new folder and finds it identical", async () => {
    out.length = 0;
    const rerun = join(tmp, 'rerun');
    expect(await reproCommand.run(['sft', 's', '--checkpoint', ck, '--out', rerun])).toBe(0);
    expect(out.join('\n')).toMatch(/identical: the rerun's weights and evaluation match/);
    expect(readCard(rerun).weights.sha256).toBe(readCard(ck).weights.sha256);
    // a finished folder is never overwritten
    await expect(reproCommand.run(['sft', 's', '--checkpoint', ck, '--out', rerun])).rejects.toThrow('already holds a finished checkpoint');
  }, 300_000);
});
