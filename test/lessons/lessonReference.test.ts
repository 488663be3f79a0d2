import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/lab/config.ts';
import { lessonStartOf, predictionBand, settingKey, settingReference, windowMean, type CommittedRun } from '../../src/lessons/lessonReference.ts';

function run(seed: number, success: number[], end: number): CommittedRun {
  return {
    seed, where: `runs/${seed}`, wallSeconds: 100 * seed, cpuSeconds: 90 * seed,
    train: success.map((s) => ({ success: s, kl: s / 10 })),
    evals: [{ step: 0, success: 0.1, queries: 300 }, { step: success.length, success: end, queries: 300 }],
  };
}

describe('lesson reference', () => {
  it('the band is a 95 % prediction interval for one more run: mean ± t(n−1)·s·√(1 + 1/n)', () => {
    // 0.2, 0.3, 0.4: mean 0.3, s 0.1, t(2) = 4.3027, √(4/3) = 1.1547 → half 0.49683
    const b = predictionBand([0.2, 0.3, 0.4]);
    expect(b.mean).toBeCloseTo(0.3, 12);
    expect(b.hi! - b.mean!).toBeCloseTo(0.49683, 4);
    expect(b.mean! - b.lo!).toBeCloseTo(0.49683, 4);
    expect(predictionBand([0.5])).toEqual({ mean: 0.5, lo: null, hi: null });
    expect(predictionBand([])).toEqual({ mean: null, lo: null, hi: null });
  });

  it('a setting is its link without the seed', () => {
    const c = { ...defaultConfig(), reward: 'curriculum' as const, toolFailureRate: 0.1, seed: 7 };
    expect(settingKey(c)).toBe('reward=curriculum&toolFailureRate=0.1');
    expect(settingKey({ ...c, seed: 1 })).toBe(settingKey(c));
  });

  it('reduces the seeds to per-step bands (rates kept in [0, 1]), early/late means and start/end per seed', () => {
    const steps = 8;
    const runs = [run(3, Array(steps).fill(0.9), 0.5), run(1, Array(steps).fill(0.1), 0.3), run(2, Array(steps).fill(0.2), 0.4)];
    const r = settingReference('k', runs, ['success', 'kl'], 0);
    expect(r.seeds).toEqual([1, 2, 3]);
    expect(r.steps).toBe(steps);
    expect(r.train.success.mean[0]).toBeCloseTo(0.4, 5);
    expect(r.train.success.hi[0]).toBe(1); // the prediction band reaches past 100 %: clamped
    expect(r.train.success.lo[0]).toBe(0);
    expect(r.train.kl.hi[0]).toBeGreaterThan(0.1); // not a rate: only the floor at 0
    expect(r.eval).toEqual({ start: [0.1, 0.1, 0.1], end: [0.3, 0.4, 0.5], queries: 300, steps: [0, steps] });
    expect(r.windows.success).toEqual({ early: [0.1, 0.2, 0.9], late: [0.1, 0.2, 0.9] }); // steps 1–2 and 7–8 of 8
    expect(r.where).toEqual(['runs/1', 'runs/2', 'runs/3']);
    expect(windowMean([{ a: 1 }, { a: 3 }, { a: 5 }], 'a', [2, 3])).toBe(4);
  });

  it('refuses seeds that disagree on the run, and no seeds at all', () => {
    expect(() => settingReference('k', [run(1, [0.1, 0.2], 0.3), run(2, [0.1], 0.3)], ['success'])).toThrow(/training steps/);
    expect(() => settingReference('k', [], ['success'])).toThrow(/no committed runs/);
  });
});

describe('the shipped starting point as the lessons measure it', () => {
  it('is the step-0 evaluation of the lessons\' plain setting at the scale, with its queries', () => {
    const reference = JSON.parse(readFileSync('results/lessons/reference.json', 'utf8'));
    const m = lessonStartOf(reference, 'm')!;
    expect(m.queries).toBe(300);
    expect(m.success).toBe(reference.settings['evalEvery=40&evalQueries=300&evalToolQa=100'].eval.start[0]);
    expect(lessonStartOf(reference, 's')!.success).toBe(reference.settings['scale=s&evalEvery=40&evalQueries=300&evalToolQa=100'].eval.start[0]);
    expect(lessonStartOf(reference, 'l')).toBeNull();
    expect(lessonStartOf(null, 'm')).toBeNull();
  });
});
