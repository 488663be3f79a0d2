// The GPU check pack's CLI (bundled into the pack's cli.mjs by pack.ts): the `gpu-check` and `run` commands
// alone, so the bundle leaves out what only a development machine has (Vite, Playwright for `bench`).
import { gpuCheckCommand } from '../commands/gpuCheck.ts';
import { runCommand } from '../commands/run.ts';
import { runCommandLine } from '../commandLine.ts';

runCommandLine([gpuCheckCommand, runCommand], 'node cli.mjs');
