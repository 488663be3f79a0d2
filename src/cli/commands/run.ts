// `npm run cli -- run`: one RL run from a shipped SFT checkpoint, headless (rlRun.ts says what it writes).
import type { Command } from '../command.ts';
import { parseFlags } from '../command.ts';
import { flagChoice, flagOptionalText, flagText, rejectUnknownFlags } from '../envFlags.ts';
import { NODE_BACKENDS } from '../../node/nodeBackend.ts';
import { runRl, WriteFailed, type RlSummary } from '../rlRun.ts';
import { labConfigWithOptions } from '../labConfigArg.ts';
import { SETTING_KEYS } from '../../lab/config.ts';
import { dryRunText } from '../dryRun.ts';
import { endProgressLine, formatDuration, plural } from '../progress.ts';
import { readRunFolder } from '../runFolders.ts';
import { catchStopSignals, Interrupted, interruptedMessage, resumeCommand, STOP_EXIT } from '../interrupt.ts';

const KNOWN = [
  'config',
  'out',
  'resume',
  'resume-if-saved',
  'force',
  'checkpoint',
  'backend',
  'no-policy',
  'quiet',
  'start-cache',
  'allow-dirty',
  'dry-run',
  ...SETTING_KEYS,
];

export const runCommand: Command = {
  name: 'run',
  summary: 'one RL run (GRPO / DAPO / ARPO) from a shipped SFT checkpoint',
  help: `usage: npm run cli -- run [--config CONFIG] [--SETTING VALUE …] --out DIR [--resume | --force] [--dry-run]
                   [--checkpoint DIR] [--backend wasm|cpu|webgpu]

  --config CONFIG   the experiment: a lab URL hash ('#scale=s&algorithm=dapo&steps=20', the page's "copy link")
                    or a JSON object of settings ('{"scale":"s","reward":"sum"}'); unknown keys or bad values
                    are an error (a name typed wrong gets the nearest). Absent: every setting at its default.
                    \`npm run cli -- settings\` lists every setting, its default, range and what it does.
  --SETTING VALUE   any setting as an option, on top of --config: --seed 2 --steps 40 --algorithm dapo
  --dry-run         print the resolved config, the world, the checkpoint, what the run trains and evaluates,
                    what DIR holds and the estimated time (from the finished runs under results/ and runs/),
                    then exit: nothing is trained or written
  --out DIR         writes metrics.jsonl, metrics.csv, summary.json, samples.jsonl, policy/, resume/ (the training
                    state: while running, and once finished beside the policy, to extend it)
                    and events.out.tfevents.star-lab (every metric and the config, for tensorboard --logdir)
  --resume          continue the run saved in DIR from its last saved state (every 5 steps, at each
                    evaluation, and at Ctrl-C / SIGTERM), ending with the figures of an unstopped run; same config
                    required. A finished run is left as it is (exit 0); with nothing saved the run starts fresh (both said).
                    With more --steps than DIR's run (the rest of the config the same) it extends the run: steps
                    past its end continue from its final state, bit for bit the steps of a run set to the longer
                    count from the start (the LR's warm-up does not depend on the total); the evaluation at the old
                    end stays as an extra point; summary.json records "extended". A run with --no-policy keeps no
                    state and a Curriculum with fixed switches follows the total: both are refused
  --resume-if-saved the same, without a word when nothing is saved (a sweep's runs); it never extends
  --force           replace the run DIR holds (of another config, or this one): it is moved aside to
                    DIR.replaced-<time>/, never deleted; a DIR holding anything but a run is refused even so.
                    Without --resume or --force a DIR holding a run is refused and nothing is written
  Ctrl-C or SIGTERM stops at the next rollout turn or micro-batch: the last completed step is saved, the
  --resume command printed, exit 130 / 143; a second one exits at once, keeping the last save.
  --checkpoint DIR  the SFT start (default public/checkpoints/<scale>-tiny, the shipped one)
  --backend B       wasm (default), cpu (slower; bit-reproducible) or webgpu (Dawn's WebGPU: a GPU, else SwiftShader)
  --no-policy       do not write the final weights, nor keep the final state (a sweep keeps curves and summaries
                    only; such a run cannot be extended)
  --quiet           no progress bar
  --start-cache DIR share step-0 evaluations between runs from the same checkpoint (a sweep's)
  --allow-dirty     write a run into the repository from code that differs from HEAD: its summary lists the
                    differing files and their SHA-256 (without it such a run is refused before it starts: commit first)`,
  async run(args) {
    const { flags, positional } = parseFlags(args);
    rejectUnknownFlags(flags, positional, KNOWN, [
      'resume',
      'resume-if-saved',
      'force',
      'no-policy',
      'quiet',
      'allow-dirty',
      'dry-run',
    ]);
    const lab = labConfigWithOptions(flagOptionalText(flags, 'config'), flags);
    if (flags.has('dry-run')) {
      console.log(await dryRunText({ lab, out: flagText(flags, 'out', '(no --out given)'), checkpoint: flagOptionalText(flags, 'checkpoint'),
        backend: flagChoice(flags, 'backend', NODE_BACKENDS, 'wasm') }));
      return 0;
    }
    const out = flagText(flags, 'out');
    const prefix = 'npm run cli -- run';
    const stops = catchStopSignals(resumeCommand(prefix, args), undefined, () => lastSaveWords(out));
    // a sweep's run (its own process): the sweep gone, even by kill -9, is a stop like SIGTERM's
    const orphaned = () => {
      process.kill(process.pid, 'SIGTERM');
    };
    if (process.send) process.once('disconnect', orphaned);
    let s: RlSummary;
    try {
      s = await runRl({
        lab,
        out,
        resume: flags.has('resume') ? true : flags.has('resume-if-saved') ? 'if-saved' : false,
        force: flags.has('force'),
        checkpoint: flagOptionalText(flags, 'checkpoint'),
        backend: flagChoice(flags, 'backend', NODE_BACKENDS, 'wasm'),
        keepPolicy: !flags.has('no-policy'),
        quiet: flags.has('quiet'),
        startCache: flagOptionalText(flags, 'start-cache'),
        allowDirty: flags.has('allow-dirty'),
        stops,
      });
      await new Promise((r) => setImmediate(r)); // a signal that came while the summary was written is heard, then said below
    } catch (e) {
      endProgressLine();
      if (e instanceof Interrupted) {
        console.error(interruptedMessage(e, e.saved, resumeCommand(prefix, args)));
        return STOP_EXIT[e.signal];
      }
      if (e instanceof WriteFailed) {
        console.error(`${e.message}; once it can be written again, continue with:\n  ${resumeCommand(prefix, args)}`);
        return 1;
      }
      throw e;
    } finally {
      stops.release();
      process.removeListener('disconnect', orphaned);
    }
    if (stops.signal)
      console.error(`(${stops.signal} came after the last step: the run finished and its summary is written)`);
    const f = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? x.toFixed(3) : 'n/a');
    const ci = (lo: number | undefined, hi: number | undefined) =>
      lo !== undefined && Number.isFinite(lo) ? ` [${f(lo)}, ${f(hi)}]` : '';
    const sampled = (x: RunFiguresLike) => `${f(x.sampleSuccess)}${ci(x.sampleSuccessLo, x.sampleSuccessHi)}`;
    console.log(
      `${out}: ${plural(s.steps, 'step')} of ${s.rl.algorithm.toUpperCase()} (${s.rl.reward}) from ${s.checkpoint} in ${formatDuration(s.wallSeconds)}\n` +
        `  validation success ${f(s.start.success)}${ci(s.start.successLo, s.start.successHi)} → ${f(s.final.success)}${ci(s.final.successLo, s.final.successHi)} ` +
        `(${s.final.queries ?? '?'} queries, 95 % intervals), delivery ${f(s.start.delivery)} → ${f(s.final.delivery)}, OOD ${f(s.start.ood)} → ${f(s.final.ood)}` +
        (s.rl.evalSamples > 0
          ? `\n  sampled success (k ${s.rl.evalSamples}, T ${s.rl.temperature}) ${sampled(s.start)} → ${sampled(s.final)}`
          : ''),
    );
    return 0;
  },
};

type RunFiguresLike = RlSummary['start'];

/** what a run folder's last save holds, in words */
export function lastSaveWords(out: string): string {
  const st = readRunFolder(out).status;
  if (st.kind === 'unfinished' && st.savedStep !== null) return `the last save, step ${st.savedStep}, is kept in ${out}/resume`;
  return st.kind === 'finished' ? `the run in ${out} is finished and kept` : `nothing was saved yet (a resume starts the run fresh)`;
}
