// The pretraining stage end to end, at toy budgets (a few steps of batch 2 at context 256:
// the mechanics, not the learning): `pretrain` writes a checkpoint with its card; a run stopped and
// resumed ends with the same weights as an uninterrupted one; its worlds are never the evaluation
// world (nor any of that world's validation sequences); `sft --from` starts from its weights and the
// SFT card names both stages; `repro` reruns both; bad input is refused with its reason and writes nothing.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pretrainCommand } from '../../src/cli/commands/pretrain.ts';
import { sftCommand } from '../../src/cli/commands/sft.ts';
import { reproCommand } from '../../src/cli/commands/repro.ts';
import { readCard, readPretrainDir } from '../../src/node/checkpointDir.ts';
import { assertNotEvaluationWorld, EVALUATION_WORLDS, GROUP_WORLDS, pretrainGroup, pretrainWorld } from '../../src/rl/pretrainData.ts';
import { sftPipelineData } from '../../src/rl/sftPipeline.ts';
import { buildSftData } from '../../src/agent/sftData.ts';

const tmp = mkdtempSync(join(tmpdir(), 'star-pretrain-cli-'));
const PT_ARGS = ['--preset', 's', '--tokens', '2500', '--batch', '2', '--world-queries', '6', '--world-tool-qa', '2', '--context', '256', '--checkpoint-every', '2'];
const SFT_ARGS = ['--preset', 's', '--steps', '1', '--batch', '2', '--train-queries', '12', '--validation', '3', '--test', '2', '--tool-qa', '4', '--seed', '3', '--context', '256'];
const pt = join(tmp, 'pt');
const out: string[] = [];

beforeAll(async () => {
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  expect(await pretrainCommand.run([...PT_ARGS, '--out', pt])).toBe(0);
}, 300_000);
afterAll(() => {
  vi.restoreAllMocks();
  rmSync(tmp, { recursive: true, force: true });
});

describe('pretrain', () => {
  it('writes a checkpoint that validates, with a card that says how it was made', async () => {
    const { card } = await readPretrainDir(pt);
    expect(card).toMatchObject({ preset: 's', seed: 1, backend: 'wasm', tokens: { budget: 2500 }, worlds: { queriesPerWorld: 6, toolQaPerWorld: 2 } });
    expect(card.command).toBe(`npm run cli -- pretrain ${[...PT_ARGS, '--out', pt].join(' ')}`);
    expect(card.tokens.consumed).toBeGreaterThanOrEqual(2500);
    expect(card.worlds.count % GROUP_WORLDS).toBe(0);
    expect(card.schedule.steps).toBeGreaterThan(2);
    expect(existsSync(join(pt, 'resume'))).toBe(false);
  });

  it('stopped after 3 steps and resumed, it ends with the same weights as the uninterrupted run', async () => {
    const dir = join(tmp, 'pt-resumed');
    expect(await pretrainCommand.run([...PT_ARGS, '--out', dir, '--session-steps', '3'])).toBe(0);
    expect(existsSync(join(dir, 'card.json'))).toBe(false);
    expect(existsSync(join(dir, 'resume', 'state.json'))).toBe(true);
    // an unfinished run is no starting point
    await expect(readPretrainDir(dir)).rejects.toThrow('still in progress');
    expect(await pretrainCommand.run([...PT_ARGS, '--out', dir, '--resume'])).toBe(0);
    const [a, b] = [(await readPretrainDir(pt)).card, (await readPretrainDir(dir)).card];
    expect(b.weights.sha256).toBe(a.weights.sha256);
    expect(b.tokens.consumed).toBe(a.tokens.consumed);
    expect(b.command).toBe(a.command.replace(pt, dir)); // the session flags are not part of the run
    // a finished run is left alone by --resume, and refused without it
    expect(await pretrainCommand.run([...PT_ARGS, '--out', dir, '--resume'])).toBe(0);
    await expect(pretrainCommand.run([...PT_ARGS, '--out', dir])).rejects.toThrow('already holds a finished pretraining run');
  }, 300_000);
});

describe('the world stream never is the evaluation world', () => {
  it('no (size, seed) of the first 10,000 worlds of run seeds 0…9 is an evaluation world; the guard refuses one', () => {
    const hits: string[] = [];
    for (let seed = 0; seed < 10; seed++) {
      for (let k = 0; k < 10_000; k++) {
        const w = pretrainWorld(seed, k);
        if (w.size === 'tiny' || EVALUATION_WORLDS.some((e) => e.size === w.size && e.seed === w.seed)) hits.push(`${seed}:${k}`);
      }
    }
    expect(hits).toEqual([]);
    expect(() => assertNotEvaluationWorld({ size: 'tiny', seed: 1 })).toThrow('is an evaluation world');
  });

  it("no sequence of the stream's first group is one of the tiny world's validation or test sequences", () => {
    const { world, validation, test } = sftPipelineData({ worldSize: 'tiny', seed: 1, trainQueries: 1000, validationQueries: 100, testQueries: 100,
      toolQa: 0, preset: 's', steps: 1, model: { contextLength: 576 } });
    const held = buildSftData(world, [...validation, ...test], { seed: 0, maxLength: 576 }).examples.map((e) => e.tokens.join(' '));
    expect(held.length).toBeGreaterThan(150);
    const group = pretrainGroup({ seed: 1, batchSize: 8, contextLength: 576, worldQueries: 64, worldToolQa: 16 }, 0);
    const seen = new Set(held);
    expect(group.examples.length).toBeGreaterThan(200);
    expect(group.examples.filter((e) => seen.has(e.tokens.join(' ')))).toEqual([]);
  }, 60_000);
});

describe('sft --from', () => {
  it("starts from the pretrain weights (at lr 1e-30 the SFT's weights are the pretrain's) and the card names both stages", async () => {
    const dir = join(tmp, 'sft-frozen');
    expect(await sftCommand.run([...SFT_ARGS, '--lr', '1e-30', '--out', dir, '--from', pt])).toBe(0);
    const [a, b] = [floats(join(dir, 'weights.bin')), floats(join(pt, 'weights.bin'))];
    expect(a.length).toBe(b.length);
    let worst = 0;
    for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
    expect(worst).toBeLessThan(1e-20); // one AdamW step moves a weight by ≤ ~lr; a random init would differ by ~0.1
  }, 120_000);

  it('the card records the pretrain stage beside its own, and repro reruns both stages identically', async () => {
    const dir = join(tmp, 'sft');
    expect(await sftCommand.run([...SFT_ARGS, '--out', dir, '--from', pt])).toBe(0);
    const card = readCard(dir);
    const ptCard = (await readPretrainDir(pt)).card;
    expect(card.pretrain).toEqual({ path: pt, name: 's-pretrain', sha256: ptCard.weights.sha256, tokens: ptCard.tokens.consumed, worlds: ptCard.worlds.count,
      steps: ptCard.schedule.steps, trainSeconds: ptCard.trainSeconds, command: ptCard.command, commit: ptCard.commit });
    expect(card.sft.steps).toBe(1);
    expect(card.command).toContain(`--from ${pt}`);
    out.length = 0;
    const rerun = join(tmp, 'rerun');
    expect(await reproCommand.run(['sft', 's', '--checkpoint', dir, '--out', rerun])).toBe(0);
    expect(out.join('\n')).toContain('pretrain stage: weights identical');
    expect(readCard(rerun).pretrain?.path).toBe(join(rerun, 'pretrain'));
  }, 300_000);
});

function floats(path: string): Float32Array {
  const b = readFileSync(path);
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

describe('bad input is refused with its reason, and nothing is written', () => {
  const cases: [string, () => Promise<number>, RegExp][] = [
    ['an unknown preset', () => pretrainCommand.run(['--preset', 'xl', '--out', join(tmp, 'bad-1')]), /--preset must be one of s\|m\|l, got "xl"/],
    ['--tokens 0', () => pretrainCommand.run(['--preset', 's', '--tokens', '0', '--out', join(tmp, 'bad-2')]), /--tokens needs an integer ≥ 1, got "0"/],
    ['--tokens -5', () => pretrainCommand.run(['--preset', 's', '--tokens', '-5', '--out', join(tmp, 'bad-3')]), /--tokens needs an integer ≥ 1, got "-5"/],
    ['--from an SFT checkpoint', () => sftCommand.run([...SFT_ARGS, '--out', join(tmp, 'bad-4'), '--from', 'public/checkpoints/s-tiny']),
      /is not a pretrain checkpoint: its card's format is "star-lab-sft-card\/1"/],
    ['--from a missing folder', () => sftCommand.run([...SFT_ARGS, '--out', join(tmp, 'bad-5'), '--from', join(tmp, 'nowhere')]),
      /is not a pretrain checkpoint: model\.json is missing/],
    ['--from a pretrain checkpoint of another preset', () => sftCommand.run([...SFT_ARGS.map((a) => (a === 's' ? 'm' : a)), '--out', join(tmp, 'bad-6'), '--from', pt]),
      /the pretrain checkpoint is preset s, this SFT is preset m/],
    ['--from a pretrain checkpoint of another context', () => sftCommand.run([...SFT_ARGS.map((a) => (a === '256' ? '320' : a)), '--out', join(tmp, 'bad-7'), '--from', pt]),
      /the pretrain checkpoint has contextLength 256, this SFT 320/],
  ];
  it.each(cases.map(([what, run, reason], i) => ({ what, run, reason, i })))('$what', async ({ run, reason, i }) => {
    await expect(run()).rejects.toThrow(reason);
    expect(existsSync(join(tmp, `bad-${i + 1}`))).toBe(false);
  });
});
