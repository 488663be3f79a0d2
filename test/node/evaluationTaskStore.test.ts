// The folder the unit run's processes share built evaluation tasks in (src/node/evaluationTaskStore.ts): what one
// process saved another reads back whole and equal, and a missing or torn entry is built again, never misread.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCheckpointDir } from '../../src/node/checkpointDir.ts';
import { taskStoreFolder } from '../../src/node/evaluationTaskStore.ts';
import { originEvaluationTasks } from '../../src/rl/rlEnvironment.ts';

const dir = mkdtempSync(join(tmpdir(), 'star-task-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('evaluation task store folder', () => {
  it('reads back the tasks it saved, deep-equal; a missing or torn entry reads as none', async () => {
    const ckpt = await readCheckpointDir('public/checkpoints/s-tiny');
    const tasks = originEvaluationTasks({ world: ckpt.card.world, data: ckpt.card.data, contextLength: ckpt.config.contextLength });
    const store = taskStoreFolder(dir);
    expect(store.load('s-tiny')).toBeUndefined();
    store.save('s-tiny', tasks);
    expect(taskStoreFolder(dir).load('s-tiny')).toEqual(tasks);
    expect(store.load('another origin')).toBeUndefined();
    const [file] = readdirSync(dir);
    writeFileSync(join(dir, file), 'torn');
    expect(store.load('s-tiny')).toBeUndefined();
  });
});
