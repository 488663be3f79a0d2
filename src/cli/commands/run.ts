// `npm run cli -- run`: one RL run from a shipped SFT checkpoint, headless (rlRun.ts says what it writes).
import type { Command } from '../command.ts';
import { parseFlags } from '../command.ts';
import { flagChoice, flagOptionalText, flagText, rejectUnknownFlags } from '../envFlags.ts';
import { NODE_BACKENDS } from '../../node/nodeBackend.ts';
import { runRl, type RlSummary } from '../rlRun.ts';
import { parseLabConfig } from '../labConfigArg.ts';
import { formatDuration } from '../progress.ts';
import { hintResumeOnInterrupt } from '../interrupt.ts';

const KNOWN = ['config', 'out', 'resume', 'force', 'checkpoint', 'backend', 'no-policy', 'quiet', 'start-cache', 'allow-dirty'];

export const runCommand: Command = {
  name: 'run',
  summary: 'one RL run (GRPO / DAPO / ARPO) from a shipped SFT checkpoint',
  help: `usage: npm run cli -- run --config CONFIG --out DIR [--resume | --force] [--checkpoint DIR] [--backend wasm|cpu|webgpu]

  --config CONFIG   the experiment: a lab URL hash ('#scale=s&algorithm=dapo&steps=20', the page's "copy link")
                    or a JSON object of settings ('{"scale":"s","reward":"sum"}'); unknown keys or bad values
                    are an error. Settings: see src/lab/config.ts (or the page).
  --out DIR         writes metrics.jsonl, metrics.csv, summary.json, samples.jsonl, policy/ (and resume/ while running)
  --resume          continue the run saved in DIR from its last saved state (every 10 steps and at each
                    evaluation), ending with the figures of an unstopped run; same config required. A finished
                    run is left as it is (exit 0); with nothing saved the run starts fresh (both said)
  --force           replace what DIR holds (a run of another config, or this one); without --resume or --force
                    a DIR holding a run is refused and nothing is written
  --checkpoint DIR  the SFT start (default public/checkpoints/<scale>-tiny, the shipped one)
  --backend B       wasm (default), cpu (slower; bit-reproducible) or webgpu (Dawn's WebGPU: a GPU, else SwiftShader)
  --no-policy       do not write the final weights (a sweep keeps curves and summaries only)
  --quiet           no progress bar
  --start-cache DIR share step-0 evaluations between runs from the same checkpoint (a sweep's)
  --allow-dirty     write a run into the repository from code that differs from HEAD: its summary lists the
                    differing files and their SHA-256 (without it such a run is refused before it starts: commit first)`,
  async run(args) {
    const { flags, positional } = parseFlags(args);
    rejectUnknownFlags(flags, positional, KNOWN, ['resume', 'force', 'no-policy', 'quiet', 'allow-dirty']);
    const lab = parseLabConfig(flagText(flags, 'config'));
    const out = flagText(flags, 'out');
    const stopHint = hintResumeOnInterrupt('npm run cli -- run', args);
    const s = await runRl({ lab, out, resume: flags.has('resume'), force: flags.has('force'), checkpoint: flagOptionalText(flags, 'checkpoint'),
      backend: flagChoice(flags, 'backend', NODE_BACKENDS, 'wasm'), keepPolicy: !flags.has('no-policy'), quiet: flags.has('quiet'),
      startCache: flagOptionalText(flags, 'start-cache'), allowDirty: flags.has('allow-dirty') }).finally(stopHint);
    const f = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? x.toFixed(3) : 'n/a');
    const ci = (lo: number | undefined, hi: number | undefined) => (lo !== undefined && Number.isFinite(lo) ? ` [${f(lo)}, ${f(hi)}]` : '');
    const sampled = (x: RunFiguresLike) => `${f(x.sampleSuccess)}${ci(x.sampleSuccessLo, x.sampleSuccessHi)}`;
    console.log(`${out}: ${s.steps} steps of ${s.rl.algorithm.toUpperCase()} (${s.rl.reward}) from ${s.checkpoint} in ${formatDuration(s.wallSeconds)}\n` +
      `  validation success ${f(s.start.success)}${ci(s.start.successLo, s.start.successHi)} → ${f(s.final.success)}${ci(s.final.successLo, s.final.successHi)} ` +
      `(${s.final.queries ?? '?'} queries, 95 % intervals), delivery ${f(s.start.delivery)} → ${f(s.final.delivery)}, OOD ${f(s.start.ood)} → ${f(s.final.ood)}` +
      (s.rl.evalSamples > 0 ? `\n  sampled success (k ${s.rl.evalSamples}, T ${s.rl.temperature}) ${sampled(s.start)} → ${sampled(s.final)}` : ''));
    return 0;
  },
};

type RunFiguresLike = RlSummary['start'];
