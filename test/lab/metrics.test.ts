import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RL_METRICS, RENAMED_METRICS, RL_METRICS, metricName, withMetricNames, drawnAs, ema, intervalKeys, formatAverage, formatMetric, formatPercent, formatTick, metricInfo, rewardStageOf, smoothedLabel, windowMeanLabel } from '../../src/lab/metrics.ts';

describe('RL metrics for the page', () => {
  it('names every metric once; the defaults and the picker list are in the table', () => {
    const keys = RL_METRICS.map((m) => m.key);
    expect(new Set(keys).size).toBe(keys.length);
    const wanted = ['reward/mean', 'charts/success', 'charts/delivery', 'eval/success', 'eval/ood_accuracy', 'losses/kl', 'losses/entropy', 'losses/clip_frac', 'charts/response_len', 'charts/tool_calls', 'charts/tool_failures', 'time/rollout'];
    for (const k of [...wanted, ...DEFAULT_RL_METRICS]) expect(keys).toContain(k);
    for (const m of RL_METRICS) expect(m.doc.length).toBeGreaterThan(10);
  });

  it('names follow one scheme (losses/…, charts/…, reward/…, eval/…, time/…, dapo/…, arpo/…) and the old names read as the new', () => {
    // every name has a prefix of the scheme
    for (const { key } of RL_METRICS) expect(key).toMatch(/^(losses|charts|reward|eval|time|dapo|arpo)\//);
    for (const [old, now] of Object.entries(RENAMED_METRICS)) {
      expect(RL_METRICS.map((m) => m.key), now).toContain(now);
      expect(now).toMatch(/^(losses|charts|reward|eval|time|dapo|arpo)\//);
      expect(RL_METRICS.map((m) => m.key), old).not.toContain(old);
      expect(metricName(old)).toBe(now);
    }
    expect(metricName('losses/kl')).toBe('losses/kl');
    expect(metricName('toString')).toBe('toString'); // not a name inherited from Object
    expect(withMetricNames({ step: 3, kl: 0.1, clip_frac: 0.2, success: 0.5, stepMs: 900 })).toEqual({ step: 3, 'losses/kl': 0.1, 'losses/clip_frac': 0.2, 'charts/success': 0.5, 'time/step_ms': 900 });
    // a row holding both names of one metric keeps the new one's value, whichever comes first
    expect(withMetricNames({ kl: 1, 'losses/kl': 2 })).toEqual({ 'losses/kl': 2 });
    expect(withMetricNames({ 'losses/kl': 2, kl: 1 })).toEqual({ 'losses/kl': 2 });
  });

  it('a committed run recorded under the old names reads under the new ones', () => {
    const lines = readFileSync('results/rl-recipe/s-seed2-real/metrics.jsonl', 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, number>);
    const train = lines.find((l) => (l as Record<string, unknown>).kind === 'train')!;
    expect(train.kl).toBeTypeOf('number'); // recorded before the rename
    const read = withMetricNames(train);
    expect(read['losses/kl']).toBe(train.kl);
    expect(read['losses/entropy']).toBe(train.entropy);
    expect(read['losses/clip_frac']).toBe(train.clip_frac);
    expect(read['charts/success']).toBe(train.success);
    expect(read['charts/tool_failures']).toBe(train.tool_failures);
    expect(read['charts/curriculum_stage']).toBe(train.curriculum_stage);
    expect(Object.keys(read).filter((k) => k in RENAMED_METRICS)).toEqual([]);
  });

  it('an unknown metric still gets an entry (eval/… ones sparse)', () => {
    expect(metricInfo('eval/new_thing')).toMatchObject({ label: 'eval/new_thing', group: 'evaluation', sparse: true });
    expect(metricInfo('other').sparse).toBeUndefined();
  });

  it('formats by kind', () => {
    expect(formatMetric(metricInfo('charts/success'), 0.25)).toBe('25.0%');
    expect(formatMetric(metricInfo('charts/success'), 1)).toBe('100%');
    expect(formatMetric(metricInfo('charts/response_len'), 181.6)).toBe('182');
    expect(formatMetric(metricInfo('time/rollout'), 1.234)).toBe('1.23 s');
    expect(formatMetric(metricInfo('time/step_ms'), 850)).toBe('850 ms');
    expect(formatMetric(metricInfo('losses/kl'), 0.00012)).toBe('1.20e-4');
    expect(formatMetric(metricInfo('losses/kl'), undefined)).toBe('–');
    expect(formatTick(metricInfo('reward/mean'), 0.30000000000000004)).toBe('0.3');
    expect(formatTick(metricInfo('charts/success'), 0.5)).toBe('50%');
    expect(formatTick(metricInfo('time/step_ms'), 120_000)).toBe('120 s');
  });

  it('one rounding for a share wherever it is written (OOD read 63 % on a card, 62.5 % on the chart)', () => {
    expect(formatPercent(0.625)).toBe('62.5%');
    expect(formatPercent(0.625)).toBe(formatMetric(metricInfo('eval/ood_accuracy'), 0.625));
    expect(formatPercent(0.625, ' ')).toBe('62.5 %');
    expect(formatPercent(0)).toBe('0%');
    expect(formatPercent(1, ' ')).toBe('100 %');
    expect(formatPercent(undefined)).toBe('–');
  });

  it('counts as counts (informative groups read "3.003"): whole numbers as integers, a mean as one', () => {
    const groups = metricInfo('charts/informative_groups');
    expect(groups.format).toBe('count');
    expect(formatMetric(groups, 3)).toBe('3');
    expect(formatMetric(groups, 3.0031)).toBe('3.0'); // a smoothed count
    expect(formatAverage(groups, 2.8)).toBe('2.8 groups on average');
    expect(formatAverage(metricInfo('charts/success'), 0.875)).toBe('87.5%');
    for (const key of ['dapo/gen_batches', 'dapo/dropped_groups', 'arpo/branches', 'arpo/fills', 'arpo/tree_depth']) expect(metricInfo(key).format).toBe('count');
  });

  it('says which figure is smoothed and which a window\'s raw mean', () => {
    expect(smoothedLabel(0.75)).toBe('smoothed (EMA 0.75)');
    expect(windowMeanLabel([31, 40])).toBe('mean of steps 31–40');
  });

  it('evaluations are drawn as markers with their interval, never joined by a line; training values as lines', () => {
    expect(drawnAs(metricInfo('eval/success'))).toBe('markers');
    expect(drawnAs(metricInfo('eval/ood_accuracy'))).toBe('markers');
    expect(drawnAs(metricInfo('charts/informative_groups'))).toBe('line');
    expect(intervalKeys(metricInfo('eval/success'))).toEqual({ lo: 'eval/success_lo', hi: 'eval/success_hi' });
    expect(intervalKeys(metricInfo('eval/sample_success'))).toEqual({ lo: 'eval/sample_success_lo', hi: 'eval/sample_success_hi' });
    expect(intervalKeys(metricInfo('eval/ood_accuracy'))).toBeNull();
  });

  it('ema: debiased, weight 0 is the raw curve, gaps stay gaps', () => {
    expect(ema([1, 2, 3], 0)).toEqual([1, 2, 3]);
    const s = ema([1, null, 1, 1], 0.9);
    expect(s[0]).toBeCloseTo(1); // no pull towards 0 at the start
    expect(s[1]).toBeNull();
    expect(s[3]).toBeCloseTo(1);
    const t = ema([0, 1], 0.5); // (0.5·0.5·0 + 0.5·1) / (0.5·0.5 + 0.5)
    expect(t[1]).toBeCloseTo(2 / 3);
    expect(() => ema([1], 1)).toThrow(/\[0, 1\)/);
  });

  it('curriculum stage names', () => {
    expect([0, 1, 2, 3, undefined].map(rewardStageOf)).toEqual(['sum', 'macro', 'success', null, null]);
  });
});
