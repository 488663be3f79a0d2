// The plan of a veRL job (cli/verlJob.ts): the lab config mapped to what the job's files need (the RL
// config, the world, the sizes, the learning rate, curriculum phases, DAPO's overlong buffer, batches),
// and job.json, the plan's record that the Python side reads.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LabConfig } from '../../lab/config.ts';
import { serializeHash } from '../../lab/urlState.ts';
import { rlConfigFromLab, type RlConfig } from '../../rl/rlConfig.ts';
import { worldDates } from '../../env/world.ts';
import type { World } from '../../env/types.ts';
import type { Lengths } from './lengths.ts';
import { MODEL_OF_SCALE, VERL_VERSION } from './target.ts';

export interface JobPlan {
  lab: LabConfig;
  rl: RlConfig;
  hash: string;
  world: { source: World['source']; seed: number; label: string };
  trainSize: number;
  validationSize: number;
  lengths: Lengths;
  gpus: number;
  nodes: number;
  learningRate: number;
  learningRateNote: string;
  /** curriculum phases: [stage, last step] */
  phases: [string, number][];
  overlongBufferTokens: number;
  epochs: number;
  miniBatch: number;
}

/** The lab's context length the overlong buffer is measured against (the shipped checkpoints' card). */
function labContextLength(scale: string): number {
  const card = resolve(
    dirname(fileURLToPath(import.meta.url)),
    '../../../public/checkpoints',
    `${scale}-tiny`,
    'card.json',
  );
  try {
    // the card keeps the model's shape under modelConfig (a top-level contextLength never existed)
    if (existsSync(card))
      return (
        (JSON.parse(readFileSync(card, 'utf8')) as { modelConfig?: { contextLength?: number } }).modelConfig
          ?.contextLength ?? 576
      );
  } catch {
    // fall through
  }
  return 576;
}

/** veRL's learning rate: the lab's own value when set, else veRL's GRPO recipe value for Qwen2.5-Instruct. */
export const VERL_DEFAULT_LR = 1e-6;
const LAB_DEFAULT_LR = 1e-4;

export function planJob(
  lab: LabConfig,
  o: {
    worldSource: World['source'];
    worldSeed: number;
    worldNote?: string;
    trainSize: number;
    validationSize: number;
    lengths: Lengths;
    gpus: number;
    nodes: number;
    lr?: number;
  },
): JobPlan {
  const rl = rlConfigFromLab(lab);
  // veRL passes a reward function no step and no group statistics, so phases must be fixed before the job starts
  if (rl.reward === 'curriculum' && rl.curriculumSignalShare !== undefined)
    throw new Error(
      'curriculumSwitch=adaptive cannot be exported: veRL trains the curriculum in phases fixed in advance; use curriculumSwitch=fixed (the switch points curriculumSwitch1, curriculumSwitch2)',
    );
  const steps = rl.steps;
  const phases: [string, number][] = [];
  if (rl.reward === 'curriculum') {
    // the lab's stage at step k (0-based) is curriculumStage(k / steps): Sum for k < s1·steps, …
    const end1 = Math.min(steps, Math.ceil(rl.curriculumSwitch1 * steps));
    const end2 = Math.min(steps, Math.max(end1, Math.ceil(rl.curriculumSwitch2 * steps)));
    for (const [stage, end, start] of [
      ['sum', end1, 0],
      ['macro', end2, end1],
      ['success', steps, end2],
    ] as const)
      if (end > start) phases.push([stage, end]);
  }
  let learningRate: number;
  let learningRateNote: string;
  if (o.lr !== undefined) {
    learningRate = o.lr;
    learningRateNote = 'from --lr';
  } else if (lab.learningRate !== LAB_DEFAULT_LR) {
    learningRate = lab.learningRate;
    learningRateNote = "the config's learningRate";
  } else {
    learningRate = VERL_DEFAULT_LR;
    learningRateNote = `veRL's GRPO recipe value for Qwen2.5-Instruct (the config keeps the lab's default ${LAB_DEFAULT_LR}, which is sized for the lab's toy models)`;
  }
  const ctx = labContextLength(lab.scale);
  const overlongBufferTokens =
    lab.algorithm === 'dapo' && rl.overlongBuffer > 0
      ? Math.max(1, Math.min(o.lengths.maxResponse - 1, Math.round((o.lengths.maxResponse * rl.overlongBuffer) / ctx)))
      : 0;
  const stepsPerEpoch = Math.max(1, Math.floor(o.trainSize / rl.queriesPerStep));
  const miniBatch = rl.queriesPerStep % rl.miniBatches === 0 ? rl.queriesPerStep / rl.miniBatches : rl.queriesPerStep;
  return {
    lab,
    rl,
    hash: serializeHash(lab),
    world: {
      source: o.worldSource,
      seed: o.worldSeed,
      label:
        (o.worldSource === 'real' ? 'real' : `${o.worldSource}, seed ${o.worldSeed}`) +
        (o.worldNote ? ` (${o.worldNote})` : ''),
    },
    trainSize: o.trainSize,
    validationSize: o.validationSize,
    lengths: o.lengths,
    gpus: o.gpus,
    nodes: o.nodes,
    learningRate,
    learningRateNote,
    phases,
    overlongBufferTokens,
    epochs: Math.ceil(steps / stepsPerEpoch) + 1,
    miniBatch,
  };
}

/** job.json: what the Python side reads (the world facts the database layout cannot hold, the reward) and a record of
 * the export. */
export function jobManifest(p: JobPlan, world: World): Record<string, unknown> {
  return {
    format: 'star-lab-verl-job/1',
    engine: 'verl',
    verlVersion: VERL_VERSION,
    config: p.lab,
    hash: p.hash,
    model: MODEL_OF_SCALE[p.lab.scale],
    world: {
      source: p.world.source,
      seed: p.world.seed,
      // SearchCity lists these (a state's cities with data); the flight search answers these dates
      citiesByState: Object.fromEntries(world.citiesByState),
      dates: [...worldDates(world)],
    },
    data: { train: p.trainSize, validation: p.validationSize, mix: p.lab.mix },
    tools: { failureRate: p.rl.toolFailureRate, seed: p.rl.seed },
    reward: {
      kind: p.rl.reward,
      switchPoints: [p.rl.curriculumSwitch1, p.rl.curriculumSwitch2],
      steps: p.rl.steps,
      phases: p.phases,
      faithful: false,
    },
    lengths: p.lengths,
    learningRate: { value: p.learningRate, from: p.learningRateNote },
  };
}
