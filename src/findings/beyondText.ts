// T8's and T9's answers in words (src/findings/beyondTest.ts computes them): each tested difference in the words its
// test allows, where the adaptive curriculum switches, and the record as Markdown (results/findings/beyond-test.md).
// Pure: no tfjs, no DOM, no fs.
import type { MechanismFigure } from './mechanisms.ts';
import { BEYOND_QUESTIONS, type BeyondDifference, type BeyondTestRecord, type T8Answer } from './beyondTest.ts';

const signed = (x: number) => (x > 0 ? `+${x.toFixed(1)}` : x < 0 ? `−${(-x).toFixed(1)}` : '0.0');
/** `seeds finished 0, 15 of 20 a cell` (one count a cell the difference reads) */
const seeds = (x: BeyondDifference) => `seeds finished ${x.n.join(', ')} of ${x.planned} a cell`;
const pct = (level: number) => `${Number((100 * level).toFixed(2))} %`;

/** a tested difference in the words its test allows: a call only from a rejected Holm-adjusted Welch test of a
 *  complete plan, "not detected" from one that did not reject, "rules out ±δ" only from a rejected TOST at δ */
export function beyondDifferenceSentence(x: BeyondDifference, familyAlpha: number): string {
  if (x.difference === null || !x.interval)
    return `${x.label}: ${x.call === 'interim' ? `interim, ${seeds(x)} — too few to compute` : 'fewer than two seeds a cell'}.`;
  const fig = `${signed(x.difference)} points [${signed(x.interval.lo)}, ${signed(x.interval.hi)}] (${pct(x.interval.level)}), Holm p ${x.pAdjusted}`;
  if (x.call === 'interim')
    return `${x.label}: ${fig} — interim (${seeds(x)}), no call until every planned run has finished.`;
  const said =
    x.call === 'positive'
      ? `positive (Holm p < ${familyAlpha})`
      : x.call === 'negative'
        ? `negative (Holm p < ${familyAlpha})`
        : `not detected (Holm p ≥ ${familyAlpha})`;
  const eq = x.equivalence
    ? `; the equivalence test ${x.equivalence.shown ? 'rules out' : 'does not rule out'} ±${x.equivalence.delta} (Holm p ${x.equivalence.pAdjusted})`
    : '';
  return `${x.label}: ${said}: ${fig}${eq}.`;
}

/** where the adaptive rule moves on at one scale, in words: the median step with its interval, and the runs that
 *  never got there (censored) counted apart */
export function switchSentence(s: T8Answer['switches'][number]): string {
  const i = s.interval;
  const to = s.stage === 1 ? 'Macro' : 'Success';
  if (i.n === 0) return `${s.name}, first ${to} step: no adaptive run finished yet.`;
  const past = `past step ${s.steps}`;
  const med = i.median === null ? past : `step ${i.median}`;
  const iv =
    i.coverage === null
      ? 'too few runs for a 95 % interval'
      : `${pct(i.coverage)} interval [${i.lo ?? past}, ${i.hi ?? past}]`;
  return `${s.name}, first ${to} step: median ${med} (${iv}; ${i.n} runs, ${i.censored} never reached ${to} within ${s.steps} steps)`;
}

/** the T8 mechanism figure's Success arms in a line: `71.8 % at 1.5B, 57.8 % at 3B, 39.2 % at 7B` */
export function noSignalLine(m: MechanismFigure, reward: string): string {
  return (['1.5B', '3B', '7B'] as const)
    .map((s) => {
      const a = m.arms.find((x) => x.arm === `${s} · ${reward}`);
      return a ? `${a.mean.toFixed(m.digits)} % at ${s}` : null;
    })
    .filter((x) => x)
    .join(', ');
}

export function beyondTestMarkdown(r: BeyondTestRecord): string {
  const q8 = BEYOND_QUESTIONS.T8;
  const q9 = BEYOND_QUESTIONS.T9;
  const t8 = r.T8;
  const t9 = r.T9;
  const lines = [
    '# Beyond the paper: the answers of T8 and T9',
    '',
    `Computed by \`${r.command}\` at commit ${r.commit.slice(0, 10)}${r.dirtyFiles?.length ? ` + ${r.dirtyFiles.length} uncommitted file(s) (listed in the .json)` : ''} on ${r.date.slice(0, 10)}, from the plans made at commit ${r.plan.commit.slice(0, 10)} on ${r.plan.date.slice(0, 10)} (\`results/findings/beyond-plan.md\`, ${r.plan.coreHours.toFixed(1)} core-hours). Welch on each test's planned seeds, Holm across a test's family at family-wise α = ${r.familyAlpha}; TOST at ±12 points; interim (no call) until every planned run of a test has finished.`,
    '',
    `## T8 — ${q8.title}`,
    '',
    `The note (${q8.limit}): "${q8.zh}" — *${q8.en}*`,
    '',
    `**Status:** ${t8.finished} of ${t8.planned} planned runs finished (adaptive seeds ${r.plan.T8.seeds[0]}–${r.plan.T8.seeds[1]}; the fixed cells reuse their committed seeds 1–${r.plan.T8.reused}), ${r.plan.T8.coreHours.toFixed(1)} core-hours planned.`,
    '',
    t8.mechanism
      ? `**The mechanism** (${t8.mechanism.what}, ${t8.mechanism.steps}, the committed T1 runs): under Success ${noSignalLine(t8.mechanism, 'Success')}; under Sum ${noSignalLine(t8.mechanism, 'Sum')}. The fixed schedule's first Macro step is ${t8.fixedFirst[0] ?? '—'} and first Success step ${t8.fixedFirst[1] ?? '—'} at every scale.`
      : '**The mechanism**: not computed (no T1 table).',
    '',
    '**Where the adaptive rule switches:**',
    '',
    ...t8.switches.map((s) => `- ${switchSentence(s)}`),
    '',
    '**Adaptive − fixed, success gain:**',
    '',
    ...[...t8.pairs, ...t8.interactions].map((x) => `- ${beyondDifferenceSentence(x, r.familyAlpha)}`),
    '',
    `## T9 — ${q9.title}`,
    '',
    `The note (${q9.limit}): "${q9.zh}" — *${q9.en}*`,
    '',
    `**Status:** ${t9.finished} of ${t9.planned} planned runs finished (2 SFT starts and the RL runs on seeds ${r.plan.T9.seeds[0]}–${r.plan.T9.seeds[1]}; the standard start reuses the committed default cell), ${r.plan.T9.coreHours.toFixed(1)} core-hours planned.`,
    '',
    "**The start's greedy success** (validation, Wilson 95 %):",
    '',
    ...(t9.starts.length
      ? t9.starts.map(
          (s) =>
            `- SFT on ${s.size}: ${s.success.toFixed(1)} % [${s.lo.toFixed(1)}, ${s.hi.toFixed(1)}] (${s.successes} of ${s.queries})`,
        )
      : ['- no start measured yet']),
    '',
    '**RL gain by SFT size:**',
    '',
    ...t9.pairs.map((x) => `- ${beyondDifferenceSentence(x, r.familyAlpha)}`),
    '',
  ];
  return lines.join('\n');
}
