// The welcome's "Watch it learn": the smallest RL run whose validation success rose on most seeds, chosen by
// measurement with the CLI (results/watch-it-learn/README.md holds the seeds, the command and the figures).
// From the shipped m checkpoint (the default scale, where the recipe learns most clearly), a larger step than the
// recipe's so a minute shows it, and a small validation set so the evaluations stay seconds.
import { parseHash } from './urlState.ts';
import type { LabConfig } from './config.ts';

/** the run as a Lab link (also the CLI's `--config`) */
export const WATCH_IT_LEARN_HASH = '#evalEvery=5&evalQueries=50&evalToolQa=0&steps=5&learningRate=0.0002';

/** the run's setup; throws if the link no longer reads whole (a setting renamed or its bounds changed) */
export function watchItLearnConfig(): LabConfig {
  const { config, notices } = parseHash(WATCH_IT_LEARN_HASH);
  if (notices.length) throw new Error(`Watch it learn's setup no longer reads: ${notices.map((n) => `${n.key} ${n.message}`).join('; ')}`);
  return config;
}
