// The GPU check pack's CLI (bundled into the pack's cli.mjs by pack.ts): the `gpu-check` and `run` commands
// alone, so the bundle leaves out what only a development machine has (Vite, Playwright for `bench`).
import type { Command } from '../command.ts';
import { gpuCheckCommand } from '../commands/gpuCheck.ts';
import { runCommand } from '../commands/run.ts';
import { shutdownNodeWebgpu } from '../../node/nodeWebgpu.ts';

const commands: Command[] = [gpuCheckCommand, runCommand];

async function main([name, ...rest]: string[]): Promise<number> {
  const command = commands.find((c) => c.name === name);
  if (!command) {
    console.error(`usage: node cli.mjs ${commands.map((c) => c.name).join('|')} [options] (--help for each)`);
    return 2;
  }
  if (rest.includes('--help')) {
    console.log(command.help);
    return 0;
  }
  return command.run(rest);
}

// on webgpu, the GPU's work is finished and its device destroyed before the process exits (nodeWebgpu.ts)
const exit = (code: number) => shutdownNodeWebgpu().catch(() => {}).finally(() => process.exit(code));
main(process.argv.slice(2)).then(exit, (err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  return exit(1);
});
