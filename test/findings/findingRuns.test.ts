// A finding's grid as runs, and the user's runs read back as its results (src/findings/findingRuns.ts;
// moved here from test/lab/runQueue.test.ts with the code).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { defaultConfig, type LabConfig } from '../../src/lab/config.ts';
import { FINDINGS, findingById } from '../../src/findings/findings.ts';
import { parseHash } from '../../src/lab/urlState.ts';
import { configKey, findRunFor, gridRuns, gridSeedConfigs, runResultOf, userOverrides } from '../../src/findings/findingRuns.ts';

const TINY = parseHash('#finding=T7&scale=l&steps=1&queriesPerStep=1&groupSize=2&evalEvery=1&evalQueries=0&evalToolQa=1&trainSize=20&seed=6').config;
const cfg = (patch: Partial<LabConfig>): LabConfig => ({ ...defaultConfig(), ...patch });

describe('gridRuns', () => {
  it("resolves T7 from a tiny link: the user's settings over the finding's base, the cell's axis on top", () => {
    const runs = gridRuns(findingById('T7'), TINY);
    expect(runs.map((r) => r.config.toolFailureRate)).toEqual([0, 0.05, 0.1]);
    for (const r of runs) {
      expect(r.config.scale).toBe('l'); // the user's l beats T7's base m
      expect(r.config.reward).toBe('curriculum'); // the base
      expect([r.config.steps, r.config.groupSize, r.config.evalQueries, r.config.seed]).toEqual([1, 2, 0, 6]);
      expect(r.config.stage).toBe('rl');
      expect(r.key).toBe(configKey(r.config));
    }
    expect(new Set(runs.map((r) => r.key)).size).toBe(3);
  });

  it('lets the varied axis win over the user', () => {
    const runs = gridRuns(findingById('T1'), cfg({ scale: 'l', reward: 'success' }));
    expect(runs).toHaveLength(12);
    expect(runs.map((r) => `${r.config.scale}/${r.config.reward}`)).toContain('s/sum');
  });

  it('runs a config once when cells share it, and skips the SFT cells', () => {
    const runs = gridRuns(findingById('T2'), defaultConfig());
    expect(runs.map((r) => r.cells)).toEqual([['Sum · in-domain', 'Sum · OOD'], ['Macro · in-domain', 'Macro · OOD']]);
    expect(runs.every((r) => r.config.scale === 'l')).toBe(true);
  });

  it('never runs SFT, even when the user is on the SFT stage', () => {
    expect(gridRuns(findingById('T5'), cfg({ stage: 'sft' })).every((r) => r.config.stage === 'rl')).toBe(true);
    expect(userOverrides(cfg({ stage: 'sft', seed: 9 }))).toEqual({ seed: 9 });
  });

  it('keeps every user setting the cell does not set (property)', () => {
    const user = fc.record({ seed: fc.integer({ min: 0, max: 1000 }), steps: fc.integer({ min: 1, max: 50 }),
      scale: fc.constantFrom('s', 'm', 'l'), toolFailureRate: fc.constantFrom(0, 0.05, 0.2), learningRate: fc.constantFrom(1e-4, 3e-4) });
    fc.assert(fc.property(fc.constantFrom(...FINDINGS), user, (f, patch) => {
      const runs = gridRuns(f, cfg(patch as Partial<LabConfig>));
      const cellKeys = new Set(f.cells.flatMap((c) => Object.keys(c.config ?? {})));
      for (const r of runs) {
        for (const [k, v] of Object.entries(patch)) {
          const isDefault = (defaultConfig() as Record<string, unknown>)[k] === v;
          if (!cellKeys.has(k) && !isDefault) expect((r.config as Record<string, unknown>)[k]).toEqual(v);
        }
      }
      expect(new Set(runs.map((r) => r.key)).size).toBe(runs.length);
    }));
  });
});

describe("the user's own results", () => {
  const [a] = gridRuns(findingById('T7'), TINY);
  const stored = (id: string, config: LabConfig, patch: Record<string, unknown> = {}) =>
    ({ id, kind: 'rl', status: 'completed', config: { ...config } as Record<string, unknown>, createdAt: 0, updatedAt: 1000, ...patch });

  it('finds the newest completed RL run of exactly the cell config, from the shipped checkpoint', () => {
    const runs = [
      stored('old', a.config, { updatedAt: 10 }),
      stored('new', a.config, { updatedAt: 20 }),
      stored('running', a.config, { status: 'running', updatedAt: 30 }),
      stored('other-seed', { ...a.config, seed: 7 }, { updatedAt: 40 }),
      stored('own-sft', a.config, { startingPoint: { kind: 'run', runId: 'x' }, updatedAt: 50 }),
      stored('sft', a.config, { kind: 'sft', updatedAt: 60 }),
    ];
    expect(findRunFor(runs, a.config)?.id).toBe('new');
    expect(findRunFor(runs.slice(2), a.config)).toBeUndefined();
  });

  it("matches an RL run whatever World size it stored: RL trains in its starting point's world", () => {
    const runs = [stored('tiny-world', { ...a.config, worldSize: 'tiny' })];
    expect(findRunFor(runs, { ...a.config, worldSize: 'standard' })?.id).toBe('tiny-world');
    expect(findRunFor(runs, { ...a.config, worldSize: 'small' })?.id).toBe('tiny-world');
  });

  it('reads the first and last evaluations of a run', () => {
    const r = runResultOf(stored('r', a.config, { createdAt: 1000, updatedAt: 61_000 }), [
      { step: 1, values: { 'reward/mean': 0.3 } },
      { step: 1, values: { 'eval/ood_accuracy': 0.5, 'eval/success': 0.25 } },
      { step: 0, values: { 'eval/ood_accuracy': 0.4 } },
    ])!;
    expect(r.start.ood).toBe(0.4);
    expect(Number.isNaN(r.start.success)).toBe(true); // not measured: shown as missing, not as 0
    expect([r.final.success, r.final.ood, r.wallSeconds]).toEqual([0.25, 0.5, 60]);
    expect(runResultOf(stored('r', a.config), [{ step: 1, values: { 'reward/mean': 1 } }])).toBeUndefined();
  });

  it("finds the seeds the user ran the grid at (a cell or the null control), for the gain chart", () => {
    const f = findingById('T7');
    const [, b] = gridRuns(f, TINY);
    const runs = [
      stored('a6', a.config), stored('b9', { ...b.config, seed: 9 }),
      stored('null2', { ...a.config, toolFailureRate: 0, advantages: 'shuffled', seed: 2 }),
      stored('elsewhere', { ...a.config, scale: 's', seed: 4 }), // another grid's settings: not a seed of this one
    ];
    const { seeds, configs } = gridSeedConfigs(f, TINY, runs);
    expect(seeds).toEqual([2, 6, 9]);
    expect(configs).toHaveLength(3 * 4); // 3 cells + the null control at each seed
    expect(configs.filter((c) => c.advantages === 'shuffled').map((c) => c.seed)).toEqual([2, 6, 9]);
  });
});
