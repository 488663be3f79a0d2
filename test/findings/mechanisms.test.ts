// Each finding's mechanism, measured: the figures come from the runs' logged metrics (mean over seeds with a t
// interval), the committed record is what its runs give today, and docs/findings.md states each sentence as
// the record does.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findingMechanism, mechanismsMarkdown, mechanismStep, type MechanismRun, type MechanismStep, type MechanismsRecord } from '../../src/findings/mechanisms.ts';
import { mechanismsOf } from '../../src/cli/commands/mechanisms.ts';
import { readGainTableFiles } from '../../src/cli/gainTableFiles.ts';
import { readMechanisms } from '../../src/ui/findings/mechanismRecord.ts';
import { tInterval } from '../../src/stats/intervals.ts';

const step = (i: number, o: Partial<MechanismStep>): MechanismStep =>
  ({ step: i, stage: i <= 2 ? 0 : i <= 4 ? 1 : 2, success: 0.1, zeroSignal: 0, toolCalls: 10, toolFailures: 0, entropy: 0.2, rollouts: 32, ...o });
/** a run of 6 steps (two a Curriculum stage) whose Success-stage steps have `zero` groups without signal */
const run = (seed: number, zero: number, o: Partial<MechanismStep> = {}, ood: [number, number] = [0.5, 0.5]): MechanismRun =>
  ({ seed, groupSize: 8, trainSize: 100, oodStart: ood[0], oodEnd: ood[1], steps: [1, 2, 3, 4, 5, 6].map((i) => step(i, { ...o, zeroSignal: i > 4 ? zero : 0 })) });

describe('findingMechanism', () => {
  it("T7: failed calls per rollout and the Success stage's groups without signal, per arm with its t interval over seeds", () => {
    const arms: Record<string, MechanismRun[]> = {
      'success · 0 %': [run(1, 0.5), run(2, 0.6), run(3, 0.55)],
      'success · 5 %': [run(1, 0.6, { toolFailures: 0.5 }), run(2, 0.65, { toolFailures: 0.6 })],
      'success · 10 %': [run(1, 0.8, { toolFailures: 1, toolCalls: 12 }), run(2, 0.85, { toolFailures: 1.2, toolCalls: 12 }), run(3, 0.9, { toolFailures: 1.1, toolCalls: 12 })],
      'null control': [run(1, 0.9), run(2, 0.95)],
    };
    const m = findingMechanism('T7', (a) => arms[a] ?? []);
    const sparse = m.figures.find((f) => f.what === 'Groups with no signal')!;
    const z10 = sparse.arms.find((a) => a.arm === 'success · 10 %')!;
    const iv = tInterval([80, 85, 90]);
    expect(z10).toEqual({ arm: 'success · 10 %', n: 3, mean: 85, lo: Math.round(10 * iv.lo) / 10, hi: Math.round(10 * iv.hi) / 10 });
    expect(sparse.arms.find((a) => a.arm === 'success · 5 %')!.n).toBe(2);
    expect(m.figures[0].arms.map((a) => a.mean)).toEqual([0, 0.55, 1.1]);
    expect(m.figures[1].arms.map((a) => a.mean)).toEqual([10, 10, 12]);
    expect(m.figures[2].arms.find((a) => a.arm === 'success · 10 %')!.mean).toBeCloseTo(9.2, 1); // 1.1 of 12 calls
    // 10 %'s interval lies above 0 %'s: the sentence says the reward is starved
    expect(m.sentence).toMatch(/^At 10 % a rollout meets 1\.10 failed calls .*makes 12\.00 and 10\.00 calls against 10\.00 without failures.* Failed calls starve the reward as the paper says/);
    expect(m.notLogged).toMatch(/Rollouts cut short by a failure/);
  });

  it('T7 does not say the reward is starved where the intervals overlap', () => {
    const same = [run(1, 0.5), run(2, 0.7), run(3, 0.6)];
    const m = findingMechanism('T7', (a) => (a === 'null control' ? [] : a === 'success · 5 %' ? same : same.map((r) => ({ ...r, steps: r.steps.map((s) => ({ ...s, toolFailures: 1 })) }))));
    expect(m.sentence).toMatch(/does not separate 10 % from none/);
  });

  it('T4: passes over the training set from the rollouts drawn, and OOD drift in points', () => {
    const arms: Record<string, MechanismRun[]> = {};
    for (const n of [100, 1000, 2000]) {
      const runs = [1, 2].map((seed) => ({ ...run(seed, 0, {}, [0.5, 0.48 + 0.01 * seed]), trainSize: n }));
      arms[`in-domain · ${n}`] = runs;
      arms[`OOD · ${n}`] = runs;
    }
    const m = findingMechanism('T4', (a) => arms[a] ?? []);
    // 6 steps × 32 rollouts ÷ 8 a group = 24 queries drawn
    expect(m.figures[0].arms.map((a) => a.mean)).toEqual([0.24, 0.02, 0.01]);
    expect(m.figures[1].arms[0].mean).toBeCloseTo(-0.5, 5);
    expect(m.sentence).toMatch(/^A run draws 24 training queries: 0\.24 passes over a pool of 100/);
  });

  it('reads a logged step by the trainer\'s metric names, and refuses one missing a metric', () => {
    const line = { kind: 'train', step: 3, curriculum_stage: 1, success: 0.1, frac_zero_std_groups: 0.25, tool_calls: 9, tool_failures: 0.5, entropy: 0.2, 'charts/rollouts': 32, 'arpo/branches': 16 };
    const read = { step: 3, stage: 1, success: 0.1, zeroSignal: 0.25, toolCalls: 9, toolFailures: 0.5, entropy: 0.2, rollouts: 32, arpoBranches: 16, dapoDropped: undefined };
    expect(mechanismStep(line)).toEqual(read);
    expect(() => mechanismStep({ ...line, entropy: undefined })).toThrow(/metric losses\/entropy is undefined/);
    // a line under today's names reads the same (the entropy of one logged since the rename threw before)
    const now = { kind: 'train', step: 3, 'charts/curriculum_stage': 1, 'charts/success': 0.1, 'charts/frac_zero_std_groups': 0.25, 'charts/tool_calls': 9,
      'charts/tool_failures': 0.5, 'losses/entropy': 0.2, 'charts/rollouts': 32, 'arpo/branches': 16 };
    expect(mechanismStep(now)).toEqual(read);
  });
});

describe('the committed mechanisms record', () => {
  const text = readFileSync('results/findings/mechanisms.json', 'utf8');
  const record = JSON.parse(text) as MechanismsRecord;

  it('is what the committed runs give today, for every finding, from a clean commit', () => {
    expect(record.findings).toEqual(mechanismsOf(readGainTableFiles('results/findings')));
    expect(record.findings.map((f) => f.id)).toEqual(['T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7']);
    expect(record.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(record).not.toHaveProperty('dirtyFiles');
  });

  it('its text names what it read: the tables and run folders in its record, no fixed folder', () => {
    const md = mechanismsMarkdown({ ...record, command: 'cmd --out /tmp/y', inputs: { tables: ['/tmp/y/T7/table.json'], runs: 3, folders: ['/tmp/y/runs'] } });
    expect(md).toContain('the 3 runs the standard tables `/tmp/y/T7/table.json` name (in `/tmp/y/runs`)');
    expect(md).not.toContain('(results/findings/runs)');
  });

  it('the page reads it', () => {
    const read = readMechanisms({ '/results/findings/mechanisms.json': text });
    expect(read).toBeInstanceOf(Map);
    expect((read as Map<string, { table?: { sentence: string } }>).get('T5')?.table?.sentence).toBe(record.findings.find((f) => f.id === 'T5')!.sentence);
    expect(readMechanisms({ '/m.json': '{"format":"x"}' })).toEqual({ error: expect.stringMatching(/^\/m\.json is not a mechanisms record: format/) });
  });

  it("docs/findings.md states each finding's sentence as the record does", () => {
    const doc = readFileSync('docs/findings.md', 'utf8').replace(/\s+/g, ' ');
    const missing = record.findings.filter((f) => !doc.includes(f.sentence)).map((f) => `${f.id}: ${f.sentence}`);
    expect(missing, 'mechanism sentences docs/findings.md does not state as the record does').toEqual([]);
  });
});
