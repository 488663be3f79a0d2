// The RL trainer: one step = sample training queries, roll out a group per
// query with real tool calls (ARPO: branching rollouts), score each plan with the chosen reward,
// compute advantages, and update the policy with PPO-style mini-batches on the policy's own tokens
// (rlUpdate.ts: token-budgeted micro-batches, one AdamW step per mini-batch).
// GRPO, DAPO and ARPO differ only where the config says so — read top to bottom:
//
//   queries ─ rollouts (G per query | ARPO tree of M) ─ verdicts ─ rewards (+ DAPO overlong)
//     ─ [DAPO: drop zero-std groups, generate more] ─ advantages (GRPO | ARPO hard) ─ mini-batch updates
//
// Metric names (src/lab/metrics.ts): reward/mean, success, losses/kl, losses/clip_frac, time/rollout, …
import type { Query, Verdicts } from '../env/types.ts';
import { Rng } from '../env/random.ts';
import { evaluatePlan } from '../env/evaluate.ts';
import {
  commonsenseMacro,
  commonsenseMicro,
  adaptiveNextStage,
  computeReward,
  curriculumStage,
  hardMacro,
  signalShares,
  hardMicro,
  type CurriculumStage,
} from '../env/rewards.ts';
import { rollout, type RolloutPolicy } from '../agent/rollout.ts';
import { type AgentTask, type Episode } from '../agent/episode.ts';
import { evaluatePolicy } from '../agent/evaluatePolicy.ts';
import { wilsonOfMeans } from '../stats/intervals.ts';
import type { Policy } from '../model/transformer.ts';
import { AdamW } from './optimizer.ts';
import { restoreCheckpoint, saveCheckpoint, type Checkpoint } from './checkpoint.ts';
import { arpoHardAdvantages, grpoAdvantages, isZeroStdGroup, overlongPenalty } from './rlMath.ts';
import { ppoUpdate } from './rlUpdate.ts';
import type { RlConfig } from './rlConfig.ts';
import type { RlEnvironment } from './rlEnvironment.ts';
import { METRIC, type MetricName } from '../lab/metricNames.ts';

export type Metrics = Partial<Record<MetricName, number>>;

/** where a step stands (a heartbeat's figures): rollouts finished of those started, micro-batches begun */
export interface StepProgress { phase: 'rollouts' | 'update' | 'evaluation'; done: number; total: number }
/** awaited at each decode step of a rollout and before each micro-batch: it may report progress, let the
 *  caller's event loop run (a signal handler) and throw to stop the step; checkpoint() then still gives the
 *  last completed step's state */
export type PausePoint = (at: StepProgress) => Promise<void> | void;

/** a step's rollouts once scored, before its update (RlTrainer.collect) */
export interface Collected {
  /** the metrics of what was generated (rewards, success, lengths, …); the update's are added to them */
  metrics: Metrics;
  /** the kept groups' rollouts, with their advantages: what the update learns from */
  rows: ScoredEpisode[];
  /** ARPO hard attribution: per-token advantages of each row (null otherwise) */
  tokenAdvantages: Map<ScoredEpisode, number[]> | null;
  /** every generated rollout, kept or not */
  generated: ScoredEpisode[];
  /** the adaptive curriculum's stage once this step ends (absent: no adaptive curriculum) */
  nextStage?: CurriculumStage;
}

/** one scored rollout of the latest step (the episode viewer's sample) */
export interface ScoredEpisode {
  episode: Episode;
  group: number;
  verdicts: Verdicts;
  /** the reward of the current stage before DAPO's overlong penalty (DAPO filters groups on it) */
  score: number;
  /** what the update is driven by: the score plus DAPO's overlong penalty where it is on */
  reward: number;
  advantage: number;
  /** ARPO: index in its group of the rollout it branched from (null: from the prompt, or not ARPO) */
  parent: number | null;
}

const STAGE_INDEX: Record<CurriculumStage, number> = { sum: 0, macro: 1, success: 2 };
/** AdamW for RL: veRL actor defaults (β2 0.999, weight decay 0.01) */
export const RL_ADAMW = { beta1: 0.9, beta2: 0.999, weightDecay: 0.01 };

export class RlTrainer {
  readonly optimizer: AdamW;
  rng: Rng;
  step = 0;
  /** the latest step's scored rollouts */
  lastEpisodes: ScoredEpisode[] = [];
  /** see PausePoint (null: the step runs through) */
  pause: PausePoint | null = null;
  /** what the training rollouts decode with: the policy, or a view holding its weights (the S-seed step's
   *  seed of a stacked decode, model/seedStackDecode.ts) */
  decoder: RolloutPolicy;
  /** while a step runs: the RNG at its start and, once its update moves the weights with more to come, the
   *  whole state before it. A stop mid-step leaves the step half done; checkpoint() answers from these */
  private inStep: { rngState: number[]; before: Checkpoint | null } | null = null;
  /** the adaptive curriculum's stage: moved on by the steps' signal (endStep), saved in the checkpoint */
  private adaptiveStage: CurriculumStage = 'sum';

  /** trains `policy` in place; `reference` (frozen, the SFT start) is needed when klCoef > 0. The caller owns both. */
  constructor(
    readonly policy: Policy,
    readonly reference: Policy | null,
    readonly env: RlEnvironment,
    readonly config: RlConfig,
    optimizer?: AdamW,
  ) {
    if (config.klCoef > 0 && !reference) throw new Error('RL: klCoef > 0 needs the frozen reference policy');
    if (env.train.length === 0) throw new Error('RL: no training queries');
    this.optimizer = optimizer ?? new AdamW(policy.params, RL_ADAMW);
    this.decoder = policy;
    this.rng = new Rng(config.seed).fork(0x71);
  }

  /** the reward in force at the current step (Curriculum moves with training progress, or with the signal the
   *  steps so far left under the next stage when its switch is adaptive) */
  get stage(): CurriculumStage {
    const c = this.config;
    if (c.reward !== 'curriculum') return c.reward;
    if (this.adaptive) return this.adaptiveStage;
    return curriculumStage(this.step / c.steps, [c.curriculumSwitch1, c.curriculumSwitch2]);
  }

  /** a Curriculum run whose switch is adaptive */
  private get adaptive(): boolean {
    return this.config.reward === 'curriculum' && this.config.curriculumSignalShare !== undefined;
  }

  /** the step's queries: consecutive slices of a per-epoch permutation (a pure function of seed and step) */
  private scheduledQueries(): Query[] {
    const { train } = this.env;
    const Q = this.config.queriesPerStep;
    const out: Query[] = [];
    for (let k = 0; k < Q; k++) {
      const at = this.step * Q + k;
      const epoch = Math.floor(at / train.length);
      const perm = new Rng(this.config.seed).fork(0x9e7 + epoch).shuffle(train.map((_, i) => i));
      out.push(train[perm[at % train.length]]);
    }
    return out;
  }

  /** one generation batch: a group of rollouts per query, scored */
  private async generate(queries: readonly Query[], groupBase: number): Promise<ScoredEpisode[][]> {
    const c = this.config;
    const maxTokens = this.policy.config.contextLength;
    const pause = this.pause;
    const common = {
      world: this.env.world,
      temperature: c.temperature,
      maxTurns: c.maxTurns,
      failureRate: c.toolFailureRate,
      constrainPlan: c.planDecoding === 'constrained',
      rng: this.rng,
      ...(pause ? { pause: (done: number, total: number) => pause({ phase: 'rollouts', done, total }) } : {}),
    };
    let episodes: Episode[];
    let groupOf: number[];
    if (c.algorithm === 'arpo') {
      const tasks: AgentTask[] = [];
      const groups: number[] = [];
      queries.forEach((query, q) => {
        for (let i = 0; i < c.arpoInitial; i++) {
          tasks.push({ kind: 'travel', query });
          groups.push(q);
        }
      });
      const branching = {
        groups,
        budget: c.groupSize,
        k: c.arpoK,
        alpha: c.arpoAlpha,
        beta: c.arpoBeta,
        branches: c.arpoZ,
      };
      episodes = await rollout(this.decoder, tasks, { ...common, branching });
      groupOf = episodes.map((e) => e.branch!.group);
    } else {
      const tasks = queries.flatMap((query) =>
        Array.from({ length: c.groupSize }, () => ({ kind: 'travel', query }) as const),
      );
      episodes = await rollout(this.decoder, tasks, common);
      groupOf = tasks.map((_, i) => Math.floor(i / c.groupSize));
    }
    const stage = this.stage;
    const groups: ScoredEpisode[][] = queries.map(() => []);
    const indexInGroup: number[] = [];
    episodes.forEach((episode, i) => {
      const query = (episode.task as { query: Query }).query;
      const verdicts = evaluatePlan(this.env.world, query, episode.plan);
      const score = computeReward(stage, verdicts);
      // DAPO's soft overlong punishment on the response the policy wrote (its own tokens, against the room the
      // prompt left), as the DAPO recipe penalises response length: counting prompt and tool observations, as an
      // earlier version did, paid the policy for making fewer calls
      const reward =
        score +
        (c.overlongBuffer > 0
          ? overlongPenalty(
              episode.lossMask.reduce((n, x) => n + x, 0),
              maxTokens - episode.promptLength,
              c.overlongBuffer,
            )
          : 0);
      const parent = episode.branch?.parent ?? null; // an index into `episodes`, always an earlier row of the same group
      indexInGroup.push(groups[groupOf[i]].length);
      groups[groupOf[i]].push({
        episode,
        group: groupBase + groupOf[i],
        verdicts,
        score,
        reward,
        advantage: 0,
        parent: parent === null ? null : indexInGroup[parent],
      });
    });
    return groups;
  }

  /** one RL step; returns its metrics. Throws (weights untouched by the failing mini-batch) on a NaN loss. */
  async trainStep(): Promise<Metrics> {
    const got = await this.collect();
    const m = got.metrics;
    // ---- update: PPO mini-batches over the kept rollouts
    const tUpdate = performance.now();
    const pause = this.pause;
    const inStep = this.inStep!;
    const hooks = pause
      ? {
          pause: (done: number, total: number) => pause({ phase: 'update', done, total }),
          // the first of several optimizer steps: keep the state before it, for a stop between them
          beforeApply: async (k: number, n: number) => {
            if (k === 0 && n > 1) inStep.before = await this.checkpoint();
          },
        }
      : {};
    const ctx = {
      policy: this.policy,
      reference: this.reference,
      optimizer: this.optimizer,
      config: this.config,
      step: this.step,
      ...hooks,
    };
    Object.assign(m, await ppoUpdate(ctx, got.rows, got.tokenAdvantages));
    m[METRIC.timeUpdate] = (performance.now() - tUpdate) / 1000;
    return this.endStep(got);
  }

  /** a step's first half: rollouts, rewards, advantages and the metrics of what was generated (the weights
   *  untouched; the S-seed step, seedStackStep.ts, runs each seed's and updates them together) */
  async collect(): Promise<Collected> {
    const c = this.config;
    const m: Metrics = {};
    this.inStep = { rngState: this.rng.getState(), before: null };
    const tRollout = performance.now();
    // ---- rollouts (DAPO: keep generating until Q groups carry signal, at most maxGenBatches)
    let kept: ScoredEpisode[][] = [];
    let all: ScoredEpisode[][] = [];
    let genBatches = 0;
    let dropped = 0;
    while (kept.length < c.queriesPerStep && genBatches < (c.dynamicSampling ? c.dapoMaxGenBatches : 1)) {
      // the first batch follows the schedule; refills draw random training queries (from the checkpointed Rng)
      const queries =
        genBatches === 0
          ? this.scheduledQueries()
          : Array.from(
              { length: c.queriesPerStep - kept.length },
              () => this.env.train[this.rng.int(this.env.train.length)],
            );
      const groups = await this.generate(queries, genBatches * c.queriesPerStep);
      genBatches++;
      all = all.concat(groups);
      for (const g of groups) {
        // DAPO filters on the score before the overlong penalty (the recipe's filter_groups metric: acc/score), so
        // a group whose only spread is the length penalty is not mistaken for one that carries signal
        if (c.dynamicSampling && isZeroStdGroup(g.map((e) => e.score))) dropped++;
        else kept.push(g);
      }
    }
    kept = kept.slice(0, c.queriesPerStep);
    m[METRIC.timeRollout] = (performance.now() - tRollout) / 1000;

    // ---- advantages
    const tReward = performance.now();
    const flat = kept.flat();
    const informative = kept.filter((g) => !isZeroStdGroup(g.map((e) => e.reward))).length;
    const grpo = grpoAdvantages(
      flat.map((e) => e.reward),
      flat.map((e) => e.group),
    );
    const adv = c.advantages === 'shuffled' ? this.rng.shuffle(grpo) : grpo;
    flat.forEach((e, i) => {
      e.advantage = adv[i];
    });
    const tokenAdvantages = c.algorithm === 'arpo' && c.arpoAdvantage === 'hard' ? hardTokenAdvantages(kept) : null;
    m[METRIC.timeReward] = (performance.now() - tReward) / 1000;

    // ---- metrics of what was generated (every generated group, kept or not)
    const gen = all.flat();
    const signal = signalShares(all.map((g) => g.map((e) => e.verdicts)));
    const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
    const rewards = gen.map((e) => e.reward);
    const rMean = mean(rewards);
    Object.assign(m, {
      [METRIC.rewardMean]: rMean,
      [METRIC.rewardStd]: Math.sqrt(mean(rewards.map((r) => (r - rMean) ** 2))),
      [METRIC.chartsSuccess]: mean(gen.map((e) => (e.verdicts.finalPass ? 1 : 0))),
      [METRIC.chartsDelivery]: mean(gen.map((e) => (e.verdicts.delivered ? 1 : 0))),
      [METRIC.chartsCsMicro]: mean(gen.map((e) => commonsenseMicro(e.verdicts))),
      [METRIC.chartsCsMacro]: mean(gen.map((e) => commonsenseMacro(e.verdicts))),
      [METRIC.chartsHardMicro]: mean(gen.map((e) => hardMicro(e.verdicts))),
      [METRIC.chartsHardMacro]: mean(gen.map((e) => hardMacro(e.verdicts))),
      [METRIC.chartsFracZeroStdGroups]: mean(all.map((g) => (isZeroStdGroup(g.map((e) => e.reward)) ? 1 : 0))),
      [METRIC.chartsResponseLen]: mean(gen.map((e) => e.episode.tokens.length - e.episode.promptLength)),
      [METRIC.chartsToolCalls]: mean(gen.map((e) => e.episode.steps.length + e.episode.callErrors.length)),
      [METRIC.chartsToolFailures]: mean(gen.map((e) => e.episode.toolFailures)),
      [METRIC.chartsCurriculumStage]: STAGE_INDEX[this.stage],
      // what each reward would leave to learn from in these same plans (the adaptive curriculum's reading)
      [METRIC.chartsSignalSum]: signal.sum,
      [METRIC.chartsSignalMacro]: signal.macro,
      [METRIC.chartsSignalSuccess]: signal.success,
      [METRIC.chartsRollouts]: gen.length,
      [METRIC.chartsGroupsKept]: kept.length,
      [METRIC.chartsInformativeGroups]: informative,
    });
    if (c.dynamicSampling)
      Object.assign(m, {
        [METRIC.dapoGenBatches]: genBatches,
        [METRIC.dapoDroppedGroups]: dropped,
        [METRIC.dapoGaveUp]: kept.length < c.queriesPerStep ? 1 : 0,
      });
    if (c.algorithm === 'arpo') {
      const branched = gen.filter((e) => e.episode.branch?.parent !== null).length;
      Object.assign(m, {
        [METRIC.arpoBranches]: branched,
        [METRIC.arpoFills]: gen.filter((e) => e.episode.branch?.fill).length,
        [METRIC.arpoTreeDepth]: Math.max(0, ...all.flatMap((g) => g.map((_, i) => depth(g, i)))),
      });
    }
    const got: Collected = { metrics: m, rows: flat, tokenAdvantages, generated: gen };
    if (this.adaptive) got.nextStage = adaptiveNextStage(this.stage, signal, c.curriculumSignalShare!);
    return got;
  }

  /** closes a step whose update has run: its episodes kept, the step counted */
  endStep(got: Collected): Metrics {
    this.lastEpisodes = got.generated;
    if (got.nextStage) this.adaptiveStage = got.nextStage;
    this.step++;
    this.inStep = null;
    got.metrics[METRIC.chartsStep] = this.step;
    return got.metrics;
  }

  /**
   * Greedy rollouts on the first evalQueries validation queries and evalToolQa unseen tool-QA tasks and, with
   * evalSamples k > 0, k samples per validation query at the training temperature (eval/sample_success: pass@1
   * averaged over the samples). Each success rate comes with its 95 % Wilson interval over the queries; a query's
   * k samples count as one trial at their mean rate (conservative for correlated samples, stats/intervals.ts). The
   * sampled rollouts draw from a stream seeded by the config alone, the same at every evaluation of a run.
   */
  async evaluate(): Promise<Metrics & { episodes?: never }> {
    const c = this.config;
    const t0 = performance.now();
    const queries = this.env.validation.slice(0, c.evalQueries);
    const pause = this.pause;
    const common = {
      batchSize: 64,
      seed: c.seed,
      constrainPlan: c.planDecoding === 'constrained',
      maxTurns: c.maxTurns,
      ...(pause ? { pause: (done: number, total: number) => pause({ phase: 'evaluation', done, total }) } : {}),
    };
    const e = await evaluatePolicy(
      this.policy,
      this.env.world,
      queries,
      this.env.heldOutQa.slice(0, c.evalToolQa),
      common,
    );
    const greedy = wilsonOfMeans(e.querySuccess);
    const out: Metrics = {
      [METRIC.evalSuccess]: e.success,
      [METRIC.evalSuccessLo]: greedy.lo,
      [METRIC.evalSuccessHi]: greedy.hi,
      [METRIC.evalQueries]: e.queries,
      [METRIC.evalDelivery]: e.deliveryRate,
      [METRIC.evalCsMicro]: e.commonsenseMicro,
      [METRIC.evalCsMacro]: e.commonsenseMacro,
      [METRIC.evalHardMicro]: e.hardMicro,
      [METRIC.evalHardMacro]: e.hardMacro,
      [METRIC.evalOodAccuracy]: e.oodAccuracy,
      [METRIC.evalToolCalls]: e.meanCalls,
    };
    if (c.evalSamples > 0 && queries.length > 0) {
      const s = await evaluatePolicy(this.policy, this.env.world, queries, [], {
        ...common,
        samples: c.evalSamples,
        temperature: c.temperature,
      });
      const sampled = wilsonOfMeans(s.querySuccess);
      Object.assign(out, {
        [METRIC.evalSampleSuccess]: s.success,
        [METRIC.evalSampleSuccessLo]: sampled.lo,
        [METRIC.evalSampleSuccessHi]: sampled.hi,
        [METRIC.evalSampleDelivery]: s.deliveryRate,
        [METRIC.evalSamples]: c.evalSamples,
      });
    }
    out[METRIC.evalSeconds] = (performance.now() - t0) / 1000;
    for (const [k, v] of Object.entries(out)) if (!Number.isFinite(v)) delete out[k as MetricName]; // an empty split is not reported
    // nor are the plan rates of no validation query (the evaluator's aggregate reads 0/0 as 0)
    if (e.queries === 0)
      for (const k of [
        METRIC.evalSuccess, METRIC.evalCsMicro, METRIC.evalCsMacro, METRIC.evalHardMicro, METRIC.evalHardMacro,
      ])
        delete out[k];
    return out;
  }

  /** the state after the last completed step (a step stopped part-way is not in it) */
  async checkpoint(): Promise<Checkpoint> {
    const s = this.inStep;
    if (s?.before) return s.before;
    const now = await saveCheckpoint({
      policy: this.policy,
      optimizer: this.optimizer,
      rng: this.rng,
      step: this.step,
      ...(this.adaptive ? { curriculumStage: this.adaptiveStage } : {}),
    });
    // before the first optimizer step the weights are the last step's; only the RNG has moved on
    return s ? { ...now, rngState: s.rngState } : now;
  }

  /** a trainer continuing from `ckpt` (same environment and config as the run that saved it); the caller owns the new
   * policy */
  static restore(ckpt: Checkpoint, reference: Policy | null, env: RlEnvironment, config: RlConfig): RlTrainer {
    // a state saved without the stage cannot say where an adaptive curriculum stood: refused, not guessed
    const adaptive = config.reward === 'curriculum' && config.curriculumSignalShare !== undefined;
    if (adaptive && !ckpt.curriculumStage && ckpt.step > 0)
      throw new Error('RL: this checkpoint has no adaptive curriculum stage; it was not saved by an adaptive run');
    const state = restoreCheckpoint(ckpt, RL_ADAMW);
    const trainer = new RlTrainer(state.policy, reference, env, config, state.optimizer);
    trainer.rng = state.rng;
    trainer.step = state.step;
    if (adaptive) trainer.adaptiveStage = state.curriculumStage ?? 'sum';
    return trainer;
  }

  /** frees the optimizer state (the policies belong to the caller) */
  dispose(): void {
    this.optimizer.dispose();
  }
}

/** ARPO hard attribution per kept group: per-token advantages of each rollout */
function hardTokenAdvantages(groups: ScoredEpisode[][]): Map<ScoredEpisode, number[]> {
  const out = new Map<ScoredEpisode, number[]>();
  for (const g of groups) {
    const tree = g.map((e) => ({ parent: e.parent, forkAt: e.episode.branch?.forkAt ?? 0 }));
    const per = arpoHardAdvantages(
      g.map((e) => e.advantage),
      tree,
      g.map((e) => e.episode.tokens.length),
      g[0].episode.promptLength,
    );
    g.forEach((e, i) => out.set(e, per[i]));
  }
  return out;
}

/** branches between rollout i of a group and the prompt */
function depth(group: readonly ScoredEpisode[], i: number): number {
  let d = 0;
  for (let p = group[i].parent; p !== null; p = group[p].parent) d++;
  return d;
}
