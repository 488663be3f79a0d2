// Checkpoints on disk (Node only): the shipped layout of a policy (model.json + weights.bin +
// card.json, see rl/checkpointFiles.ts) and the resume state of a run in progress (resume/: weights,
// AdamW moments, RNG state and step, so `--resume` continues exactly where the run stopped).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DirtyFile } from './provenance.ts';
import type * as tf from '@tensorflow/tfjs';
import {
  modelJson,
  parseCard,
  PRETRAIN_CARD_FORMAT,
  RL_POLICY_CARD_FORMAT,
  validateCheckpoint,
  validatePretrain,
  validateRlPolicy,
  WEIGHTS_FILE,
  type PretrainCard,
  type RlPolicyCard,
  type SftCard,
  type ValidCheckpoint,
  type ValidRlPolicy,
  type ValidWeights,
} from '../rl/checkpointFiles.ts';
import type { Checkpoint } from '../rl/checkpoint.ts';
import type { ModelConfig } from '../model/config.ts';

// a crash mid-write must not leave a truncated checkpoint: every file here is written whole or not at all
import { writeAtomic } from './atomicWrite.ts';

function bytes(buffer: ArrayBuffer): Uint8Array {
  return new Uint8Array(buffer);
}

function readBuffer(path: string): ArrayBuffer {
  const b = readFileSync(path);
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
}

function readJson(path: string): unknown {
  const text = readFileSync(path, 'utf8');
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${path} is not valid JSON (${e instanceof Error ? e.message : String(e)})`, { cause: e });
  }
}

/** the weights (model.json + weights.bin) of a policy; the card is written separately, last */
export function writePolicyFiles(
  dir: string,
  config: ModelConfig,
  weights: ArrayBuffer,
  specs: readonly tf.io.WeightsManifestEntry[],
): void {
  mkdirSync(dir, { recursive: true });
  writeAtomic(join(dir, WEIGHTS_FILE), bytes(weights));
  writeAtomic(join(dir, 'model.json'), JSON.stringify(modelJson(config, specs), null, 1) + '\n');
}

export function writeCard(dir: string, card: SftCard | PretrainCard): void {
  writeAtomic(join(dir, 'card.json'), JSON.stringify(card, null, 1) + '\n');
}

/** the SFT checkpoint shipped for a scale: an RL run's default start */
export function shippedCheckpointDir(scale: string): string {
  return resolve(process.cwd(), 'public', 'checkpoints', `${scale}-tiny`);
}

/** reads and validates a checkpoint folder; throws with the reason (a missing file, a bad card, a corrupt shard) */
export async function readCheckpointDir(dir: string): Promise<ValidCheckpoint> {
  for (const f of ['model.json', WEIGHTS_FILE, 'card.json']) {
    if (!existsSync(join(dir, f))) throw new Error(`${dir} is not a checkpoint: ${f} is missing`);
  }
  return validateCheckpoint(
    readJson(join(dir, 'model.json')),
    readBuffer(join(dir, WEIGHTS_FILE)),
    readJson(join(dir, 'card.json')),
  );
}

/** reads and validates a pretraining run's folder; an SFT or RL checkpoint, or an unfinished run, is refused by name */
export async function readPretrainDir(dir: string): Promise<ValidWeights & { card: PretrainCard }> {
  if (!existsSync(join(dir, 'card.json')) && existsSync(join(dir, 'resume', 'state.json'))) {
    throw new Error(
      `${dir} is a pretraining run still in progress (no card.json yet); finish it with \`pretrain … --resume\` first`,
    );
  }
  for (const f of ['model.json', WEIGHTS_FILE, 'card.json']) {
    if (!existsSync(join(dir, f))) throw new Error(`${dir} is not a pretrain checkpoint: ${f} is missing`);
  }
  const card = readJson(join(dir, 'card.json'));
  const format = card && typeof card === 'object' ? (card as { format?: unknown }).format : undefined;
  if (format !== PRETRAIN_CARD_FORMAT) {
    throw new Error(
      `${dir} is not a pretrain checkpoint: its card's format is ${JSON.stringify(format ?? null)}, not ${PRETRAIN_CARD_FORMAT} ` +
        '(--from takes the --out folder of `npm run cli -- pretrain`)',
    );
  }
  return validatePretrain(readJson(join(dir, 'model.json')), readBuffer(join(dir, WEIGHTS_FILE)), card);
}

export function writeRlPolicyCard(dir: string, card: RlPolicyCard): void {
  writeAtomic(join(dir, 'card.json'), JSON.stringify(card, null, 1) + '\n');
}

/** an SFT checkpoint or an RL run's policy folder, told apart by its card's format; validated like readCheckpointDir */
export async function readPolicyDir(
  dir: string,
): Promise<{ kind: 'sft'; checkpoint: ValidCheckpoint } | { kind: 'rl'; policy: ValidRlPolicy }> {
  for (const f of ['model.json', WEIGHTS_FILE, 'card.json']) {
    if (!existsSync(join(dir, f))) throw new Error(`${dir} is not a checkpoint: ${f} is missing`);
  }
  const card = readJson(join(dir, 'card.json'));
  const format = card && typeof card === 'object' ? (card as { format?: unknown }).format : undefined;
  if (format === RL_POLICY_CARD_FORMAT) {
    return {
      kind: 'rl',
      policy: await validateRlPolicy(readJson(join(dir, 'model.json')), readBuffer(join(dir, WEIGHTS_FILE)), card),
    };
  }
  // anything else is read as an SFT card, whose parser names what is wrong with it
  return {
    kind: 'sft',
    checkpoint: await validateCheckpoint(readJson(join(dir, 'model.json')), readBuffer(join(dir, WEIGHTS_FILE)), card),
  };
}

export function readCard(dir: string): SftCard {
  return parseCard(readJson(join(dir, 'card.json')), join(dir, 'card.json'));
}

interface ResumeState {
  format: 'star-lab-resume/1';
  /** what the run was started with; a resume with other options is refused */
  fingerprint: string;
  step: number;
  rngState: number[];
  /** an adaptive curriculum's stage (absent otherwise) */
  curriculumStage?: Checkpoint['curriculumStage'];
  config: ModelConfig;
  weightSpecs: tf.io.WeightsManifestEntry[];
  optimizerSpecs: tf.io.WeightsManifestEntry[];
  /** run-specific extras (e.g. the loss curve so far) */
  extra: Record<string, unknown>;
  /** the shards' names: each save writes new files named by its step, so a save cut short leaves the last
   *  complete one whole (absent in states written before: weights.bin, optimizer.bin) */
  files?: { weights: string; optimizer: string };
}

export function writeResumeState(
  dir: string,
  ckpt: Checkpoint,
  fingerprint: string,
  extra: Record<string, unknown> = {},
): void {
  const d = join(dir, 'resume');
  mkdirSync(d, { recursive: true });
  const files = { weights: `weights.${ckpt.step}.bin`, optimizer: `optimizer.${ckpt.step}.bin` };
  try {
    writeAtomic(join(d, files.weights), bytes(ckpt.weights));
    writeAtomic(join(d, files.optimizer), bytes(ckpt.optimizer));
  } catch (e) {
    // a save cut short (a full disk) leaves the previous state whole and no shard of its own beside it
    const standing = savedFiles(d);
    for (const f of Object.values(files)) if (!standing.includes(f)) rmSync(join(d, f), { force: true });
    throw e;
  }
  const state: ResumeState = {
    format: 'star-lab-resume/1',
    fingerprint,
    step: ckpt.step,
    rngState: ckpt.rngState,
    ...(ckpt.curriculumStage ? { curriculumStage: ckpt.curriculumStage } : {}),
    config: ckpt.config,
    weightSpecs: ckpt.weightSpecs,
    optimizerSpecs: ckpt.optimizerSpecs,
    extra,
    files,
  };
  // state.json last: it names the shards of its step; until it is written the previous state and its shards stand
  writeAtomic(join(d, 'state.json'), JSON.stringify(state) + '\n');
  for (const f of readdirSync(d))
    if (f.endsWith('.bin') && f !== files.weights && f !== files.optimizer) rmSync(join(d, f), { force: true });
}

/** the shard files the resume state in `d` names (none when it has no readable state) */
function savedFiles(d: string): string[] {
  try {
    const s = readJson(join(d, 'state.json')) as Partial<ResumeState>;
    return s.files ? Object.values(s.files) : [];
  } catch {
    return [];
  }
}

/** the saved state of an interrupted run in DIR, or null when there is none */
export function readResumeState(
  dir: string,
  fingerprint: string,
): { ckpt: Checkpoint; extra: Record<string, unknown> } | null {
  const d = join(dir, 'resume');
  if (!existsSync(join(d, 'state.json'))) return null;
  const s = readJson(join(d, 'state.json')) as ResumeState;
  if (s.format !== 'star-lab-resume/1') throw new Error(`${d}/state.json is not a STAR Lab resume state`);
  if (s.fingerprint !== fingerprint) {
    throw new Error(
      `${d} was saved by a run with other options (${s.fingerprint}); resume with the same options or use another --out`,
    );
  }
  const files = s.files ?? { weights: 'weights.bin', optimizer: 'optimizer.bin' };
  const ckpt: Checkpoint = {
    weights: readBuffer(join(d, files.weights)),
    weightSpecs: s.weightSpecs,
    optimizer: readBuffer(join(d, files.optimizer)),
    optimizerSpecs: s.optimizerSpecs,
    rngState: s.rngState,
    step: s.step,
    ...(s.curriculumStage ? { curriculumStage: s.curriculumStage } : {}),
    config: s.config,
  };
  return { ckpt, extra: s.extra ?? {} };
}

/** the resume state in DIR handed to a run with a new fingerprint (one that goes on for more steps), `extra`
 *  merged into its own; only state.json is rewritten (atomically: the old one or the new one stands). Returns
 *  the saved step, or null when there is no state; refused when it was saved by a run of neither fingerprint. */
export function restampResumeState(
  dir: string,
  from: string,
  to: string,
  extra: (saved: Record<string, unknown>) => Record<string, unknown>,
): number | null {
  const p = join(dir, 'resume', 'state.json');
  if (!existsSync(p)) return null;
  const s = readJson(p) as ResumeState;
  if (s.format !== 'star-lab-resume/1') throw new Error(`${p} is not a STAR Lab resume state`);
  if (s.fingerprint !== from && s.fingerprint !== to)
    throw new Error(`${dir}/resume was saved by a run with other options (${s.fingerprint}); use another --out`);
  writeAtomic(p, JSON.stringify({ ...s, fingerprint: to, extra: { ...s.extra, ...extra(s.extra ?? {}) } }) + '\n');
  return s.step;
}

/** what a training command (pretrain, sft) carries from session to session besides its weights and optimizer */
export interface RunProgress {
  /** seconds of training so far (of the sessions before this one, when read back) */
  trainSeconds: number;
  lastLoss: number;
  /** the code that trains: a resumed run keeps the commit it started at */
  commit: string;
  /** the files that differed from it when the run started (only with --allow-dirty) */
  dirtyFiles?: DirtyFile[];
}

/**
 * `--resume` for a training command: the state saved in DIR/resume (refused when it was saved with
 * another fingerprint, i.e. other options) and the run's progress so far; null when there is none,
 * which is said on stderr (the run starts fresh). `extra` holds the command's own saved fields.
 */
export function resumeTraining(dir: string, fingerprint: string, commit: string):
  { ckpt: Checkpoint; progress: RunProgress; extra: Record<string, unknown> } | null {
  const saved = readResumeState(dir, fingerprint);
  if (!saved) {
    console.error(`nothing to resume in ${dir}; starting fresh`);
    return null;
  }
  const { ckpt, extra } = saved;
  return {
    ckpt,
    extra,
    progress: {
      trainSeconds: Number(extra.trainSeconds ?? 0),
      lastLoss: Number(extra.lastLoss ?? NaN),
      commit: String(extra.commit ?? commit),
    },
  };
}

/** saves a training command's resume state: its progress, then the command's own fields (what resumeTraining reads
 * back) */
export function saveTraining(
  dir: string,
  ckpt: Checkpoint,
  fingerprint: string,
  progress: RunProgress,
  extra: Record<string, unknown> = {},
): void {
  writeResumeState(dir, ckpt, fingerprint, { ...progress, ...extra });
}

/** the run is complete: its card and weights are the record, the resume state goes */
export function removeResumeState(dir: string): void {
  rmSync(join(dir, 'resume'), { recursive: true, force: true });
}

