// The policy: a decoder-only pre-LayerNorm transformer (GPT-2 / nanoGPT layout) written with plain
// tfjs ops — matMul, softmax, gather, no einsum (it has no gradient) and no tfjs-layers — so the same
// code trains on `cpu` in Node and on `webgpu` in the worker.
//
//   tokens ─ wte (+ wpe) ─ [ x += attn(ln1(x)); x += mlp(ln2(x)) ] × nLayers ─ ln_f ─ x·wteᵀ ─ logits
//
// Positions: the presets use ALiBi (a per-head −m_h·distance added to the attention scores) rather
// than GPT-2's learned wpe. Measured on the tiny-world SFT (preset s, batch 8, lr 5e-3): with learned
// positions the teacher-forced loss on a call's first city stayed at the marginal (2.0 nats, no
// copying) for 600 steps and copying emerged only near step 1,000; with ALiBi it was 1.19 by step 400
// and the call/plan structure tokens were learned 2–4× sooner. An agent copies "the latest city" all
// the time, and a recency bias from step 0 is what that needs. `positions: 'learned'` is still there
// (and is what a config without the field means, so older checkpoints load as they were).
//
// The output head is TIED to the token embedding (logits = h·wteᵀ): at a vocabulary of a few hundred
// an untied head would add another V·C parameters (~10–15 % of the small preset) that only has the
// few hundred trajectories' worth of signal to learn from; tying also keeps the parameter ratios of
// the presets set by the blocks, which is what scales with 1.5B → 3B → 7B.
//
// Decoding uses a per-row KV cache (KVCache in kvcache.ts) so rows can sit at different lengths: a row that
// receives a tool observation gets it appended in one prefill while the other rows keep going.
import * as tf from '@tensorflow/tfjs';
import { Rng } from '../env/random.ts';
import { KVCache, scatterPlan } from './kvcache.ts';
import { attentionPath, type AttentionPath, type CacheMask } from './attentionPath.ts';
import { whileDecoding } from './kernels/matmulProgram.ts';
import { banBias } from './sampling.ts';
import { gaussian, logSoftmaxLast, matMul, selectRows, takeRows } from './ops.ts';
import { countParameters, parameterShapes, type ModelConfig } from './config.ts';
import { layerNorm } from './kernels/layerNorm.ts';
import { biasGelu } from './kernels/biasGelu.ts';
import { packLayers } from './kernels/decodeLayer.ts';
import { asWeights, type FusedWeights } from './fusedDecode.ts';

export class Policy {
  readonly config: ModelConfig;
  /** the trainable variables by parameter name (owned by the policy; dispose() frees them) */
  readonly params: Map<string, tf.Variable>;
  private readonly embedding: 'gather' | 'onehot';
  /** the layers' weights packed for the fused decode layer, and the variables' data they were packed from */
  private packed: { ids: object[]; weights: tf.Tensor1D } | null = null;

  constructor(config: ModelConfig, seed: number) {
    this.config = config;
    this.embedding = config.embedding ?? 'onehot';
    // GPT-2 init from our seeded Rng (not tf.random*) so weights are identical on every backend:
    // N(0, 0.02); residual projections scaled by 1/sqrt(2·nLayers); LayerNorm g=1, b=0; biases 0.
    const rng = new Rng(seed);
    this.params = new Map();
    for (const [name, shape] of Object.entries(parameterShapes(config))) {
      const size = shape.reduce((a, b) => a * b, 1);
      const values = new Float32Array(size);
      if (name.endsWith('.g')) values.fill(1);
      else if (shape.length === 2) {
        const std = name.endsWith('w_proj') ? 0.02 / Math.sqrt(2 * config.nLayers) : 0.02;
        for (let i = 0; i < size; i++) values[i] = std * gaussian(rng);
      }
      // tfjs variable names are global: leave them auto-generated, two policies must coexist
      // the variable holds its own reference to the initial value; free ours
      const initial = tf.tensor(values, shape);
      this.params.set(name, tf.variable(initial, true));
      initial.dispose();
    }
  }

  private p(name: string): tf.Variable {
    const v = this.params.get(name);
    if (!v) throw new Error(`policy: no parameter ${name}`);
    return v;
  }

  get numParameters(): number {
    return countParameters(this.config);
  }

  // ---- building blocks ------------------------------------------------------------------------

  private embed(tokens: tf.Tensor2D, positions: tf.Tensor2D | null): tf.Tensor3D {
    const [B, T] = tokens.shape;
    const { vocabSize: V, dModel: C } = this.config;
    const flat = tokens.reshape([B * T]);
    const tok = this.embedding === 'gather'
      ? tf.gather(this.p('wte'), flat) // [B*T, C]
      : matMul(tf.oneHot(flat, V), this.p('wte')); // [B*T, V]·[V, C]
    if (this.config.positions === 'alibi') return tok.reshape([B, T, C]); // order lives in the attention bias
    const pos = positions
      ? tf.gather(this.p('wpe'), positions.reshape([B * T])).reshape([B, T, C]) // per-row positions (decoding)
      : this.p('wpe').slice([0, 0], [T, C]).reshape([1, T, C]); // 0..T-1 (training)
    return tok.reshape([B, T, C]).add(pos) as tf.Tensor3D; // [B, T, C]
  }

  /** x [B, T, C] normalised over C (kernels/layerNorm.ts: one fused kernel on webgpu, plain ops elsewhere) */
  private layerNorm(x: tf.Tensor3D, prefix: string): tf.Tensor3D {
    return layerNorm(x, this.p(`${prefix}.g`), this.p(`${prefix}.b`));
  }

  private linear(x: tf.Tensor3D, w: string, b: string): tf.Tensor3D {
    return this.project(x, w).add(this.p(b)) as tf.Tensor3D;
  }

  /** x [B, T, Cin]·W [Cin, Cout] → [B, T, Cout], no bias */
  private project(x: tf.Tensor3D, w: string): tf.Tensor3D {
    const [B, T, Cin] = x.shape;
    const W = this.p(w);
    return matMul(x.reshape([B * T, Cin]), W).reshape([B, T, W.shape[1] as number]);
  }

  private mlp(x: tf.Tensor3D, i: number): tf.Tensor3D {
    // gelu(x·W + b): bias and activation in one kernel on webgpu (kernels/biasGelu.ts)
    const h = biasGelu(this.project(x, `h${i}.mlp.w_fc`), this.p(`h${i}.mlp.b_fc`)); // [B, T, F]
    return this.linear(h, `h${i}.mlp.w_proj`, `h${i}.mlp.b_proj`); // [B, T, C]
  }

  /** one block: `attention` maps ln1(x) [B, T, C] to this layer's attention output [B, T, C] (attentionPath.ts:
   *  over whole sequences, or over the KV cache while decoding) */
  private block(x: tf.Tensor3D, i: number, attention: (xn: tf.Tensor3D) => tf.Tensor3D): tf.Tensor3D {
    const y = attention(this.layerNorm(x, `h${i}.ln1`)); // [B, T, C]
    x = x.add(this.linear(y, `h${i}.attn.w_proj`, `h${i}.attn.b_proj`));
    return x.add(this.mlp(this.layerNorm(x, `h${i}.ln2`), i));
  }

  private head(h: tf.Tensor3D): tf.Tensor3D {
    const [B, T, C] = h.shape;
    return this.headRows(h.reshape([B * T, C])).reshape([B, T, this.config.vocabSize]); // [B, T, V]
  }

  /** h [N, C] → logits [N, V] (tied to the token embedding) */
  private headRows(h: tf.Tensor2D): tf.Tensor2D {
    return matMul(h, this.p('wte'), false, true); // [N, C]·[V, C]ᵀ
  }

  // ---- full-sequence forward (training, evaluation, reference for the cache) --------------------

  private hidden(tokens: tf.Tensor2D): tf.Tensor3D {
    const T = tokens.shape[1];
    if (T > this.config.contextLength)
      throw new Error(`policy: sequence of ${T} tokens exceeds context ${this.config.contextLength}`);
    const path = attentionPath();
    const mask = path.sequenceMask(this.config, tokens.shape[0], T); // causal (+ ALiBi), once for every layer
    let x = this.embed(tokens, null); // [B, T, C]
    for (let i = 0; i < this.config.nLayers; i++) {
      const qkv = (xn: tf.Tensor3D) => this.linear(xn, `h${i}.attn.w_qkv`, `h${i}.attn.b_qkv`); // [B, T, 3C]
      x = this.block(x, i, (xn) => path.attendSequence(this.config, qkv(xn), mask));
    }
    return this.layerNorm(x, 'ln_f'); // [B, T, C]
  }

  /** logits for every position: [B, T, V]. Use inside tf.tidy. */
  forward(tokens: tf.Tensor2D): tf.Tensor3D {
    return this.head(this.hidden(tokens));
  }

  /** next-token logits [B, V] after full sequences, recomputed without a cache (reference/benchmark). Use inside
   * tf.tidy. */
  nextLogits(tokens: tf.Tensor2D): tf.Tensor2D {
    const [B, T] = tokens.shape;
    const last = this.hidden(tokens).slice([0, T - 1, 0], [B, 1, this.config.dModel]); // [B, 1, C]
    return this.head(last).reshape([B, this.config.vocabSize]);
  }

  /**
   * Differentiable log p(x_{t+1} | x_≤t) of `targets` (default: tokens shifted by one) and the entropy
   * of each next-token distribution. tokens int32 [B, T] → logProbs, entropy [B, T-1]. Right-padding is
   * harmless (the mask is causal); mask the padded positions in the loss. `temperature` divides the
   * logits, matching how rollouts sampled (RL ratios need the same distribution). Use inside tf.tidy.
   */
  logProbs(tokens: tf.Tensor2D, targets?: tf.Tensor2D, options: { temperature?: number } = {}):
    { logProbs: tf.Tensor2D; entropy: tf.Tensor2D } {
    const [B, T] = tokens.shape;
    if (T < 2) throw new Error('policy.logProbs: need at least 2 tokens per row');
    const C = this.config.dModel;
    const h = this.hidden(tokens)
      .slice([0, 0, 0], [B, T - 1, C])
      .reshape([B * (T - 1), C]) as tf.Tensor2D; // [B*(T-1), C]
    const tgt = (targets ?? tokens.slice([0, 1], [B, T - 1])).reshape([B * (T - 1)]) as tf.Tensor1D; // [B*(T-1)]
    const { logProbs, entropy } = this.scoreRows(h, tgt, options.temperature);
    return { logProbs: logProbs.reshape([B, T - 1]), entropy: entropy.reshape([B, T - 1]) };
  }

  /**
   * logProbs() at chosen positions only: the head, log-softmax and entropy (V wide) run on those rows
   * alone, e.g. SFT's loss targets (~40 % of a batch). `positions` are distinct flat indices
   * b·(T-1) + t into logProbs()'s [B, T-1] grid; the results are [P], in the order given, and equal
   * logProbs() at those entries. `targets` (int32 [P]) default to the next tokens. `bans[i]` masks
   * ids out of position i's distribution, as a constrained rollout sampled it (sampleTokens' bans), so
   * RL ratios compare like with like. Use inside tf.tidy.
   */
  logProbsAt(tokens: tf.Tensor2D, positions: readonly number[] | Int32Array, targets?: tf.Tensor1D,
    options: { temperature?: number; bans?: readonly (readonly number[])[] } = {}):
    { logProbs: tf.Tensor1D; entropy: tf.Tensor1D } {
    const [B, T] = tokens.shape;
    if (T < 2) throw new Error('policy.logProbsAt: need at least 2 tokens per row');
    const P = positions.length;
    if (P === 0) throw new Error('policy.logProbsAt: no positions');
    if (targets && targets.shape[0] !== P)
      throw new Error(`policy.logProbsAt: ${targets.shape[0]} targets for ${P} positions`);
    const seen = new Uint8Array(B * (T - 1));
    const rows = new Int32Array(P); // row b·T + t of the hidden states [B*T, C]
    positions.forEach((p, i) => {
      if (!Number.isInteger(p) || p < 0 || p >= B * (T - 1))
        throw new Error(`policy.logProbsAt: position ${p} outside [0, ${B * (T - 1)})`);
      if (seen[p]) throw new Error(`policy.logProbsAt: position ${p} appears twice`);
      seen[p] = 1;
      rows[i] = p + Math.floor(p / (T - 1));
    });
    const C = this.config.dModel;
    const rowIndex = tf.tensor1d(rows, 'int32');
    const h = selectRows(this.hidden(tokens).reshape([B * T, C]) as tf.Tensor2D, rowIndex); // [P, C]
    const tgt =
      targets ??
      (tf.gather(
        tokens.reshape([B * T]),
        tf.tensor1d(
          rows.map((r) => r + 1),
          'int32',
        ),
      ) as tf.Tensor1D); // [P] next tokens
    if (options.bans && options.bans.length !== P)
      throw new Error(`policy.logProbsAt: ${options.bans.length} ban lists for ${P} positions`);
    return this.scoreRows(h, tgt, options.temperature, options.bans);
  }

  /** hidden rows h [N, C] and their targets [N] → log-prob of the target and entropy, [N] each */
  private scoreRows(h: tf.Tensor2D, targets: tf.Tensor1D, temperature?: number, bans?: readonly (readonly number[])[]):
    { logProbs: tf.Tensor1D; entropy: tf.Tensor1D } {
    let logits = this.headRows(h); // [N, V]
    const V = this.config.vocabSize;
    const bias = banBias(bans, logits.shape[0], V);
    if (bias) logits = logits.add(tf.tensor2d(bias, [logits.shape[0], V])); // banned ids: probability 0
    if (temperature !== undefined && temperature !== 1) logits = logits.div(temperature);
    const logp = logSoftmaxLast(logits); // [N, V]
    const picked = logp.mul(tf.oneHot(targets, this.config.vocabSize)).sum(-1) as tf.Tensor1D; // [N]
    const entropy = tf.exp(logp).mul(logp).sum(-1).neg() as tf.Tensor1D; // [N]
    return { logProbs: picked, entropy };
  }

  // ---- incremental decoding ----------------------------------------------------------------------

  /** an empty cache for `batch` rows of up to `maxLen` tokens each (≤ contextLength) */
  newCache(batch: number, maxLen = this.config.contextLength): KVCache {
    if (maxLen > this.config.contextLength)
      throw new Error(`policy.newCache: maxLen ${maxLen} > context ${this.config.contextLength}`);
    return new KVCache(this.config, batch, maxLen);
  }

  /**
   * Append tokens[i] to the cached row rows[i] (lists may differ in length, or be empty). Returns
   * nothing: to continue generating, prefill all but a row's last token and pass that one to step().
   */
  prefill(cache: KVCache, rows: readonly number[], tokens: readonly (readonly number[])[]): void {
    if (rows.length !== tokens.length) throw new Error('policy.prefill: rows and tokens differ in length');
    const live = rows.map((r, i) => [r, i]).filter(([, i]) => tokens[i].length > 0);
    if (live.length === 0) return;
    const R = live.length;
    const n = Math.max(...live.map(([, i]) => tokens[i].length));
    const lens = live.map(([r]) => cache.lengthOf(r));
    const counts = live.map(([, i]) => tokens[i].length);
    if (new Set(live.map(([r]) => r)).size !== R) throw new Error('policy.prefill: a row appears twice');
    // a clear error before any write (the scatter would otherwise fail deep inside the kernel)
    live.forEach(([r], j) => {
      if (lens[j] + counts[j] > cache.maxLen)
        throw new Error(
          `policy.prefill: row ${r} holds ${lens[j]} tokens; ${counts[j]} more exceed the cache's maxLen ${cache.maxLen}`,
        );
    });
    cache.reserve(Math.max(...lens.map((l, j) => l + counts[j])));
    const cap = cache.capacity;
    const ids = new Int32Array(R * n); // padded with 0; padded slots are never written to the cache
    const pos = new Int32Array(R * n);
    live.forEach(([, i], j) => tokens[i].forEach((t, k) => { ids[j * n + k] = this.checkToken(t); }));
    for (let j = 0; j < R; j++)
      for (let k = 0; k < n; k++) pos[j * n + k] = Math.min(lens[j] + k, this.config.contextLength - 1);
    const rowIdx = live.map(([r]) => r);
    const path = attentionPath();
    const next = whileDecoding(() => tf.tidy(() => {
      // webgpu: the whole prefill in fused kernels (fusedDecode.ts) where the cache can be written in place
      const fused = path.fused?.prefill(this.config, this.fusedWeights(), cache, ids, n, rowIdx, lens, counts);
      if (fused) return { keys: fused.keys, values: fused.values };
      const posT = tf.tensor2d(pos, [R, n], 'int32'); // slot of token k of row j
      const mask = path.cacheMask(this.config, pos, R, n, cap, false); // query k of row j sees slots ≤ len_j + k
      const write = scatterPlan(this.config.nHeads, rowIdx, lens, counts, live.map((_, j) => j), n);
      // the prefilled rows attend over their updated cache rows
      const everyRow = R === cache.batch && rowIdx.every((r, j) => r === j);
      const x = this.embed(tf.tensor2d(ids, [R, n], 'int32'), posT); // [R, n, C]
      const { keys, values } = this.cachedLayers(path, x, mask, cache, write, everyRow ? null : rowIdx);
      return { keys, values };
    }));
    cache.replace(next.keys, next.values);
    live.forEach(([r], j) => cache.advance(r, counts[j]));
  }

  /**
   * Append lastTokens[b] to every active row and return the next-token logits [B, V] (the caller
   * disposes them). Inactive rows (active[b] false, e.g. finished) are left untouched; their logits
   * are meaningless.
   */
  step(cache: KVCache, lastTokens: Int32Array | readonly number[], active?: readonly boolean[]): tf.Tensor2D {
    const B = cache.batch;
    if (lastTokens.length !== B) throw new Error(`policy.step: ${lastTokens.length} tokens for a batch of ${B}`);
    const on = active ?? new Array<boolean>(B).fill(true);
    const lens = Array.from({ length: B }, (_, b) => cache.lengthOf(b));
    const full = lens.findIndex((l, b) => on[b] && l + 1 > cache.maxLen);
    if (full >= 0)
      throw new Error(
        `policy.step: row ${full} already holds ${lens[full]} tokens, the cache's maxLen (mark it inactive)`,
      );
    const need = Math.max(1, ...lens.map((l, b) => (on[b] ? l + 1 : 0)));
    cache.reserve(need);
    const cap = cache.capacity;
    const ids = Int32Array.from(lastTokens, (t) => this.checkToken(t));
    const pos = Int32Array.from(lens, (l) => Math.min(l, this.config.contextLength - 1));
    const path = attentionPath();
    const rows = on.flatMap((a, b) => (a ? [b] : []));
    const out = whileDecoding(() => tf.tidy(() => {
      // webgpu: the fused decode step (~4× fewer dispatches: fusedDecode.ts) where the cache can be written in place
      const fused = path.fused?.step(this.config, this.fusedWeights(), cache, ids, 1, rows, lens, rows.map(() => 1));
      if (fused) return { ...fused, logits: fused.logits! };
      const posT = tf.tensor2d(pos, [B, 1], 'int32');
      // webgpu: the decode attention kernel masks and adds ALiBi itself from the positions; elsewhere [B, H, 1, cap]
      const mask = path.cacheMask(this.config, pos, B, 1, cap, true);
      const write = scatterPlan(
        this.config.nHeads,
        rows,
        rows.map((b) => lens[b]),
        rows.map(() => 1),
        rows.map((b) => b),
        1,
      );
      // k, v [B, H, 1, hd]: written into slot len_b of each active row
      const x0 = this.embed(tf.tensor2d(ids, [B, 1], 'int32'), posT); // [B, 1, C]
      const { x, keys, values } = this.cachedLayers(path, x0, mask, cache, write, null);
      const logits = this.head(this.layerNorm(x, 'ln_f')).reshape([B, this.config.vocabSize]) as tf.Tensor2D; // [B, V]
      return { logits, keys, values };
    }));
    cache.replace(out.keys, out.values);
    for (let b = 0; b < B; b++) if (on[b]) cache.advance(b, 1);
    return out.logits;
  }

  /** the weights as the fused decode path reads them: by name, and every layer packed for the one-dispatch layer */
  private fusedWeights(): FusedWeights {
    return asWeights(this.config, (name) => this.p(name), () => this.packedLayers());
  }

  /** every layer's weights in one buffer (kernels/decodeLayer.ts), kept while the weights stay: an optimizer step
   *  or loadWeights assigns new tensors to the variables, and the next decode packs those (a few dispatches a step) */
  private packedLayers(): tf.Tensor1D {
    const ids = [...this.params.values()].map((v) => v.dataId);
    const kept = this.packed;
    if (kept && ids.every((d, i) => d === kept.ids[i])) return kept.weights;
    kept?.weights.dispose();
    const weights = tf.keep(packLayers(this.config, (name) => this.p(name)));
    this.packed = { ids, weights };
    return weights;
  }

  /**
   * The layers over the KV cache, shared by prefill and step: x [R, n, C] holds R rows' n fresh tokens → [R, n, C];
   * each layer's fresh k, v [R, H, n, hd] go into the cache by `write`, and the rows attend over the cache's rows
   * `attendRows` (null: every row, in order). Returns each layer's new keys and values [B, H, cap, hd].
   */
  private cachedLayers(path: AttentionPath, x: tf.Tensor3D, mask: CacheMask, cache: KVCache,
    write: (cached: tf.Tensor4D, fresh: tf.Tensor4D) => tf.Tensor4D, attendRows: readonly number[] | null):
    { x: tf.Tensor3D; keys: tf.Tensor4D[]; values: tf.Tensor4D[] } {
    const keys: tf.Tensor4D[] = [];
    const values: tf.Tensor4D[] = [];
    for (let i = 0; i < this.config.nLayers; i++) {
      const [w, b] = [this.p(`h${i}.attn.w_qkv`), this.p(`h${i}.attn.b_qkv`)];
      x = this.block(x, i, (xn) => path.attendCache(this.config, xn, w, b, mask, (k, v) => {
        keys.push(write(cache.keys[i], k)); // [B, H, cap, hd]
        values.push(write(cache.values[i], v));
        return attendRows ? [takeRows(keys[i], attendRows), takeRows(values[i], attendRows)] : [keys[i], values[i]];
      })); // [R, n, C]
    }
    return { x, keys, values };
  }

  private checkToken(t: number): number {
    if (!Number.isInteger(t) || t < 0 || t >= this.config.vocabSize)
      throw new Error(`policy: token id ${t} outside [0, ${this.config.vocabSize})`);
    return t;
  }

  // ---- weights ---------------------------------------------------------------------------------

  /** all weights as one ArrayBuffer plus their specs (tf.io.encodeWeights), e.g. for IndexedDB */
  async saveWeights(): Promise<{ buffer: ArrayBuffer; specs: tf.io.WeightsManifestEntry[] }> {
    const named: tf.NamedTensorMap = {};
    for (const [name, v] of this.params) named[name] = v;
    const { data, specs } = await tf.io.encodeWeights(named);
    return { buffer: data, specs };
  }

  /** load weights saved by saveWeights() of a policy with the same config (names and shapes checked) */
  loadWeights(buffer: ArrayBuffer, specs: tf.io.WeightsManifestEntry[]): void {
    const decoded = tf.io.decodeWeights(buffer, specs);
    try {
      for (const [name, v] of this.params) {
        const t = decoded[name];
        if (!t) throw new Error(`policy.loadWeights: missing ${name}`);
        if (!tf.util.arraysEqual(t.shape, v.shape))
          throw new Error(`policy.loadWeights: ${name} has shape [${t.shape}], expected [${v.shape}]`);
      }
      for (const [name, v] of this.params) v.assign(decoded[name]);
    } finally {
      tf.dispose(Object.values(decoded));
    }
  }

  dispose(): void {
    this.packed?.weights.dispose();
    this.packed = null;
    for (const v of this.params.values()) v.dispose();
    this.params.clear();
  }
}

/** seeded weights for `config` */
export function createPolicy(config: ModelConfig, seed: number): Policy {
  return new Policy(config, seed);
}
