// What it would cost to resolve a pair that a finding's call leaves *not resolved* ("which it
// cannot resolve at this power — and what each would cost to resolve"). A prospective power calculation,
// the same one the power plan made (seedStatistics.fewestSeedsForPower: a two-sample t-test, 80 % power, at
// Holm's first threshold α / pairs), now with the spread the finished seeds measured for the pair's two
// cells, and for two sizes of difference:
//  - the paper's: the difference of the two cells' paper gains over the paper's SFT column — what it takes
//    to test the paper's own gap at the lab's spread;
//  - the lab's: the difference the lab measured, were it the true one. That is "observed power", which
//    Hoenig & Heisey (2001, "The Abuse of Power") warn says nothing about the test already made; here it
//    only prices the next experiment: a near-zero difference needs thousands of seeds, i.e. it is a tie.
// The cost is a NEW two-cell experiment: that many fresh seeds of both cells, at each cell's measured core-minutes
// per run — never more seeds poured into the test already made, whose answer has been seen (optional stopping).
// Pure: no tfjs, no DOM, no fs.
import { callInterval, signed, type GainCell, type GainPair, type GainTable } from './findingGains.ts';
import { intervalText } from './gainText.ts';
import { fewestSeedsForPower, INTERACTION, pooledSd, twoSampleTPower } from '../stats/seedStatistics.ts';

/** seeds a cell past which a pair is called out of reach rather than priced */
export const SEEDS_OUT_OF_REACH = 10_000;

/** one size of difference and what detecting it costs */
export interface ResolveTarget {
  /** the difference, points (positive: the sign does not change the seeds) */
  difference: number;
  /** seeds a cell for the power asked; null: more than SEEDS_OUT_OF_REACH */
  seeds: number | null;
  /** core-hours of a new experiment: `seeds` fresh seeds of every cell it compares; null with seeds */
  coreHours: number | null;
}

export interface ResolveCost {
  finding: string;
  pair: string;
  /** the finished seeds of each cell and the pooled per-seed SD of their gains, points */
  seeds: [number, number];
  sd: number;
  /** the lab's difference and its interval at the level its call was made at (as tested) */
  difference: number;
  interval: { lo: number; hi: number; level: number; holm: boolean };
  /** the level the power is computed at: Holm's first threshold, α / pairs */
  alpha: number;
  paper: ResolveTarget | null;
  lab: ResolveTarget;
}

const cellOf = (t: GainTable, label: string): GainCell | undefined =>
  t.cells.find((c) => `${c.row} · ${c.col}` === label);

/** the fewest seeds a cell with 80 % (`power`) to detect `delta`; null past SEEDS_OUT_OF_REACH */
export function seedsToDetect(o: { delta: number; sd: number; alpha: number; power: number }): number | null {
  return fewestSeedsForPower({ ...o, max: SEEDS_OUT_OF_REACH });
}

/**
 * Every not-resolved two-sample pair of a called table, priced. A pair against the SFT start (a one-sample
 * test) and an interim table are left out: the first is not a two-sample design, the second has no call yet.
 */
export function costToResolve(t: GainTable, power = 0.8): ResolveCost[] {
  if (t.direction.call === 'interim') return [];
  const pairs = t.compares.pairs;
  const alpha = t.compares.alpha / pairs.length;
  return pairs
    .filter(
      (p): p is GainPair & { difference: number } =>
        p.call === 'not resolved' && p.test === 'welch' && p.difference !== null && callInterval(p) !== null,
    )
    .flatMap((p) => {
      const [a, b] = [cellOf(t, p.higher), cellOf(t, p.lower)];
      if (!a || !b || a.gain.length < 2 || b.gain.length < 2) return [];
      const sd = pooledSd([a.gain, b.gain]).sd;
      // one fresh seed of both cells, at each cell's measured core-minutes per run (the two may differ in scale)
      const perSeed = [a, b].reduce((s, c) => s + (c.coreMinutes ?? 0) / c.gain.length, 0);
      const target = (delta: number): ResolveTarget => {
        const seeds = sd > 0 ? seedsToDetect({ delta: Math.abs(delta), sd, alpha, power }) : 2;
        return {
          difference: Math.abs(delta),
          seeds,
          coreHours: seeds === null ? null : Math.round((10 * seeds * perSeed) / 60) / 10,
        };
      };
      const paper =
        a.paperGain !== null && b.paperGain !== null && a.paperGain !== b.paperGain
          ? target(a.paperGain - b.paperGain)
          : null;
      return [
        {
          finding: t.id,
          pair: `${p.higher} > ${p.lower}`,
          seeds: [a.gain.length, b.gain.length] as [number, number],
          sd: Math.round(100 * sd) / 100,
          difference: p.difference,
          interval: callInterval(p)!,
          alpha,
          paper,
          lab: target(p.difference),
        },
      ];
    });
}

/** `12.4: 30 fresh seeds a cell, 2.5 core-h`, and `(the finished test had that power)` where the finished seeds
 *  (`finished`: the fewer of the cells') reached it */
export const priceText = (r: ResolveTarget | null, finished: number): string =>
  !r
    ? '—'
    : r.seeds === null
      ? `${signed(r.difference).replace('+', '')}: over ${SEEDS_OUT_OF_REACH.toLocaleString('en')} seeds a cell`
      : `${signed(r.difference).replace('+', '')}: ${r.seeds} fresh seeds a cell, ${r.coreHours} core-h` +
        (r.seeds <= finished ? ' (the finished test had that power)' : '');

/** the priced pairs as a Markdown table, with what the columns mean */
export function costToResolveMarkdown(rows: readonly ResolveCost[], power = 0.8): string {
  return (
    [
      '# What resolving the unresolved pairs would cost',
      '',
      `For every pair a called finding leaves *not resolved*, the price of a NEW two-cell experiment: the fresh seeds a cell a`,
      `two-sample t-test needs for ${Math.round(100 * power)} % power at Holm's first threshold (α / pairs, as the power plan), at the pooled`,
      "per-seed SD the pair's finished seeds measured, and the core-hours of that many fresh seeds of both cells (at each cell's",
      'measured cost per run). Not more seeds for the test already made: its answer has been seen, so a new test needs its own plan,',
      'committed first, on seeds no run has used. Two sizes of difference: the paper\'s gap (its two cells\' gains over its SFT',
      "column), and the lab's own difference were it the true one — the latter is likely inflated (a lead is picked for being",
      'large), prices the next experiment only, and says nothing about the test already made (Hoenig & Heisey 2001); a near-zero',
      "difference out of reach is a tie. *The finished test had that power*: its seeds reached it, so the paper's gap, were it",
      "the lab's, would most likely have been found.",
      '',
      "*Lab: difference*: with its interval at the level its call was made at (Holm's step level across the finding's pairs).",
      '',
      "| finding | pair | lab: difference [interval] | seeds | SD | paper's gap: seeds, cost | lab's difference: seeds, cost |",
      '|---|---|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.finding} | ${r.pair} | ${signed(r.difference)} ${intervalText(r.interval)} | ${r.seeds.join(' vs ')} | ${r.sd.toFixed(1)} | ${priceText(r.paper, Math.min(...r.seeds))} | ${priceText(r.lab, Math.min(...r.seeds))} |`,
      ),
      '',
      rows.length ? '' : 'No called finding leaves a pair not resolved.',
    ]
      .join('\n')
      .trimEnd() + '\n'
  );
}

/** what an interaction's tests say, and what resolving it would cost */
export interface InteractionCost {
  finding: string;
  /** `(a − b) − (c − d)` as the table names the cells */
  interaction: string;
  /** the four cells' finished seeds (plus[0], plus[1], minus[0], minus[1]) and their pooled per-seed SD, points */
  seeds: [number, number, number, number];
  sd: number;
  difference: number;
  /** its interval at the level its call was made at (Holm's step level across the finding's interactions) */
  interval: { lo: number; hi: number; level: number; holm: boolean };
  /** the equivalence test at the plan's δ (TOST, Holm across the finding's interactions): what a sentence may rule
   * out */
  equivalence: { delta: number; p: number; pAdjusted: number; shown: boolean } | null;
  /** the paper's interaction, and whether that interval holds it (null: the paper has no figure for a cell) */
  paper: number | null;
  excludesPaper: boolean | null;
  /** Holm's first threshold across the finding's interactions, α / interactions */
  alpha: number;
  /** seeds a cell (fresh, all four cells) for `power` to detect the paper's interaction, and the lab's were it true */
  forPaper: ResolveTarget | null;
  forLab: ResolveTarget;
}

/**
 * Every tested interaction of a table: its interval at its call's level and its equivalence test, and the price of a
 * four-cell contrast
 * with `power` (80 %) at Holm's first threshold and the spread the four cells measured — seeds a cell
 * (seedStatistics' power with the INTERACTION design: Σc² = 4, 4(n − 1) df) and the core-hours of that many
 * fresh seeds in all four cells at each cell's measured core-minutes per run: a new experiment with its own
 * plan, never more seeds for the test already made. An interim table's are priced too (the figures are shown,
 * not called).
 */
export function costToResolveInteractions(t: GainTable, power = 0.8): InteractionCost[] {
  const xs = t.compares.interactions ?? [];
  const alpha = t.compares.alpha / Math.max(1, xs.length);
  return xs.flatMap((x) => {
    const interval = callInterval(x);
    if (x.difference === null || !interval) return [];
    const cells = [...x.plus, ...x.minus].map((l) => cellOf(t, l));
    if (cells.some((c) => !c || c.gain.length < 2)) return [];
    const four = cells as GainCell[];
    const sd = pooledSd(four.map((c) => c.gain)).sd;
    const perRun = four.reduce((s, c) => s + (c.coreMinutes ?? 0) / c.gain.length, 0); // one seed of each cell
    const target = (delta: number): ResolveTarget => {
      const seeds =
        sd > 0
          ? fewestSeedsForPower({
              delta: Math.abs(delta),
              sd,
              alpha,
              power,
              max: SEEDS_OUT_OF_REACH,
              design: INTERACTION,
            })
          : 2;
      return {
        difference: Math.abs(delta),
        seeds,
        coreHours: seeds === null ? null : Math.round((10 * seeds * perRun) / 60) / 10,
      };
    };
    return [
      {
        finding: t.id,
        interaction: `(${x.plus[0]} − ${x.plus[1]}) − (${x.minus[0]} − ${x.minus[1]})`,
        seeds: x.seeds,
        sd: Math.round(100 * sd) / 100,
        difference: x.difference,
        interval,
        equivalence: x.equivalence ?? null,
        paper: x.paper,
        excludesPaper: x.paper === null ? null : x.paper < interval.lo || x.paper > interval.hi,
        alpha,
        forPaper: x.paper === null || x.paper === 0 ? null : target(x.paper),
        forLab: target(x.difference),
      },
    ];
  });
}

/** a finding's planned power beside the power its seeds had at the spread they realised (one metric) */
export interface RealisedPower {
  finding: string;
  metric: string;
  /** the planned seeds a cell and Holm's first threshold, α / pairs */
  seeds: number;
  alpha: number;
  /** the plan's smallest difference worth detecting, points */
  delta: number;
  /** the pooled per-seed SD the plan assumed, and the one the finding's compared cells realised */
  plannedSd: number;
  realisedSd: number;
  /** the plan's power, and the power at the realised SD (same seeds, α and δ) */
  planned: number;
  realised: number;
}

/** a standard table's power at its planned seeds, at the plan's SD and at the SD its compared cells realised, per
 *  metric its pairs read; `plannedSd` the plan's pooled SD of that metric (null: the plan has none) */
export function realisedPower(t: GainTable, plannedSd: (metric: string) => number | null): RealisedPower[] {
  const cells = t.cells.filter((c) => c.compared !== false && c.gain.length >= 2);
  const alpha = t.compares.alpha / t.compares.pairs.length;
  return [...new Set(cells.map((c) => c.metric))].flatMap((metric) => {
    const delta = t.compares.delta?.[metric] ?? null;
    const sd0 = plannedSd(metric);
    const own = cells.filter((c) => c.metric === metric);
    if (delta === null || sd0 === null) return [];
    const seeds = Math.min(...own.map((c) => c.planned));
    const sd = pooledSd(own.map((c) => c.gain)).sd;
    const at = (s: number) => twoSampleTPower({ n: seeds, delta, sd: s, alpha });
    const base = { finding: t.id, metric, seeds, alpha, delta };
    return [{ ...base, plannedSd: sd0, realisedSd: sd, planned: at(sd0), realised: at(sd) }];
  });
}

/** the planned power beside the realised, as a Markdown table */
export function realisedPowerMarkdown(rows: readonly RealisedPower[], power = 0.8): string {
  return [
    '## The power each test had',
    '',
    `The plan sized each finding for ${Math.round(100 * power)} % power or more to detect its δ at Holm's first threshold and the plan's pooled`,
    "SD (its power there is the first column). Beside it, the power the same seeds had at the SD the finding's compared cells realised: where the seeds spread",
    'more than planned, a test that did not reject had less chance to, and its "not detected" says less.',
    '',
    '| finding | metric | seeds a cell | α | δ | SD planned → realised | power planned | power at the realised SD |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.finding} | ${r.metric} | ${r.seeds} | ${Number(r.alpha.toPrecision(3))} | ${r.delta} | ${r.plannedSd.toFixed(2)} → ${r.realisedSd.toFixed(2)} | ${r.planned.toFixed(2)} | ${r.realised.toFixed(2)} |`,
    ),
    '',
  ].join('\n');
}
