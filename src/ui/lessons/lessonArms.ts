// A lesson's arms as the page shows them, and each one's run as the takeaway reads it. No DOM here.
import { armConfig, LESSON_SIZE, SMOKE_SIZE, type LessonArm } from '../../lessons/lessons.ts';
import type { LearnerRun } from '../../lessons/lessonTakeaway.ts';
import type { ArmState } from '../../lessons/sittingState.ts';
import type { SettingKey } from '../../lab/config.ts';
import { configFromRecord, formatValue } from '../../lab/urlState.ts';
import type { MetricPoint, RunRecord } from '../../store/records.ts';
import type { RunProgress } from '../../worker/api.ts';

/** one arm of the shown sitting: its run (if started), its state, live progress and metric points */
export interface ArmView {
  arm: LessonArm;
  i: number;
  run: RunRecord | null;
  state: ArmState;
  progress: RunProgress | null;
  points: MetricPoint[];
}

/** the arm's run as the takeaway reads it, with the size settings it ran off the lesson's standard */
export function learnerRun(a: ArmView): LearnerRun | null {
  if (!a.run) return null;
  const config = configFromRecord(a.run.config).config;
  const standard = armConfig(a.arm, config.seed);
  const off = (Object.keys({ ...LESSON_SIZE, ...SMOKE_SIZE }) as SettingKey[])
    .filter((k) => formatValue(k, config[k]) !== formatValue(k, standard[k]))
    .map((k) => `${k}=${formatValue(k, config[k])}`);
  return {
    seed: config.seed,
    status: a.progress?.status ?? a.run.status,
    totalSteps: config.steps,
    points: a.points,
    offSetting: off,
    rolloutsPerStep: config.queriesPerStep * config.groupSize,
  };
}
