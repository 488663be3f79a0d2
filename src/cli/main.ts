// `npm run cli -- <command> [options]`: the headless runner. Each command lives in its
// own module under src/cli/commands and is registered here; `--help` works on each.
import { commands } from './commands/index.ts';
import { runCommandLine } from './commandLine.ts';

runCommandLine(commands, 'npm run cli --');
