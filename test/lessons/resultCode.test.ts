import { describe, expect, it } from 'vitest';
import { decodeResult, decodeResultLink, encodeResult, resultLink, settingHash, type LessonResult } from '../../src/lessons/resultCode.ts';

const result: LessonResult = {
  lesson: 'tool-failures', arm: 'failures', setting: settingHash('reward=curriculum&toolFailureRate=0.1&evalEvery=40&evalQueries=300&evalToolQa=100'),
  seed: 74538, backend: 'wasm', build: '634597f', queries: 300, startSuccesses: 43, endSuccesses: 29,
  startOod: 0.41, endOod: 0.38, mechanism: [1.05, 1.1875],
};
const code = encodeResult(result);

/** the code with one payload character changed to another valid one */
function flip(c: string, at: number): string {
  const ch = c[at] === 'A' ? 'B' : 'A';
  return c.slice(0, at) + ch + c.slice(at + 1);
}

describe('a lesson result code', () => {
  it('round-trips every field, and is short enough for a chat', () => {
    const back = decodeResult(code);
    expect(back).toEqual({ ok: true, code, result });
    expect(code).toMatch(/^v1\.[A-Za-z0-9_-]+\.[0-9a-f]{8}$/);
    expect(resultLink('https://lab.example/', result).length).toBeLessThan(220);
    expect(decodeResultLink(resultLink('https://lab.example/', result), 'tool-failures')).toEqual({ ok: true, code, result });
  });

  it('checksums the payload: the CRC-32 of v1.<payload>, and a known CRC-32 value', () => {
    expect(settingHash('123456789')).toBe('cbf43926'); // the CRC-32 check value
    expect(code.slice(-8)).toBe(settingHash(code.slice(0, -9)));
  });

  it('refuses a tampered code, each with its reason', () => {
    const payloadAt = 5;
    const t = decodeResult(flip(code, payloadAt));
    expect(t).toMatchObject({ ok: false, reason: 'tampered' });
    const c = decodeResult(code.slice(0, -1) + (code.endsWith('0') ? '1' : '0'));
    expect(c).toMatchObject({ ok: false, reason: 'tampered' });
  });

  it('refuses a malformed code: cut short, not a code, a payload that is not the shape, impossible counts', () => {
    expect(decodeResult(code.slice(0, 20))).toMatchObject({ ok: false, reason: 'malformed' });
    expect(decodeResult('hello')).toMatchObject({ ok: false, reason: 'malformed' });
    expect(decodeResultLink('https://lab.example/#lesson=seeds')).toMatchObject({ ok: false, reason: 'malformed', message: /no result= code/ });
    // a payload with a valid checksum but the wrong content (made as a forger would): still refused, with why
    const forge = (payload: unknown) => {
      const body = `v1.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
      return `${body}.${settingHash(body)}`;
    };
    expect(decodeResult(forge([1, 'tool-failures']))).toMatchObject({ ok: false, reason: 'malformed', message: /shape/ });
    expect(decodeResult(forge([1, 'tool-failures', 'failures', result.setting, 1, 'wasm', 'b', 300, 301, 2, null, null, [1, 1]]))).toMatchObject({ ok: false, reason: 'malformed', message: /impossible/ });
    expect(decodeResult(forge([1, 'nope', 'failures', result.setting, 1, 'wasm', 'b', 300, 3, 2, null, null, [1, 1]]))).toMatchObject({ ok: false, reason: 'malformed', message: /no lesson/ });
    expect(decodeResult(forge([1, 'tool-failures', 'seed-a', result.setting, 1, 'wasm', 'b', 300, 3, 2, null, null, [1, 1]]))).toMatchObject({ ok: false, reason: 'malformed', message: /no arm/ });
    expect(decodeResult(forge([1, 'tool-failures', 'failures', result.setting, 1, 'wasm', 'b', 300, 3, 2, null, null, [1]]))).toMatchObject({ ok: false, reason: 'malformed', message: /mechanism/ });
    expect(() => encodeResult({ ...result, endSuccesses: 400 })).toThrow(/impossible/);
  });

  it('refuses an unknown version', () => {
    const body = `v2.${code.split('.')[1]}`;
    expect(decodeResult(`${body}.${settingHash(body)}`)).toMatchObject({ ok: false, reason: 'version' });
  });

  it('refuses another lesson: a link relabelled, or a result of a lesson the class is not', () => {
    expect(decodeResultLink(`https://lab.example/#lesson=hard-only&result=${code}`)).toMatchObject({ ok: false, reason: 'lesson', message: /relabelled/ });
    expect(decodeResultLink(`#lesson=tool-failures&result=${code}`, 'seeds')).toMatchObject({ ok: false, reason: 'lesson', message: /another lesson \(tool-failures\)/ });
    expect(decodeResultLink(code, 'tool-failures')).toMatchObject({ ok: true });
  });
});

describe('a finished run\'s result', () => {
  it('reads the start and end evaluations, the OOD beside them and the mechanism\'s last quarter; null until completed', async () => {
    const { resultOfRun } = await import('../../src/lessons/resultCode.ts');
    const { lessonById } = await import('../../src/lessons/lessons.ts');
    const lesson = lessonById('tool-failures')!;
    const ev = (s: number, ood: number) => ({ 'eval/success': s, 'eval/queries': 300, 'eval/ood_accuracy': ood });
    const points = [{ step: 0, values: ev(0.1433, 0.4) }, ...Array.from({ length: 40 }, (_, i) => ({
      step: i + 1, values: { 'charts/informative_groups': i >= 30 ? 2 : 4, 'charts/tool_failures': i >= 30 ? 1.5 : 0, ...(i === 39 ? ev(0.0967, 0.35) : {}) },
    }))];
    const run = { seed: 101, status: 'completed', totalSteps: 40, points };
    const r = resultOfRun({ lesson, arm: 'failures', setting: 'k', run, backend: 'webgpu · swiftshader', build: 'abc' })!;
    expect(r).toMatchObject({ lesson: 'tool-failures', arm: 'failures', seed: 101, backend: 'webgpu', build: 'abc', queries: 300, startSuccesses: 43, endSuccesses: 29, startOod: 0.4, endOod: 0.35, mechanism: [2, 1.5] });
    expect(decodeResult(encodeResult(r))).toMatchObject({ ok: true, result: r });
    expect(resultOfRun({ lesson, arm: 'failures', setting: 'k', run: { ...run, status: 'running' }, backend: 'wasm', build: 'abc' })).toBeNull();
  });
});
