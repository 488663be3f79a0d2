// The RL update's cost, wasm, CPU seconds, run from the `rl` suite. Three paths on the same rows:
//   new      micro-batches (the default token budget) and the training attention's fused wasm kernel
//            (kernels/wasmTrainingAttention.ts): what an RL step runs now
//   plain    the same micro-batches, the attention as the per-head plain tfjs ops (setTrainingAttentionKernel(false))
//   old      whole mini-batches (microBatchTokens 0) and the per-head plain ops: the path before micro-batches
// Keys:
//   rl.update_s.s.32x448         `new` on 32 rows padded to 448 tokens, 2 mini-batches, the frozen reference's
//                                forward included (klCoef 0.001): the shape of the PyTorch anchor (6.7 s on one
//                                thread when the micro-batches were planned)
//   rl.update_s.s.32x448.plain_attention, rl.update_s.s.32x448.unsplit   the same rows through `plain` and `old`
//   rl.update_s.<scale>.real, ….real.plain_attention, ….real.unsplit   a real GRPO step's update (4 queries × 8
//                                rollouts from the shipped checkpoint), the same rollouts through the three paths
//   rl.update_speedup            old ÷ new on that real step at scale s (the target: ≥ 2)
//   rl.attention_kernel_speedup  plain ÷ new on that real step: the fused attention kernel alone
//   rl.update_metrics_diff       the largest difference of the step's metrics (pg loss, KL, clip fraction,
//                                entropy, grad norm) of `new` and `plain` from `old`: float order and rounding only
//   rl.update_torch_s.s.32x448   a same-shape PyTorch model's update, when `python3 -c 'import torch'` works
// Where the unsplit path needs more than the wasm heap (l, and m when a rollout nears 576 tokens: it printed
// `Aborted()` before micro-batches; now the update stops before any weight moves) its figure is left out.
// STAR_BENCH_RL_SCALES=s,m picks the real steps' scales (default: s with --quick, else s,m,l).
import { spawnSync } from 'node:child_process';
import { cpuSeconds, type Report } from './harness.ts';
import { readCheckpointDir } from '../src/node/checkpointDir.ts';
import { policyFromCheckpoint } from '../src/rl/loadPolicy.ts';
import { rlEnvironment } from '../src/rl/rlEnvironment.ts';
import { rlConfigFor, type RlConfig } from '../src/rl/rlConfig.ts';
import { RlTrainer } from '../src/rl/rlTrainer.ts';
import { ppoUpdate, type UpdateRow } from '../src/rl/rlUpdate.ts';
import { AdamW } from '../src/rl/optimizer.ts';
import { Rng } from '../src/env/random.ts';
import { VOCAB } from '../src/agent/vocab.ts';
import { setTrainingAttentionKernel } from '../src/model/ops.ts';
// What these runs were measured with before the page's settings table gave the trainer its defaults (the page's:
// temperature 0.7, constrained plans, 100 validation queries, no sampled evaluation): kept, so the figures stay
// comparable.
const MEASURED_WITH: Partial<RlConfig> = { temperature: 1, planDecoding: 'free', evalQueries: 40, evalSamples: 4 };

type Ckpt = Awaited<ReturnType<typeof readCheckpointDir>>;
const METRICS = ['losses/pg', 'losses/kl', 'losses/clip_frac', 'losses/entropy', 'charts/grad_norm'];

/** CPU seconds and metrics of one update of `rows` from the checkpoint's weights (fresh policy, reference, AdamW),
 *  the training attention's fused kernel on or off */
async function timeUpdate(
  ckpt: Ckpt,
  rows: UpdateRow[],
  config: RlConfig,
  fused: boolean,
): Promise<{ s: number; metrics: Record<string, number> }> {
  const policy = policyFromCheckpoint(ckpt);
  const reference = config.klCoef > 0 ? policyFromCheckpoint(ckpt) : null;
  const optimizer = new AdamW(policy.params, { beta1: 0.9, beta2: 0.999, weightDecay: 0.01 });
  setTrainingAttentionKernel(fused);
  try {
    const c0 = cpuSeconds();
    const metrics = await ppoUpdate({ policy, reference, optimizer, config, step: 0 }, rows, null);
    return { s: cpuSeconds() - c0, metrics };
  } finally {
    setTrainingAttentionKernel(true);
    optimizer.dispose();
    policy.dispose();
    reference?.dispose();
  }
}

/** the three paths (new, plain, old: see the header) on the same rows, alternated `reps` times after untimed
 *  warm-ups of the largest (the wasm heap grows once per process: the first update to need more memory pays for
 *  its pages) and of the fused kernel; the fastest of each. `old` is NaN where it plans past the wasm heap (ppoUpdate
 * refuses it before
 *  any weight moves). */
async function sideBySide(ckpt: Ckpt, rows: UpdateRow[], base: Partial<RlConfig>, reps: number) {
  const split = rlConfigFor('grpo', { ...MEASURED_WITH, ...base });
  const whole = rlConfigFor('grpo', { ...MEASURED_WITH, ...base, microBatchTokens: 0 });
  let unsplit = true;
  try {
    await timeUpdate(ckpt, rows, whole, false);
  } catch (e) {
    if (!/out of memory/.test(String(e))) throw e;
    unsplit = false;
    await timeUpdate(ckpt, rows, split, false);
  }
  // and of the fused kernel: V8 first runs a new wasm module's code unoptimised and tiers it up in the background
  // (once per process; on this shared machine the first fused update took seconds longer)
  await timeUpdate(ckpt, rows, split, true);
  const best = { new: Infinity, plain: Infinity, old: unsplit ? Infinity : NaN };
  let diff = 0;
  for (let r = 0; r < reps; r++) {
    const a = await timeUpdate(ckpt, rows, split, true);
    best.new = Math.min(best.new, a.s);
    const p = await timeUpdate(ckpt, rows, split, false);
    best.plain = Math.min(best.plain, p.s);
    if (!unsplit) continue;
    const b = await timeUpdate(ckpt, rows, whole, false);
    best.old = Math.min(best.old, b.s);
    for (const k of METRICS)
      diff = Math.max(diff, Math.abs(a.metrics[k] - b.metrics[k]), Math.abs(p.metrics[k] - b.metrics[k]));
  }
  return { ...best, diff };
}

/** 32 rows (4 groups of 8) of exactly `T` tokens: a 40 % prompt, then policy tokens with an observation every 9th */
function syntheticRows(T: number): UpdateRow[] {
  const rng = new Rng(5);
  return Array.from({ length: 32 }, (_, i) => {
    const tokens = Array.from({ length: T }, () => 1 + rng.int(VOCAB.size - 1));
    const lossMask = tokens.map((_, t) => (t >= 0.4 * T && t % 9 !== 0 ? 1 : 0));
    const logProbs = lossMask.map((m) => (m ? -0.5 - rng.next() : 0));
    return {
      episode: { tokens, lossMask, logProbs, bans: [] },
      group: Math.floor(i / 8),
      advantage: [1, -1, 0.5, -0.5][i % 4],
    };
  });
}

/** one real GRPO step's rollouts (4 × 8, scored, with advantages) from the checkpoint */
async function realRows(ckpt: Ckpt): Promise<UpdateRow[]> {
  const env = rlEnvironment(
    { world: ckpt.card.world, data: ckpt.card.data, contextLength: ckpt.config.contextLength },
    { trainSize: 1000, mix: [4, 3, 3] },
  );
  const policy = policyFromCheckpoint(ckpt);
  const t = new RlTrainer(
    policy,
    null,
    env,
    rlConfigFor('grpo', { ...MEASURED_WITH, klCoef: 0, queriesPerStep: 4, groupSize: 8, seed: 3, steps: 2 }),
  );
  try {
    await t.trainStep();
    return t.lastEpisodes.map((e) => ({ episode: e.episode, group: e.group, advantage: e.advantage }));
  } finally {
    t.dispose();
    policy.dispose();
  }
}

export async function rlUpdateBench(report: Report, { quick }: { quick: boolean }): Promise<void> {
  const reps = quick ? 1 : 2;
  const base: Partial<RlConfig> = { klCoef: 0.001, miniBatches: 2 };
  const s = await readCheckpointDir('public/checkpoints/s-tiny');
  const fixed = await sideBySide(s, syntheticRows(448), base, reps);
  const budget = `microBatchTokens ${rlConfigFor('grpo').microBatchTokens}`;
  report(
    'rl.update_s.s.32x448',
    fixed.new,
    's',
    `2 mini-batches, reference included, ${budget}, fused attention kernel`,
  );
  report(
    'rl.update_s.s.32x448.plain_attention',
    fixed.plain,
    's',
    `the same rows, ${budget}, the per-head plain attention ops`,
  );
  report(
    'rl.update_s.s.32x448.unsplit',
    fixed.old,
    's',
    'the same rows through whole mini-batches and the plain attention (the path before micro-batches)',
  );
  const scales = (process.env.STAR_BENCH_RL_SCALES ?? (quick ? 's' : 's,m,l')).split(',');
  for (const scale of scales) {
    const ckpt = scale === 's' ? s : await readCheckpointDir(`public/checkpoints/${scale}-tiny`);
    const rows = await realRows(ckpt);
    const lengths = rows.map((r) => r.episode.tokens.length);
    const note = `real GRPO step: 32 rollouts of ${Math.min(...lengths)}–${Math.max(...lengths)} tokens`;
    const real = await sideBySide(ckpt, rows, base, reps);
    report(`rl.update_s.${scale}.real`, real.new, 's', `${note}; micro-batches and the fused attention kernel`);
    report(
      `rl.update_s.${scale}.real.plain_attention`,
      real.plain,
      's',
      'the same rollouts, micro-batches, the plain attention ops',
    );
    if (scale === 's')
      report(
        'rl.attention_kernel_speedup',
        real.plain / real.new,
        '×',
        `${note}: plain attention ÷ fused kernel, both micro-batched`,
      );
    if (Number.isNaN(real.old)) {
      console.log(
        `  rl.update_s.${scale}.real.unsplit: the unsplit path plans past the wasm heap and is refused (the path before micro-batches cannot run this step: at l it printed Aborted())`,
      );
      continue;
    }
    report(
      `rl.update_s.${scale}.real.unsplit`,
      real.old,
      's',
      'the same rollouts through whole mini-batches and the plain attention (before micro-batches)',
    );
    if (scale === 's') {
      report(
        'rl.update_speedup',
        real.old / real.new,
        '×',
        `${note}: whole mini-batches + plain attention ÷ micro-batches + fused attention; target ≥ 2`,
      );
      report(
        'rl.update_metrics_diff',
        real.diff,
        'abs',
        `largest difference of ${METRICS.join(', ')} of either new path from the old`,
      );
    }
  }
  torchAnchor(report);
}

/** the PyTorch anchor of the same shape, only where torch imports (Debian's python3-torch) */
function torchAnchor(report: Report): void {
  // Debian's python3-torch belongs to /usr/bin/python3, which a pyenv or venv python3 on PATH shadows
  const python = ['python3', '/usr/bin/python3'].find(
    (py) => spawnSync(py, ['-c', 'import torch'], { encoding: 'utf8' }).status === 0,
  );
  if (!python) {
    console.log(
      '  rl.update_torch_s.s.32x448: skipped — neither python3 nor /usr/bin/python3 can import torch (install python3-torch to run the anchor)',
    );
    return;
  }
  const r = spawnSync(python, ['bench/rlUpdateTorch.py'], { encoding: 'utf8' });
  const s = Number(r.stdout.trim().split('\n').pop());
  if (r.status === 0 && Number.isFinite(s))
    report('rl.update_torch_s.s.32x448', s, 's', 'PyTorch CPU, one thread, same shape and mini-batches');
  else console.log(`  rl.update_torch_s.s.32x448: the anchor failed: ${r.stderr.slice(-300)}`);
}
