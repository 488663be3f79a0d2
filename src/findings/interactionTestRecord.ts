// The interactions' plan's test as it is committed: `power-plan --interactions --test` writes
// results/findings/interactions-test.{json,md} from the plan's fresh-seed runs, and the page shows it under its
// finding's interaction forest, beside the test on the committed seeds. The record says how many of the plan's
// runs had finished, so an interim record (no call) is never mistaken for the test. Pure: no tfjs, no DOM, no fs.
import type { InteractionPlan, PlannedInteractionResult } from './interactionPlan.ts';
import { signed } from './findingGains.ts';
import { intervalText, levelPercent } from './gainText.ts';

export const INTERACTION_TEST_FORMAT = 'star-lab-interaction-test/1';

export interface InteractionTestRecord {
  format: typeof INTERACTION_TEST_FORMAT;
  /** when the test was computed, and at which commit */
  date: string;
  commit: string;
  /** files that differed from `commit` when it was computed (only with --allow-dirty) */
  dirtyFiles?: { path: string; sha256: string | null }[];
  /** the command that recomputes it */
  command: string;
  /** the plan it tests: made before any of its runs */
  plan: { date: string; commit: string; firstSeed: number; lastSeed: number; runs: number; finished: number };
  results: PlannedInteractionResult[];
}

export function interactionTestRecord(
  plan: InteractionPlan,
  results: PlannedInteractionResult[],
  o: {
    date: string;
    commit: string;
    dirtyFiles?: { path: string; sha256: string | null }[];
    command: string;
    finished: number;
  },
): InteractionTestRecord {
  return {
    format: INTERACTION_TEST_FORMAT,
    date: o.date,
    commit: o.commit,
    ...(o.dirtyFiles?.length ? { dirtyFiles: o.dirtyFiles } : {}),
    command: o.command,
    plan: {
      date: plan.date,
      commit: plan.commit,
      firstSeed: plan.seeds[0],
      lastSeed: plan.seeds[plan.seeds.length - 1],
      runs: plan.runs.length,
      finished: o.finished,
    },
    results,
  };
}

/** `1.5B · ARPO` and `1.5B · GRPO` → `ARPO − GRPO at 1.5B` (the level the two cells share) */
function simpleDifference(a: string, b: string): { what: string; at: string } {
  const [a0, a1] = a.split(' · ');
  const [b0, b1] = b.split(' · ');
  if (a0 === b0) return { what: `${a1} − ${b1}`, at: a0 };
  if (a1 === b1) return { what: `${a0} − ${b0}`, at: a1 };
  return { what: `${a} − ${b}`, at: '' };
}

/**
 * One planned interaction in words: the two simple differences on the fresh seeds, their difference with its
 * interval and test, the call, and where the paper's value falls.
 */
export function plannedTestSentence(r: PlannedInteractionResult): string {
  const [c0, c1, c2, c3] = r.cells;
  const hi = simpleDifference(c0.cell, c1.cell);
  const lo = simpleDifference(c2.cell, c3.cell);
  const seeds = r.finished.every((n) => n === r.planned)
    ? `${r.planned} fresh seeds a cell`
    : `${r.finished.join('/')} of ${r.planned} fresh seeds a cell`;
  // the interval beside the call is at the call's own level (1 − α); a record made before levels were kept has only the
  // 95 % one
  const ci = r.interval ?? (r.ci95 && { ...r.ci95, level: 0.95, holm: false });
  if (r.difference === null || !ci || c0.mean === null || c1.mean === null || c2.mean === null || c3.mean === null) {
    return `${hi.what}: ${seeds}, fewer than two in a cell — no figures yet.`;
  }
  const simple = `${hi.what} gains ${signed(c0.mean - c1.mean)} points at ${hi.at} and ${signed(c2.mean - c3.mean)} at ${lo.at} (${seeds})`;
  const test = `the difference, ${signed(r.difference)} ${intervalText(ci)} (Welch–Satterthwaite df ${r.df}, p ${r.p! < 0.001 ? '< 0.001' : r.p} at α ${r.alpha})`;
  // an interim record names no call, and says nothing of the paper either: it is not the test. Where the paper's value
  // lies is read from the interval at the call's level only: a 95 % interval would place it against another test
  const paper =
    r.paper === null || r.call === 'interim'
      ? ''
      : r.paper >= ci.lo && r.paper <= ci.hi
        ? `; the paper's ${signed(r.paper)} is inside its interval`
        : `; the interval excludes the paper's ${signed(r.paper)}${nearEnd(r.paper, ci)}`;
  const call = r.call === 'interim' ? 'interim: no call until every planned run has finished' : r.call;
  // a test that did not reject says nothing of absence; the equivalence test at the test's own α does, where it rejects
  const e = r.call === 'interim' ? null : r.equivalence;
  const eq = e
    ? ` By the equivalence test at α ${r.alpha}, it ${e.rulesOut ? 'rules out' : 'does not rule out'} ±${e.delta} points (TOST p ${e.p})` +
      (e.paper && r.paper !== null
        ? ` and, one-sided, ${e.paper.rulesOut ? 'rules out' : 'does not rule out'} the paper's ${signed(r.paper)} (p ${e.paper.p})`
        : '') +
      '.'
    : '';
  const w = r.call === 'interim' ? null : r.realised;
  const spread = w
    ? ` The fresh seeds spread with a pooled SD of ${w.sd.toFixed(2)} points against the plan's ${w.plannedSd.toFixed(2)}` +
      (w.powerAtPaper !== null && r.paper !== null ? `, which left ${w.powerAtPaper.toFixed(2)} power for the paper's ${signed(r.paper)}` : '') +
      '.'
    : '';
  return `${simple}; ${test} — ${call}${paper}.${eq}${spread}`;
}

/** where the paper's value lies within a rounding of an end, that end to two decimals, so "+11.9 excludes +11.9" never
 * reads */
function nearEnd(paper: number, ci: { lo: number; hi: number }): string {
  const end =
    Math.abs(paper - ci.hi) < Math.abs(paper - ci.lo) ? { at: ci.hi, which: 'upper' } : { at: ci.lo, which: 'lower' };
  if (Math.abs(paper - end.at) >= 0.1) return '';
  return ` (its ${end.which} end is ${end.at > 0 ? '+' : end.at < 0 ? '−' : ''}${Math.abs(end.at).toFixed(2)})`;
}

/** the record as Markdown, committed beside the plan */
export function interactionTestMarkdown(t: InteractionTestRecord): string {
  const complete = t.plan.finished === t.plan.runs;
  return [
    "# The interactions' planned test",
    '',
    `Computed by \`${t.command}\` at commit ${t.commit.slice(0, 10)} on ${t.date.slice(0, 10)}, from ${t.plan.finished} of the ${t.plan.runs} runs of the`,
    `[plan](interactions-plan.md) made at commit ${t.plan.commit.slice(0, 10)} on ${t.plan.date.slice(0, 10)}, before any of them: fresh seeds ${t.plan.firstSeed}–${t.plan.lastSeed},`,
    "tested on those seeds alone (each run's gain as measured, unrounded), each interaction at the α the plan sized it for",
    "(Holm's first threshold across its finding's interactions) and its interval at that level.",
    complete
      ? ''
      : `\n**Interim:** ${t.plan.runs - t.plan.finished} planned runs have not finished; the test makes no call until they have.\n`,
    '| finding | interaction | cells: mean gain ± SD (n) | difference | interval at 1 − α | df | p | α | paper | call |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...t.results.map(
      (r) =>
        `| ${r.finding} | ${r.interaction} | ${r.cells.map((c) => `${c.cell} ${c.mean === null ? '—' : `${signed(c.mean)} ± ${c.sd!.toFixed(1)}`} (${c.n})`).join('; ')} | ` +
        `${r.difference === null ? '—' : signed(r.difference)} | ${r.interval ? `[${signed(r.interval.lo)}, ${signed(r.interval.hi)}] (${levelPercent(r.interval.level)})` : r.ci95 ? `[${signed(r.ci95.lo)}, ${signed(r.ci95.hi)}] (95 %)` : '—'} | ${r.df ?? '—'} | ${r.p ?? '—'} | ${r.alpha} | ` +
        `${r.paper === null ? '—' : signed(r.paper)} | ${r.call} |`,
    ),
    '',
    ...t.results.map((r) => `- **${r.finding}.** ${plannedTestSentence(r)}`),
    '',
    "An independent implementation (SciPy) recomputes it from the runs' summaries: `python3 scripts/interaction_crosscheck.py plan`.",
    '',
  ].join('\n');
}
