// The trainer's config is read off the settings table (src/lab/config.ts) and must be what it was when
// four places held it: test/fixtures/rlConfigFromLab.json was written by the old mapping (the default lab
// under each algorithm, key order included, and what moving each setting off its default changed). The config
// has since taken the table's names; in the form runs recorded it (rlConfigAsRecorded, the resume fingerprint's)
// it is still the old mapping's to the byte, so a run recorded before reproduces and its fingerprint matches,
// and a recorded config reads back under today's names (rlConfigFromRecord). Pure: no tfjs.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALGORITHMS, SETTINGS, SETTING_KEYS, defaultConfig, ignoredSettings, unusedIn, type LabConfig, type Setting, type SettingKey } from '../../src/lab/config.ts';
import { rlConfigAsRecorded, rlConfigFor, rlConfigFromLab, rlConfigFromRecord } from '../../src/rl/rlConfig.ts';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/rlConfigFromLab.json', import.meta.url), 'utf8')) as {
  defaults: Record<string, string>;
  moves: { algorithm: LabConfig['algorithm']; setting: SettingKey; value: unknown; trainer: Record<string, unknown> }[];
};

describe('the trainer config from the settings table', () => {
  it('is, for the default lab under each algorithm, the old mapping\'s, field for field and in its order', () => {
    for (const algorithm of ALGORITHMS) {
      const today = rlConfigFromLab({ ...defaultConfig(), algorithm });
      expect(JSON.stringify(rlConfigAsRecorded(today as unknown as Record<string, unknown>)), algorithm).toBe(fixture.defaults[algorithm]);
      // and back: the recorded form read under today's names, field for field and in order
      expect(JSON.stringify(rlConfigFromRecord(JSON.parse(fixture.defaults[algorithm]) as Record<string, unknown>))).toBe(JSON.stringify(today));
    }
  });

  it('changes what the old mapping changed when one setting moves off its default, under each algorithm', () => {
    expect(fixture.moves.length).toBe(ALGORITHMS.length * (SETTING_KEYS.length - 1));
    for (const m of fixture.moves) {
      const recorded = (lab: LabConfig) => rlConfigAsRecorded(rlConfigFromLab(lab) as unknown as Record<string, unknown>);
      const base = recorded({ ...defaultConfig(), algorithm: m.algorithm });
      const moved = recorded({ ...defaultConfig(), [m.setting]: m.value, algorithm: m.algorithm } as LabConfig);
      const diff = Object.fromEntries(Object.keys(moved).filter((f) => JSON.stringify(moved[f]) !== JSON.stringify(base[f])).map((f) => [f, moved[f]]));
      expect({ ...m, trainer: diff }).toEqual(m);
    }
  });

  it('a setting scoped to some algorithms changes the trainer config under those alone, and the others name it ignored', () => {
    const scoped = SETTING_KEYS.filter((k) => (SETTINGS[k] as Setting).algorithms);
    expect(scoped.sort()).toEqual(['arpoAdvantage', 'arpoAlpha', 'arpoBeta', 'arpoK', 'arpoZ', 'clipHigh', 'dapoMaxGenBatches', 'klCoef', 'overlongBuffer']);
    for (const m of fixture.moves.filter((x) => scoped.includes(x.setting))) {
      const only = (SETTINGS[m.setting] as Setting).algorithms!.only;
      expect({ setting: m.setting, algorithm: m.algorithm, changes: Object.keys(m.trainer).length > 0 })
        .toEqual({ setting: m.setting, algorithm: m.algorithm, changes: only.includes(m.algorithm) });
      const lab = { ...defaultConfig(), [m.setting]: m.value, algorithm: m.algorithm } as LabConfig;
      expect(ignoredSettings(lab).map((x) => x.key)).toEqual(only.includes(m.algorithm) ? [] : [m.setting]);
    }
    expect(unusedIn('klCoef', { stage: 'rl', algorithm: 'dapo' })).toBe('GRPO only: DAPO and ARPO train with no KL penalty, as their reference scripts do');
    expect(unusedIn('clipHigh', { stage: 'rl', algorithm: 'grpo' })).toBe('DAPO only: GRPO and ARPO clip symmetrically, at ε low');
    expect(unusedIn('klCoef', { stage: 'rl', algorithm: 'grpo' })).toBeNull();
    // the stage's reason comes first: on SFT every RL knob is RL-only, whatever the algorithm
    expect(unusedIn('klCoef', { stage: 'sft', algorithm: 'dapo' })).toMatch(/^RL only/);
  });

  it('a setting read under another\'s value alone is left out of the trainer config otherwise, and named ignored', () => {
    const fixed = { ...defaultConfig(), curriculumSignalShare: 0.3 };
    expect(rlConfigFromLab(fixed)).not.toHaveProperty('curriculumSignalShare');
    expect(ignoredSettings(fixed)).toEqual([{ key: 'curriculumSignalShare', why: 'Curriculum: when to switch = Adaptive (by signal) only: the fixed curriculum switches at its two fractions of training' }]);
    const adaptive = { ...fixed, reward: 'curriculum' as const, curriculumSwitch: 'adaptive' as const };
    expect(rlConfigFromLab(adaptive).curriculumSignalShare).toBe(0.3);
    expect(ignoredSettings(adaptive)).toEqual([]);
    expect(unusedIn('curriculumSignalShare', { stage: 'rl', algorithm: 'grpo' })).toMatch(/only: the fixed curriculum/);
  });

  it('holds each setting to its row of the table: its bounds are the page\'s, its name the table\'s', () => {
    const trainerKeys = SETTING_KEYS.filter((k) => (SETTINGS[k] as Setting).trainer);
    expect(Object.keys(rlConfigFromLab(defaultConfig()))).toEqual(expect.arrayContaining(trainerKeys.filter((k) => k !== 'curriculumSignalShare')));
    expect(() => rlConfigFor('dapo', { dapoMaxGenBatches: 21 })).toThrow('RL config: dapoMaxGenBatches must be between 1 and 20, got 21');
    expect(() => rlConfigFor('grpo', { planDecoding: 'loose' as never })).toThrow('RL config: planDecoding must be one of free, constrained');
  });

  it('rlConfigFor is the page\'s defaults with the caller\'s overrides', () => {
    expect(rlConfigFor('dapo')).toEqual(rlConfigFromLab({ ...defaultConfig(), algorithm: 'dapo' }));
    expect(rlConfigFor('grpo', { temperature: 1, groupSize: 4 })).toMatchObject({ temperature: 1, groupSize: 4, arpoInitial: 2, planDecoding: 'constrained' });
  });
});
