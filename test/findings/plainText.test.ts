import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { plainFinding, plainInteraction, plainPair, plainSentence, sidePhrase } from '../../src/findings/plainText.ts';
import type { GainTable } from '../../src/findings/findingGains.ts';
import { START_LABEL } from '../../src/findings/committedComparison.ts';

const t7 = { higher: 'success · 0 %', lower: 'success · 10 %' };

describe('plain sentence of a comparison', () => {
  it('says "well beyond seed-to-seed chance" only where the test rejected, with the record’s figure', () => {
    const s = plainPair('T7', { ...t7, call: 'supports', difference: 17.46, equivalence: null });
    expect(s).toBe(
      'With no tool failures, the agent gains 17.5 points more success than with 10 % tool failures, well beyond seed-to-seed chance.',
    );
    // the other way round (contradicts): the figure's sign turns the words, the strength stays the test's
    const c = plainPair('T7', { ...t7, call: 'contradicts', difference: -6.04, equivalence: null });
    expect(c).toContain('6.0 points less success');
    expect(c).toContain('well beyond seed-to-seed chance');
  });

  it('says "no difference detected", never "no effect" or "beyond chance", where the test did not reject', () => {
    const s = plainPair('T7', {
      ...t7,
      call: 'not resolved',
      difference: 3.14,
      equivalence: { delta: 5, shown: false },
    });
    expect(s).toContain('3.1 points more success');
    expect(s).toContain('no difference detected');
    expect(s).not.toMatch(/beyond|no effect|within ±|rules out/);
  });

  it('says "the same within ±δ points" only where the equivalence test rejected at δ', () => {
    const s = plainPair('T1', {
      higher: '3B · Curriculum',
      lower: '3B · Sum',
      call: 'not resolved',
      difference: 0.4,
      equivalence: { delta: 7.5, shown: true },
    });
    expect(s).toBe(
      'With the Curriculum reward at 3B, the agent gains the same success as with the Sum reward at 3B, within ±7.5 points: no difference detected, and the equivalence test rules out a larger one.',
    );
    expect(s).not.toMatch(/no effect|beyond/);
  });

  it('makes no call while seeds are missing, and none without two seeds a side', () => {
    const i = plainPair('T7', { ...t7, call: 'interim', difference: 12, equivalence: null });
    expect(i).toMatch(/^Not every planned seed has run yet/);
    expect(i).not.toMatch(/beyond|detected/);
    expect(plainPair('T7', { ...t7, call: 'interim', difference: null })).toMatch(/no comparison/);
  });

  it('reads a pair against the SFT start, an OOD cell and the ends of a lesson’s arms', () => {
    expect(sidePhrase('T2', START_LABEL)).toBeNull();
    expect(plainPair('T2', { higher: 'Sum · OOD', lower: START_LABEL, call: 'supports', difference: 9.2 })).toBe(
      'With Sum-reward training, the agent gains 9.2 points of out-of-domain (OOD) accuracy over its SFT start, well beyond seed-to-seed chance.',
    );
    expect(
      plainSentence({
        a: '“Recipe (real advantages)”',
        b: '“Null control (shuffled)”',
        metric: 'success',
        measure: 'end',
        difference: -1,
        outcome: 'not rejected',
      }),
    ).toContain('ends 1.0 point lower in success');
  });

  it('sums a finding of several pairs up by the test’s outcomes', () => {
    const pairs = [
      { ...t7, call: 'supports' as const, difference: 17 },
      { ...t7, call: 'not resolved' as const, difference: 2, equivalence: { delta: 5, shown: true } },
      { ...t7, call: 'not resolved' as const, difference: 4, equivalence: { delta: 5, shown: false } },
    ];
    expect(plainFinding('T7', pairs)).toBe(
      '1 of the 3 comparisons the paper makes comes out its way, well beyond seed-to-seed chance; 2 show no difference detected; in 1 of them the equivalence test puts the two settings within ±5 points.',
    );
    const none = pairs.slice(1).map((p) => ({ ...p, equivalence: { delta: 12, shown: true } }));
    expect(plainFinding('T1', none)).toBe(
      'None of the 2 comparisons the paper makes shows a difference beyond seed-to-seed chance (no difference detected); in all of them the equivalence test puts the two settings within ±12 points.',
    );
    expect(plainFinding('T7', [{ ...t7, call: 'contradicts' as const, difference: -9 }, pairs[2]])).toBe(
      '1 of the 2 comparisons the paper makes comes out the other way, well beyond seed-to-seed chance; 1 shows no difference detected.',
    );
    expect(plainFinding('T7', [{ ...t7, call: 'interim', difference: 1 }, pairs[0]])).toMatch(/make no call/);
  });

  it('says each scale × choice interaction in words, with the strength its own test allows', () => {
    const t6 = { plus: ['1.5B · DAPO', '1.5B · GRPO'], minus: ['7B · DAPO', '7B · GRPO'] } as const;
    expect(plainInteraction('T6', { ...t6, call: 'not resolved', difference: 5.4, equivalence: { delta: 12, shown: false } })).toBe(
      "DAPO's edge over GRPO in success is 5.4 points larger at 1.5B than at 7B in these runs, but seed-to-seed chance could give that much: no difference detected.",
    );
    expect(plainInteraction('T6', { ...t6, call: 'supports', difference: -3 })).toBe(
      "DAPO's edge over GRPO in success is 3.0 points smaller at 1.5B than at 7B, well beyond seed-to-seed chance.",
    );
    const t3 = { plus: ['Sum · 7B', 'Sum · 1.5B'], minus: ['Curriculum · 7B', 'Curriculum · 1.5B'] } as const;
    expect(plainInteraction('T3', { ...t3, call: 'not resolved', difference: -1.1, equivalence: { delta: 12, shown: true } })).toBe(
      "7B's edge over 1.5B in success is the same with the Sum reward as with the Curriculum reward, within ±12 points: no difference detected, and the equivalence test rules out a larger change.",
    );
    expect(plainInteraction('T3', { ...t3, call: 'interim', difference: 2 })).toMatch(/^Not every planned seed has run yet/);
    // every committed interaction has its sentence, and its words follow its record's test
    for (const id of ['T1', 'T3', 'T6']) {
      const t = JSON.parse(readFileSync(`results/findings/${id}/table.json`, 'utf8')) as GainTable;
      for (const g of t.compares.interactions ?? []) {
        const s = plainInteraction(id, g);
        expect(s).not.toMatch(/undefined|NaN/);
        if (g.call === 'not resolved') expect(s).toContain('no difference detected');
        expect(s.includes('rules out')).toBe(!!g.equivalence?.shown && g.call === 'not resolved');
      }
    }
  });
});
