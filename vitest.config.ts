import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Unit and integration tests run in Node (tfjs `cpu`, fake-indexeddb). Browser e2e lives in test/e2e
// and is driven by scripts/e2e.mjs with playwright-core, not by vitest.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', 'node_modules/**'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // vitest's default is one worker fewer than the cores: on the 2-core CI machine that ran every file
    // one after another (unit 427 s); the long tests (RL learning, SFT learning, sweeps) are single-threaded
    maxWorkers: availableParallelism(),
  },
});
