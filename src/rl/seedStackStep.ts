// The RL step of S seeds of one setting in one program: what a finding's cell is (one setting, many seeds),
// trained as S separate runs would be — each seed its own Rng, queries, rollouts, rewards and advantages —
// with the update of every seed in one program (seedStackUpdate.ts on the seed stack, model/seedStack.ts).
// Seed s's weights after a step equal its own run's (RlTrainer with `seed: seeds[s]`) to float rounding.
// Read top to bottom:
//
//   every seed at once: rollouts, rewards, advantages (RlTrainer.collect: its Rng, its queries, its weights),
//     its rollouts decoding with the other seeds' (one stacked decode step for all: model/seedStackDecode.ts)
//     ─ one update for every seed (seedStackUpdate) ─ each seed's rollout weights take the stack's new ones
//
// Each seed runs its own rollout() (its Rng, its sampling, its tool calls) through its view of the stack;
// the views meet at each decode step, so S seeds decode for the dispatches of one. Prefills run per seed.
import type { Policy } from '../model/transformer.ts';
import { SeedStackedPolicy } from '../model/seedStack.ts';
import { SeedStackDecoder } from '../model/seedStackDecode.ts';
import { AdamW } from './optimizer.ts';
import type { RlConfig } from './rlConfig.ts';
import type { RlEnvironment } from './rlEnvironment.ts';
import { RL_ADAMW, RlTrainer, type Collected, type Metrics } from './rlTrainer.ts';
import { SeedStackedAdamW } from './seedStackOptimizer.ts';
import { seedStackUpdate } from './seedStackUpdate.ts';
import { METRIC } from '../lab/metricNames.ts';

/** S seeds of one setting: the setting's RL config (its `seed` is ignored) and each seed's */
export interface SeedStackConfig {
  config: RlConfig;
  seeds: readonly number[];
}

export class SeedStackTrainer {
  readonly seeds: readonly number[];
  /** every seed's weights, [S, ...] (the trained copy) */
  readonly stack: SeedStackedPolicy;
  /** the frozen references, stacked (when klCoef > 0) */
  readonly reference: SeedStackedPolicy | null;
  readonly optimizer: SeedStackedAdamW;
  /** per seed: its Rng, queries, rollouts and scoring, as its own run's (its own optimizer never steps) */
  readonly trainers: RlTrainer[];
  /** the seeds' rollouts' decode steps, stacked (its counts: steps run, seed-steps served) */
  readonly decoder: SeedStackDecoder;
  step = 0;
  /** seeds whose Policy has not yet taken the stack's latest weights */
  private readonly stale: boolean[];

  /**
   * `policies[s]` holds seed s's initial weights and `references[s]` its frozen reference (needed when
   * klCoef > 0); the caller owns them. policies[s] takes seed s's weights when it is next used (a prefill off webgpu)
   * or syncPolicies() is called: read them only after that (evaluating, saving).
   */
  constructor(policies: readonly Policy[], references: readonly Policy[] | null, env: RlEnvironment,
    c: SeedStackConfig) {
    const S = c.seeds.length;
    if (S === 0) throw new Error('SeedStackTrainer: no seeds');
    if (new Set(c.seeds).size !== S) throw new Error(`SeedStackTrainer: seeds ${c.seeds.join(', ')} repeat one`);
    if (policies.length !== S) throw new Error(`SeedStackTrainer: ${policies.length} policies for ${S} seeds`);
    if (c.config.klCoef > 0 && references?.length !== S) {
      throw new Error(`SeedStackTrainer: klCoef > 0 needs a reference for each of the ${S} seeds`);
    }
    this.seeds = c.seeds;
    this.stack = SeedStackedPolicy.fromPolicies(policies);
    this.reference = c.config.klCoef > 0 ? SeedStackedPolicy.fromPolicies(references!) : null;
    this.optimizer = new SeedStackedAdamW(this.stack.params, S, RL_ADAMW);
    const idle = new AdamW(new Map()); // a trainer's own optimizer: never steps here, holds nothing
    this.trainers = c.seeds.map((seed, s) =>
      new RlTrainer(policies[s], references?.[s] ?? null, env, { ...c.config, seed }, idle));
    this.decoder = new SeedStackDecoder(this.stack, policies);
    this.stale = policies.map(() => false);
    this.decoder.beforePolicyUse = (s) => this.syncPolicy(s);
    this.trainers.forEach((t, s) => { t.decoder = this.decoder.views[s]; });
  }

  get config(): RlConfig {
    return this.trainers[0].config;
  }

  /** one RL step of every seed; returns each seed's metrics (its own run's names and figures) */
  async trainStep(): Promise<Metrics[]> {
    // ---- rollouts, rewards, advantages: each seed's own, from its weights and its Rng, decoding together
    // (all settled before a failure is thrown: no seed's rollout goes on decoding behind the caller's back)
    const settled = await Promise.allSettled(this.trainers.map((t) => t.collect()));
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    const got: Collected[] = settled.map((r) => (r as PromiseFulfilledResult<Collected>).value);
    // ---- the update: one program for every seed
    const tUpdate = performance.now();
    const ctx = { stack: this.stack, reference: this.reference, optimizer: this.optimizer, config: this.config,
      step: this.step };
    const update = await seedStackUpdate(ctx, got.map((g) => g.rows), got.map((g) => g.tokenAdvantages));
    // ---- each seed's own Policy takes the stack's weights when next used: the stacked rollouts read the stack, and
    // copying every seed's weights each step would cost S × (parameters) dispatches a step on webgpu
    this.stale.fill(true);
    const seconds = (performance.now() - tUpdate) / 1000;
    this.step++;
    return got.map((g, s) => {
      Object.assign(g.metrics, update[s], { [METRIC.timeUpdate]: seconds });
      return this.trainers[s].endStep(g);
    });
  }

  /** every seed's Policy takes the stack's weights (before evaluating or saving a seed) */
  syncPolicies(): void {
    this.trainers.forEach((_, s) => this.syncPolicy(s));
  }

  private syncPolicy(s: number): void {
    if (!this.stale[s]) return;
    this.stack.copySeedInto(s, this.trainers[s].policy);
    this.stale[s] = false;
  }

  /** frees the stack, its references and the optimizer state (the policies belong to the caller) */
  dispose(): void {
    this.optimizer.dispose();
    this.stack.dispose();
    this.reference?.dispose();
  }
}
