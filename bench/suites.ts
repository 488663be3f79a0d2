// The list of benchmark suites `npm run bench` runs, in order. Add one line per suite.
import type { BenchSuite } from './harness.ts';
import { evaluatorSuite } from './evaluator.ts';
import { toolsSuite } from './tools.ts';
import { modelSuite } from './model.ts';
import { interopSuite } from './interop.ts';
import { agentSuite } from './agent.ts';
import { sftCpuSuite } from './sftCpu.ts';
import { webgpuSuite } from './webgpu.ts';
import { webgpuStepSuite } from './webgpuStep.ts';
import { calibrationSuite } from './calibration.ts';
import { rlSuite } from './rl.ts';
import { rolloutSuite } from './rollout.ts';
import { sweepJobsSuite } from './sweepJobs.ts';

export const suites: BenchSuite[] = [
  evaluatorSuite,
  toolsSuite,
  modelSuite,
  interopSuite,
  agentSuite,
  sftCpuSuite,
  rolloutSuite,
  rlSuite,
  sweepJobsSuite,
  webgpuSuite,
  webgpuStepSuite,
  calibrationSuite,
];
