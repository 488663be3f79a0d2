// A folder of built evaluation tasks (rlEnvironment.ts: an origin's world, grown held-out splits and unseen
// tool-QA suite, seconds of CPU to build) shared by every process that names it in STAR_LAB_TASK_STORE. The
// unit tests set it for one vitest run (test/setup/taskStore.ts): their CLI processes and test files then build
// each origin's tasks once instead of dozens of times. The folder must not outlive the code that filled it: an
// entry is trusted as it stands, so a changed generator would read stale tasks.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { useEvaluationTaskStore, type EvaluationTaskStore, type EvaluationTasks } from '../rl/rlEnvironment.ts';
import { writeAtomic } from './atomicWrite.ts';

/** the environment variable that names the folder */
export const TASK_STORE_VARIABLE = 'STAR_LAB_TASK_STORE';

/** keeps this process's built tasks in `dir`, and reads them from there when another process built them */
export function useTaskStoreFolder(dir: string): void {
  useEvaluationTaskStore(taskStoreFolder(dir));
}

/** the store of the tasks in `dir`: one file per origin, written whole */
export function taskStoreFolder(dir: string): EvaluationTaskStore {
  const file = (key: string) => join(dir, `${createHash('sha256').update(key).digest('hex').slice(0, 24)}.v8`);
  return {
    load(key) {
      try {
        const entry = deserialize(readFileSync(file(key))) as { key: string; tasks: EvaluationTasks };
        return entry.key === key ? entry.tasks : undefined;
      } catch {
        return undefined; // not built yet (or torn): build it here
      }
    },
    save(key, tasks) {
      try {
        mkdirSync(dir, { recursive: true });
        // whole or absent: two processes that built the same tasks write the same bytes
        writeAtomic(file(key), serialize({ key, tasks }));
      } catch {
        /* a store that cannot be written costs the next process the build, nothing else */
      }
    },
  };
}

/** the folder STAR_LAB_TASK_STORE names, if any, used */
export function useTaskStoreFromEnvironment(): void {
  const dir = process.env[TASK_STORE_VARIABLE];
  if (dir) useTaskStoreFolder(dir);
}
