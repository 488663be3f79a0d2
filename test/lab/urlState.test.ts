import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SETTINGS, SETTING_KEYS, defaultConfig, type LabConfig, type Setting } from '../../src/lab/config.ts';
import { parseHash, serializeHash, shareUrl } from '../../src/lab/urlState.ts';

// An arbitrary for every valid value of one setting, derived from the declared table.
function arbitraryValue(s: Setting): fc.Arbitrary<unknown> {
  switch (s.kind) {
    case 'choice':
      return fc.constantFrom(...s.choices);
    case 'int':
      return fc.integer({ min: s.min, max: s.max });
    case 'float':
      return fc.double({ min: s.min, max: s.max, noNaN: true, noDefaultInfinity: true }).map((x) => x + 0);
    case 'mix':
      return fc
        .tuple(fc.nat(s.max), fc.nat(s.max), fc.nat(s.max))
        .filter((t) => t.some((v) => v > 0));
  }
}

const arbitraryConfig: fc.Arbitrary<LabConfig> = fc
  .record(Object.fromEntries(SETTING_KEYS.map((k) => [k, arbitraryValue(SETTINGS[k])])))
  .map((r) => r as unknown as LabConfig)
  .filter((c) => c.curriculumSwitch1 < c.curriculumSwitch2);

describe('URL hash codec', () => {
  it('the empty hash is the default config, and the default config writes nothing', () => {
    const lab = { view: 'lab', finding: null };
    expect(parseHash('')).toEqual({ config: defaultConfig(), route: lab, notices: [] });
    expect(parseHash('#')).toEqual({ config: defaultConfig(), route: lab, notices: [] });
    expect(serializeHash(defaultConfig())).toBe('');
  });

  it('carries the view and the finding beside the settings, and names a bad one', () => {
    const p = parseHash('#finding=t7&scale=l');
    expect(p.route).toEqual({ view: 'findings', finding: 'T7' });
    expect(p.config.scale).toBe('l');
    expect(p.notices).toEqual([]);
    expect(serializeHash(p.config, p.route)).toBe('#view=findings&finding=T7&scale=l');
    expect(parseHash('#view=sandbox').route).toEqual({ view: 'sandbox', finding: null });
    const bad = parseHash('#view=nowhere&finding=T9');
    expect(bad.route).toEqual({ view: 'lab', finding: null });
    expect(bad.notices.map((n) => n.key)).toEqual(['view', 'finding']);
  });

  it('a lesson is a link of its own, `#lesson=<id>`, and a bad one is named', () => {
    const p = parseHash('#lesson=seeds');
    expect(p.route).toEqual({ view: 'lessons', finding: null, lesson: 'seeds' });
    expect(p.notices).toEqual([]);
    expect(serializeHash(p.config, p.route)).toBe('#lesson=seeds');
    expect(serializeHash(defaultConfig(), { view: 'lessons', finding: null, lesson: null })).toBe('#view=lessons');
    const bad = parseHash('#lesson=T7');
    expect(bad.route.view).toBe('lab');
    expect(bad.notices.map((n) => n.key)).toEqual(['lesson']);
  });

  it('a lesson size in the hash is not silently dropped: the notice says to put it before the #', () => {
    const p = parseHash('#lesson=seeds&lessonSize=smoke');
    expect(p.route.lesson).toBe('seeds');
    expect(p.notices).toEqual([{ key: 'lessonSize', message: 'belongs before the #: open ?lessonSize=smoke#… — this lesson runs at its full size' }]);
  });

  it('a lesson link keeps a result code and a class (bare, or with its codes) through a round trip', () => {
    const r = parseHash('#lesson=seeds&result=v1.abc_-.0123abcd');
    expect(r.route).toEqual({ view: 'lessons', finding: null, lesson: 'seeds', result: 'v1.abc_-.0123abcd' });
    expect(r.notices).toEqual([]);
    expect(serializeHash(r.config, r.route)).toBe('#lesson=seeds&result=v1.abc_-.0123abcd');
    const c = parseHash('#lesson=seeds&class');
    expect(c.route.lessonClass).toBe('');
    expect(serializeHash(c.config, c.route)).toBe('#lesson=seeds&class');
    const codes = parseHash('#lesson=seeds&class=v1.a.00000000,v1.b.11111111');
    expect(codes.route.lessonClass).toBe('v1.a.00000000,v1.b.11111111');
    expect(serializeHash(codes.config, codes.route)).toBe('#lesson=seeds&class=v1.a.00000000,v1.b.11111111');
  });

  it('writes only non-defaults, readable', () => {
    const c = defaultConfig();
    c.scale = 'l';
    c.reward = 'macro';
    c.mix = [0, 0, 1];
    expect(serializeHash(c)).toBe('#scale=l&reward=macro&mix=0:0:1');
  });

  it('round-trips random valid configs with no notices', () => {
    fc.assert(
      fc.property(arbitraryConfig, (config) => {
        const back = parseHash(serializeHash(config));
        expect(back.notices).toEqual([]);
        expect(back.config).toEqual(config);
      }),
      { numRuns: 300 },
    );
  });

  it('lists unknown keys, bad values and out-of-range numbers, and uses the defaults', () => {
    const { config, notices } = parseHash('#scale=xl&bogus=1&steps=-5&seed=1.5&mix=1:2&reward=SUM&learningRate=0x10');
    const d = defaultConfig();
    expect(config.scale).toBe(d.scale);
    expect(config.steps).toBe(d.steps);
    expect(config.seed).toBe(d.seed);
    expect(config.mix).toEqual(d.mix);
    expect(config.learningRate).toBe(d.learningRate);
    expect(config.reward).toBe('sum'); // choices are case-insensitive
    const keys = notices.map((n) => n.key);
    expect(keys).toEqual(['scale', 'bogus', 'steps', 'seed', 'mix', 'learningRate']);
    expect(notices[0].message).toContain('must be one of s, m, l');
    expect(notices[2].message).toContain('between 1 and 20000');
  });

  it('survives bad percent-encoding and reports it', () => {
    const { config, notices } = parseHash('#%E0%A4%A=1&scale=%ZZ&reward=macro');
    expect(config.reward).toBe('macro');
    expect(config.scale).toBe(defaultConfig().scale);
    expect(notices).toHaveLength(2);
    expect(notices.every((n) => n.message.includes('could not be decoded'))).toBe(true);
  });

  it('rejects a curriculum that switches backwards', () => {
    const { config, notices } = parseHash('#curriculumSwitch1=0.9&curriculumSwitch2=0.1');
    expect(config.curriculumSwitch1).toBe(defaultConfig().curriculumSwitch1);
    expect(notices).toHaveLength(1);
  });

  it('never throws on random strings and always returns a valid config', () => {
    const keyish = fc.constantFrom(...SETTING_KEYS, 'x', '', '%', '=', '&');
    const messy = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.array(fc.tuple(keyish, fc.string({ maxLength: 12 })), { maxLength: 12 }).map((kv) => '#' + kv.map(([k, v]) => `${k}=${v}`).join('&')),
    );
    fc.assert(
      fc.property(messy, (text) => {
        const { config, notices } = parseHash(text);
        // whatever came in, what comes out is valid: it round-trips with no notices
        const again = parseHash(serializeHash(config));
        expect(again.notices).toEqual([]);
        expect(again.config).toEqual(config);
        expect(notices.length).toBeLessThanOrEqual(20);
      }),
      { numRuns: 500 },
    );
  });
});

describe('configFromRecord', () => {
  it('keeps valid stored values and replaces bad ones with notices', async () => {
    const { configFromRecord } = await import('../../src/lab/urlState.ts');
    const { config, notices } = configFromRecord({ scale: 'l', steps: 'many', mix: [1, 0, 0], extra: 1 });
    expect(config.scale).toBe('l');
    expect(config.mix).toEqual([1, 0, 0]);
    expect(config.steps).toBe(defaultConfig().steps);
    expect(notices.map((n) => n.key)).toEqual(['steps']);
    expect(configFromRecord(null).config).toEqual(defaultConfig());
  });
});

describe('shareUrl', () => {
  it('shares the setup as read, without the page\'s query (?backend=) or its broken hash', () => {
    const { config } = parseHash('#scale=xl&steps=-5&foo=bar&reward=macro');
    expect(shareUrl(config, 'http://127.0.0.1:5173/lab/?backend=wasm#scale=xl&steps=-5&foo=bar&reward=macro')).toBe('http://127.0.0.1:5173/lab/#reward=macro');
    expect(shareUrl(defaultConfig(), 'https://x.test/?backend=cpu')).toBe('https://x.test/');
  });

  it('opens the same setup it shares', () => {
    fc.assert(
      fc.property(fc.record(Object.fromEntries(SETTING_KEYS.map((k) => [k, arbitraryValue(SETTINGS[k])]))), (raw) => {
        const { config } = parseHash(serializeHash(raw as LabConfig)); // a valid config (cross-field problems reset)
        expect(parseHash(new URL(shareUrl(config, 'http://h.test/p?backend=wasm#x=1')).hash).config).toEqual(config);
      }),
      { numRuns: 50 },
    );
  });
});

describe('storedConfigProblems (an imported bundle is checked as a link is)', () => {
  it('finds nothing in any setup a link can give', async () => {
    const { storedConfigProblems } = await import('../../src/lab/urlState.ts');
    fc.assert(
      fc.property(arbitraryConfig, (config) => {
        expect(storedConfigProblems({ ...config })).toEqual([]);
      }),
      { numRuns: 200 },
    );
    expect(storedConfigProblems({})).toEqual([]); // missing settings take their defaults, as in a link
  });

  it('names what a link would name: a bad value, an unknown key, contradicting settings', async () => {
    const { storedConfigProblems } = await import('../../src/lab/urlState.ts');
    const bad: Record<string, unknown> = { scale: 'xl', steps: -5, seed: 1.5, mix: [1, 2], foo: 'bar' };
    for (const [key, value] of Object.entries(bad)) {
      const text = Array.isArray(value) ? value.join(':') : String(value);
      const link = parseHash(`#${key}=${text}`).notices.map((n) => n.key);
      expect(storedConfigProblems({ [key]: value }).map((n) => n.key), key).toEqual(link);
    }
    expect(storedConfigProblems({ scale: 'xl', steps: -5 }).map((n) => n.message)).toEqual([
      '“xl” must be one of s, m, l', `“-5” must be between ${SETTINGS.steps.min} and ${SETTINGS.steps.max}`,
    ]);
    expect(storedConfigProblems({ curriculumSwitch1: 0.9, curriculumSwitch2: 0.1 })).toEqual([
      { key: 'curriculumSwitch1, curriculumSwitch2', message: 'the curriculum must switch to Macro before it switches to Success' },
    ]);
    expect(storedConfigProblems({ foo: 1 })).toEqual([{ key: 'foo', message: 'is not a setting of this lab' }]);
  });
});
