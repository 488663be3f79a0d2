// Gains across seeds (the RL recipe's table; the findings tables reuse it), checked on hand-made runs.
import { describe, expect, it } from 'vitest';
import { gainCall, intervalsApart, pairedDifference, summariseArm, type SeedRun } from '../../src/findings/seedGains.ts';
import { curvesSvg } from '../../src/findings/curveSvg.ts';

const run = (seed: number, values: number[], cpuSeconds?: number): SeedRun =>
  ({ seed, curve: values.map((success, i) => ({ step: i * 10, success, queries: 300 })), cpuSeconds });

describe('summariseArm', () => {
  it('reads start, end and gain per seed, and a t interval of the mean gain', () => {
    const a = summariseArm([run(2, [0.3, 0.4, 0.5], 600), run(1, [0.3, 0.35, 0.45], 660), run(3, [0.3, 0.5, 0.55])]);
    expect(a.seeds).toEqual([1, 2, 3]);
    expect(a.gain.map((g) => +g.toFixed(4))).toEqual([0.15, 0.2, 0.25]);
    expect(a.meanGain.estimate).toBeCloseTo(0.2, 10);
    // s = 0.05, t(0.975, 2) = 4.3027 → half 0.05 · 4.3027 / √3 = 0.1242
    expect(a.meanGain.hi - a.meanGain.estimate).toBeCloseTo(0.1242, 3);
    expect(gainCall(a.meanGain)).toBe('gain');
    expect(a.meanCurve).toEqual([{ step: 0, success: 0.3 }, { step: 10, success: expect.closeTo(0.4167, 3) }, { step: 20, success: 0.5 }]);
    expect(a.pooledEnd.n).toBe(900);
    expect(a.cpuSeconds).toBe(630); // the mean of the runs that recorded it
  });

  it('calls a loss, and "not resolved" when the interval holds 0 or there is one seed', () => {
    expect(gainCall(summariseArm([run(1, [0.3, 0.1]), run(2, [0.3, 0.05]), run(3, [0.3, 0.12])]).meanGain)).toBe('loss');
    expect(gainCall(summariseArm([run(1, [0.3, 0.4]), run(2, [0.3, 0.2]), run(3, [0.3, 0.33])]).meanGain)).toBe('not resolved');
    expect(gainCall(summariseArm([run(1, [0.3, 0.9])]).meanGain)).toBe('not resolved');
  });

  it('pairs real and null by seed; intervals apart only when they do not overlap', () => {
    const real = summariseArm([run(1, [0.3, 0.45]), run(2, [0.3, 0.5]), run(3, [0.3, 0.48])]);
    const control = summariseArm([run(1, [0.3, 0.05]), run(2, [0.3, 0.1]), run(4, [0.3, 0.02])]);
    const d = pairedDifference(real, control);
    expect(d.seeds).toEqual([1, 2]);
    expect(d.estimate).toBeCloseTo(0.4, 10);
    expect(intervalsApart(real.meanGain, control.meanGain)).toBe(true);
    expect(intervalsApart(real.meanGain, real.meanGain)).toBe(false);
  });

  it('refuses no runs and a run without evaluations', () => {
    expect(() => summariseArm([])).toThrow(/no runs/);
    expect(() => summariseArm([{ seed: 1, curve: [] }])).toThrow(/no evaluations/);
  });
});

describe('curvesSvg', () => {
  it('draws one polyline per seed and per mean, escapes text, and refuses no panels', () => {
    const svg = curvesSvg([{ title: 'scale <s>', series: [
      { label: 'recipe', color: '#00f', seeds: [[{ step: 0, value: 0.3 }, { step: 40, value: 0.5 }], [{ step: 0, value: 0.3 }, { step: 40, value: 0.4 }]],
        mean: [{ step: 0, value: 0.3 }, { step: 40, value: 0.45 }] },
      { label: 'null', color: '#f00', dashed: true, seeds: [], mean: [{ step: 0, value: 0.3 }, { step: 40, value: 0.05 }] },
    ] }], { title: 'T', xLabel: 'step', yLabel: 'success' });
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.match(/<polyline/g)).toHaveLength(4);
    expect(svg).toContain('scale &lt;s&gt;');
    expect(svg).toContain('stroke-dasharray');
    expect(() => curvesSvg([], { title: 'T', xLabel: 'x', yLabel: 'y' })).toThrow(/no panels/);
  });
});
