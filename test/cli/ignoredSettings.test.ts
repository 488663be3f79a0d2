// A --config knob the chosen algorithm does not read is named as ignored, never dropped in silence: KL under
// DAPO or ARPO, clip-high under GRPO or ARPO, a DAPO or ARPO knob under another algorithm, an SFT-only
// setting in an RL run. The page disables the same controls with the same reason. Pure (no tfjs): milliseconds.
import { describe, expect, it } from 'vitest';
import { ignoredSettingLines, parseLabConfig } from '../../src/cli/labConfigArg.ts';

describe('a --config setting the run does not read', () => {
  it('is named with why, under the algorithm that ignores it', () => {
    expect(ignoredSettingLines(parseLabConfig('#algorithm=dapo&klCoef=0.01'))).toEqual([
      '--config: klCoef=0.01 is ignored (GRPO only: DAPO and ARPO train with no KL penalty, as their reference scripts do)',
    ]);
    expect(ignoredSettingLines(parseLabConfig('#clipHigh=0.3&arpoZ=2&sftLearningRate=0.001'))).toEqual([
      '--config: clipHigh=0.3 is ignored (DAPO only: GRPO and ARPO clip symmetrically, at ε low)',
      '--config: arpoZ=2 is ignored (ARPO only: only ARPO branches its rollouts)',
      '--config: sftLearningRate=0.001 is ignored (SFT only: RL starts from the checkpoint under Starting point)',
    ]);
  });

  it('is not named where the algorithm reads it, nor where it is left at its default', () => {
    expect(ignoredSettingLines(parseLabConfig('#klCoef=0.01'))).toEqual([]);
    expect(ignoredSettingLines(parseLabConfig('#algorithm=dapo&clipHigh=0.3&overlongBuffer=32'))).toEqual([]);
    expect(ignoredSettingLines(parseLabConfig('{"algorithm":"arpo","arpoZ":2,"arpoAdvantage":"hard"}'))).toEqual([]);
    expect(ignoredSettingLines(parseLabConfig('#algorithm=arpo'))).toEqual([]);
  });
});
