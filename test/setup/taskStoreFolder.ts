// vitest globalSetup: one folder of built evaluation tasks for this run (src/node/evaluationTaskStore.ts), named
// to every test file and every CLI process they start through the environment, removed at the end. Fresh each
// run, so the tasks in it are always those of the code under test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TASK_STORE_VARIABLE } from '../../src/node/evaluationTaskStore.ts';

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'star-lab-tasks-'));
  process.env[TASK_STORE_VARIABLE] = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
