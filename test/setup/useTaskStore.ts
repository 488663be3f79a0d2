// vitest setupFiles: each test file reads and keeps evaluation tasks in the run's folder (taskStoreFolder.ts)
import { useTaskStoreFromEnvironment } from '../../src/node/evaluationTaskStore.ts';

useTaskStoreFromEnvironment();
