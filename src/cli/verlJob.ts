// `cli export-job --engine verl`: a lab experiment as a folder that veRL runs on real LLMs.
// This module builds every file of the folder in memory (so a bad input writes nothing); the command
// (commands/exportJob.ts) validates the flags and writes the folder. The Python files next to this
// module (verl/*.py) are copied as they are: the tools and the reward are ports of src/env, kept equal
// to it by test/cli/exportJob.test.ts.
//
// The veRL keys (here and in verl/*.ts) were read from veRL's v0.7.0 tag (verl/trainer/config/ppo_trainer.yaml,
// verl/tools/base_tool.py, verl/experimental/agent_loop/tool_agent_loop.py,
// verl/utils/reward_score/__init__.py, recipe/dapo/config/dapo_trainer.yaml,
// examples/data_preprocess/gsm8k_multiturn_w_tool.py for the parquet layout).
//
// The job's parts live in verl/: target.ts (veRL's version, the models, GPU memory), plan.ts (the lab
// config mapped to the job, and job.json), toolsAndPrompt.ts (tool schemas, tool_config.yaml, the system
// prompt), parquet.ts (the data rows), lengths.ts (length limits), runScript.ts (run.sh), readme.ts.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LabConfig } from '../lab/config.ts';
import { worldToDatabaseFiles } from '../env/interop/database.ts';
import type { Query, World } from '../env/types.ts';
import { measureLengths } from './verl/lengths.ts';
import { parquetOf, verlRows } from './verl/parquet.ts';
import { jobManifest, planJob, type JobPlan } from './verl/plan.ts';
import { readme } from './verl/readme.ts';
import { runSh } from './verl/runScript.ts';
import { VERL_VERSION } from './verl/target.ts';
import { toolConfigYaml } from './verl/toolsAndPrompt.ts';

export const ENGINES = ['verl'] as const;

/** Why ARPO is not exported (the command prints this). */
export const ARPO_REFUSAL =
  "export-job cannot export ARPO: its authors' code (dongguanting/ARPO) is a fork of veRL 0.3.1.dev whose own vLLM rollout " +
  'calls tools through text tags (it stops at </search> or </python> and splices a <result> block into the text) and branches ' +
  'rollouts on entropy inside that worker. veRL ' +
  VERL_VERSION +
  ' has no ARPO rollout, and its BaseTool tools and tool agent loop ' +
  'do not plug into that fork, so no faithful job can be written. Export the same experiment with algorithm=grpo or algorithm=dapo, ' +
  'or run ARPO in the lab.';

export const STAGE_REFUSAL = (stage: string) =>
  `export-job writes an RL job, but the config's stage is "${stage}": SFT on teacher trajectories belongs to veRL's SFT trainer (verl.trainer.fsdp_sft_trainer); export the RL stage (stage=rl)`;

/** The Python modules copied into the job folder. */
export const PYTHON_FILES = ['travelplanner_db.py', 'travelplanner_tools.py', 'reward.py'] as const;
const PYTHON_DIR = join(dirname(fileURLToPath(import.meta.url)), 'verl');

export function pythonSource(name: (typeof PYTHON_FILES)[number]): string {
  return readFileSync(join(PYTHON_DIR, name), 'utf8');
}

export interface VerlJobInput {
  lab: LabConfig;
  world: World;
  train: readonly Query[];
  validation: readonly Query[];
  gpus: number;
  nodes: number;
  lr?: number;
  /** whose world this is, for the README: the lab run's, or one chosen by a flag */
  worldNote?: string;
}

/** Every file of the job folder, by relative path. Throws (before anything is written) on a job that cannot run. */
export function buildVerlJob(input: VerlJobInput): { files: Map<string, string | Uint8Array>; plan: JobPlan } {
  const { lab, world, train, validation } = input;
  if (lab.algorithm === 'arpo') throw new Error(ARPO_REFUSAL);
  if (lab.stage !== 'rl') throw new Error(STAGE_REFUSAL(lab.stage));
  if (train.length === 0) throw new Error('the config yields no training queries');
  if (validation.length === 0) throw new Error('the validation split is empty (--validation must be at least 1)');
  const lengths = measureLengths(world, train, lab.seed);
  const plan = planJob(lab, {
    worldSource: world.source,
    worldSeed: world.seed,
    worldNote: input.worldNote,
    trainSize: train.length,
    validationSize: validation.length,
    lengths,
    gpus: input.gpus,
    nodes: input.nodes,
    lr: input.lr,
  });
  const files = new Map<string, string | Uint8Array>();
  for (const [rel, text] of worldToDatabaseFiles(world)) files.set(rel, text);
  files.set('data/train.parquet', parquetOf(verlRows(train, 'train')));
  files.set('data/val.parquet', parquetOf(verlRows(validation, 'validation')));
  files.set('tool_config.yaml', toolConfigYaml(plan.rl.toolFailureRate, plan.rl.seed));
  files.set('run.sh', runSh(plan));
  files.set('README.md', readme(plan));
  files.set('job.json', JSON.stringify(jobManifest(plan, world), null, 2) + '\n');
  for (const name of PYTHON_FILES) files.set(name, pythonSource(name));
  return { files, plan };
}
