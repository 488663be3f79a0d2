// The RL trainer's configuration, derived from the lab's settings table (src/lab/config.ts): each row the
// trainer reads is a field here under the row's name, with the row's default, bounds, doc and the algorithms
// it applies to; the few knobs the page does not show are documented here, with the paper behind each.
// No tfjs here: the page and the CLI read it without loading a backend.
//
// The Agent-STAR paper does not publish its RL hyper-parameters; these follow the reference code
// the paper builds on: veRL's GRPO recipe, DAPO's (arXiv 2503.14476) and ARPO's (arXiv 2507.19849)
// scripts, scaled to the lab's toy models.
import {
  SETTINGS,
  invalidReason,
  type TrainerSettingKey,
  SETTING_KEYS,
  defaultConfig,
  type AlgorithmName,
  type LabConfig,
  type Setting,
  type SettingKey,
} from '../lab/config.ts';
import type { LossAggregation } from './rlMath.ts';

export type Algorithm = AlgorithmName;

/**
 * The trainer's config: the settings table's RL rows under their own names and values (their docs and bounds
 * are the table's), and the knobs the page does not show.
 */
export interface RlConfig extends Omit<Pick<LabConfig, TrainerSettingKey>, 'curriculumSignalShare'> {
  /** Curriculum, adaptive switch only (absent: the switch points; see the table's ReadOnlyWhen) */
  curriculumSignalShare?: number;
  /** dual-clip constant c for negative advantages (Ye et al. 2020; veRL clip_ratio_c) */
  dualClip: number;
  /** token-mean (DAPO's token-level loss) or seq-mean-token-mean (GRPO's original) */
  lossAggregation: LossAggregation;
  /** clip the global gradient norm to this (veRL grad_clip) */
  maxGradNorm: number;
  /** tool calls per episode */
  maxTurns: number;
  /** DAPO dynamic sampling: drop groups whose rewards all match, and generate more to fill the batch */
  dynamicSampling: boolean;
  /** ARPO: rollouts started from the prompt per query (N; the rest of the budget M is branched) */
  arpoInitial: number;
}

/** the trainer's knobs the page does not show: the same for every run of the lab */
const FIXED = {
  dualClip: 3,
  lossAggregation: 'token-mean',
  maxGradNorm: 1,
  maxTurns: 24,
} as const satisfies Partial<RlConfig>;

/** the trainer config's fields in the order it has always been written (summaries and resume fingerprints
 *  are JSON of it, so the order is part of what a run records); a field added since comes after them */
const FIELD_ORDER: readonly (keyof RlConfig)[] = [
  'algorithm',
  'reward',
  'curriculumSwitch1',
  'curriculumSwitch2',
  'steps',
  'queriesPerStep',
  'groupSize',
  'learningRate',
  'warmupSteps',
  'advantages',
  'miniBatches',
  'microBatchTokens',
  'clipLow',
  'clipHigh',
  'dualClip',
  'klCoef',
  'lossAggregation',
  'temperature',
  'maxGradNorm',
  'toolFailureRate',
  'planDecoding',
  'maxTurns',
  'dynamicSampling',
  'dapoMaxGenBatches',
  'overlongBuffer',
  'arpoInitial',
  'arpoAlpha',
  'arpoBeta',
  'arpoK',
  'arpoZ',
  'arpoAdvantage',
  'evalEvery',
  'evalQueries',
  'evalToolQa',
  'seed',
  'evalSamples',
];

interface RecordedField {
  /** the name it was recorded under */
  as: string;
  /** today's value as recorded, and back */
  value?: (v: unknown) => unknown;
  back?: (v: unknown) => unknown;
}

/** how runs recorded five fields before the trainer's config took the table's names, and their values then
 *  (two were booleans); the curriculum's two switches were one pair, `curriculumSwitches` */
const RECORDED: Readonly<Record<string, RecordedField>> = {
  dapoMaxGenBatches: { as: 'maxGenBatches' },
  arpoZ: { as: 'arpoBranches' },
  warmupSteps: { as: 'lrWarmupSteps' },
  planDecoding: { as: 'constrainPlan', value: (v) => v === 'constrained', back: (v) => (v ? 'constrained' : 'free') },
  advantages: { as: 'nullControl', value: (v) => v === 'shuffled', back: (v) => (v ? 'shuffled' : 'real') },
};

/**
 * A trainer config in the form runs recorded it before it took the table's names, field for field in place:
 * the resume fingerprint is JSON of this form, so a run saved before the rename resumes (and a committed run is
 * still the run its folder says). Takes either form.
 */
export function rlConfigAsRecorded(c: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(c)) {
    if (k === 'curriculumSwitch1') out.curriculumSwitches = [v, c.curriculumSwitch2];
    else if (k === 'curriculumSwitch2') continue;
    else if (RECORDED[k]) out[RECORDED[k].as] = RECORDED[k].value ? RECORDED[k].value(v) : v;
    else out[k] = v;
  }
  return out;
}

/** A recorded trainer config (a summary's or a card's `rl`) under today's names, field for field in place:
 *  records written before the rename are read through it. Takes either form. */
export function rlConfigFromRecord(r: Readonly<Record<string, unknown>>): RlConfig {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r)) {
    const now = Object.entries(RECORDED).find(([, f]) => f.as === k);
    if (k === 'curriculumSwitches' && Array.isArray(v)) [out.curriculumSwitch1, out.curriculumSwitch2] = v as unknown[];
    else if (now) out[now[0]] = now[1].back ? now[1].back(v) : v;
    else out[k] = v;
  }
  return out as unknown as RlConfig;
}

/**
 * The RL config of a lab experiment (the page, `cli run` and `cli sweep` share it), read off the settings
 * table (src/lab/config.ts): each setting with a `trainer` field sets that field; under an algorithm a
 * setting does not apply to, the field takes the row's `otherwise` (KL 0 for DAPO and ARPO, clip-high =
 * clip-low for GRPO and ARPO) — the page shows that control disabled, and the CLI names it as ignored.
 */
export function rlConfigFromLab(lab: LabConfig): RlConfig {
  // dynamic sampling is what DAPO is, not a knob of it
  const c: Record<string, unknown> = { ...FIXED, dynamicSampling: lab.algorithm === 'dapo' };
  for (const key of SETTING_KEYS) {
    const s: Setting = SETTINGS[key];
    if (!s.trainer) continue;
    // a setting read only under another's value is left out of the config otherwise (see ReadOnlyWhen)
    if (s.onlyWhen && (lab as Record<string, unknown>)[s.onlyWhen.setting] !== s.onlyWhen.is) continue;
    let value: unknown = lab[key];
    const scope = s.algorithms;
    if (scope && !scope.only.includes(lab.algorithm)) {
      const other = scope.otherwise;
      value = other === undefined ? s.default : typeof other === 'number' ? other : lab[other.sameAs as SettingKey];
    }
    c[key] = value;
  }
  c.arpoInitial = Math.max(1, Math.floor((c.groupSize as number) / 2)); // N = M/2, after the ARPO scripts
  const missing = FIELD_ORDER.filter((k) => !(k in c));
  if (missing.length > 0) throw new Error(`RL config: the settings table gives no ${missing.join(', ')}`);
  const order = [...FIELD_ORDER, ...Object.keys(c).filter((k) => !(FIELD_ORDER as readonly string[]).includes(k))];
  const config = Object.fromEntries(order.map((k) => [k, c[k]])) as unknown as RlConfig;
  validateRlConfig(config);
  return config;
}

/**
 * The RL config of the page's defaults under `algorithm`, with `overrides` on top: what a bench or a test
 * trains when it names only the knobs it varies. The same table as the page, so it measures the page's lab.
 */
export function rlConfigFor(algorithm: Algorithm, overrides: Partial<RlConfig> = {}): RlConfig {
  const c: RlConfig = { ...rlConfigFromLab({ ...defaultConfig(), algorithm }), ...overrides, algorithm };
  if (!overrides.arpoInitial) c.arpoInitial = Math.max(1, Math.floor(c.groupSize / 2));
  validateRlConfig(c);
  return c;
}

/** Checks a trainer config: each of the table's settings against its row (the page's and the URL's bounds),
 *  then what the trainer itself needs of them and of its own knobs. */
export function validateRlConfig(c: RlConfig): void {
  const fields = c as unknown as Record<string, unknown>;
  for (const key of SETTING_KEYS) {
    if (!(SETTINGS[key] as Setting).trainer || !(key in fields)) continue;
    const why = invalidReason(key, fields[key]);
    if (why) throw new Error(`RL config: ${key} ${why}, got ${String(fields[key])}`);
  }
  for (const k of ['maxTurns', 'arpoInitial'] as const)
    if (!Number.isInteger(c[k]) || c[k] < 1) throw new Error(`RL config: ${k} must be a positive integer, got ${c[k]}`);
  if (!(c.maxGradNorm > 0)) throw new Error(`RL config: maxGradNorm must be positive, got ${c.maxGradNorm}`);
  // the ratio's lower clip 1 − ε_low must stay above 0
  if (c.clipLow >= 1) throw new Error(`RL config: clipLow must be < 1, got ${c.clipLow}`);
  if (c.dualClip <= 1) throw new Error(`RL config: dualClip must be > 1, got ${c.dualClip}`);
  if (c.algorithm === 'arpo' && c.arpoInitial > c.groupSize)
    throw new Error(
      `RL config: ARPO starts ${c.arpoInitial} rollouts per query, more than the budget M = ${c.groupSize}`,
    );
  const [a, b] = [c.curriculumSwitch1, c.curriculumSwitch2];
  if (!(a <= b)) throw new Error(`RL config: curriculum switches must satisfy 0 ≤ a ≤ b ≤ 1, got [${a}, ${b}]`);
}
