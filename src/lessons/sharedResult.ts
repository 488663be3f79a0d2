// A result link opened (`#lesson=<id>&result=<code>`): what the page shows of the shared result —
// the lesson and arm, whether it ran at the lesson's setting, its seed, backend and build, validation success
// from start to end (and OOD), the mechanism's last-quarter figures, and its verdict against the committed
// band of its arm — or, for a bad link, why it is refused. The class view pools such links; this reads one.
// Pure: no DOM, no tfjs.
import { formatAverage, formatPercent, metricInfo } from '../lab/metrics.ts';
import type { Lesson } from './lessons.ts';
import { placeInBand, type SettingReference } from './lessonReference.ts';
import { decodeResultLink, type LessonResult, type RefusedLink, type ShownLink } from './resultCode.ts';
import { resultSize } from './lessonClass.ts';

export type BandVerdict = 'inside' | 'above' | 'below' | 'off-setting' | 'no-band';

export type SharedResult =
  | RefusedLink
  | (ShownLink<BandVerdict> & {
      result: LessonResult;
      /** the arm's label in the lesson */
      arm: string;
      /** whether the run was at the lesson's reference setting (a smoke size is not) */
      atSetting: boolean;
    });

const pts = (x: number) => formatPercent(x, ' ');

/**
 * Reads `code` (the `result=` of the address) as a result of `lesson`, placed against the committed band of its
 * arm (`refs`, per arm in the lesson's order). A code of another lesson, tampered or malformed, is refused with
 * the reason the class view would give.
 */
export function readSharedResult(
  lesson: Lesson,
  code: string,
  refs: readonly (SettingReference | null)[],
): SharedResult {
  const decoded = decodeResultLink(`lesson=${lesson.id}&result=${code}`, lesson.id);
  if (!decoded.ok) return decoded;
  const r = decoded.result;
  const index = lesson.arms.findIndex((a) => a.key === r.arm);
  const arm = lesson.arms[index];
  // its setting as the class reads it (resultSize: any world size the run stored counts as the arm's)
  const atSetting = resultSize(lesson, r) === 'full';
  const start = r.startSuccesses / r.queries;
  const end = r.endSuccesses / r.queries;
  const mechanisms = lesson.charts.filter((c) => c.role === 'mechanism');
  const facts: [string, string][] = [
    ['Lesson', lesson.title],
    ['Arm', arm.label],
    [
      'Setting',
      atSetting
        ? "the lesson's (the committed runs')"
        : `another than the lesson's (hash ${r.setting}): a smoke size or a changed setting`,
    ],
    ['Seed', String(r.seed)],
    ['Backend · build', `${r.backend} · ${r.build}`],
    [
      'Validation success',
      `${pts(start)} → ${pts(end)} (${r.startSuccesses} → ${r.endSuccesses} of ${r.queries} queries)`,
    ],
  ];
  if (r.startOod !== null || r.endOod !== null)
    facts.push([
      'OOD accuracy',
      `${r.startOod === null ? '–' : pts(r.startOod)} → ${r.endOod === null ? '–' : pts(r.endOod)}`,
    ]);
  mechanisms.forEach((c, i) => {
    const v = r.mechanism[i];
    const info = metricInfo(c.metric);
    facts.push([
      `${info.label}, mean of the last quarter of steps`,
      v === null ? '–' : info.format === 'rate' ? pts(v) : formatAverage(info, v),
    ]);
  });

  const ref = refs[index] ?? null;
  const shown = { ok: true as const, result: r, arm: arm.label, atSetting, facts };
  if (!atSetting) {
    return {
      ...shown,
      verdict: 'off-setting',
      verdictText: `Not at the lesson's setting: the committed band of ${arm.label} is not its reference, so it is not placed against it.`,
    };
  }
  const placed = ref ? placeInBand(end, ref) : null;
  if (!placed) {
    return {
      ...shown,
      verdict: 'no-band',
      verdictText: `No band for ${arm.label} yet (fewer than two committed seeds): nothing to place it against.`,
    };
  }
  const drop = end < start ? ` It ended below its own start (${pts(start)} → ${pts(end)}).` : '';
  return {
    ...shown,
    verdict: placed.verdict,
    verdictText: `It ended at ${pts(end)}, ${placed.verdict} the band where one run of ${arm.label} is expected, [${pts(placed.lo)}, ${pts(placed.hi)}] (the ${ref!.seeds.length} committed seeds).${drop}`,
  };
}
