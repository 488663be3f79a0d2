import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The files measured longest on the 2-core CI machine (seconds there, 2026-12-05), longest first. On a fresh clone
// vitest has no timings cached and starts the largest files first, which put the RL learning test (170 s,
// a small file) near the end, running alone while the other core idled: 361 s for 330 s per worker of work.
// Starting these first lets the short files fill in beside them. A stale list costs only time.
const LONGEST_FIRST = [
  'test/rl/rlLearning.test.ts', // 172
  'test/cli/faultInjection.test.ts', // 58, and its five CLI processes beside the workers
  'test/rl/sftLearning.test.ts', // 48 at 300 steps; 200 since
  'test/cli/rlRunScaleL.test.ts', // 46
  'test/cli/sweepCli.test.ts', // 35
  'test/rl/rlTrainer.test.ts', // 28
  'test/cli/checkpointCli.test.ts', // 27
  'test/cli/evaluatePolicyCli.test.ts', // 25
  'test/cli/pretrainCli.test.ts', // 22
  'test/rl/sft.test.ts', // 21
  'test/cli/rlRunResume.test.ts', // 20
  'test/cli/runFolder.test.ts', // 20
  'test/node/nodeWebgpu.test.ts', // 19
  'test/rl/rlUpdate.test.ts', // 18
  'test/worker/rlJob.test.ts', // 14
  'test/rl/seedStackStep.test.ts', // 12
  'test/rl/shippedCheckpoints.test.ts', // 10
  'test/cli/referenceRun.test.ts', // 9
  'test/worker/pageRunsCliLink.test.ts', // 9
];

class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const i = LONGEST_FIRST.findIndex((path) => file.moduleId.endsWith(`/${path}`));
      return i < 0 ? LONGEST_FIRST.length : i;
    };
    // a stable sort keeps vitest's own order (cached timings, then size) among the rest
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

// Unit and integration tests run in Node (tfjs `cpu`, fake-indexeddb). Browser e2e lives in test/e2e
// and is driven by scripts/e2e.mjs with playwright-core, not by vitest.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', 'node_modules/**'],
    environment: 'node',
    // the evaluation tasks (seconds of CPU each) built once per run, not once per file and CLI process
    globalSetup: ['test/setup/taskStoreFolder.ts'],
    setupFiles: ['test/setup/useTaskStore.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // vitest's default is one worker fewer than the cores: on the 2-core CI machine that ran every file
    // one after another (unit 427 s); the long tests (RL learning, SFT learning, sweeps) are single-threaded
    maxWorkers: availableParallelism(),
    sequence: { sequencer: LongestFirstSequencer },
  },
});
