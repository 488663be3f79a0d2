// S seeds of the policy in one program ("several seeds in one program"): every parameter carries
// a leading seed dimension [S, ...] and every op carries it, so S seeds cost about the dispatches of one
// (as PureJaxRL trains many agents at once). On a GPU a decode step is bound by the host's work per
// dispatch (~150 µs each on the H200), not by arithmetic, so S seeds at once cost about one seed's time.
//
// The math is Policy's (transformer.ts), seed by seed: seed s of a SeedStackedPolicy gives what
// `new Policy(config, seeds[s])` gives, to float rounding. How the seed dimension is carried:
//   - linear layers: x [S, N, Cin] · W [S, Cin, Cout] + b [S, 1, Cout]: one batched matMul (one dispatch);
//   - attention has no weights: a seed's rows are just more rows, [S·B, ...] through Policy's own attention
//     ops (ops.causalAttention in training, cachedAttention's in decoding, the fused webgpu decode attention);
//   - the token embedding: oneHot [S, N, V] · wte [S, V, C] in training (its gradient is a matMul), a gather
//     from wte viewed as [S·V, C] at id + s·V when decoding (no gradient; the same rows exactly);
//   - the KV cache: a KVCache of S·R rows, seed s's rows at s·R .. s·R + R − 1 (its code is row-wise).
// A decode step and a prefill on webgpu are fusedDecode.ts's with the stack's weights (fusedWeights): k/v written
// into the cache in place and attention read straight out of qkv (row-wise: seeds are rows), and the linear layers
// through kernels/decodeLinear.ts's decodeLinearSeeds (LayerNorm, matMul, bias, GELU, residual in one dispatch,
// each row through its own seed's weights): 5 dispatches a layer, as Policy's, at any S (25 on the plain path).
// prefillRows prefills several seeds' rows at once, each seed's a block of the same shape.
// wasm runs a batched matMul as a naive loop, so there each seed has its own 2-D matMul (seedMatMul).
// How the seeds attend is Policy's attention path (attentionPath.ts), asked once a forward pass as Policy asks it.
import * as tf from '@tensorflow/tfjs';
import { Policy } from './transformer.ts';
import { KVCache, scatterPlan } from './kvcache.ts';
import { attendCached, splitQkv } from './cachedAttention.ts';
import { attentionPath, type AttentionPath, type CacheMask } from './attentionPath.ts';
import { whileDecoding } from './kernels/matmulProgram.ts';
import { gelu, logSoftmaxLast } from './ops.ts';
import { seedMatMul } from './seedMatMul.ts';
import { parameterShapes, type ModelConfig } from './config.ts';
import { layerNorm } from './kernels/layerNorm.ts';
import { decodeLinearSeeds } from './kernels/decodeLinear.ts';
import { biasGelu } from './kernels/biasGelu.ts';
import { useFusedKernels } from './kernels/webgpu.ts';
import { fusibleCache, type FusedWeights } from './fusedDecode.ts';

export class SeedStackedPolicy {
  readonly config: ModelConfig;
  /** S, the seeds stacked */
  readonly seeds: number;
  /** the trainable variables by Policy's parameter names, each [S, ...Policy's shape] (dispose() frees them) */
  readonly params: Map<string, tf.Variable>;
  /** constants for the fused webgpu LayerNorm/GELU, which take one [C] gain and bias (see layerNorm()) */
  private readonly unit = new Map<number, { ones: tf.Tensor1D; zeros: tf.Tensor1D }>();

  private constructor(config: ModelConfig, params: Map<string, tf.Variable>, seeds: number) {
    this.config = config;
    this.params = params;
    this.seeds = seeds;
  }

  /** seed s's initial weights exactly as `new Policy(config, seeds[s])` draws them */
  static fromSeeds(config: ModelConfig, seeds: readonly number[]): SeedStackedPolicy {
    if (seeds.length === 0) throw new Error('SeedStackedPolicy: no seeds');
    const policies: Policy[] = [];
    try {
      for (const seed of seeds) policies.push(new Policy(config, seed));
      return SeedStackedPolicy.fromPolicies(policies);
    } finally {
      for (const p of policies) p.dispose();
    }
  }

  /** the policies' current weights stacked in their order (the policies are left as they are) */
  static fromPolicies(policies: readonly Policy[]): SeedStackedPolicy {
    if (policies.length === 0) throw new Error('SeedStackedPolicy: no policies');
    const config = policies[0].config;
    const same = (c: ModelConfig) => JSON.stringify(c) === JSON.stringify(config);
    if (!policies.every((p) => same(p.config))) throw new Error('SeedStackedPolicy: the policies differ in config');
    const params = new Map<string, tf.Variable>();
    for (const name of Object.keys(parameterShapes(config))) {
      const stacked = tf.stack(policies.map((p) => p.params.get(name)!)); // [S, ...shape]
      params.set(name, tf.variable(stacked, true));
      stacked.dispose();
    }
    return new SeedStackedPolicy(config, params, policies.length);
  }

  private p(name: string): tf.Variable {
    const v = this.params.get(name);
    if (!v) throw new Error(`SeedStackedPolicy: no parameter ${name}`);
    return v;
  }

  /** a [S, ...] parameter of Policy shape [K] viewed as [S, 1, K], to broadcast over a seed's rows */
  private row(name: string): tf.Tensor3D {
    const v = this.p(name);
    return v.reshape([this.seeds, 1, v.shape[1] as number]);
  }

  /** seed s's weights as a Policy (a copy; the caller disposes it) */
  seedPolicy(s: number): Policy {
    const policy = new Policy(this.config, 0);
    try {
      this.copySeedInto(s, policy);
    } catch (e) {
      policy.dispose();
      throw e;
    }
    return policy;
  }

  /** seed s's weights assigned to `policy` (of the same config) */
  copySeedInto(s: number, policy: Policy): void {
    if (!Number.isInteger(s) || s < 0 || s >= this.seeds)
      throw new Error(`SeedStackedPolicy: seed ${s} outside [0, ${this.seeds})`);
    tf.tidy(() => {
      for (const [name, v] of policy.params) {
        const w = this.p(name);
        v.assign(w.slice([s, ...w.shape.slice(1).map(() => 0)], [1, ...w.shape.slice(1)]).reshape(v.shape));
      }
    });
  }

  // ---- building blocks: activations [S, N, ·] (N = a seed's rows × tokens) ----------------------

  /** x [S, N, C] normalised over C with seed s's gain and bias. On webgpu the fused kernel normalises
   *  (its gain and bias are one [C]: here 1 and 0) and the seed's gain/bias follow: 3 dispatches, not ~10. */
  private layerNorm(x: tf.Tensor3D, prefix: string): tf.Tensor3D {
    const g = this.row(`${prefix}.g`); // [S, 1, C]
    const b = this.row(`${prefix}.b`);
    if (!useFusedKernels()) return layerNorm(x, g, b); // the plain ops broadcast [S, 1, C]
    const { ones, zeros } = this.unitOf(x.shape[2]);
    return layerNorm(x, ones, zeros).mul(g).add(b) as tf.Tensor3D;
  }

  private unitOf(n: number): { ones: tf.Tensor1D; zeros: tf.Tensor1D } {
    let u = this.unit.get(n);
    if (!u) {
      u = { ones: tf.keep(tf.ones([n])) as tf.Tensor1D, zeros: tf.keep(tf.zeros([n])) as tf.Tensor1D };
      this.unit.set(n, u);
    }
    return u;
  }

  /** x [S, N, Cin] · W [S, Cin, Cout] (+ b [S, 1, Cout]) → [S, N, Cout]: one batched matMul for every seed */
  private linear(x: tf.Tensor3D, w: string, b?: string): tf.Tensor3D {
    const y = seedMatMul(x, this.p(w) as tf.Tensor3D); // [S, N, Cout]
    return b ? (y.add(this.row(b)) as tf.Tensor3D) : y;
  }

  private mlp(x: tf.Tensor3D, i: number): tf.Tensor3D {
    const z = this.linear(x, `h${i}.mlp.w_fc`).add(this.row(`h${i}.mlp.b_fc`)) as tf.Tensor3D; // [S, N, F]
    // webgpu: the fused GELU with a zero bias (it takes one [F] bias; the seeds' are added first)
    const h = useFusedKernels() ? biasGelu(z, this.unitOf(z.shape[2]).zeros) : gelu(z);
    return this.linear(h, `h${i}.mlp.w_proj`, `h${i}.mlp.b_proj`); // [S, N, C]
  }

  /** logits of hidden rows h [S, N, C] (the head tied to each seed's wte) → [S, N, V] */
  private head(h: tf.Tensor3D): tf.Tensor3D {
    return seedMatMul(h, this.p('wte') as tf.Tensor3D, true); // [S, N, C]·[S, V, C]ᵀ
  }

  // ---- full-sequence forward (training) ------------------------------------------------------

  /** tokens int32 [S, B, T] (seed s's rows in tokens[s]) → final hidden states [S, B·T, C]. Use inside tf.tidy. */
  hidden(tokens: tf.Tensor3D): tf.Tensor3D {
    const [S, B, T] = tokens.shape;
    if (S !== this.seeds) throw new Error(`SeedStackedPolicy: tokens for ${S} seeds, the stack holds ${this.seeds}`);
    if (T > this.config.contextLength)
      throw new Error(`SeedStackedPolicy: sequence of ${T} tokens exceeds context ${this.config.contextLength}`);
    const { vocabSize: V, dModel: C } = this.config;
    // the embedding as a matMul (what Policy's default 'onehot' is; for 'gather' the same rows exactly)
    let x = seedMatMul(tf.oneHot(tokens.reshape([S, B * T]), V) as tf.Tensor3D, this.p('wte') as tf.Tensor3D); // [S, B·T, C]
    if (this.config.positions !== 'alibi') {
      const wpe = this.p('wpe').slice([0, 0, 0], [S, T, C]).reshape([S, 1, T, C]); // each seed's positions 0..T-1
      x = x
        .reshape([S, B, T, C])
        .add(wpe)
        .reshape([S, B * T, C]) as tf.Tensor3D;
    }
    // attention is per row, seeds are rows: Policy's path over S·B rows, its mask built once
    const rows = S * B;
    const path = attentionPath();
    const mask = path.sequenceMask(this.config, rows, T);
    for (let i = 0; i < this.config.nLayers; i++) {
      const qkv = this.linear(this.layerNorm(x, `h${i}.ln1`), `h${i}.attn.w_qkv`, `h${i}.attn.b_qkv`); // [S, B·T, 3C]
      const y = path.attendSequence(this.config, qkv.reshape([rows, T, 3 * C]), mask); // [S·B, T, C]
      x = x.add(
        this.linear(y.reshape([S, B * T, C]) as tf.Tensor3D, `h${i}.attn.w_proj`, `h${i}.attn.b_proj`),
      ) as tf.Tensor3D;
      x = x.add(this.mlp(this.layerNorm(x, `h${i}.ln2`), i)) as tf.Tensor3D;
    }
    return this.layerNorm(x, 'ln_f'); // [S, B·T, C]
  }

  /** logits for every position: tokens [S, B, T] → [S, B, T, V]. Use inside tf.tidy. */
  forward(tokens: tf.Tensor3D): tf.Tensor4D {
    const [S, B, T] = tokens.shape;
    return this.head(this.hidden(tokens)).reshape([S, B, T, this.config.vocabSize]);
  }

  /**
   * Policy.logProbs for every seed at once: tokens int32 [S, B, T] → log p of the next token (or of
   * `targets` [S, B, T-1]) and the entropy of each next-token distribution, [S, B, T-1] each,
   * differentiable in every seed's weights. Use inside tf.tidy.
   */
  logProbs(
    tokens: tf.Tensor3D,
    targets?: tf.Tensor3D,
    options: { temperature?: number } = {},
  ): { logProbs: tf.Tensor3D; entropy: tf.Tensor3D } {
    const [S, B, T] = tokens.shape;
    if (T < 2) throw new Error('SeedStackedPolicy.logProbs: need at least 2 tokens per row');
    const { dModel: C, vocabSize: V } = this.config;
    const h = this.hidden(tokens)
      .reshape([S, B, T, C])
      .slice([0, 0, 0, 0], [S, B, T - 1, C])
      .reshape([S, B * (T - 1), C]) as tf.Tensor3D;
    const tgt = (targets ?? tokens.slice([0, 0, 1], [S, B, T - 1])).reshape([S, B * (T - 1)]); // [S, B·(T-1)]
    let logits = this.head(h); // [S, B·(T-1), V]
    if (options.temperature !== undefined && options.temperature !== 1) logits = logits.div(options.temperature);
    const logp = logSoftmaxLast(logits); // [S, B·(T-1), V]
    const picked = logp.mul(tf.oneHot(tgt, V)).sum(-1); // [S, B·(T-1)]
    const entropy = tf.exp(logp).mul(logp).sum(-1).neg();
    return { logProbs: picked.reshape([S, B, T - 1]), entropy: entropy.reshape([S, B, T - 1]) };
  }

  // ---- incremental decoding: rows [S·R], seed s's at s·R .. s·R + R − 1 --------------------------

  /** an empty cache for R rows a seed (S·R rows) of up to `maxLen` tokens each */
  newCache(rowsPerSeed: number, maxLen = this.config.contextLength): KVCache {
    if (maxLen > this.config.contextLength)
      throw new Error(`SeedStackedPolicy.newCache: maxLen ${maxLen} > context ${this.config.contextLength}`);
    return new KVCache(this.config, this.seeds * rowsPerSeed, maxLen);
  }

  private checkCache(cache: KVCache, n: number, what: string): number {
    if (cache.batch % this.seeds !== 0)
      throw new Error(
        `SeedStackedPolicy: a cache of ${cache.batch} rows is not R rows for each of ${this.seeds} seeds`,
      );
    if (n !== cache.batch)
      throw new Error(`SeedStackedPolicy.${what}: ${n} rows of tokens for a cache of ${cache.batch}`);
    return cache.batch / this.seeds;
  }

  private checkToken(t: number): number {
    if (!Number.isInteger(t) || t < 0 || t >= this.config.vocabSize)
      throw new Error(`SeedStackedPolicy: token id ${t} outside [0, ${this.config.vocabSize})`);
    return t;
  }

  /** ids [S·R] at positions pos [S·R·n] → x [S, R·n, C] (a gather from wte viewed as [S·V, C]) */
  private embedRows(ids: Int32Array, pos: Int32Array, R: number, n: number): tf.Tensor3D {
    const { vocabSize: V, contextLength: L, dModel: C } = this.config;
    const S = this.seeds;
    const seedOf = (j: number) => Math.floor(j / (R * n)); // token j of the flat [S·R·n]
    const tok = tf.gather(
      this.p('wte').reshape([S * V, C]),
      tf.tensor1d(
        Int32Array.from(ids, (t, j) => t + seedOf(j) * V),
        'int32',
      ),
    ); // [S·R·n, C]
    if (this.config.positions === 'alibi') return tok.reshape([S, R * n, C]);
    const at = tf.tensor1d(
      Int32Array.from(pos, (p, j) => p + seedOf(j) * L),
      'int32',
    );
    return tok.add(tf.gather(this.p('wpe').reshape([S * L, C]), at)).reshape([S, R * n, C]);
  }

  /**
   * One pass of n tokens per row over the cache: rows [S·R] fresh tokens ids (padded), written at
   * `starts` for `counts` tokens; returns the last position's logits [S·R, V] when `logits`.
   * Call inside tf.tidy (whileDecoding).
   */
  private decode(
    cache: KVCache,
    ids: Int32Array,
    pos: Int32Array,
    n: number,
    rows: number[],
    counts: number[],
    path: AttentionPath,
    attendTo: CacheMask,
  ): { keys: tf.Tensor4D[]; values: tf.Tensor4D[]; x: tf.Tensor3D } {
    const { dModel: C, nHeads: H } = this.config;
    const S = this.seeds;
    const SR = cache.batch;
    const R = SR / S;
    const hd = C / H;
    const lens = rows.map((r) => cache.lengthOf(r));
    const write = scatterPlan(H, rows, lens, counts, rows, n);
    const keys: tf.Tensor4D[] = [];
    const values: tf.Tensor4D[] = [];
    let x = this.embedRows(ids, pos, R, n); // [S, R·n, C]
    for (let i = 0; i < this.config.nLayers; i++) {
      const qkv = this.linear(this.layerNorm(x, `h${i}.ln1`), `h${i}.attn.w_qkv`, `h${i}.attn.b_qkv`); // [S, R·n, 3C]
      const [q, k, v] = splitQkv(qkv.reshape([SR, n, 3 * C]), H, path.cache); // [S·R, H, n, hd] each
      keys.push(write(cache.keys[i], k)); // [S·R, H, cap, hd]
      values.push(write(cache.values[i], v));
      const y = attendCached(q, keys[i], values[i], attendTo, 1 / Math.sqrt(hd), path.cache); // [S·R, n, C]
      x = x.add(this.linear(y.reshape([S, R * n, C]), `h${i}.attn.w_proj`, `h${i}.attn.b_proj`)) as tf.Tensor3D;
      x = x.add(this.mlp(this.layerNorm(x, `h${i}.ln2`), i)) as tf.Tensor3D;
    }
    return { keys, values, x };
  }

  /**
   * Append tokens[j] to cache row j for every row j of the S·R (lists may differ in length, or be
   * empty: every row takes part, padded, but only its own tokens are written). To go on generating,
   * prefill all but a row's last token and pass that one to step().
   */
  prefill(cache: KVCache, tokens: readonly (readonly number[])[]): void {
    this.checkCache(cache, tokens.length, 'prefill');
    const SR = cache.batch;
    const n = Math.max(...tokens.map((t) => t.length));
    if (n === 0) return;
    const lens = Array.from({ length: SR }, (_, j) => cache.lengthOf(j));
    tokens.forEach((t, j) => {
      if (lens[j] + t.length > cache.maxLen)
        throw new Error(
          `SeedStackedPolicy.prefill: row ${j} holds ${lens[j]} tokens; ${t.length} more exceed the cache's maxLen ${cache.maxLen}`,
        );
    });
    cache.reserve(Math.max(...lens.map((l, j) => l + tokens[j].length)));
    const ids = new Int32Array(SR * n); // padded with 0; padded slots are never written
    const pos = new Int32Array(SR * n);
    tokens.forEach((t, j) =>
      t.forEach((id, k) => {
        ids[j * n + k] = this.checkToken(id);
      }),
    );
    for (let j = 0; j < SR; j++)
      for (let k = 0; k < n; k++) pos[j * n + k] = Math.min(lens[j] + k, this.config.contextLength - 1);
    const rows = Array.from({ length: SR }, (_, j) => j);
    const path = attentionPath();
    const next = whileDecoding(() =>
      tf.tidy(() => {
        const maskBias = path.cacheMask(this.config, pos, SR, n, cache.capacity, false); // [S·R, H, n, cap]
        const { keys, values } = this.decode(
          cache,
          ids,
          pos,
          n,
          rows,
          tokens.map((t) => t.length),
          path,
          maskBias,
        );
        return { keys, values };
      }),
    );
    cache.replace(next.keys, next.values);
    tokens.forEach((t, j) => cache.advance(j, t.length));
  }

  /**
   * Append lastTokens[j] to every active row j of the S·R and return the next-token logits [S·R, V]
   * (the caller disposes them; sampleTokens takes them as S·R rows). Inactive rows are left untouched.
   */
  step(cache: KVCache, lastTokens: Int32Array | readonly number[], active?: readonly boolean[]): tf.Tensor2D {
    this.checkCache(cache, lastTokens.length, 'step');
    const SR = cache.batch;
    const on = active ?? new Array<boolean>(SR).fill(true);
    const lens = Array.from({ length: SR }, (_, j) => cache.lengthOf(j));
    const full = lens.findIndex((l, j) => on[j] && l + 1 > cache.maxLen);
    if (full >= 0)
      throw new Error(
        `SeedStackedPolicy.step: row ${full} already holds ${lens[full]} tokens, the cache's maxLen (mark it inactive)`,
      );
    cache.reserve(Math.max(1, ...lens.map((l, j) => (on[j] ? l + 1 : 0))));
    const cap = cache.capacity;
    const ids = Int32Array.from(lastTokens, (t) => this.checkToken(t));
    const pos = Int32Array.from(lens, (l) => Math.min(l, this.config.contextLength - 1));
    const rows = on.flatMap((a, j) => (a ? [j] : []));
    const path = attentionPath();
    const out = whileDecoding(() =>
      tf.tidy(() => {
        // webgpu: the whole step in fused kernels (per row: seeds are rows) where the cache can be written in place
        const fused = path.fused?.step(this.config, this.fusedWeights(), cache, ids, 1, rows, lens, rows.map(() => 1));
        if (fused) return { logits: fused.logits!, keys: fused.keys, values: fused.values };
        // webgpu: the decode attention kernel reads positions; elsewhere the [S·R, H, 1, cap] bias
        const attendTo = path.cacheMask(this.config, pos, SR, 1, cap, true);
        const { keys, values, x } = this.decode(
          cache,
          ids,
          pos,
          1,
          rows,
          rows.map(() => 1),
          path,
          attendTo,
        );
        const logits = this.head(this.layerNorm(x, 'ln_f')).reshape([SR, this.config.vocabSize]) as tf.Tensor2D; // [S·R, V]
        return { logits, keys, values };
      }),
    );
    cache.replace(out.keys, out.values);
    for (let j = 0; j < SR; j++) if (on[j]) cache.advance(j, 1);
    return out.logits;
  }

  /** the fused decode kernels' view of the stack (fusedDecode.ts): its weights [S, ...], each seed's rows a block
   *  of the tokens, decodeLinearSeeds, and the embedding at id + s·V (and slot + s·L) */
  private fusedWeights(): FusedWeights {
    const C = this.config.dModel;
    return {
      p: (name) => this.p(name),
      linear: decodeLinearSeeds,
      embed: (ids, pos) =>
        this.embedRows(ids, Int32Array.from(pos), ids.length / this.seeds, 1).reshape([ids.length, C]) as tf.Tensor2D,
    };
  }

  /**
   * Prefills seed s's rows `perSeed[s].rows` (rows of the stacked cache, in seed s's block) with its `tokens` (null:
   * seed s prefills nothing), every seed in one pass of the fused kernels (fusedDecode.ts's prefill: each seed's
   * rows a block of the same P rows × n tokens, padded, only real tokens written). False, with nothing written
   * (the cache may have grown to fit), where the fused kernels do not run (not webgpu, or the cache cannot be written
   * in place): the caller prefills each seed through its own Policy then. The values are each seed's own
   * prefill's within float rounding.
   */
  prefillRows(
    cache: KVCache,
    perSeed: readonly ({ rows: readonly number[]; tokens: readonly (readonly number[])[] } | null)[],
  ): boolean {
    const S = this.seeds;
    if (perSeed.length !== S)
      throw new Error(`SeedStackedPolicy.prefillRows: ${perSeed.length} entries for ${S} seeds`);
    const fused = attentionPath().fused;
    if (!fused) return false;
    const live = perSeed.map((e) =>
      e ? e.rows.map((r, j) => [r, e.tokens[j]] as const).filter(([, t]) => t.length > 0) : [],
    );
    const P = Math.max(...live.map((l) => l.length));
    if (P === 0) return true;
    const n = Math.max(...live.flatMap((l) => l.map(([, t]) => t.length)));
    const R = cache.batch / S;
    const rows: number[] = [];
    const lens: number[] = [];
    const counts: number[] = [];
    const ids = new Int32Array(S * P * n); // seed s's block: P rows of n tokens, padded with 0 (never written)
    live.forEach((l, s) => {
      for (let j = 0; j < P; j++) {
        const [r, t] = l[j] ?? [s * R, []]; // a padding row: reads seed s's first row, writes nothing
        if (Math.floor(r / R) !== s) throw new Error(`SeedStackedPolicy.prefillRows: row ${r} is not seed ${s}'s`);
        const len = cache.lengthOf(r);
        if (len + t.length > cache.maxLen)
          throw new Error(
            `SeedStackedPolicy.prefillRows: row ${r} holds ${len} tokens; ${t.length} more exceed ${cache.maxLen}`,
          );
        t.forEach((id, k) => {
          ids[(s * P + j) * n + k] = this.checkToken(id);
        });
        rows.push(r);
        lens.push(t.length ? len : 0);
        counts.push(t.length);
      }
    });
    if (new Set(rows.filter((_, j) => counts[j] > 0)).size !== counts.filter((c) => c > 0).length)
      throw new Error('SeedStackedPolicy.prefillRows: a row appears twice');
    cache.reserve(Math.max(...lens.map((l, j) => l + counts[j]))); // as each seed's own prefill would
    if (!fusibleCache(cache)) return false;
    const next = whileDecoding(() =>
      tf.tidy(() => {
        const out = fused.prefill(this.config, this.fusedWeights(), cache, ids, n, rows, lens, counts)!;
        return { keys: out.keys, values: out.values };
      }),
    );
    cache.replace(next.keys, next.values);
    rows.forEach((r, j) => {
      if (counts[j]) cache.advance(r, counts[j]);
    });
    return true;
  }

  dispose(): void {
    for (const v of this.params.values()) v.dispose();
    this.params.clear();
    for (const u of this.unit.values()) tf.dispose([u.ones, u.zeros]);
    this.unit.clear();
  }
}
