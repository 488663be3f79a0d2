// What runs report and record since results/reference/arpo-s-3steps was made: the tests that rerun it want
// every number it holds back to the bit and, beside them, exactly these additions (no other key, none missing).
import { SETTINGS } from '../../src/lab/config.ts';

/** the metrics every training step reports since the reference was recorded */
export const METRICS_ADDED_SINCE = ['charts/signal_sum', 'charts/signal_macro', 'charts/signal_success'] as const;

/** the settings added since, at their defaults: the reference's link reads with them */
export const SETTINGS_ADDED_SINCE = {
  curriculumSwitch: SETTINGS.curriculumSwitch.default,
  curriculumSignalShare: SETTINGS.curriculumSignalShare.default,
};

/** a metrics row without the metrics added since, after checking a training row has each of them as a number */
export function withoutAdded(row: Record<string, unknown>, training: boolean): Record<string, unknown> {
  const out = { ...row };
  for (const k of METRICS_ADDED_SINCE) {
    if (training && typeof out[k] !== 'number') throw new Error(`a training row lacks ${k}`);
    delete out[k];
  }
  return out;
}
