// Stopping a long command (run, sft, pretrain, sweep) with Ctrl-C or SIGTERM (a terminal, a batch system
// before it kills: SLURM, a preemptible VM): the first signal asks the command to stop at its next pause
// point (a rollout turn, a micro-batch, a training step), where it saves the last completed step, prints
// the exact command with --resume (shell-quoted, so it pastes) and exits 130 (SIGINT) or 143 (SIGTERM). A
// second signal exits at once, leaving the last complete save. Node runs a signal handler only between
// tasks of its event loop, so the training loops yield to it at those pause points.
import { shellCommand } from './shellQuote.ts';

export type StopSignal = 'SIGINT' | 'SIGTERM';

/** the exit status of a process stopped by the signal (128 + its number), as a shell reports it */
export const STOP_EXIT: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143 };

/** thrown at a pause point once a stop was asked for; the command saves and exits with STOP_EXIT */
export class Interrupted extends Error {
  /** what the command kept, for its last message (set where it saved) */
  saved = 'the last save is kept';

  constructor(readonly signal: StopSignal) {
    super(`stopped by ${signal}`);
  }
}

/** the command that continues this one: its arguments without --force, --resume or --resume-if-saved, then --resume */
export function resumeCommand(prefix: string, args: readonly string[]): string {
  return shellCommand(prefix, [
    ...args.filter((a) => a !== '--force' && a !== '--resume' && a !== '--resume-if-saved'),
    '--resume',
  ]);
}

export interface StopRequests {
  /** the first stop signal received (null: none yet) */
  readonly signal: StopSignal | null;
  /** throws Interrupted once a stop was asked for; call it at a pause point */
  check(): void;
  /** removes the handlers (the command is done) */
  release(): void;
}

/** the first signal again within this long is the same request: `npm run cli` forwards the signals it gets to
 *  the lab's process, so a signal to the whole group (a terminal's Ctrl-C) arrives twice, milliseconds apart.
 *  Another signal (SIGTERM after SIGINT) is never a copy, however soon it comes. */
const SAME_REQUEST_MS = 500;

/**
 * Until release(), SIGINT and SIGTERM ask the command to stop (said at once on stderr, with what happens
 * next); a second one prints `continueWith` (the command that goes on from the last save) and exits at once.
 */
export function catchStopSignals(
  continueWith: string,
  where = 'at the next rollout turn or micro-batch',
  /** what the last save holds, said when a second signal stops at once ("step 20 of 40 is kept in …") */
  lastSave?: () => string,
): StopRequests {
  let signal: StopSignal | null = null;
  let firstAt = 0;
  const handler = (sig: StopSignal) => {
    if (sig === signal && performance.now() - firstAt < SAME_REQUEST_MS) return;
    if (signal === null) {
      signal = sig;
      firstAt = performance.now();
      console.error(
        `\n${sig}: stopping ${where}, saving the last completed step (${sig === 'SIGINT' ? 'Ctrl-C' : sig} again stops at once, keeping the last save)`,
      );
      return;
    }
    const kept = lastSave?.();
    console.error(`\n${sig} again: stopped at once; ${kept ? `${kept}; ` : ''}continue from the last save with:\n  ${continueWith}`);
    process.exit(STOP_EXIT[signal]);
  };
  const onInt = () => handler('SIGINT');
  const onTerm = () => handler('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return {
    get signal() {
      return signal;
    },
    check() {
      if (signal !== null) throw new Interrupted(signal);
    },
    release() {
      process.removeListener('SIGINT', onInt);
      process.removeListener('SIGTERM', onTerm);
    },
  };
}

/** lets the event loop run (a pending signal's handler) when `everyMs` have passed since the last time */
export function yielder(everyMs = 25): () => Promise<void> | void {
  let last = performance.now();
  return () => {
    const now = performance.now();
    if (now - last < everyMs) return;
    last = now;
    return new Promise<void>((resolve) => setImmediate(resolve));
  };
}

/** what an interrupted command prints last: what was saved and the command that continues it */
export function interruptedMessage(e: Interrupted, saved: string, continueWith: string): string {
  return `interrupted (${e.signal}); ${saved}; continue with:\n  ${continueWith}`;
}
