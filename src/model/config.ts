// The policy's shape: the config, the three presets that mirror Qwen2.5 1.5B / 3B / 7B,
// and the parameter table that init, counting and loading all read. No tfjs here: the page and the
// CLI size a model without loading a backend.

export interface ModelConfig {
  /** number of token ids */
  vocabSize: number;
  /** longest sequence (the KV cache and, with learned positions, wpe are this long) */
  contextLength: number;
  /** residual width C */
  dModel: number;
  nLayers: number;
  /** attention heads; dModel must be divisible by it */
  nHeads: number;
  /** hidden width of the MLP */
  dFF: number;
  /** how tokens are embedded: `onehot` (oneHot·matMul, the default) or `gather`. Gather's gradient is an
   *  UnsortedSegmentSum, which wasm lacks and which made an SFT step of the `s` preset 2.1× slower on
   *  cpu (7.3 s vs 3.5 s CPU time at 4×128 tokens, vocab 601; bench: train.onehot_over_gather.s). */
  embedding?: 'gather' | 'onehot';
  /** how attention knows order: `learned` absolute embeddings (wpe, GPT-2; the default) or `alibi`, a fixed
   *  per-head penalty −m_h·distance on the attention scores (Press et al. 2022, "Train Short, Test Long"),
   *  which gives every head a recency bias from step 0 — what copying "the latest city" needs. */
  positions?: 'learned' | 'alibi';
}

/** ALiBi slopes m_h = 2^(−8(h+1)/H), the paper's geometric sequence */
export function alibiSlopes(nHeads: number): number[] {
  return Array.from({ length: nHeads }, (_, h) => Math.pow(2, (-8 * (h + 1)) / nHeads));
}

export type PresetName = 's' | 'm' | 'l';

/** Three sizes mirroring Qwen2.5 1.5B / 3B / 7B: parameters ≈ 1 : 2 : 4.7 at vocab 512
 *  (0.27M / 0.55M / 1.27M; see countParameters; ALiBi has no position parameters, so the context is
 *  free). Vocab and context come from the token language. */
export function preset(name: PresetName, vocabSize: number, contextLength = 1024): ModelConfig {
  const sizes: Record<PresetName, Pick<ModelConfig, 'dModel' | 'nLayers' | 'nHeads' | 'dFF'>> = {
    s: { dModel: 64, nLayers: 4, nHeads: 4, dFF: 320 },
    m: { dModel: 96, nLayers: 4, nHeads: 4, dFF: 448 },
    l: { dModel: 128, nLayers: 6, nHeads: 4, dFF: 512 },
  };
  return { vocabSize, contextLength, ...sizes[name], positions: 'alibi' };
}

/** Shapes of every parameter, by name. The single source of truth for init, counting and loading. */
export function parameterShapes(c: ModelConfig): Record<string, number[]> {
  validateConfig(c);
  const C = c.dModel;
  const shapes: Record<string, number[]> = { wte: [c.vocabSize, C] };
  if (c.positions !== 'alibi') shapes.wpe = [c.contextLength, C];
  for (let i = 0; i < c.nLayers; i++) {
    Object.assign(shapes, {
      [`h${i}.ln1.g`]: [C], [`h${i}.ln1.b`]: [C],
      [`h${i}.attn.w_qkv`]: [C, 3 * C], [`h${i}.attn.b_qkv`]: [3 * C],
      [`h${i}.attn.w_proj`]: [C, C], [`h${i}.attn.b_proj`]: [C],
      [`h${i}.ln2.g`]: [C], [`h${i}.ln2.b`]: [C],
      [`h${i}.mlp.w_fc`]: [C, c.dFF], [`h${i}.mlp.b_fc`]: [c.dFF],
      [`h${i}.mlp.w_proj`]: [c.dFF, C], [`h${i}.mlp.b_proj`]: [C],
    });
  }
  shapes['ln_f.g'] = [C];
  shapes['ln_f.b'] = [C];
  return shapes;
}

export function countParameters(c: ModelConfig): number {
  return Object.values(parameterShapes(c)).reduce((n, s) => n + s.reduce((a, b) => a * b, 1), 0);
}

/**
 * FLOPs of one training token (forward + backward ≈ 3 × forward) at sequence length T, counted from the
 * matmuls: the block weights and the tied head (2 FLOPs per weight), plus attention scores and
 * weighted sum over the full T×T (as computed, masked half included). Embeddings are lookups, not counted.
 */
export function trainingFlopsPerToken(c: ModelConfig, T: number): number {
  const C = c.dModel;
  const matmulWeights = c.nLayers * (4 * C * C + 2 * C * c.dFF) + c.vocabSize * C;
  const attention = c.nLayers * 2 * T * C; // QKᵀ and A·V, multiply-adds per token
  return 3 * 2 * (matmulWeights + attention);
}

/**
 * Bytes one training forward + backward of `tokens` tokens, padded to length T, holds at its peak on wasm
 * (the gradient tape keeps every layer's activations, and each head its [T, T] attention):
 * 4 · nLayers · (52·dFF + 3·nHeads·T) per token. Fitted, ~6 % above, to the wasm heap's growth over one RL
 * micro-batch: s 337 / 345 KB a token at 8 / 16 rows × 560, l 744 KB at 4 × 576 (estimated:
 * 365, 786). The RL update checks each planned micro-batch against the heap with it.
 */
export function trainingBytes(c: ModelConfig, tokens: number, T: number): number {
  return 4 * c.nLayers * (52 * c.dFF + 3 * c.nHeads * T) * tokens;
}

export function validateConfig(c: ModelConfig): void {
  for (const k of ['vocabSize', 'contextLength', 'dModel', 'nLayers', 'nHeads', 'dFF'] as const) {
    if (!Number.isInteger(c[k]) || c[k] < 1)
      throw new Error(`model config: ${k} must be a positive integer, got ${c[k]}`);
  }
  if (c.dModel % c.nHeads !== 0)
    throw new Error(`model config: dModel ${c.dModel} not divisible by nHeads ${c.nHeads}`);
}
