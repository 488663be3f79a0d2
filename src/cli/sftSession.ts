// The training session `sft` and `pretrain` share, both an SftTrainer writing a checkpoint folder: the code's
// provenance and the folder checked before anything is written, the backend, a fresh start or the saved resume
// state, the progress bar, a save every --checkpoint-every steps and on a stop signal (then the line that resumes
// it), and at the end the weights and the card, the resume state removed. What each trains on, what it logs and
// what its card says stay the command's own.
import { join } from 'node:path';
import { ProgressBar } from './progress.ts';
import { removeResumeState, resumeTraining, saveTraining, type RunProgress } from '../node/checkpointDir.ts';
import { prepareRunDir, type RunKind } from './outDir.ts';
import { catchStopSignals, Interrupted, interruptedMessage, resumeCommand, STOP_EXIT, yielder } from './interrupt.ts';
import { useNodeBackend, wasmThreads, type NodeBackend } from '../node/nodeBackend.ts';
import { provenance } from '../node/provenance.ts';
import type { SftTrainer } from '../rl/sft.ts';

/** what a run saved in its folder hands back to continue from */
export type ResumedRun = NonNullable<ReturnType<typeof resumeTraining>>;

export interface SftSessionPlan {
  /** the command, as `npm run cli -- <command>` names it */
  command: 'sft' | 'pretrain';
  out: string;
  flags: ReadonlyMap<string, string | true>;
  /** the arguments the resume line repeats */
  resumeArgs: readonly string[];
  /** everything that shapes the batches and the model: a resumed run must match it */
  fingerprint: string;
  kind: RunKind;
  backend: NodeBackend;
  /** the bar's label */
  label: string;
  /** save the resume state every this many steps */
  every: number;
  /** stop after `steps` steps of this session, leaving the resume state (default: never); `words` say how far the
   *  run has come */
  session?: { steps: number; words: (trainer: SftTrainer) => string };
  /** once the backend is up: the trainer, fresh or restored from `resumed` (null: fresh), and the steps the bar
   *  counts to */
  start(resumed: ResumedRun | null): { trainer: SftTrainer; totalSteps: number };
  /** one training step: its loss, whether the run has reached its end, and what the bar shows beside the loss */
  step(trainer: SftTrainer): Promise<{ loss: number; finished: boolean; bar?: Record<string, string> }>;
  /** the state a save keeps beside the checkpoint (a data stream's cursor) */
  extra?: () => Record<string, unknown>;
  /** what a stop's message says was saved */
  savedWords(trainer: SftTrainer): string;
  /** the finished run: writes its weights and card (the session removes the resume state after) */
  finish(trainer: SftTrainer, run: RunProgress): Promise<void>;
}

/** runs the session; the process's exit code (a stop signal's, or 0) */
export async function runSftSession(plan: SftSessionPlan): Promise<number> {
  const { out, flags, fingerprint } = plan;
  // the code that trains (a resumed run keeps the commit it started at); refused before anything is written
  const made = provenance(join(out, 'card.json'), { allowDirty: flags.has('allow-dirty') });
  let commit = made.commit;
  let dirtyFiles = made.dirtyFiles;
  // the folder is checked before anything is written: another run there is refused, not overwritten
  const begin = prepareRunDir(out, { resume: flags.has('resume'), force: flags.has('force'), fingerprint, kind: plan.kind });
  if (begin.action === 'finished') return 0;

  await useNodeBackend(plan.backend, wasmThreads());
  let trainSecondsBefore = 0;
  let lastLoss = NaN;
  const resumed = begin.action === 'resume' ? resumeTraining(out, fingerprint, commit) : null;
  if (resumed) {
    ({ trainSeconds: trainSecondsBefore, lastLoss, commit } = resumed.progress);
    dirtyFiles = resumed.extra.dirtyFiles as typeof dirtyFiles;
  }
  const { trainer, totalSteps } = plan.start(resumed);

  const resumeLine = resumeCommand(`npm run cli -- ${plan.command}`, plan.resumeArgs);
  const stops = catchStopSignals(resumeLine, 'after this training step');
  const letSignalsIn = yielder(0);
  const bar = new ProgressBar(totalSteps, trainer.step, plan.label, 50);
  const tTrain = performance.now();
  const startStep = trainer.step;
  const sessionSteps = plan.session?.steps ?? Infinity;
  let emaLoss = lastLoss;
  const progress = (): RunProgress => ({
    trainSeconds: trainSecondsBefore + (performance.now() - tTrain) / 1000,
    lastLoss,
    commit,
    dirtyFiles,
  });
  try {
    for (;;) {
      const step = await plan.step(trainer);
      lastLoss = step.loss;
      emaLoss = Number.isFinite(emaLoss) ? 0.95 * emaLoss + 0.05 * lastLoss : lastLoss;
      bar.update(trainer.step, { loss: emaLoss.toFixed(3), ...step.bar });
      await letSignalsIn();
      if (step.finished) break;
      const stop = trainer.step - startStep >= sessionSteps;
      if (trainer.step % plan.every === 0 || stop || stops.signal)
        saveTraining(out, await trainer.checkpoint(), fingerprint, progress(), plan.extra?.() ?? {});
      if (stops.signal) {
        bar.done();
        console.error(interruptedMessage(new Interrupted(stops.signal), plan.savedWords(trainer), resumeLine));
        return STOP_EXIT[stops.signal];
      }
      if (stop) {
        bar.done();
        console.error(
          `stopped after ${sessionSteps} steps of this session at step ${trainer.step} ` +
            `(${plan.session!.words(trainer)}); continue with --resume`,
        );
        return 0;
      }
    }
    bar.done();
    await plan.finish(trainer, progress());
    removeResumeState(out);
    return 0;
  } finally {
    stops.release();
    trainer.dispose();
    trainer.policy.dispose();
  }
}
