// The power plans of the two "beyond the paper" questions, made once before any of their runs:
//   T8  the adaptive curriculum against the fixed one at 1.5B, 3B and 7B (s, m, l): where it switches, and the
//       scale × schedule interaction;
//   T9  at 3B (m), SFT on a quarter, one and four times the standard trajectories (pretraining kept), RL from
//       each with the default recipe: the start's success and the RL gain by SFT size.
// Sized as the findings' plan is (results/findings/plan.json: its pooled per-seed SD of a cell's success gain,
// 80 % power at Holm's first threshold, 12 points the smallest difference worth detecting; interactions as the
// interactions' plan sizes them, a four-cell contrast), priced at the committed runs' own CPU seconds.
//
//   npx tsx scripts/beyondPlans.ts [--out results/findings]   (refuses to overwrite: a plan is made once)
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fewestSeedsForPower, INTERACTION } from '../src/stats/seedStatistics.ts';
import { SETTINGS } from '../src/lab/config.ts';
import { BEYOND_QUESTIONS } from '../src/findings/beyondTest.ts';

// the adaptive arm's signal share: the setting's default at the plan's commit, written into every run's config so a
// default moved later does not change what the plan runs
const SHARE = SETTINGS.curriculumSignalShare.default;

const out = process.argv.includes('--out') ? process.argv[process.argv.indexOf('--out') + 1] : 'results/findings';
const RUNS = join(out, 'runs');
const FILE = join(out, 'beyond-plan.json');
if (existsSync(FILE)) throw new Error(`${FILE} exists: a plan is fixed before its runs and not remade after them`);

const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');
const git = (...a: string[]) => execFileSync('git', a, { encoding: 'utf8' }).trim();
const plan = JSON.parse(readFileSync(join(out, 'plan.json'), 'utf8')) as {
  pooled: { success: { sd: number; df: number; arms: number } };
  choices: { delta: { success: number }; power: number; alpha: number };
};
const SD = plan.pooled.success.sd;
const DELTA = plan.choices.delta.success;
const POWER = plan.choices.power;
const ALPHA = plan.choices.alpha;
const STD = 'evalEvery=40_evalQueries=300_evalToolQa=100';

interface Summary {
  cpuSeconds: number;
  lab: { seed: number };
  commit: string;
}
const summaryOf = (dir: string) => JSON.parse(readFileSync(join(RUNS, dir, 'summary.json'), 'utf8')) as Summary;
/** the committed runs of a cell (folder prefix, exactly: the seed suffix aside) */
function cellRuns(prefix: string): { dir: string; seed: number; coreMinutes: number }[] {
  return readdirSync(RUNS)
    .filter((d) => (d === prefix || d.startsWith(`${prefix}_seed=`)) && existsSync(join(RUNS, d, 'summary.json')))
    .map((d) => ({ dir: d, seed: summaryOf(d).lab.seed, coreMinutes: summaryOf(d).cpuSeconds / 60 }))
    .sort((a, b) => a.seed - b.seed);
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const r1 = (x: number) => Math.round(10 * x) / 10;

// every seed any committed run used (all of results/, not only the findings' runs)
function usedSeeds(dir: string): number {
  let max = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) max = Math.max(max, usedSeeds(p));
    else if (e.name === 'summary.json') {
      try {
        const s = JSON.parse(readFileSync(p, 'utf8')) as { lab?: { seed?: unknown } };
        if (typeof s.lab?.seed === 'number') max = Math.max(max, s.lab.seed);
      } catch {
        /* not a run's summary */
      }
    }
  }
  return max;
}
const USED = usedSeeds('results');
// fresh seeds start at the next hundred above every committed seed, leaving the seeds just above them to plans made
// since (another session's): T8 from there, T9 a hundred on
const T8_FROM = (Math.floor(USED / 100) + 1) * 100 + 1;
const T9_FROM = T8_FROM + 100;

// ---- T8: the switch point by scale
const SCALES = [
  ['s', '1.5B', `scale=s_reward=curriculum_${STD}`],
  ['m', '3B', `reward=curriculum_${STD}`],
  ['l', '7B', `scale=l_reward=curriculum_${STD}`],
] as const;
const fixedCells = SCALES.map(([scale, name, prefix]) => {
  const runs = cellRuns(prefix);
  return { scale, name, prefix, runs, coreMinutes: mean(runs.map((r) => r.coreMinutes)) };
});
const pairAlpha8 = ALPHA / SCALES.length; // adaptive − fixed at each scale: Holm's first threshold of three
const pairSeeds8 = fewestSeedsForPower({ delta: DELTA, sd: SD, alpha: pairAlpha8, power: POWER, max: 1000 })!;
const interactions8 = [
  '(adaptive − fixed at 1.5B) − (adaptive − fixed at 7B)',
  '(adaptive − fixed at 3B) − (adaptive − fixed at 7B)',
];
const xAlpha8 = ALPHA / interactions8.length;
const xSeeds8 = fewestSeedsForPower({
  delta: DELTA,
  sd: SD,
  alpha: xAlpha8,
  power: POWER,
  max: 1000,
  design: INTERACTION,
})!;
const seeds8 = Math.max(pairSeeds8, xSeeds8);
const reused = Math.min(seeds8, ...fixedCells.map((c) => c.runs.length));
const t8Runs = fixedCells.flatMap((c) => [
  ...Array.from({ length: seeds8 }, (_, i) => ({
    arm: 'adaptive',
    scale: c.scale,
    seed: T8_FROM + i,
    coreMinutes: c.coreMinutes,
  })),
  // fixed cells: the committed seeds 1 … reused, then fresh seeds (the same as the adaptive arm's) for the rest
  ...Array.from({ length: seeds8 - reused }, (_, i) => ({
    arm: 'fixed',
    scale: c.scale,
    seed: T8_FROM + reused + i,
    coreMinutes: c.coreMinutes,
  })),
]);
const hash8 = (r: { arm: string; scale: string; seed: number }) =>
  `#${r.scale === 'm' ? '' : `scale=${r.scale}&`}reward=curriculum${r.arm === 'adaptive' ? `&curriculumSwitch=adaptive&curriculumSignalShare=${SHARE}` : ''}&evalEvery=40&evalQueries=300&evalToolQa=100&seed=${r.seed}`;
// the first run checks that the fixed cells' committed runs still reproduce on the code that runs the adaptive ones
const check8 = fixedCells[0].runs[0];
const t8Hours = (check8.coreMinutes + t8Runs.reduce((s, r) => s + r.coreMinutes, 0)) / 60;

// ---- T9: the SFT start's size (m)
const defaultCell = cellRuns(STD);
const card = JSON.parse(readFileSync('public/checkpoints/m-tiny/card.json', 'utf8')) as {
  command: string;
  trainSeconds: number;
  data: { travelExamples: number };
  sft: { steps: number; batchSize: number };
};
const STANDARD = card.data.travelExamples;
const sizes = [STANDARD / 4, STANDARD, STANDARD * 4];
const pairAlpha9 = ALPHA / 2; // a quarter vs standard, four times vs standard
const seeds9 = fewestSeedsForPower({ delta: DELTA, sd: SD, alpha: pairAlpha9, power: POWER, max: 1000 })!;
const rlMinutes9 = mean(defaultCell.map((r) => r.coreMinutes));
// SFT keeps the shipped recipe's 1500 steps of 8 sequences (the same compute at every size: the quantity of data
// varies, not the training it buys); its cost is the shipped m start's own training time, one wasm thread
const sftMinutes = card.trainSeconds / 60;
const sftRuns = sizes
  .filter((n) => n !== STANDARD)
  .map((n) => ({
    size: n,
    dir: `results/sft-size/m-${n}`,
    command: `npm run cli -- sft --preset m --world tiny --steps ${card.sft.steps} --seed 1 --train-queries ${n} --from results/pretrain/m --out results/sft-size/m-${n}`,
    coreMinutes: sftMinutes,
  }));
const t9Runs = sizes
  .filter((n) => n !== STANDARD)
  .flatMap((n) =>
    Array.from({ length: seeds9 }, (_, i) => ({
      size: n,
      seed: T9_FROM + i,
      coreMinutes: rlMinutes9,
      command: `npm run cli -- run --config '#evalEvery=40&evalQueries=300&evalToolQa=100&seed=${T9_FROM + i}' --checkpoint results/sft-size/m-${n} --out results/findings/runs/sft=${n}_${STD}_seed=${T9_FROM + i} --no-policy`,
    })),
  );
const check9 = defaultCell[0];
const t9Hours =
  (check9.coreMinutes +
    sftRuns.reduce((s, r) => s + r.coreMinutes, 0) +
    t9Runs.reduce((s, r) => s + r.coreMinutes, 0)) /
  60;
const total = t8Hours + t9Hours;
if (total >= 12) throw new Error(`the two plans cost ${r1(total)} core-hours, past the 12 they may spend`);

const inputs = [
  join(out, 'plan.json'),
  'public/checkpoints/m-tiny/card.json',
  ...fixedCells.flatMap((c) => c.runs.map((r) => join(RUNS, r.dir, 'summary.json'))),
  ...defaultCell.map((r) => join(RUNS, r.dir, 'summary.json')),
];
const dirty = git('status', '--porcelain', '--untracked-files=no');
if (dirty)
  throw new Error(`commit first: a plan records the commit it was made at, and these differ from it:\n${dirty}`);
const record = {
  format: 'star-lab-beyond-plan/1',
  date: new Date().toISOString().slice(0, 10),
  commit: git('rev-parse', 'HEAD'),
  command: `npx tsx scripts/beyondPlans.ts --out ${out}`,
  inputs: inputs.map((p) => ({ path: p, sha256: sha(p) })),
  choices: {
    sd: SD,
    sdFrom: `${join(out, 'plan.json')} pooled.success (${plan.pooled.success.arms} arms, ${plan.pooled.success.df} df)`,
    delta: DELTA,
    power: POWER,
    alpha: ALPHA,
    usedSeedsUpTo: USED,
  },
  T8: {
    pairs: { alpha: pairAlpha8, seeds: pairSeeds8 },
    interactions: interactions8.map((x) => ({ interaction: x, alpha: xAlpha8, seeds: xSeeds8 })),
    seedsPerCell: seeds8,
    adaptiveSeeds: [T8_FROM, T8_FROM + seeds8 - 1],
    fixedReused: fixedCells.map((c) => ({ scale: c.scale, dirs: c.runs.slice(0, reused).map((r) => r.dir) })),
    check: { dir: check8.dir, coreMinutes: check8.coreMinutes },
    runs: t8Runs.map((r) => ({ ...r, hash: hash8(r) })),
    coreHours: t8Hours,
  },
  T9: {
    sizes,
    standardFrom: card.command,
    sft: sftRuns,
    pairs: { alpha: pairAlpha9, seeds: seeds9 },
    standardReused: defaultCell.slice(0, seeds9).map((r) => r.dir),
    check: { dir: check9.dir, coreMinutes: check9.coreMinutes },
    rlSeeds: [T9_FROM, T9_FROM + seeds9 - 1],
    runs: t9Runs,
    coreHours: t9Hours,
    fourTimesByEpochs: { steps: card.sft.steps * 4, coreMinutes: 4 * sftMinutes },
  },
  coreHours: total,
};
writeFileSync(FILE, JSON.stringify(record, null, 1) + '\n');
const run8 = (r: (typeof t8Runs)[number]) =>
  `- ${r.arm} · ${r.scale} · seed ${r.seed} · \`${hash8(r)}\` · ~${r1(r.coreMinutes)} core-min`;
const md = `# Beyond the paper: the plans of T8 and T9

Made by \`${record.command}\` at commit ${record.commit.slice(0, 10)} on ${record.date}, before any of their runs. Inputs (SHA-256 in \`beyond-plan.json\`): ${join(out, 'plan.json')} (its pooled per-seed SD of a cell's success gain, ${r1(SD)} points, ${plan.pooled.success.arms} arms), the shipped m start's card, and the summaries of the committed runs each plan reuses or prices from (${inputs.length - 2} files). Every committed run used seeds up to ${USED}; the fresh seeds start at the next hundred (${T8_FROM}), leaving the seeds just above to plans made meanwhile.

As in the findings' plan: Welch's t-test of two cells' mean success gains over their start, Holm's correction at family-wise α = ${ALPHA}, 80 % power at Holm's first threshold, ${DELTA} points of success gain the smallest difference worth detecting; an interaction is the four-cell Welch–Satterthwaite contrast the interactions' plan tests (seedStatistics.interactionTest, Σc² = 4). No seed is added after a result is seen and none stops early; each test reads only its planned seeds.

## T8 — the curriculum's switch point by scale

The note (its fourth limit): "${BEYOND_QUESTIONS.T8.zh}" — *${BEYOND_QUESTIONS.T8.en}*

- **Arms**: Curriculum with the fixed switch (steps 14 and 27 of 40) and with the adaptive switch (\`curriculumSwitch=adaptive\`, the signal share at its default), at s (1.5B), m (3B) and l (7B); the standard run otherwise (GRPO, 1,000 queries, 4:3:3, 40 steps, evaluated on 300 validation queries and 100 unseen tool-QA tasks).
- **Pairs**: adaptive − fixed at each scale, 3 pairs, Holm's first α ${r1(1000 * pairAlpha8) / 1000}: ${pairSeeds8} seeds a cell. **Interactions**: ${interactions8.join('; ')} — 2 contrasts, α ${xAlpha8} each: ${xSeeds8} seeds a cell. **Seeds a cell: ${seeds8}.**
- **The fixed cells reuse their committed seeds 1–${reused}** (the T1 grid's Curriculum cells: ${fixedCells.map((c) => '`' + c.prefix + '`').join(', ')}), declared here, before any adaptive run: the same world (tiny, seed 1), the same starts, the same config. Sound only if today's code trains a fixed run exactly as the code that made them: the fixed schedule's trainer path is unchanged by the adaptive switch (test/cli/referenceRun.test.ts reruns a Curriculum reference to the bit), and **the plan's first run checks it**: \`${check8.dir}\` is run again on the plan's commit and must give every metric of its metrics.jsonl back to the bit (wall-clock timings aside). If it does not, the fixed cells run fresh seeds ${T8_FROM}–${T8_FROM + seeds8 - 1} like the adaptive ones (${r1(((seeds8 - (seeds8 - reused)) * fixedCells.reduce((s, c) => s + c.coreMinutes, 0)) / 60)} core-hours more: over budget, so the plan would be remade, before any adaptive run, with fewer seeds). The ${seeds8 - reused} seeds a fixed cell needs past the committed ${reused} are fresh: ${T8_FROM + reused}–${T8_FROM + seeds8 - 1}.
- **Where it switches**: from each adaptive run's metrics.jsonl, the first step whose \`charts/curriculum_stage\` is 1 (Sum → Macro) and 2 (Macro → Success); at each scale the median over seeds with its distribution-free 95 % interval (order statistics), and the number of runs that never reach a stage within 40 steps (censored, reported as such, not averaged in). The fixed schedule's points (14 and 27) are the comparison.
- **Runs**: ${t8Runs.length} (+1 check), **${r1(t8Hours)} core-hours** at each cell's measured cost per run (${fixedCells.map((c) => c.scale + ' ' + r1(c.coreMinutes)).join(', ')} core-min; an adaptive run is priced as its fixed cell's).

## T9 — the SFT start's size

The note (its third limit): "${BEYOND_QUESTIONS.T9.zh}" — *${BEYOND_QUESTIONS.T9.en}* (T9 varies the quantity; the quality is left.)

- **Starts** (m, pretraining kept: \`--from results/pretrain/m\`, as the shipped start was made: \`${card.command}\`): ${sizes.join(', ')} teacher trajectories (a quarter, the standard, four times), seed 1 (the same world), the shipped recipe's ${card.sft.steps} steps of ${card.sft.batchSize} sequences at every size — the same compute, so the quantity of data varies and not the training it buys. The standard one is the shipped \`public/checkpoints/m-tiny\`; the other two are new: ${sftRuns.map((r) => '`' + r.command + '`').join(' and ')}. Each ~${r1(sftMinutes)} core-min (the shipped m start's own training time; the teacher's trajectories add seconds). Four times the data at the same epochs (${card.sft.steps * 4} steps) would cost ~${r1(4 * sftMinutes)} core-min: not planned, named so a later plan can price it.
- **The start's success**: each start's greedy success on the 300 validation queries at step 0 of its RL runs (deterministic: one figure with its Wilson interval). The first 100 validation queries are the same at every size (drawn before the training split); the 200 that grow the split skip each start's own SFT queries, so with 4,000 of them a few may differ: checked before the RL runs, and said.
- **RL**: the default recipe (m, Sum, GRPO, 40 steps) from each start. Pairs: a quarter − standard and four times − standard in RL gain, Holm's first α ${pairAlpha9}: **${seeds9} seeds a cell**, fresh seeds ${T9_FROM}–${T9_FROM + seeds9 - 1}. **The standard arm reuses the committed default cell's seeds 1–${seeds9}** (\`${STD}\`: the same start, the same config), declared here before any T9 run, on the same condition as T8's: the plan's first T9 run, \`${check9.dir}\`, is run again and must reproduce to the bit.
- **Runs**: 2 SFT + ${t9Runs.length} RL (+1 check), **${r1(t9Hours)} core-hours** (RL ${r1(rlMinutes9)} core-min a run, the default cell's measured mean).

**Both plans: ${r1(total)} core-hours**, under the 12 they may spend. Run from a clean commit in a work tree of its own, each run with \`--resume\` (resumable), one or two at a time.

## The runs, in order

T8's check, then seed by seed (every cell of a seed before the next), s before m before l:

${t8Runs
  .slice()
  .sort((a, b) => a.seed - b.seed || 'sml'.indexOf(a.scale) - 'sml'.indexOf(b.scale))
  .map(run8)
  .join('\n')}

T9's check, the two SFT starts, then seed by seed:

${t9Runs
  .slice()
  .sort((a, b) => a.seed - b.seed || a.size - b.size)
  .map((r) => '- SFT ' + r.size + ' · seed ' + r.seed + ' · `' + r.command + '` · ~' + r1(r.coreMinutes) + ' core-min')
  .join('\n')}
`;
writeFileSync(join(out, 'beyond-plan.md'), md);
console.log(
  `wrote ${FILE}: T8 ${r1(t8Hours)} core-hours (${seeds8} seeds a cell, adaptive seeds ${T8_FROM}–${T8_FROM + seeds8 - 1}), T9 ${r1(t9Hours)} (${seeds9} seeds, RL seeds ${T9_FROM}–${T9_FROM + seeds9 - 1}); ${r1(total)} in all`,
);
console.log(
  JSON.stringify({
    USED,
    pairSeeds8,
    xSeeds8,
    reused,
    fixed: fixedCells.map((c) => [c.scale, c.runs.length, r1(c.coreMinutes)]),
    rlMinutes9: r1(rlMinutes9),
    sftMinutes: r1(sftMinutes),
    defaultCell: defaultCell.length,
  }),
);
