// `npm run cli -- <command> [options]`: the headless runner (DESIGN §2). Each command lives in its
// own module under src/cli/commands and is registered here; `--help` works on each.
import { commands } from './commands/index.ts';
import { shutdownNodeWebgpu } from '../node/nodeWebgpu.ts';

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log('usage: npm run cli -- <command> [options]\n\ncommands:');
    for (const c of commands) console.log(`  ${c.name.padEnd(10)} ${c.summary}`);
    console.log('\nRun `npm run cli -- <command> --help` for the options of one command.');
    return name ? 0 : 1;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    console.error(`unknown command "${name}"; try --help`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
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
