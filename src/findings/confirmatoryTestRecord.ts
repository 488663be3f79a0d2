// The confirmatory plan's test as it is committed: `power-plan --confirmatory --test` writes
// results/findings/confirmatory-test.{json,md} from the plan's fresh-seed runs, each lead's answer beside the
// committed (exploratory) one it tests. The record says how many of the plan's runs had finished, so an interim
// record (no call) is never mistaken for the test. Pure: no tfjs, no DOM, no fs.
import type { ConfirmatoryPlan, ConfirmatoryRun, PlannedLead } from './confirmatoryPlan.ts';
import { testPairs } from '../stats/seedStatistics.ts';
import type { FindingId } from './findings.ts';

const round2 = (x: number) => Math.round(100 * x) / 100;

/** the plan's answer for one lead, on its fresh seeds */
export interface ConfirmedLead {
  finding: FindingId;
  higher: string;
  lower: string;
  pairOfFinding: PlannedLead['pairOfFinding'];
  planned: number;
  /** fresh seeds finished of each side */
  finished: [number, number];
  difference: number | null;
  ci95: { lo: number; hi: number } | null;
  /** the interval at the level the call is made at (Holm's step) */
  interval: { lo: number; hi: number; level: number } | null;
  df: number | null;
  p: number | null;
  pAdjusted: number | null;
  equivalence: { delta: number; p: number; pAdjusted: number; shown: boolean } | null;
  call: 'confirmed' | 'reversed' | 'not detected' | 'interim';
  /** the committed (exploratory) answer it tests, beside it */
  committed: PlannedLead['committed'];
}

/**
 * The plan's test as the plan states it: each planned lead's two cells on their first `seeds` fresh seeds, Welch,
 * Holm across the plan, TOST at the plan's δ; `gainOf` a planned run's gain in points (unrounded) or undefined while
 * it has not finished. Interim (no call) until every planned run of every lead has finished.
 */
export function testConfirmatoryPlan(
  p: ConfirmatoryPlan,
  gainOf: (run: ConfirmatoryRun) => number | undefined,
): ConfirmedLead[] {
  const leads = p.leads.filter((x) => x.planned);
  const sideGains = leads.map((x) =>
    [x.higher, x.lower].map((name) =>
      p.runs
        .filter((r) => r.cells.includes(`${x.finding} ${name}`) && r.seed < p.seeds[0] + x.seeds!)
        .map(gainOf)
        .filter((g): g is number => g !== undefined),
    ),
  );
  const complete = leads.every((x, i) => sideGains[i].every((g) => g.length >= x.seeds!));
  const tests = testPairs(
    sideGains.map(([a, b]) => ({ higher: a, lower: b })),
    { alpha: p.familyAlpha, complete, delta: p.delta },
  );
  return leads.map((x, i) => {
    const t = tests[i];
    const [a, b] = sideGains[i];
    return {
      finding: x.finding,
      higher: x.higher,
      lower: x.lower,
      pairOfFinding: x.pairOfFinding,
      planned: x.seeds!,
      finished: [a.length, b.length],
      difference: t ? round2(t.difference) : null,
      ci95: t ? { lo: round2(t.lo), hi: round2(t.hi) } : null,
      interval: t ? { lo: round2(t.interval.lo), hi: round2(t.interval.hi), level: t.interval.level } : null,
      df: t ? round2(t.df) : null,
      p: t ? Number(t.p.toPrecision(4)) : null,
      pAdjusted: t ? Number(t.pAdjusted.toPrecision(4)) : null,
      equivalence: t?.equivalence
        ? {
            delta: t.equivalence.delta,
            p: Number(t.equivalence.p.toPrecision(4)),
            pAdjusted: Number(t.equivalence.pAdjusted.toPrecision(4)),
            shown: t.equivalence.shown,
          }
        : null,
      call: !t
        ? complete
          ? 'not detected'
          : 'interim'
        : t.call === 'supports'
          ? 'confirmed'
          : t.call === 'contradicts'
            ? 'reversed'
            : t.call === 'interim'
              ? 'interim'
              : 'not detected',
      committed: x.committed,
    };
  });
}

export const CONFIRMATORY_TEST_FORMAT = 'star-lab-confirmatory-test/1';

export interface ConfirmatoryTestRecord {
  format: typeof CONFIRMATORY_TEST_FORMAT;
  date: string;
  commit: string;
  dirtyFiles?: { path: string; sha256: string | null }[];
  /** the command that recomputes it */
  command: string;
  /** the plan it tests: made before any of its runs */
  plan: { date: string; commit: string; firstSeed: number; lastSeed: number; runs: number; finished: number };
  familyAlpha: number;
  results: ConfirmedLead[];
}

export function confirmatoryTestRecord(
  plan: ConfirmatoryPlan,
  results: ConfirmedLead[],
  o: {
    date: string;
    commit: string;
    dirtyFiles?: { path: string; sha256: string | null }[];
    command: string;
    finished: number;
  },
): ConfirmatoryTestRecord {
  return {
    format: CONFIRMATORY_TEST_FORMAT,
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
    familyAlpha: plan.familyAlpha,
    results,
  };
}

const signed = (x: number) => (x > 0 ? `+${x.toFixed(1)}` : x < 0 ? `−${(-x).toFixed(1)}` : '0.0');
const interval = (i: { lo: number; hi: number }) => `[${signed(i.lo)}, ${signed(i.hi)}]`;

/** one lead's answer in words fixed by its test: "confirmed"/"reversed" only from a rejected Holm-adjusted Welch test,
 *  "not detected" from one that did not reject, "rules out ±δ" only from a rejected TOST at δ */
export function confirmedLeadSentence(r: ConfirmedLead, familyAlpha: number): string {
  const lead = `${r.finding} ${r.higher} − ${r.lower}`;
  if (r.call === 'interim' || r.difference === null || !r.interval)
    return `${lead}: interim, ${r.finished.join('/')} of ${r.planned} fresh seeds finished — no call until all have.`;
  const fig = `${signed(r.difference)} points, ${(100 * r.interval.level).toFixed(2).replace(/\.?0+$/, '')} % interval ${interval(r.interval)}, Holm p ${r.pAdjusted}`;
  const eq = r.equivalence?.shown
    ? `; the equivalence test rules out ±${r.equivalence.delta} (Holm p ${r.equivalence.pAdjusted})`
    : r.equivalence
      ? `; the equivalence test does not rule out ±${r.equivalence.delta} (Holm p ${r.equivalence.pAdjusted})`
      : '';
  const said =
    r.call === 'confirmed'
      ? `confirmed on fresh seeds (Holm p < ${familyAlpha}, the lead's sign)`
      : r.call === 'reversed'
        ? `reversed on fresh seeds (Holm p < ${familyAlpha}, the other sign)`
        : `not detected on fresh seeds (Holm p ≥ ${familyAlpha})`;
  return `${lead}: ${said}: ${fig}${eq}. The committed seeds had shown ${signed(r.committed.difference)} (${r.committed.seeds.join('/')} seeds, Holm p ${r.committed.pAdjusted} across ${r.committed.family}).`;
}

export function confirmatoryTestMarkdown(r: ConfirmatoryTestRecord): string {
  const complete = r.plan.finished === r.plan.runs;
  return [
    "# The confirmatory plan's test",
    '',
    `Computed by \`${r.command}\` at commit ${r.commit.slice(0, 10)}${r.dirtyFiles?.length ? ` + ${r.dirtyFiles.length} uncommitted file(s) (listed in the .json)` : ''} on ${r.date.slice(0, 10)}, from the plan made at commit ${r.plan.commit.slice(0, 10)} on ${r.plan.date.slice(0, 10)}: ` +
      `${r.plan.finished} of its ${r.plan.runs} runs (fresh seeds ${r.plan.firstSeed}–${r.plan.lastSeed}) had finished.` +
      (complete ? '' : ' **Interim: no call is made until every planned run has finished.**'),
    '',
    `Welch on the fresh seeds alone, Holm across the plan's ${r.results.length} leads at family-wise α = ${r.familyAlpha}; TOST at the plan's δ, Holm across the plan.`,
    '',
    '| lead | kind | fresh seeds | difference | interval at the call\'s level | Holm p | TOST (Holm p) | answer | committed (exploratory) |',
    '|---|---|---|---|---|---|---|---|---|',
    ...r.results.map(
      (x) =>
        `| ${x.finding} ${x.higher} − ${x.lower} | ${x.pairOfFinding === 'planned' ? 'planned pair' : 'exploratory lead'} | ${x.finished.join('/')} of ${x.planned} | ${x.difference === null ? '—' : signed(x.difference)} | ${x.interval ? `${interval(x.interval)} (${(100 * x.interval.level).toFixed(2)} %)` : '—'} | ${x.pAdjusted ?? '—'} | ${x.equivalence ? `±${x.equivalence.delta}: ${x.equivalence.pAdjusted}${x.equivalence.shown ? ' (rules it out)' : ''}` : '—'} | **${x.call}** | ${signed(x.committed.difference)}, Holm p ${x.committed.pAdjusted} across ${x.committed.family} |`,
    ),
    '',
    ...r.results.map((x) => `- ${confirmedLeadSentence(x, r.familyAlpha)}`),
    '',
  ].join('\n');
}

/** the plan's state in a line, as the page and README say it: while a run is missing, how many have finished and that
 *  no call is made; once all have, each lead's call in the words its test allows */
export function confirmatoryStatusSentence(r: ConfirmatoryTestRecord): string {
  if (r.plan.finished < r.plan.runs)
    return `confirmatory test under way: ${r.plan.finished} of ${r.plan.runs} planned runs finished; no call until all have`;
  return `confirmatory test complete (${r.plan.runs} runs): ${r.results
    .map(
      (x) =>
        `${x.finding} ${x.higher} − ${x.lower} ${x.call}${x.difference === null ? '' : ` (${signed(x.difference)}, Holm p ${x.pAdjusted}${x.equivalence?.shown ? `; rules out ±${x.equivalence.delta}` : ''})`}`,
    )
    .join('; ')}`;
}
