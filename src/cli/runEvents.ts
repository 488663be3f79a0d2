// A finished run's TensorBoard event file (src/store/tensorboardEvents.ts writes the format): every metric of
// metrics.jsonl as a scalar, and the config as text, so `tensorboard --logdir runs/` overlays the runs of a folder.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeAtomic } from '../node/atomicWrite.ts';
import { withMetricNames } from '../lab/metrics.ts';
import { configMarkdown, scalarsFromMetricLines, TENSORBOARD_FILE, tensorboardEventFile } from '../store/tensorboardEvents.ts';
import type { LabConfig } from '../lab/config.ts';

/** what the event file needs of a run's summary.json */
export interface EventRunSummary {
  hash: string;
  lab: LabConfig;
  steps: number;
  wallSeconds: number;
  finishedAt: string;
  checkpoint: string;
}

/** writes DIR/events.out.tfevents.star-lab from DIR/metrics.jsonl; a step's wall time is placed evenly between
 *  the run's start and its end (the lines record durations, not clock times) */
export function writeRunEvents(dir: string, s: EventRunSummary): string {
  const path = join(dir, 'metrics.jsonl');
  const lines = existsSync(path)
    ? readFileSync(path, 'utf8').split('\n').flatMap((l) => {
        try {
          return l.trim() ? [withMetricNames(JSON.parse(l) as { step: number } & Record<string, number | string>)] : [];
        } catch {
          return []; // a last line cut short by a full disk: the run dropped it too
        }
      })
    : [];
  const end = Date.parse(s.finishedAt) / 1000;
  const start = end - s.wallSeconds;
  const at = (step: number) => start + (s.wallSeconds * step) / Math.max(1, s.steps);
  const scalars = scalarsFromMetricLines(lines, (l) => at(Number(l.step)));
  const file = join(dir, TENSORBOARD_FILE);
  writeAtomic(file, tensorboardEventFile(scalars, [{ tag: 'config', text: configMarkdown(`\`${s.hash || '(every setting at its default)'}\` from ${s.checkpoint}`, s.lab), step: 0, wallTime: start }]));
  return file;
}
