// One command line for the CLI (`npm run cli -- …`, main.ts) and the GPU check pack's (`node cli.mjs …`,
// gpuCheck/packEntry.ts): pick the command by name, `--help` on each, and an exit that first finishes the
// GPU's work and destroys its device (nodeWebgpu.ts), whatever the command did.
import type { Command } from './command.ts';
import { shutdownNodeWebgpu } from '../node/nodeWebgpu.ts';
import { didYouMean } from './nearest.ts';
import { endProgressLine } from './progress.ts';

async function dispatch(commands: readonly Command[], invocation: string, argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(`usage: ${invocation} <command> [options]\n\ncommands:`);
    for (const c of commands) console.log(`  ${c.name.padEnd(10)} ${c.summary}`);
    console.log(`\nRun \`${invocation} <command> --help\` for the options of one command.`);
    return name ? 0 : 1;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    console.error(`unknown command "${name}"${didYouMean(name, commands.map((c) => c.name))}; try --help`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(command.help);
    return 0;
  }
  return command.run(rest);
}

/** runs the command `process.argv` names and exits with its code (1 with the message on a throw) */
export function runCommandLine(commands: readonly Command[], invocation: string): void {
  const exit = (code: number) => shutdownNodeWebgpu().catch(() => {}).finally(() => process.exit(code));
  dispatch(commands, invocation, process.argv.slice(2)).then(exit, (err: unknown) => {
    endProgressLine();
    console.error(err instanceof Error ? err.message : err);
    return exit(1);
  });
}
