// An RL run's policy folder end to end: a one-step run from a tiny SFT checkpoint (made here
// with the `sft` command: 1 step, context 256 — the mechanics, not the learning) writes OUT/policy with an
// RL policy card naming its config and SFT start; `evaluate` accepts that folder, rebuilds the run's grown
// splits from the card, reproduces the run's final greedy evaluation, and adds the sampled success with its
// interval. summary.json carries the intervals of the start and final evaluations.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sftCommand } from '../../src/cli/commands/sft.ts';
import { evaluateCommand } from '../../src/cli/commands/evaluate.ts';
import { runRl, type RlSummary } from '../../src/cli/rlRun.ts';
import { readCard, readPolicyDir } from '../../src/node/checkpointDir.ts';
import { defaultConfig, type LabConfig } from '../../src/lab/config.ts';
import { serializeHash } from '../../src/lab/urlState.ts';
import { RL_POLICY_CARD_FORMAT } from '../../src/rl/checkpointFiles.ts';

const tmp = mkdtempSync(join(tmpdir(), 'star-policy-cli-'));
const ck = join(tmp, 'sft');
const run = join(tmp, 'run');
const LAB: LabConfig = { ...defaultConfig(), scale: 's', steps: 1, queriesPerStep: 1, groupSize: 2, evalEvery: 1, evalQueries: 3, evalToolQa: 1,
  evalSamples: 2, trainSize: 10, seed: 2 };
const out: string[] = [];
let summary: RlSummary;

beforeAll(async () => {
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  expect(await sftCommand.run(['--preset', 's', '--steps', '1', '--batch', '2', '--train-queries', '12', '--validation', '3', '--test', '2',
    '--tool-qa', '4', '--seed', '3', '--context', '256', '--out', ck])).toBe(0);
  // 5 CPU seconds this process spends before the run, which the run's cpuSeconds must not count
  const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
  const burnt = cpu() + 5;
  while (cpu() < burnt);
  summary = await runRl({ lab: LAB, out: run, checkpoint: ck, resume: false, backend: 'wasm', quiet: true });
}, 300_000);
afterAll(() => {
  vi.restoreAllMocks();
  rmSync(tmp, { recursive: true, force: true });
});

describe('an RL run writes a policy folder that evaluate scores', () => {
  it("counts the run's own CPU, not the process's (a sweep with --jobs 1 runs its runs in one process)", () => {
    expect(summary.cpuSeconds).toBeGreaterThan(0);
    expect(summary.cpuSeconds).toBeLessThan(summary.wallSeconds + 3); // one wasm thread (GC may add a little); the 5 s burnt before do not count
  });

  it('summary.json carries start and final intervals, the sampled success and n', () => {
    for (const f of [summary.start, summary.final]) {
      expect(f.queries).toBe(3);
      expect(f.samples).toBe(2);
      expect(f.successLo).toBeLessThanOrEqual(f.success);
      expect(f.successHi).toBeGreaterThanOrEqual(f.success);
      expect(f.sampleSuccessLo).toBeLessThanOrEqual(f.sampleSuccess!);
      expect(f.sampleSuccessHi).toBeGreaterThanOrEqual(f.sampleSuccess!);
      expect(f.successHi! - f.successLo!).toBeGreaterThan(0.3); // three queries resolve little
    }
    const written = JSON.parse(readFileSync(join(run, 'summary.json'), 'utf8')) as RlSummary;
    expect(written.final.successHi).toBe(summary.final.successHi);
    const evals = readFileSync(join(run, 'metrics.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"eval"')).map((l) => JSON.parse(l) as Record<string, number>);
    for (const k of ['eval/success', 'eval/success_lo', 'eval/success_hi', 'eval/sample_success', 'eval/sample_success_lo', 'eval/sample_success_hi', 'eval/queries']) {
      expect(evals[0][k], k).toBeTypeOf('number');
    }
  });

  it("the policy card names the run's config, its SFT start and the world and data of its splits", async () => {
    const loaded = await readPolicyDir(join(run, 'policy'));
    expect(loaded.kind).toBe('rl');
    if (loaded.kind !== 'rl') return;
    const card = loaded.policy.card;
    const sft = readCard(ck);
    // the config as trained: in its start's (tiny) world, whatever LAB's World size says
    expect(card).toMatchObject({ format: RL_POLICY_CARD_FORMAT, hash: serializeHash({ ...LAB, worldSize: 'tiny' }), steps: 1, backend: 'wasm',
      sft: { name: sft.name, sha256: sft.weights.sha256 },
      origin: { world: { size: 'tiny', seed: 3 }, data: { trainQueries: 12, validationQueries: 3, testQueries: 2, toolQa: 4, mix: [4, 3, 3] }, contextLength: 256 } });
    expect(card.sft.path).toBe(ck);
    expect(card.rl).toMatchObject({ evalSamples: 2, temperature: 0.7, steps: 1 });
    // The weights move exactly when the step had a mini-batch with signal (no AdamW step on a
    // mini-batch whose advantages are all zero); a 1-step SFT start often gives its two rollouts equal rewards.
    const steps = readFileSync(join(run, 'metrics.jsonl'), 'utf8').split('\n').filter((l) => l.includes('charts/minibatches'))
      .map((l) => JSON.parse(l) as Record<string, number>);
    expect(steps).toHaveLength(1);
    if (steps[0]['charts/minibatches'] > 0) expect(card.weights.sha256).not.toBe(sft.weights.sha256);
    else expect(card.weights.sha256).toBe(sft.weights.sha256);
  });

  it("evaluate --checkpoint OUT/policy reproduces the run's final greedy evaluation and adds the sampled success", async () => {
    const json = join(tmp, 'eval', 'policy.json');
    out.length = 0;
    expect(await evaluateCommand.run(['--checkpoint', join(run, 'policy'), '--n', '3', '--ood', '1', '--samples', '2', '--json', json])).toBe(0);
    const text = out.join('\n');
    expect(text).toContain('RL policy of run');
    expect(text).toMatch(/sampled success \(k 2, T 0.7\)/);
    expect(text).toMatch(/95 % interval \(conservative\) +\[\d+\.\d%, \d+\.\d%\]/);
    const written = JSON.parse(readFileSync(json, 'utf8')) as {
      card: { kind: string; sha256: string }; setup: { queries: number; samples: number; temperature: number };
      figures: { success: number; delivery: number; oodAccuracy: number }; intervals: { successInterval: { lo: number; hi: number } };
      sampled: { success: number; successInterval: { lo: number; hi: number }; querySuccess: number[] };
    };
    expect(written.card.kind).toBe('rl');
    expect(written.setup).toMatchObject({ queries: 3, samples: 2, temperature: 0.7 });
    // greedy decoding of the same weights on the same backend: the run's own final figures
    expect(written.figures.success).toBe(summary.final.success);
    expect(written.figures.delivery).toBe(summary.final.delivery);
    expect(written.figures.oodAccuracy).toBe(summary.final.ood);
    expect(written.intervals.successInterval.lo).toBeCloseTo(summary.final.successLo!, 12);
    expect(written.intervals.successInterval.hi).toBeCloseTo(summary.final.successHi!, 12);
    expect(written.sampled.querySuccess).toHaveLength(3);
    expect(written.sampled.successInterval.lo).toBeLessThanOrEqual(written.sampled.success);
  }, 120_000);

  it('refuses a policy folder whose weights do not match its card', async () => {
    const cardFile = join(run, 'policy', 'card.json');
    const card = JSON.parse(readFileSync(cardFile, 'utf8')) as { weights: { sha256: string } };
    writeFileSync(cardFile, JSON.stringify({ ...card, weights: { ...card.weights, sha256: '0'.repeat(64) } }));
    await expect(evaluateCommand.run(['--checkpoint', join(run, 'policy'), '--n', '1'])).rejects.toThrow(/refused: weights\.bin does not match its card/);
    writeFileSync(cardFile, JSON.stringify({ ...card, format: 'star-lab-rl-policy-card/1', sft: undefined }));
    await expect(evaluateCommand.run(['--checkpoint', join(run, 'policy'), '--n', '1'])).rejects.toThrow(/not a STAR Lab RL policy card \(sft/);
    expect(existsSync(join(run, 'policy', 'model.json'))).toBe(true);
  });
});
