// `npm run cli -- <command> [options]`: the headless runner. Each command lives in its
// own module under src/cli/commands and is registered here; `--help` works on each.
// The commands load TensorFlow.js, seconds on a busy machine: a command that trains says so first.
const [commandName, ...rest] = process.argv.slice(2);
if (['run', 'sweep', 'sft', 'pretrain', 'evaluate', 'lessons', 'repro'].includes(commandName ?? '') && !rest.some((a) => ['--help', '-h', '--dry-run'].includes(a)))
  process.stderr.write('loading the lab (TensorFlow.js and the trainers)…\n');
// the unit tests' processes share the evaluation tasks they build (src/node/evaluationTaskStore.ts)
if (process.env.STAR_LAB_TASK_STORE) (await import('../node/evaluationTaskStore.ts')).useTaskStoreFromEnvironment();
const { commands } = await import('./commands/index.ts');
const { runCommandLine } = await import('./commandLine.ts');

runCommandLine(commands, 'npm run cli --');

export {};
