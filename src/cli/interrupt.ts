// Ctrl-C on a long command (run, sft, pretrain) says how to continue: the exact command with
// --resume, shell-quoted so it pastes, then exits 130 as an interrupted process does. What was saved (a run's
// state every few steps and at each evaluation) is what --resume continues from.
import { shellCommand } from './shellQuote.ts';

/** the command that continues this one: its arguments without --force or --resume, then --resume */
export function resumeCommand(prefix: string, args: readonly string[]): string {
  return shellCommand(prefix, [...args.filter((a) => a !== '--force' && a !== '--resume'), '--resume']);
}

/** until the returned function is called, Ctrl-C prints the resume command and exits 130 */
export function hintResumeOnInterrupt(prefix: string, args: readonly string[]): () => void {
  const onInterrupt = () => {
    console.error(`\ninterrupted; continue from the last saved state with:\n  ${resumeCommand(prefix, args)}`);
    process.exit(130);
  };
  process.once('SIGINT', onInterrupt);
  return () => { process.removeListener('SIGINT', onInterrupt); };
}
