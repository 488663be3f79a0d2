// Why the lab does or does not reproduce each finding: the figure of the mechanism the paper names, read from
// the training metrics the committed standard runs logged (metrics.jsonl: one line a step) and their start and
// end evaluations, per arm with its 95 % t interval over seeds. The arms are the finding's table cells and null
// controls, at the seeds the table holds. `mechanisms` (the CLI) writes it as results/findings/mechanisms.json
// and .md; the Findings view shows each under its finding's call. Pure: no tfjs, no DOM, no fs.
import { tInterval } from '../stats/intervals.ts';
import type { FindingId } from './findings.ts';
import { withMetricNames } from '../lab/metrics.ts';

export const MECHANISMS_FORMAT = 'star-lab-finding-mechanisms/1';

/** what a mechanism reads of one training step (the trainer's metric names in the comments) */
export interface MechanismStep {
  step: number;
  /** charts/curriculum_stage: the reward paying this step (0 Sum, 1 Macro, 2 Success; a fixed reward reports its
   * own) */
  stage: number;
  /** charts/success: share of the step's rollouts passing every check */
  success: number;
  /** charts/frac_zero_std_groups: share of groups whose rollouts all got the same reward (no advantage, no signal) */
  zeroSignal: number;
  /** charts/tool_calls, charts/tool_failures: per rollout */
  toolCalls: number;
  toolFailures: number;
  /** losses/entropy: mean policy entropy over its own tokens (nats) */
  entropy: number;
  /** charts/rollouts: rollouts generated this step */
  rollouts: number;
  /** arpo/branches: rollouts branched after a tool observation (ARPO only) */
  arpoBranches?: number;
  /** dapo/dropped_groups: groups dynamic sampling dropped (DAPO only) */
  dapoDropped?: number;
}

/** one seed of one arm */
export interface MechanismRun {
  seed: number;
  steps: MechanismStep[];
  groupSize: number;
  trainSize: number;
  /** OOD accuracy (fraction) at step 0 and at the end */
  oodStart: number;
  oodEnd: number;
}

export interface ArmFigure {
  arm: string;
  n: number;
  mean: number;
  /** the 95 % t interval of the mean over seeds (null: fewer than two seeds) */
  lo: number | null;
  hi: number | null;
}

export interface MechanismFigure {
  what: string;
  unit: '%' | 'points' | 'nats' | 'passes' | 'per rollout' | 'per step';
  /** which steps it averages, in words */
  steps: string;
  /** the decimals its figures are rounded and shown to */
  digits: number;
  arms: ArmFigure[];
}

export interface FindingMechanism {
  id: FindingId;
  /** the mechanism the paper names, in a line */
  paper: string;
  figures: MechanismFigure[];
  /** what the mechanism would need that the runs did not log */
  notLogged: string | null;
  /** why the lab's regime does or does not reproduce the paper, from the figures */
  sentence: string;
}

export interface MechanismsRecord {
  format: typeof MECHANISMS_FORMAT;
  command: string;
  commit: string;
  dirtyFiles?: { path: string; sha256: string | null }[];
  date: string;
  /** what it read: the standard tables, and the run folders they name (absent in records made before it was kept) */
  inputs?: { tables: string[]; runs: number; folders: string[] };
  findings: FindingMechanism[];
}

/** a run's value for one arm's figure (NaN: the run has no step it reads) */
type PerRun = (r: MechanismRun) => number;

const meanOf = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
const stepMean = (pick: (s: MechanismStep) => number, stage?: number): PerRun => (r) =>
  meanOf(r.steps.filter((s) => stage === undefined || s.stage === stage).map(pick));
/** rounded to d decimals, never −0 (JSON writes it as 0, so a record read back would differ) */
const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d || 0;

function armFigure(
  arm: string,
  runs: readonly MechanismRun[],
  perRun: PerRun,
  scale: number,
  digits: number,
): ArmFigure {
  const values = runs.map(perRun).filter(Number.isFinite).map((x) => x * scale);
  const iv = tInterval(values);
  const end = (x: number) => (Number.isFinite(x) ? round(x, digits) : null);
  return { arm, n: values.length, mean: round(iv.estimate, digits), lo: end(iv.lo), hi: end(iv.hi) };
}

/** the figure over `arms` (labels as the table's: "row · col"); arms without runs are left out */
function figure(
  runsOf: (arm: string) => readonly MechanismRun[],
  arms: readonly string[],
  f: Omit<MechanismFigure, 'arms' | 'digits'> & { perRun: PerRun; scale?: number; digits?: number },
): MechanismFigure {
  const { perRun, scale = 1, digits = 1, ...rest } = f;
  return {
    ...rest,
    digits,
    arms: arms.filter((a) => runsOf(a).length > 0).map((a) => armFigure(a, runsOf(a), perRun, scale, digits)),
  };
}

const at = (fig: MechanismFigure, arm: string): ArmFigure => {
  const a = fig.arms.find((x) => x.arm === arm);
  if (!a) throw new Error(`mechanism "${fig.what}": no runs for ${arm}`);
  return a;
};
/** a figure to `d` decimals with a true minus sign */
const num = (x: number, d = 1) =>
  x < 0 && x.toFixed(d) !== (0).toFixed(d) ? `−${(-x).toFixed(d)}` : Math.abs(x).toFixed(d);

/** an arm's figure as the page and the Markdown show it: mean [lo, hi] at the figure's decimals */
export function armText(a: ArmFigure, d: number): string {
  return a.lo === null || a.hi === null ? num(a.mean, d) : `${num(a.mean, d)} [${num(a.lo, d)}, ${num(a.hi, d)}]`;
}
const v = (a: ArmFigure) => num(a.mean);
const ivText = (a: ArmFigure) => (a.lo === null || a.hi === null ? v(a) : `${v(a)} [${num(a.lo)}, ${num(a.hi)}]`);
/** whether an interval holds 0 */
const holdsZero = (a: ArmFigure) => a.lo !== null && a.hi !== null && a.lo <= 0 && a.hi >= 0;

const SUCCESS_STAGE = 2;
const SUM_STAGE = 0;
const zeroSignal = stepMean((s) => s.zeroSignal);
const oodDrift: PerRun = (r) => r.oodEnd - r.oodStart;

/** one finding's mechanism from its arms' runs (`runsOf` gives an arm's seeds by its table label) */
export function findingMechanism(id: FindingId, runsOf: (arm: string) => readonly MechanismRun[]): FindingMechanism {
  switch (id) {
    case 'T5': {
      const arms = ['success · 4:3:3', 'success · hard only', 'null control'];
      const early = figure(runsOf, arms, {
        what: 'Training success',
        unit: '%',
        steps: "the Curriculum's first (Sum) stage, steps 1–14",
        perRun: stepMean((s) => s.success, SUM_STAGE),
        scale: 100,
      });
      const sparse = figure(runsOf, arms, {
        what: 'Groups with no signal',
        unit: '%',
        steps: 'the Success stage (pass/fail reward), steps 28–40',
        perRun: stepMean((s) => s.zeroSignal, SUCCESS_STAGE),
        scale: 100,
      });
      const dense = figure(runsOf, arms, {
        what: 'Groups with no signal',
        unit: '%',
        steps: 'the dense Sum and Macro stages, steps 1–27',
        perRun: (r) => meanOf(r.steps.filter((s) => s.stage < SUCCESS_STAGE).map((s) => s.zeroSignal)),
        scale: 100,
      });
      const whole = figure(runsOf, arms, {
        what: 'Groups with no signal',
        unit: '%',
        steps: 'the whole run, steps 1–40',
        perRun: zeroSignal,
        scale: 100,
      });
      const [m, h] = [at(whole, arms[0]), at(whole, arms[1])];
      const gap = h.mean - m.mean;
      const sentence =
        `Hard-only training passes ${v(at(early, arms[1]))} % of its rollouts in the first (Sum) stage against ${v(at(early, arms[0]))} % for the mixed set, and ${v(h)} % of its groups carry no signal over the run against ${v(m)} % (${v(at(sparse, arms[1]))} against ${v(at(sparse, arms[0]))} % once the reward is pass/fail). ` +
        (gap < 10
          ? `Hard-only data leaves ${num(gap)} points more groups without signal: the sparsity the paper blames, but small, since in the dense Sum and Macro stages only ${v(at(dense, arms[1]))} % of hard-only groups (${v(at(dense, arms[0]))} % mixed) lack one; hard-only data does not starve the learning, and the lab does not reproduce the collapse.`
          : `Hard-only data leaves ${num(gap)} points more groups without signal: the sparsity the paper blames is there.`);
      return {
        id,
        paper:
          'Hard queries alone give too few successful rollouts: most groups carry no reward signal, and training collapses.',
        figures: [early, dense, sparse, whole],
        notLogged: null,
        sentence,
      };
    }
    case 'T7': {
      const arms = ['success · 0 %', 'success · 5 %', 'success · 10 %'];
      const failed = figure(runsOf, arms, {
        what: 'Failed tool calls',
        unit: 'per rollout',
        steps: 'the whole run',
        perRun: stepMean((s) => s.toolFailures),
        digits: 2,
      });
      const calls = figure(runsOf, arms, {
        what: 'Tool calls',
        unit: 'per rollout',
        steps: 'the whole run',
        perRun: stepMean((s) => s.toolCalls),
        digits: 2,
      });
      const share = figure(runsOf, arms, {
        what: 'Share of tool calls that failed',
        unit: '%',
        steps: 'the whole run',
        perRun: (r) => r.steps.reduce((a, s) => a + s.toolFailures, 0) / r.steps.reduce((a, s) => a + s.toolCalls, 0),
        scale: 100,
      });
      const sparse = figure(runsOf, [...arms, 'null control'], {
        what: 'Groups with no signal',
        unit: '%',
        steps: 'the Success stage (pass/fail reward), steps 28–40',
        perRun: stepMean((s) => s.zeroSignal, SUCCESS_STAGE),
        scale: 100,
      });
      const f = (arm: string) => at(failed, arm).mean.toFixed(2);
      const [z0, z5, z10] = arms.map((a) => at(sparse, a));
      const starves = z10.lo !== null && z0.hi !== null && z10.lo > z0.hi;
      const c = (arm: string) => at(calls, arm).mean.toFixed(2);
      const sentence =
        `At 10 % a rollout meets ${f(arms[2])} failed calls (${v(at(share, arms[2]))} % of its calls), at 5 % ${f(arms[1])}, and makes ${c(arms[2])} and ${c(arms[1])} calls against ${c(arms[0])} without failures: it calls again. Once the reward is pass/fail, ${ivText(z10)} % of groups carry no signal at 10 % against ${ivText(z5)} % at 5 % and ${ivText(z0)} % without failures. ` +
        (starves
          ? 'Failed calls starve the reward as the paper says, and the lab reproduces the finding. A failed call never ends a rollout here: the agent reads the error and goes on.'
          : 'The share of groups without signal does not separate 10 % from none, so the starved reward the paper names is not what the lab measures. A failed call never ends a rollout here: the agent reads the error and goes on.');
      return {
        id,
        paper: 'Failed tool calls starve the reward: at 10 % too few rollouts succeed to learn from.',
        figures: [failed, calls, share, sparse],
        notLogged:
          'Rollouts cut short by a failure: none are (a failed call returns an error observation and the rollout continues), and no per-rollout record of which rollouts met a failure is kept.',
        sentence,
      };
    }
    case 'T4': {
      const sizes = ['100', '1000', '2000'];
      const armsIn = sizes.map((n) => `in-domain · ${n}`);
      const passes = figure(runsOf, armsIn, {
        what: 'Passes over the training set (queries drawn ÷ training queries)',
        unit: 'passes',
        steps: 'the whole run',
        perRun: (r) => r.steps.reduce((a, s) => a + s.rollouts, 0) / r.groupSize / r.trainSize,
        digits: 2,
      });
      const drift = figure(
        runsOf,
        sizes.map((n) => `OOD · ${n}`),
        {
          what: 'OOD drift (end − start OOD accuracy)',
          unit: 'points',
          steps: 'step 0 to step 40',
          perRun: oodDrift,
          scale: 100,
        },
      );
      const drawn = (arm: string) =>
        Math.round(meanOf(runsOf(arm).map((r) => r.steps.reduce((t, x) => t + x.rollouts, 0) / r.groupSize)));
      const p = (arm: string) => at(passes, arm).mean.toFixed(2);
      const allZero = drift.arms.every(holdsZero);
      const sentence =
        `A run draws ${drawn(armsIn[1])} training queries: ${p(armsIn[0])} passes over a pool of 100, ${p(armsIn[1])} over 1K, ${p(armsIn[2])} over 2K. With 1K or 2K most queries are never drawn, and even 100 are seen under twice, so the pool's size can hardly matter: 100 queries teach as much as 1K here. ` +
        `OOD accuracy drifts ${drift.arms.map(ivText).join(' / ')} points (100 / 1K / 2K)${allZero ? ', each interval holding 0: at 40 steps no pool size costs OOD ability' : ''}.`;
      return {
        id,
        paper:
          'More distinct training queries help up to about 1K; past it, in-domain success stops rising and OOD accuracy falls.',
        figures: [passes, drift],
        notLogged: null,
        sentence,
      };
    }
    case 'T6': {
      const arms = ['1.5B · GRPO', '1.5B · DAPO', '1.5B · ARPO', '7B · GRPO', '7B · DAPO', '7B · ARPO'];
      const entropy = figure(runsOf, arms, {
        what: 'Policy entropy',
        unit: 'nats',
        steps: 'the whole run',
        perRun: stepMean((s) => s.entropy),
        digits: 3,
      });
      const branched = figure(runsOf, ['1.5B · ARPO', '7B · ARPO'], {
        what: "ARPO's rollouts branched after a tool observation",
        unit: '%',
        steps: 'the whole run',
        perRun: (r) =>
          r.steps.reduce((a, s) => a + (s.arpoBranches ?? NaN), 0) / r.steps.reduce((a, s) => a + s.rollouts, 0),
        scale: 100,
      });
      const sparse = figure(runsOf, ['1.5B · GRPO', '7B · GRPO'], {
        what: "Groups with no signal (what DAPO's dynamic sampling drops)",
        unit: '%',
        steps: 'the whole run',
        perRun: zeroSignal,
        scale: 100,
        digits: 2,
      });
      const dropped = figure(runsOf, ['1.5B · DAPO', '7B · DAPO'], {
        what: "Groups DAPO's dynamic sampling dropped",
        unit: 'per step',
        steps: 'the whole run',
        perRun: stepMean((s) => s.dapoDropped ?? NaN),
        digits: 3,
      });
      const e = (arm: string) => at(entropy, arm).mean.toFixed(3);
      const sentence =
        `The 1.5B policy's entropy is ${e(arms[0])} nats against ${e(arms[3])} at 7B (GRPO), so the small model does explore more. ` +
        `But under the dense Sum reward almost every group already carries a signal (${at(sparse, arms[0]).mean.toFixed(2)} % without one at 1.5B, ${at(sparse, arms[3]).mean.toFixed(2)} % at 7B): DAPO's dynamic sampling drops ${at(dropped, arms[1]).mean.toFixed(3)} groups a step at 1.5B and ${at(dropped, arms[4]).mean.toFixed(3)} at 7B, ` +
        `and ARPO branches ${v(at(branched, arms[2]))} % of its rollouts at both scales, a fixed share. So neither has much to change in what GRPO trains on here, and neither helps the small model as in the paper.`;
      return {
        id,
        paper:
          'Exploration — DAPO keeping only groups with a signal, ARPO branching at uncertain tool steps — helps a small model, whose own exploration is limited, and not a large one.',
        figures: [entropy, branched, sparse, dropped],
        notLogged:
          "Entropy at the tool steps ARPO branches on (only the run's mean entropy over all tokens is logged).",
        sentence,
      };
    }
    case 'T1':
    case 'T3': {
      const scales = ['1.5B', '3B', '7B'];
      const rewards = ['Sum', 'Macro', 'Success', 'Curriculum'];
      const label = (scale: string, reward: string) => (id === 'T1' ? `${scale} · ${reward}` : `${reward} · ${scale}`);
      const whole = figure(
        runsOf,
        scales.flatMap((s) => rewards.map((r) => label(s, r))),
        { what: 'Groups with no signal, by reward', unit: '%', steps: 'the whole run', perRun: zeroSignal, scale: 100 },
      );
      // each Curriculum run read once per stage (the trainer's charts/curriculum_stage: 0 Sum, 1 Macro, 2 Success)
      const stages: MechanismFigure = {
        what: "Curriculum's stages: groups with no signal in each",
        unit: '%',
        steps: 'steps 1–14 (Sum), 15–27 (Macro), 28–40 (Success)',
        digits: 1,
        arms: scales
          .flatMap((s) =>
            ['Sum', 'Macro', 'Success'].map((stage, i) =>
              armFigure(
                `${label(s, 'Curriculum')} (${stage} stage)`,
                runsOf(label(s, 'Curriculum')),
                stepMean((x) => x.zeroSignal, i),
                100,
                1,
              ),
            ),
          )
          .filter((x) => x.n > 0),
      };
      const w = (s: string, r: string) => v(at(whole, label(s, r)));
      const st = (s: string) => v(at(stages, label(s, 'Curriculum') + ' (Success stage)'));
      const sentence =
        `Pass/fail Success leaves ${w('1.5B', 'Success')} % of groups without signal at 1.5B, ${w('3B', 'Success')} % at 3B and ${w('7B', 'Success')} % at 7B, Sum ${w('1.5B', 'Sum')} / ${w('3B', 'Sum')} / ${w('7B', 'Sum')} %; Curriculum's last (Success) stage ${st('1.5B')} / ${st('3B')} / ${st('7B')} %. ` +
        (id === 'T1'
          ? "The sparsity the paper's curriculum is built to avoid is real, and worst at 1.5B; yet at 1.5B every reward gains alike (the table above), so in the lab a denser signal does not buy more success there."
          : "The larger the model, the more of its groups carry a signal under every reward, as the paper's mechanism has it; whether that becomes a larger gain is what T3's pairs above test.");
      return {
        id,
        paper:
          id === 'T1'
            ? 'A sparse reward gives small models too little signal: a curriculum from dense Sum to sparse Success bridges it, while a large model can use a dense reward directly.'
            : 'A larger model succeeds more often, so RL has more signal to learn from.',
        figures: [whole, stages],
        notLogged: null,
        sentence,
      };
    }
    case 'T2': {
      const arms = ['Sum · OOD', 'Macro · OOD', 'null control'];
      const drift = figure(runsOf, arms, {
        what: 'OOD drift (end − start OOD accuracy)',
        unit: 'points',
        steps: 'step 0 to step 40 (the two OOD evaluations the runs made)',
        perRun: oodDrift,
        scale: 100,
      });
      const [sum, macro, nul] = arms.map((a) => at(drift, a));
      const sentence =
        `The runs evaluated OOD accuracy at step 0 and step 40 only, so the curve is its two ends: Sum drifts ${ivText(sum)} points, Macro ${ivText(macro)}, the null control ${ivText(nul)}. ` +
        (Math.abs(nul.mean - sum.mean) < 1
          ? 'The null control, trained on shuffled advantages, drifts as far as Sum: the drop comes with updating the 7B policy at all, not (as the paper has it) with what the Sum reward pays for.'
          : 'The null control drifts differently from Sum, so what Sum pays for shapes the drop.');
      return {
        id,
        paper:
          "Optimizing the dense Sum reward's in-domain partial credit drifts the 7B policy from general tool use and costs OOD accuracy; the semi-sparse Macro keeps it.",
        figures: [drift],
        notLogged:
          'OOD accuracy between the start and the end (the standard runs evaluate at step 0 and step 40 only).',
        sentence,
      };
    }
  }
}

/** the mechanism figures as Markdown: per finding the paper's mechanism, the sentence and each figure's arms */
export function mechanismsMarkdown(r: MechanismsRecord): string {
  const lines = [
    "# Each finding's mechanism, measured",
    '',
    'The figure of the mechanism the paper names for each finding, from the training metrics and evaluations of ' +
      (r.inputs
        ? `the ${r.inputs.runs} runs the standard tables ${r.inputs.tables.map((t) => `\`${t}\``).join(', ')} name (in ${r.inputs.folders.map((f) => `\`${f}\``).join(', ')}),`
        : 'the runs the standard tables name,'),
    'per arm: the mean over seeds with its 95 % t interval, and n seeds. Descriptive: no test is made of them.',
    '',
  ];
  for (const f of r.findings) {
    lines.push(`## ${f.id}`, '', `The paper: ${f.paper}`, '', `**${f.sentence}**`, '');
    for (const g of f.figures) {
      lines.push(`${g.what} (${g.unit}; ${g.steps}):`, '', '| arm | mean [95 % interval] | n |', '|---|---|---|');
      for (const a of g.arms) lines.push(`| ${a.arm} | ${armText(a, g.digits)} | ${a.n} |`);
      lines.push('');
    }
    if (f.notLogged) lines.push(`Not logged: ${f.notLogged}`, '');
  }
  lines.push(
    `\`${r.command}\` · commit ${r.commit.slice(0, 10)}${r.dirtyFiles?.length ? ` + ${r.dirtyFiles.length} uncommitted file(s)` : ''} · ${r.date.slice(0, 10)}`,
  );
  return lines.join('\n');
}

/** one logged training step (a metrics.jsonl line of kind "train", under the names it was recorded with) as a
 *  mechanism reads it; throws on a line missing a metric */
export function mechanismStep(line: Record<string, unknown>): MechanismStep {
  const m = withMetricNames(line);
  const num = (k: string) => {
    const x = m[k];
    if (typeof x !== 'number' || !Number.isFinite(x))
      throw new Error(`step ${String(m.step)}: metric ${k} is ${JSON.stringify(x)}, not a number`);
    return x;
  };
  const opt = (k: string) => (typeof m[k] === 'number' ? m[k] : undefined);
  return {
    step: num('step'), stage: num('charts/curriculum_stage'), success: num('charts/success'),
    zeroSignal: num('charts/frac_zero_std_groups'), toolCalls: num('charts/tool_calls'),
    toolFailures: num('charts/tool_failures'), entropy: num('losses/entropy'), rollouts: num('charts/rollouts'),
    arpoBranches: opt('arpo/branches'), dapoDropped: opt('dapo/dropped_groups'),
  };
}

/** the arm label of a table's null control: its scale where the finding has several, else "null control" */
export function nullArmLabel(col: string): string {
  return col === 'success' || col === 'ood' ? 'null control' : `null control · ${col}`;
}
