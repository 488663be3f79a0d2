// The registry of CLI commands. Add one line per command module.
import type { Command } from '../command.ts';
import { benchCommand } from './bench.ts';
import { worldCommand } from './world.ts';
import { queriesCommand } from './queries.ts';
import { exportCommand } from './export.ts';
import { exportJobCommand } from './exportJob.ts';
import { evalCommand } from './eval.ts';
import { sftCommand } from './sft.ts';
import { pretrainCommand } from './pretrain.ts';
import { runCommand } from './run.ts';
import { sweepCommand } from './sweep.ts';
import { evaluateCommand } from './evaluate.ts';
import { reproCommand } from './repro.ts';
import { powerPlanCommand } from './powerPlan.ts';
import { lessonsCommand } from './lessons.ts';
import { gpuCheckCommand } from './gpuCheck.ts';
import { mechanismsCommand } from './mechanisms.ts';
import { settingsCommand } from './settings.ts';
import { runsCommand } from './runs.ts';
import { compareCommand } from './compare.ts';

export const commands: Command[] = [
  benchCommand,
  worldCommand,
  queriesCommand,
  exportCommand,
  exportJobCommand,
  evalCommand,
  pretrainCommand,
  sftCommand,
  evaluateCommand,
  reproCommand,
  settingsCommand,
  runCommand,
  runsCommand,
  compareCommand,
  sweepCommand,
  powerPlanCommand,
  mechanismsCommand,
  lessonsCommand,
  gpuCheckCommand,
];
