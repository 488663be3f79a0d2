// A class pools its learners' runs: the teacher pastes result links (resultCode.ts), each checked
// — another lesson, another setting or build than the class's, a seed already in the class, malformed or
// tampered: refused with its reason, nothing else changed — and the accepted ends are tested as the findings
// test two settings (Welch's test of the two arms' end success), with the power the class had at its size
// and the committed seeds' answer beside it. A class of 20 laptops is 20 seeds. A class is of one size: a smoke
// run's 4-query end is neither comparable with full-size ends nor placed in their band, so a link of another
// size than the class's is refused, named by its learner's label or its seed. Pure: no DOM, no tfjs.
import { tInterval, type Interval } from '../stats/intervals.ts';
import { pooledSd, seedsForPower, twoSampleTPower, welchTest, type DifferenceTest } from '../stats/seedStatistics.ts';
import { SETTINGS, type LabConfig } from '../lab/config.ts';
import { armConfig, SMOKE_SIZE, type Lesson } from './lessons.ts';
import { settingKey, type SettingReference } from './lessonReference.ts';
import { decodeResultLink, peekResult, settingHash, type LessonResult, type RefusalReason } from './resultCode.ts';
import type { CommittedComparison } from '../findings/committedComparison.ts';

export type ClassRefusal = RefusalReason | 'setting' | 'build' | 'seed' | 'size';

/** the size a class pools: the lesson's full size (its committed runs'), its smoke size, or another setting of its
 * arms */
export type ClassSize = 'full' | 'smoke' | 'other';
export const SIZE_WORDS: Record<ClassSize, string> = {
  full: 'full size',
  smoke: 'smoke size',
  other: 'changed setting',
};
const ADJECTIVE: Record<ClassSize, string> = { full: 'full-size', smoke: 'smoke-size', other: 'changed-setting' };

/** a result's size, from its setting hash: its arm's at the lesson's size, at the smoke size, or neither. A run
 *  stores the world it trained in — its starting checkpoint's, whatever the planned worldSize said (a page's smoke
 *  run stores `tiny`) — so every world size of the arm's setting is its setting. */
export function resultSize(lesson: Lesson, r: LessonResult): ClassSize {
  const arm = lesson.arms.find((a) => a.key === r.arm);
  if (!arm) return 'other';
  const at = (size: Partial<LabConfig>) =>
    WORLD_SIZES.some((worldSize) => settingHash(settingKey({ ...armConfig(arm, 1, size), worldSize })) === r.setting);
  if (at({})) return 'full';
  if (at(SMOKE_SIZE)) return 'smoke';
  return 'other';
}
const WORLD_SIZES = SETTINGS.worldSize.choices as readonly LabConfig['worldSize'][];

/** a pasted line: a learner's label, when one comes before the link or code ("Ana: https://…"), and the link */
export function splitLine(line: string): { label: string | null; link: string } {
  const m = /(https?:\/\/|#?lesson=|result=|(?<![\w.])v\d+\.)/.exec(line);
  if (!m || m.index === 0) return { label: null, link: line };
  const label = line.slice(0, m.index).replace(/[\s:,;|>—–-]+$/, '').trim();
  return { label: label ? label.slice(0, 40) : null, link: line.slice(m.index) };
}

/** `name`, or `name #2`, `#3`… — the first no other class of the lesson has (case and spaces aside) */
export function uniqueName(name: string, taken: readonly string[]): string {
  const key = (x: string) => x.trim().replace(/\s+/g, ' ').toLowerCase();
  const used = new Set(taken.map(key));
  if (!used.has(key(name))) return name;
  for (let i = 2; ; i++) if (!used.has(key(`${name} #${i}`))) return `${name} #${i}`;
}

/** a new class's name: the lesson, its size, the day — unique among `taken` */
export function freshClassName(lesson: Lesson, size: ClassSize | null, day: string, taken: readonly string[]): string {
  return uniqueName(`${lesson.short}${size ? ` · ${SIZE_WORDS[size]}` : ''} · ${day}`, taken);
}

export interface ClassMember {
  code: string;
  result: LessonResult;
}

export interface AddOutcome {
  /** the class after the lines: the old members, then the accepted, in order */
  members: ClassMember[];
  accepted: ClassMember[];
  /** each refused line, named (`who`) by its learner's label, else its seed, else its line number */
  rejected: { line: string; who: string; reason: ClassRefusal; message: string }[];
  /** the class's size: the one given, else its first member's (null: no member yet) */
  size: ClassSize | null;
}

/**
 * Adds pasted lines (one link or code a line, a learner's label before it allowed; blank lines skipped) to a
 * class of `lesson`. The class's size is `size`, else its first member's (so a class of smoke runs pools smoke
 * runs); its setting per arm and its build are those of its first member; a seed counts once an arm (a
 * learner's two arms share one seed).
 */
export function addToClass(
  lesson: Lesson,
  members: readonly ClassMember[],
  lines: readonly string[],
  size: ClassSize | null = null,
): AddOutcome {
  const out: ClassMember[] = [...members];
  const accepted: ClassMember[] = [];
  const rejected: AddOutcome['rejected'] = [];
  let classSize = size ?? (out[0] ? resultSize(lesson, out[0].result) : null);
  const armLabel = (key: string) => lesson.arms.find((a) => a.key === key)?.label ?? key;
  lines.forEach((raw, k) => {
    const line = raw.trim();
    if (!line) return;
    const { label, link } = splitLine(line);
    const d = decodeResultLink(link, lesson.id);
    if (!d.ok) {
      const peek = peekResult(link);
      rejected.push({
        line,
        who: label ?? (peek ? `seed ${peek.seed} (as its unchecked payload says)` : `line ${k + 1}`),
        reason: d.reason,
        message: d.message,
      });
      return;
    }
    const r = d.result;
    const who = label ?? `seed ${r.seed}, ${armLabel(r.arm)}`;
    const first = out[0]?.result;
    const sameArm = out.find((m) => m.result.arm === r.arm)?.result;
    const rSize = resultSize(lesson, r);
    if (classSize && rSize !== classSize) {
      rejected.push({
        line,
        who,
        reason: 'size',
        message: `a ${ADJECTIVE[rSize]} run (${r.queries} queries an evaluation) in a ${ADJECTIVE[classSize]} class: its end is comparable neither with the class's ends nor with ${classSize === 'full' ? "the committed runs' band" : 'the full-size band'} — add it to a class of its own size`,
      });
    } else if (first && r.build !== first.build)
      rejected.push({
        line,
        who,
        reason: 'build',
        message: `another build (${r.build}) than the class's (${first.build}): the code, not only the dice, may differ`,
      });
    else if (sameArm && r.setting !== sameArm.setting)
      rejected.push({
        line,
        who,
        reason: 'setting',
        message: `another setting of the ${r.arm} arm than the class's (a changed run among the class's)`,
      });
    else if (out.some((m) => m.result.arm === r.arm && m.result.seed === r.seed))
      rejected.push({
        line,
        who,
        reason: 'seed',
        message: `seed ${r.seed} of the ${r.arm} arm is already in the class (the same run pasted twice?)`,
      });
    else {
      const m = { code: d.code, result: r };
      out.push(m);
      accepted.push(m);
      classSize ??= rSize;
    }
  });
  return { members: out, accepted, rejected, size: classSize };
}

/** a member's end success, a share */
export const endOf = (r: LessonResult) => r.endSuccesses / r.queries;
export const startOf = (r: LessonResult) => r.startSuccesses / r.queries;

export interface ClassTest {
  /** per arm, in the lesson's order: the class's ends */
  ends: number[][];
  /** the learners: distinct seeds */
  learners: number;
  /** Welch's test over the class's ends (null below two ends an arm; lesson 5: null), signed as the committed answer
   *  is — the pair's higher arm first (`order`), so the class's figure and the answer read the same way */
  test: DifferenceTest | null;
  /** every arm's ends are equal (all 0 % at the smoke size, say): no spread, so no test can be made — `test` and
   *  `pooled` are null then, and the page says so rather than "+0.0 points, p = 1" */
  noSpread: boolean;
  /** the arms' indices in the order `test` takes them: [first, second] */
  order: [number, number];
  /** lesson 5 (one setting): the class's mean end with its t interval, and its SD a run */
  pooled: { mean: Interval; sd: number } | null;
  /** the committed answer: with a findings pair, its one committed comparison (the finding's planned seeds; `sd` its
   *  pooled SD, a share); without one, Welch's test of the committed seeds' ends (first − second arm); lesson 5, their
   * mean */
  committed: {
    answer: CommittedComparison | null;
    test: DifferenceTest | null;
    sd: number;
    mean: Interval | null;
  } | null;
  /** the power Welch's test had at the class's size (the smaller arm) to find the committed difference (null below 2 or
   * without one) */
  power: number | null;
  /** the learners an arm that give 80 % power at the committed difference (null: no committed difference to size
   * for) */
  sizeFor80: number | null;
}

/** the class's pooled test of the lesson's comparison, with its power and the committed answer (`answer`: the
 *  lesson's findings pair's committed comparison, when its table has it) */
export function classTest(
  lesson: Lesson,
  members: readonly ClassMember[],
  refs: readonly (SettingReference | null)[],
  answer: CommittedComparison | null = null,
): ClassTest {
  const ends = lesson.arms.map((a) => members.filter((m) => m.result.arm === a.key).map((m) => endOf(m.result)));
  const learners = new Set(members.map((m) => m.result.seed)).size;
  const committed = committedFigures(lesson, refs, answer);
  const order = armOrder(lesson);
  const flat = (xs: readonly number[]) => xs.every((x) => x === xs[0]);
  if (lesson.seedsOnly) {
    const all = ends.flat();
    const noSpread = all.length >= 2 && flat(all);
    const pooled = all.length >= 2 && !noSpread ? { mean: tInterval(all), sd: pooledSd([all]).sd } : null;
    return { ends, learners, test: null, noSpread, order, pooled, committed, power: null, sizeFor80: null };
  }
  const [first, second] = order.map((i) => ends[i]);
  const enough = first.length >= 2 && second.length >= 2;
  const noSpread = enough && flat(first) && flat(second);
  const test = enough && !noSpread ? welchTest(first, second) : null;
  const n = Math.min(ends[0].length, ends[1].length);
  const delta = committedDelta(committed);
  const power =
    delta !== null && committed && committed.sd > 0 && n >= 2
      ? twoSampleTPower({ n, delta, sd: committed.sd, alpha: 0.05 })
      : null;
  return {
    ends,
    learners,
    test,
    noSpread,
    order,
    pooled: null,
    committed,
    power,
    sizeFor80: classSizeFor80(lesson, refs, answer),
  };
}

/** the pair's higher arm first (the paper's direction), else the lesson's order */
function armOrder(lesson: Lesson): [number, number] {
  const hi = lesson.pair ? lesson.arms.findIndex((a) => a.key === lesson.pair!.higherArm) : -1;
  return hi === 1 ? [1, 0] : [0, 1];
}

/** the committed difference a class is sized for, a share: the answer's (points) or the committed seeds' test */
function committedDelta(c: ClassTest['committed']): number | null {
  if (c?.answer?.difference != null) return Math.abs(c.answer.difference) / 100;
  return c?.test ? Math.abs(c.test.difference) : null;
}

function committedFigures(
  lesson: Lesson,
  refs: readonly (SettingReference | null)[],
  answer: CommittedComparison | null,
): ClassTest['committed'] {
  if (answer && answer.sd !== null) return { answer, test: null, sd: answer.sd / 100, mean: null };
  const [a, b] = refs;
  if (!a || a.seeds.length < 2) return null;
  if (lesson.seedsOnly) return { answer: null, test: null, sd: pooledSd([a.eval.end]).sd, mean: tInterval(a.eval.end) };
  if (!b || b.seeds.length < 2) return null;
  return {
    answer: null,
    test: welchTest(a.eval.end, b.eval.end),
    sd: pooledSd([a.eval.end, b.eval.end]).sd,
    mean: null,
  };
}

/**
 * The learners an arm a class needs for 80 % power (Welch's test, α 0.05) to find the committed difference at its
 * pooled SD — the answer's (the finding's planned seeds) where the lesson has a findings pair, else the committed
 * seeds' ends; null for lesson 5 (one setting) or without a reference.
 */
export function classSizeFor80(
  lesson: Lesson,
  refs: readonly (SettingReference | null)[],
  answer: CommittedComparison | null = null,
): number | null {
  if (lesson.seedsOnly) return null;
  const c = committedFigures(lesson, refs, answer);
  const delta = committedDelta(c);
  if (!c || delta === null || !(c.sd > 0) || delta === 0) return null;
  return seedsForPower({ delta, sd: c.sd, alpha: 0.05, power: 0.8, max: 10_000 });
}

/** the class as CSV, one row a member (RFC 4180 quoting where a field needs it) */
export function classCsv(members: readonly ClassMember[]): string {
  const head = [
    'lesson',
    'arm',
    'seed',
    'setting',
    'backend',
    'build',
    'queries',
    'start_success',
    'end_success',
    'start_ood',
    'end_ood',
    'mechanism',
    'code',
  ];
  const q = (v: unknown) => {
    const s = v === null || v === undefined ? '' : String(v);
    return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const rows = members.map(({ code, result: r }) =>
    [
      r.lesson,
      r.arm,
      r.seed,
      r.setting,
      r.backend,
      r.build,
      r.queries,
      startOf(r).toFixed(4),
      endOf(r).toFixed(4),
      r.startOod ?? '',
      r.endOod ?? '',
      r.mechanism.map((m) => m ?? '').join(' '),
      code,
    ]
      .map(q)
      .join(','),
  );
  return [head.join(','), ...rows].join('\n') + '\n';
}
