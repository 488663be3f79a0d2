// The RL run's metrics as the page names and draws them: one entry per metric the RL trainer and job
// report (src/rl/rlTrainer.ts names them), with a label, a one-line meaning, a group for the picker and
// a format; plus TensorBoard's debiased exponential moving average for the smoothed curves. Pure data.
//
// Names follow one scheme, CleanRL's: `losses/…` the update's loss terms and their diagnostics (KL,
// entropy, clip fractions, ratio deviation), `charts/…` what a step's rollouts and bookkeeping show
// (success, delivery, checks passed, lengths, tool calls, groups, the curriculum's stage), and for the
// rest a prefix saying what it is: `reward/…`, `eval/…` (held-out evaluations), `time/…`, `dapo/…`,
// `arpo/…`. No name goes without a prefix. A metric renamed since a
// run was recorded is read under its new name: RENAMED_METRICS, applied by every reader of stored
// points, bundles, committed metrics.jsonl / .csv and the lessons' committed reference (results/ keeps the
// names its runs were recorded with: it is never rewritten for a rename).

import { formatStepTime } from './runEstimate.ts';

export type MetricFormat = 'rate' | 'number' | 'count' | 'tokens' | 'seconds' | 'ms';
export type MetricGroup = 'rollouts' | 'evaluation' | 'update' | 'algorithm' | 'time';

export interface MetricInfo {
  key: string;
  label: string;
  doc: string;
  group: MetricGroup;
  format: MetricFormat;
  /** reported only at evaluations (step 0, every evalEvery steps, the end): drawn as points, not smoothed */
  sparse?: true;
  /** a count's noun, plural (format 'count'): what one step counts, e.g. 'groups' */
  unit?: string;
}

export const METRIC_GROUPS: Record<MetricGroup, string> = {
  rollouts: 'Training rollouts',
  evaluation: 'Evaluation (held out)',
  update: 'Policy update',
  algorithm: 'DAPO / ARPO',
  time: 'Time',
};

/** names a metric had before the scheme above → its name now (old records keep the old ones) */
export const RENAMED_METRICS: Readonly<Record<string, string>> = {
  kl: 'losses/kl',
  entropy: 'losses/entropy',
  clip_frac: 'losses/clip_frac',
  'charts/dual_clip_frac': 'losses/dual_clip_frac',
  'charts/ratio_dev': 'losses/ratio_dev',
  success: 'charts/success',
  delivery: 'charts/delivery',
  cs_micro: 'charts/cs_micro',
  hard_micro: 'charts/hard_micro',
  cs_macro: 'charts/cs_macro',
  hard_macro: 'charts/hard_macro',
  response_len: 'charts/response_len',
  tool_calls: 'charts/tool_calls',
  tool_failures: 'charts/tool_failures',
  frac_zero_std_groups: 'charts/frac_zero_std_groups',
  curriculum_stage: 'charts/curriculum_stage',
  stepMs: 'time/step_ms',
};

/** a metric's name now, whichever name it was recorded under */
export function metricName(key: string): string {
  return Object.hasOwn(RENAMED_METRICS, key) ? RENAMED_METRICS[key] : key;
}

/** a recorded row of metrics (a stored point's values, a metrics.jsonl line) with every name as it is now;
 *  where a row holds both names of one metric, the new name's value wins */
export function withMetricNames<T extends Record<string, unknown>>(row: T): T {
  if (!Object.keys(row).some((k) => Object.hasOwn(RENAMED_METRICS, k))) return row;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row))
    if (!(metricName(k) in out) || !Object.hasOwn(RENAMED_METRICS, k)) out[metricName(k)] = v;
  return out as T;
}

const m = (
  key: string,
  label: string,
  group: MetricGroup,
  format: MetricFormat,
  doc: string,
  sparse?: true,
): MetricInfo => (sparse ? { key, label, group, format, doc, sparse } : { key, label, group, format, doc });
/** a whole number each step counts (src/rl/rlTrainer.ts): written as an integer, a mean or smoothed value as one */
const count = (key: string, label: string, group: MetricGroup, unit: string, doc: string): MetricInfo => ({
  key,
  label,
  group,
  format: 'count',
  unit,
  doc,
});

export const RL_METRICS: readonly MetricInfo[] = [
  m(
    'reward/mean',
    'Reward',
    'rollouts',
    'number',
    "Mean reward of the step's rollouts under the reward in force (Curriculum: its current stage).",
  ),
  m(
    'reward/std',
    'Reward std',
    'rollouts',
    'number',
    "Spread of the step's rewards; zero within a group means no learning signal there.",
  ),
  m('charts/success', 'Success', 'rollouts', 'rate', "Share of the step's rollouts whose plan passes every check."),
  m('charts/delivery', 'Delivery', 'rollouts', 'rate', "Share of the step's rollouts that deliver a well-formed plan."),
  m(
    'charts/cs_micro',
    'Commonsense micro',
    'rollouts',
    'rate',
    'Share of commonsense checks passed (the dense Sum reward averages it with hard micro).',
  ),
  m('charts/hard_micro', 'Hard micro', 'rollouts', 'rate', 'Share of hard-constraint checks passed.'),
  m('charts/cs_macro', 'Commonsense macro', 'rollouts', 'rate', 'Share of plans passing every commonsense check.'),
  m('charts/hard_macro', 'Hard macro', 'rollouts', 'rate', 'Share of plans passing every hard check.'),
  m(
    'charts/response_len',
    'Response length',
    'rollouts',
    'tokens',
    'Mean tokens generated after the prompt (calls, observations and the plan).',
  ),
  m('charts/tool_calls', 'Tool calls', 'rollouts', 'number', 'Mean tool calls per rollout, unparsable ones included.'),
  m(
    'charts/tool_failures',
    'Tool failures',
    'rollouts',
    'number',
    'Mean injected tool failures per rollout (the environment-stability axis).',
  ),
  count(
    'charts/informative_groups',
    'Informative groups',
    'rollouts',
    'groups',
    'Groups of the step whose rewards are not all equal: the only ones with an advantage, so the only ones the update learns from.',
  ),
  m(
    'charts/frac_zero_std_groups',
    'Zero-std groups',
    'rollouts',
    'rate',
    'Share of groups whose rollouts all got the same reward (no advantage).',
  ),
  // the curriculum's stage, and what each reward would leave to learn from in the same plans (the adaptive
  // curriculum moves on by the next reward's)
  m('charts/curriculum_stage', 'Reward stage', 'rollouts', 'number', 'The reward paying this step: 0 Sum, 1 Macro, 2 Success.'),
  ...(['Sum', 'Macro', 'Success'] as const).map((r) => m(`charts/signal_${r.toLowerCase()}`, `Signal under ${r}`, 'rollouts', 'rate',
    `Share of the step's groups whose plans would not all get the same ${r} reward: those ${r} would leave something to learn from.`)),
  m(
    'eval/success',
    'Validation success',
    'evaluation',
    'rate',
    'Greedy rollouts on held-out queries: share passing every check.',
    true,
  ),
  m(
    'eval/success_lo',
    'Validation success, 95 % low',
    'evaluation',
    'rate',
    'Lower end of the 95 % Wilson interval of greedy validation success.',
    true,
  ),
  m(
    'eval/success_hi',
    'Validation success, 95 % high',
    'evaluation',
    'rate',
    'Upper end of the 95 % Wilson interval of greedy validation success.',
    true,
  ),
  m(
    'eval/queries',
    'Validation queries',
    'evaluation',
    'number',
    'Held-out queries behind each validation figure (300 resolve about ±5 points).',
    true,
  ),
  m(
    'eval/sample_success',
    'Sampled success',
    'evaluation',
    'rate',
    'k samples per held-out query at the training temperature: share passing every check (pass@1 averaged over the samples).',
    true,
  ),
  m(
    'eval/sample_success_lo',
    'Sampled success, 95 % low',
    'evaluation',
    'rate',
    "Lower end of the 95 % interval of sampled success (Wilson over queries, a query's k samples one trial: conservative).",
    true,
  ),
  m(
    'eval/sample_success_hi',
    'Sampled success, 95 % high',
    'evaluation',
    'rate',
    "Upper end of the 95 % interval of sampled success (Wilson over queries, a query's k samples one trial: conservative).",
    true,
  ),
  m(
    'eval/sample_delivery',
    'Sampled delivery',
    'evaluation',
    'rate',
    'k samples per held-out query at the training temperature: share delivering a plan.',
    true,
  ),
  m(
    'eval/samples',
    'Samples per query',
    'evaluation',
    'number',
    'k, the samples per held-out query of the sampled evaluation.',
    true,
  ),
  m(
    'eval/delivery',
    'Validation delivery',
    'evaluation',
    'rate',
    'Greedy rollouts on held-out queries: share delivering a plan.',
    true,
  ),
  m(
    'eval/ood_accuracy',
    'OOD accuracy',
    'evaluation',
    'rate',
    'Accuracy on unseen tool-QA tasks (the out-of-domain suite, never trained on in RL).',
    true,
  ),
  m(
    'eval/cs_micro',
    'Validation commonsense',
    'evaluation',
    'rate',
    'Held-out queries: share of commonsense checks passed.',
    true,
  ),
  m(
    'eval/hard_micro',
    'Validation hard',
    'evaluation',
    'rate',
    'Held-out queries: share of hard-constraint checks passed.',
    true,
  ),
  m(
    'eval/cs_macro',
    'Validation commonsense macro',
    'evaluation',
    'rate',
    'Held-out queries: share of plans passing every commonsense check.',
    true,
  ),
  m(
    'eval/hard_macro',
    'Validation hard macro',
    'evaluation',
    'rate',
    'Held-out queries: share of plans passing every hard check.',
    true,
  ),
  m(
    'eval/tool_calls',
    'Validation tool calls',
    'evaluation',
    'number',
    'Held-out queries: mean tool calls per episode.',
    true,
  ),
  m(
    'losses/kl',
    'KL to SFT',
    'update',
    'number',
    'k3 estimate of the KL divergence from the frozen SFT policy (GRPO; 0 without a reference).',
  ),
  m('losses/entropy', 'Entropy', 'update', 'number', 'Mean entropy of the policy over its own tokens (nats).'),
  m('losses/clip_frac', 'Clip fraction', 'update', 'rate', 'Share of tokens whose probability ratio was clipped.'),
  m(
    'losses/dual_clip_frac',
    'Dual-clip fraction',
    'update',
    'rate',
    'Share of tokens with a negative advantage whose loss the dual clip bounded.',
  ),
  m('losses/pg', 'Policy loss', 'update', 'number', 'The clipped policy-gradient surrogate loss.'),
  m('charts/grad_norm', 'Gradient norm', 'update', 'number', 'Global gradient norm before clipping.'),
  m('losses/ratio_dev', 'Ratio deviation', 'update', 'number', 'Mean |ratio − 1| of the new over the rollout policy.'),
  count(
    'dapo/gen_batches',
    'DAPO batches',
    'algorithm',
    'batches',
    'DAPO: generation batches to fill the step with informative groups.',
  ),
  count(
    'dapo/dropped_groups',
    'DAPO dropped groups',
    'algorithm',
    'groups',
    'DAPO: groups dropped because every reward matched.',
  ),
  m(
    'dapo/gave_up',
    'DAPO gave up',
    'algorithm',
    'rate',
    'DAPO: 1 when the step trained on fewer informative groups than asked (generation budget spent).',
  ),
  count('arpo/branches', 'ARPO branches', 'algorithm', 'rollouts', 'ARPO: rollouts branched after a tool observation.'),
  count(
    'arpo/fills',
    'ARPO fills',
    'algorithm',
    'rollouts',
    'ARPO: rollouts started from the prompt to fill the budget.',
  ),
  count('arpo/tree_depth', 'ARPO tree depth', 'algorithm', 'branchings', 'ARPO: deepest chain of branches in a group.'),
  m('time/rollout', 'Rollout time', 'time', 'seconds', "Seconds spent generating and scoring the step's rollouts."),
  m('time/update', 'Update time', 'time', 'seconds', 'Seconds spent on the policy update.'),
  m('time/reward', 'Scoring time', 'time', 'seconds', 'Seconds spent computing rewards and advantages.'),
  m('time/step_ms', 'Step time', 'time', 'ms', 'Wall time of the whole step, an evaluation included.'),
  m('eval/seconds', 'Evaluation time', 'time', 'seconds', 'Seconds spent on an evaluation.', true),
];

/** what the page shows first: the reward and success curves, the OOD guard and the update's health */
export const DEFAULT_RL_METRICS = [
  'reward/mean', 'charts/success', 'eval/success', 'eval/ood_accuracy', 'losses/kl', 'charts/response_len',
] as const;

const BY_KEY = new Map(RL_METRICS.map((info) => [info.key, info]));

/** the entry of a metric (an unknown key gets a plain one, so nothing reported is hidden) */
export function metricInfo(key: string): MetricInfo {
  return (
    BY_KEY.get(key) ?? {
      key,
      label: key,
      doc: key,
      group: key.startsWith('eval/') ? 'evaluation' : 'update',
      format: 'number',
      ...(key.startsWith('eval/') ? { sparse: true as const } : {}),
    }
  );
}

/**
 * A share as a percentage: the page's one rounding for every share it writes (a tile, a table, a chart, a
 * takeaway), so that one figure never reads 63 % in one place and 62.5 % in another. One decimal, which
 * resolves a 300-query evaluation (a query is 0.33 points); exact 0 and 1 without. `space`: ' ' in prose.
 */
export function formatPercent(share: number | null | undefined, space = ''): string {
  if (share === null || share === undefined || !Number.isFinite(share)) return '–';
  return `${(share * 100).toFixed(share === 0 || share === 1 ? 0 : 1)}${space}%`;
}

/** a count: a whole number as one ("3"); a mean or a smoothed count (not whole) with one decimal ("3.0") */
export function formatCount(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

/** a count averaged over steps, said as one: "2.8 groups on average" (other formats: formatMetric) */
export function formatAverage(info: MetricInfo, value: number | null | undefined): string {
  if (info.format !== 'count' || value === null || value === undefined || !Number.isFinite(value))
    return formatMetric(info, value);
  return `${value.toFixed(1)}${info.unit ? ` ${info.unit}` : ''} on average`;
}

/** what a smoothed value is, in the words the page puts beside it */
export function smoothedLabel(weight: number): string {
  return `smoothed (EMA ${weight})`;
}

/** what a window mean is, in the words the page puts beside it */
export function windowMeanLabel([from, to]: readonly [number, number]): string {
  return `mean of steps ${from}–${to}`;
}

/**
 * How a metric is drawn. An evaluation is measured at a few steps only (a lesson's at steps 0 and 40): drawn
 * as markers, each with its interval where it has one, and never joined by a line — a line from step 0 to
 * step 40 reads as if measured in between. A training metric, measured every step: a line.
 */
export function drawnAs(info: MetricInfo): 'markers' | 'line' {
  return info.sparse ? 'markers' : 'line';
}

/** the metrics holding an evaluation's 95 % interval (`<key>_lo`, `<key>_hi`), where the trainer reports one */
export function intervalKeys(info: MetricInfo): { lo: string; hi: string } | null {
  const lo = `${info.key}_lo`;
  const hi = `${info.key}_hi`;
  return BY_KEY.has(lo) && BY_KEY.has(hi) ? { lo, hi } : null;
}

/** the value as the page writes it */
export function formatMetric(info: MetricInfo, value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  switch (info.format) {
    case 'rate':
      return formatPercent(value);
    case 'count':
      return formatCount(value);
    case 'tokens':
      return value.toFixed(0);
    case 'seconds':
      return `${value.toFixed(value < 10 ? 2 : 1)} s`;
    case 'ms':
      return formatStepTime(value); // one way to write a step time everywhere
    default:
      return Math.abs(value) >= 100
        ? value.toFixed(0)
        : Math.abs(value) >= 0.01 || value === 0
          ? value.toFixed(3)
          : value.toExponential(2);
  }
}

/** an axis tick: as short as the value allows (ticks are round numbers) */
export function formatTick(info: MetricInfo, value: number): string {
  const short = (v: number) => String(Number(v.toPrecision(3)));
  switch (info.format) {
    case 'rate': return `${Math.round(value * 100)}%`;
    case 'seconds': return `${short(value)} s`;
    case 'ms': return Math.abs(value) >= 10_000 ? `${short(value / 1000)} s` : short(value);
    default: return short(value);
  }
}

/**
 * TensorBoard's smoothing: an exponential moving average with weight `weight` in [0, 1), debiased so
 * the first values are not pulled towards 0. Gaps (null, non-finite) stay gaps and do not reset it.
 */
export function ema(values: readonly (number | null)[], weight: number): (number | null)[] {
  if (!(weight >= 0 && weight < 1)) throw new Error(`smoothing weight must be in [0, 1), got ${weight}`);
  let last = 0;
  let norm = 0;
  return values.map((v) => {
    if (v === null || !Number.isFinite(v)) return null;
    last = last * weight + (1 - weight) * v;
    norm = norm * weight + (1 - weight);
    return last / norm;
  });
}

/** the three stages of the Curriculum reward, by the trainer's `curriculum_stage` index */
export const REWARD_STAGES = ['sum', 'macro', 'success'] as const;
export type RewardStage = (typeof REWARD_STAGES)[number];

export function rewardStageOf(index: number | undefined): RewardStage | null {
  return index === undefined ? null : (REWARD_STAGES[index] ?? null);
}
