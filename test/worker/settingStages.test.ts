// STAGE_ONLY (src/lab/config.ts) says which settings one stage alone reads; the page greys the other
// stage's controls by it. Checked here against what the jobs read: a setting marked RL-only changes
// nothing in the SFT job's options, one marked SFT-only nothing in the RL config, and every setting
// left unmarked changes what the stage reads (so the list misses none).
import { describe, expect, it } from 'vitest';
import { SETTINGS, SETTING_KEYS, STAGE_ONLY, defaultConfig, unusedInStage, type LabConfig, type Setting, type SettingKey } from '../../src/lab/config.ts';
import { sftJobOptions } from '../../src/worker/sftJob.ts';
import { rlConfigFromLab } from '../../src/rl/rlConfig.ts';

/** the config with one setting moved off its default to a valid neighbour */
function moved(key: SettingKey): LabConfig {
  const s: Setting = SETTINGS[key];
  const c = defaultConfig() as Record<SettingKey, unknown>;
  if (s.kind === 'choice') c[key] = s.choices.find((x) => x !== s.default);
  else if (s.kind === 'mix') c[key] = [1, 1, 1];
  else {
    const step = s.kind === 'float' ? s.step : 1;
    c[key] = s.default + step <= s.max ? s.default + step : s.default - step;
  }
  // a setting read only under another's value is moved under that value (the base keeps the default)
  if (s.onlyWhen) c[s.onlyWhen.setting as SettingKey] = s.onlyWhen.is;
  return c as LabConfig;
}

const ALGORITHMS = SETTINGS.algorithm.choices;
/** the RL config under each algorithm (some knobs are read by one algorithm only) */
const rlRead = (c: LabConfig) => ALGORITHMS.map((algorithm) => rlConfigFromLab({ ...c, algorithm }));
// the RL job reads these beside its config (the starting checkpoint's scale, the training queries' axes);
// the algorithm is swept by rlRead itself
const RL_JOB_READS: SettingKey[] = ['scale', 'trainSize', 'mix', 'algorithm'];
// another change: the RL world comes from the starting checkpoint's card
const NOT_CHECKED_IN_RL: SettingKey[] = ['stage', 'worldSize'];

describe('STAGE_ONLY', () => {
  const keys = SETTING_KEYS.filter((k) => k !== 'stage');

  it('a setting marked RL-only changes nothing the SFT job reads; every other setting changes it', () => {
    const base = JSON.stringify(sftJobOptions(defaultConfig()));
    for (const k of keys) {
      const changes = JSON.stringify(sftJobOptions(moved(k))) !== base;
      expect({ key: k, changesSft: changes }).toEqual({ key: k, changesSft: STAGE_ONLY[k] !== 'rl' });
    }
  });

  it('a setting marked SFT-only changes nothing the RL job reads; every other setting changes it', () => {
    const base = JSON.stringify(rlRead(defaultConfig()));
    for (const k of keys.filter((key) => !NOT_CHECKED_IN_RL.includes(key))) {
      const changes = RL_JOB_READS.includes(k) || JSON.stringify(rlRead(moved(k))) !== base;
      expect({ key: k, changesRl: changes }).toEqual({ key: k, changesRl: STAGE_ONLY[k] !== 'sft' });
    }
  });

  it('gives the other stage a reason, and none to the stage that reads the setting', () => {
    expect(unusedInStage('reward', 'sft')).toMatch(/^RL only/);
    expect(unusedInStage('reward', 'rl')).toBeNull();
    expect(unusedInStage('sftLearningRate', 'rl')).toMatch(/^SFT only/);
    expect(unusedInStage('steps', 'sft')).toBeNull();
  });
});
