// The TensorBoard event writer read back by the independent reader of tfeventsReader.ts: the framing, both CRCs,
// every scalar with its step, value and time, and the config as the text plugin's string tensor.
import { describe, expect, it } from 'vitest';
import { crc32c, scalarsFromMetricLines, storedRunEventFile, tensorboardEventFile } from '../../src/store/tensorboardEvents.ts';
import { crc32cBitwise, readEventFile } from './tfeventsReader.ts';

describe('TensorBoard event file', () => {
  it('computes CRC-32C as published (the check value of "123456789") and as the bitwise reader does', () => {
    const bytes = new TextEncoder().encode('123456789');
    expect(crc32c(bytes)).toBe(0xe3069283);
    expect(crc32cBitwise(bytes)).toBe(0xe3069283);
    const random = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7919 + 13) & 0xff);
    expect(crc32c(random)).toBe(crc32cBitwise(random));
  });

  it('holds every metric of every line as a scalar, and the config as text', () => {
    const lines = [
      { kind: 'eval', step: 0, 'eval/success': 0.25, 'eval/queries': 100 },
      { kind: 'train', step: 1, 'reward/mean': 0.5, 'losses/kl': 1e-3, 'charts/success': 0.125 },
      { kind: 'train', step: 2, 'reward/mean': -0.75, 'losses/kl': Number.NaN, 'charts/success': 0.375 },
      { kind: 'eval', step: 2, 'eval/success': 0.5, 'eval/queries': 100 },
    ];
    const t0 = 1_765_000_000;
    const scalars = scalarsFromMetricLines(lines, (l) => t0 + 10 * Number(l.step));
    const file = tensorboardEventFile(scalars, [{ tag: 'config', text: '`#scale=s`\n\n| a | b |', step: 0, wallTime: t0 }]);
    const events = readEventFile(file);
    expect(events[0].fileVersion).toBe('brain.Event:2');
    const text = events.flatMap((e) => e.values).find((v) => v.tag === 'config');
    expect(text).toEqual({ tag: 'config', text: '`#scale=s`\n\n| a | b |', plugin: 'text' });
    const read = events.flatMap((e) =>
      e.values.filter((v) => v.simpleValue !== undefined).map((v) => ({ tag: v.tag, step: e.step, value: v.simpleValue, t: e.wallTime })),
    );
    // the NaN is no point of its curve; every other number is there, at float32 precision, with its step's time
    const expected = lines.flatMap((l) =>
      Object.entries(l).filter(([k, v]) => k !== 'step' && typeof v === 'number' && Number.isFinite(v))
        .map(([tag, v]) => ({ tag, step: l.step, value: Math.fround(v as number), t: t0 + 10 * l.step })),
    );
    expect(read).toHaveLength(expected.length);
    expect(new Set(read.map((r) => JSON.stringify(r)))).toEqual(new Set(expected.map((r) => JSON.stringify(r))));
  });

  it('is refused by the reader when a byte is flipped (the CRCs are checked, not just present)', () => {
    const file = tensorboardEventFile([{ tag: 'x', step: 3, value: 1, wallTime: 1 }], []);
    const bad = file.slice();
    bad[bad.length - 6] ^= 1;
    expect(() => readEventFile(bad)).toThrow(/CRC wrong/);
    const badLength = file.slice();
    badLength[0] ^= 1;
    expect(() => readEventFile(badLength)).toThrow(/CRC wrong/);
  });

  it("holds a stored run's points (the page's Runs view export) at their times, and its config", () => {
    const run = { id: 'r1', createdAt: 1_765_000_000_000, config: { scale: 's', mix: [4, 3, 3] } };
    const points: { step: number; t: number; values: Record<string, number> }[] = [
      { step: 1, t: 2000, values: { 'reward/mean': 0.5, 'charts/success': 0.25 } },
      { step: 2, t: 4000, values: { 'reward/mean': 0.75, 'eval/success': 0.5 } },
    ];
    const events = readEventFile(storedRunEventFile(run, points));
    const scalars = events.flatMap((e) => e.values.filter((v) => v.simpleValue !== undefined).map((v) => [v.tag, e.step, v.simpleValue, e.wallTime]));
    expect(scalars).toEqual([
      ['reward/mean', 1, 0.5, 1_765_000_002], ['charts/success', 1, 0.25, 1_765_000_002],
      ['reward/mean', 2, 0.75, 1_765_000_004], ['eval/success', 2, 0.5, 1_765_000_004],
    ]);
    expect(events.flatMap((e) => e.values).find((v) => v.tag === 'config')?.text).toContain('| mix | 4:3:3 |');
  });
});
