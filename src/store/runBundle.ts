// A run as one portable file (`star-lab-run-bundle/1`): its record, metric points, sample episodes
// and newest checkpoint, as JSON with the checkpoint's binary parts in base64 beside their byte
// length and SHA-256. A bundle crosses a trust boundary (a download, another browser, a hand edit),
// so decoding checks everything (schema, sizes, hashes, that every part belongs to the run) and
// throws a BundleError naming the first problem; the store writes nothing from a bundle that fails.
// Pure: no DOM, no tfjs, no IndexedDB (src/store/labStore.ts reads and writes the records).
import * as v from 'valibot';
import { SETTINGS } from '../lab/config.ts';
import { storedConfigProblems } from '../lab/urlState.ts';
import {
  EpisodeSchema,
  MetricPointSchema,
  RunSchema,
  WeightSpecSchema,
  checkRecord,
  type CheckpointRecord,
  type EpisodeRecord,
  type MetricPoint,
  type RunRecord,
  type WeightSpec,
} from './records.ts';

export const BUNDLE_FORMAT = 'star-lab-run-bundle/1';
/** the largest bundle read (characters of JSON): a big model's weights in base64 with room to spare */
export const MAX_BUNDLE_CHARS = 512 * 1024 * 1024;
const MAX_POINTS = 1_000_000;
const MAX_EPISODES = 100_000;

/** a run with everything the lab keeps of it */
export interface RunBundle {
  run: RunRecord;
  metrics: MetricPoint[];
  episodes: EpisodeRecord[];
  /** the newest checkpoint (null: the run never saved one) */
  checkpoint: CheckpointRecord | null;
}

export class BundleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BundleError';
  }
}

const int = v.pipe(v.number(), v.integer(), v.minValue(0));
const EncodedBytesSchema = v.object({
  base64: v.string(),
  bytes: int,
  sha256: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'a SHA-256 is 64 lowercase hex digits')),
});

const BundleFileSchema = v.object({
  format: v.literal(BUNDLE_FORMAT),
  exportedAt: v.pipe(v.number(), v.finite()),
  run: RunSchema,
  metrics: v.pipe(v.array(MetricPointSchema), v.maxLength(MAX_POINTS)),
  episodes: v.pipe(v.array(EpisodeSchema), v.maxLength(MAX_EPISODES)),
  checkpoint: v.nullable(
    v.object({
      runId: v.string(),
      step: int,
      createdAt: v.pipe(v.number(), v.finite()),
      weights: EncodedBytesSchema,
      weightSpecs: v.array(WeightSpecSchema),
      optimizer: EncodedBytesSchema,
      optimizerSpecs: v.array(WeightSpecSchema),
      rngState: v.array(v.number()),
    }),
  ),
});
type BundleFile = v.InferOutput<typeof BundleFileSchema>;
type EncodedBytes = v.InferOutput<typeof EncodedBytesSchema>;

/** The bundle as JSON text (what the page downloads). */
export async function encodeRunBundle(bundle: RunBundle, exportedAt = Date.now()): Promise<string> {
  const cp = bundle.checkpoint;
  const file: BundleFile = {
    format: BUNDLE_FORMAT,
    exportedAt,
    // JSON has no Infinity/NaN: such values would come back as null and fail the schema
    run: { ...bundle.run, summary: { ...bundle.run.summary, last: finiteValues(bundle.run.summary.last) } },
    metrics: bundle.metrics.map((p) => ({ ...p, values: finiteValues(p.values) })),
    episodes: bundle.episodes,
    checkpoint: cp && {
      runId: cp.runId,
      step: cp.step,
      createdAt: cp.createdAt,
      weights: await encodeBytes(cp.weights),
      weightSpecs: cp.weightSpecs,
      optimizer: await encodeBytes(cp.optimizer),
      optimizerSpecs: cp.optimizerSpecs,
      rngState: cp.rngState,
    },
  };
  return JSON.stringify(file);
}

/** Reads a bundle's text; throws a BundleError with the reason when anything is wrong. */
export async function decodeRunBundle(text: string): Promise<RunBundle> {
  if (text.length > MAX_BUNDLE_CHARS) throw new BundleError(`the file is ${mb(text.length)}, more than a bundle can be (${mb(MAX_BUNDLE_CHARS)})`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new BundleError(`the file is not valid JSON (${e instanceof Error ? e.message : String(e)}); is it cut short?`);
  }
  const format = raw !== null && typeof raw === 'object' ? (raw as { format?: unknown }).format : undefined;
  if (format !== BUNDLE_FORMAT) {
    throw new BundleError(`the file is not a STAR Lab run bundle (format ${JSON.stringify(format) ?? 'missing'}, expected "${BUNDLE_FORMAT}")`);
  }
  const checked = checkRecord(BundleFileSchema, raw);
  if (!checked.ok) throw new BundleError(`the bundle does not match its format: ${checked.reason}`);
  const file = checked.value;
  const id = file.run.id;

  for (const p of file.metrics) if (p.runId !== id) throw new BundleError(`the metric point at step ${p.step} belongs to run "${p.runId}", not to the bundle's run "${id}"`);
  for (const e of file.episodes) if (e.runId !== id) throw new BundleError(`the episode at step ${e.step} belongs to run "${e.runId}", not to the bundle's run "${id}"`);
  const steps = new Set<number>();
  for (const p of file.metrics) {
    if (steps.has(p.step)) throw new BundleError(`two metric points at step ${p.step}`);
    steps.add(p.step);
  }
  const episodeKeys = new Set<string>();
  for (const e of file.episodes) {
    const key = `${e.step}/${e.index}`;
    if (episodeKeys.has(key)) throw new BundleError(`two episodes at step ${e.step} with index ${e.index}`);
    episodeKeys.add(key);
  }

  const setup = setupProblem(file);
  if (setup) throw new BundleError(setup);

  let checkpoint: CheckpointRecord | null = null;
  const cp = file.checkpoint;
  if (cp) {
    if (cp.runId !== id) throw new BundleError(`the checkpoint belongs to run "${cp.runId}", not to the bundle's run "${id}"`);
    checkpoint = {
      runId: id,
      step: cp.step,
      createdAt: cp.createdAt,
      weights: await decodeBytes('weights', cp.weights, cp.weightSpecs),
      weightSpecs: cp.weightSpecs,
      optimizer: await decodeBytes('optimizer state', cp.optimizer, cp.optimizerSpecs),
      optimizerSpecs: cp.optimizerSpecs,
      rngState: cp.rngState,
    };
  }
  return { run: file.run, metrics: file.metrics, episodes: file.episodes, checkpoint };
}

/**
 * The first way the bundle's setup is not what its run ran, or null: a config no link could give
 * (checked as a link is: src/lab/urlState.ts), a stage other than the run's kind, a length other
 * than its summary's, or a step past the end. Runs of the first builds (kind 'demo-sort') have no
 * lab setup and are checked only as records.
 */
function setupProblem(file: Pick<BundleFile, 'run' | 'metrics' | 'episodes' | 'checkpoint'>): string | null {
  const { run } = file;
  const problems = storedConfigProblems(run.config);
  if (problems.length) {
    const p = problems[0];
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
    const where = p.key.includes(',') ? `run.config (${p.key})` : `run.config.${p.key}`;
    return `the run's setup is not one a link could give: ${where}${p.message.startsWith('is ') ? ' ' : ': '}${p.message}${more}`;
  }
  if (run.kind !== 'rl' && run.kind !== 'sft') return null;
  const stage = run.config.stage;
  if (stage !== undefined && stage !== run.kind) return `the run is a${run.kind === 'rl' ? 'n RL' : 'n SFT'} run, but its setup says stage ${String(stage)}`;
  const steps = typeof run.config.steps === 'number' ? run.config.steps : SETTINGS.steps.default;
  const total = run.summary.totalSteps;
  if (steps !== total) return `the run's setup says ${steps} steps, its summary ${total}: the setup is not the one it ran`;
  const past = (what: string, step: number) => `${what} at step ${step}, past the run's ${total} steps`;
  if (run.summary.steps > total) return past('the summary ends', run.summary.steps);
  const point = file.metrics.find((p) => p.step > total);
  if (point) return past('a metric point', point.step);
  const episode = file.episodes.find((e) => e.step > total);
  if (episode) return past('an episode', episode.step);
  if (file.checkpoint && file.checkpoint.step > total) return past('the checkpoint', file.checkpoint.step);
  return null;
}

/** bytes a tensor of `spec` takes in tf.io.encodeWeights' layout (null: a string tensor, variable) */
function specBytes(spec: WeightSpec): number | null {
  const size = spec.shape.reduce((a, b) => a * b, 1);
  switch (spec.dtype) {
    case 'float32':
    case 'int32':
      return size * 4;
    case 'bool':
      return size;
    case 'complex64':
      return size * 8;
    default:
      return null;
  }
}

async function encodeBytes(buffer: ArrayBuffer): Promise<EncodedBytes> {
  return { base64: toBase64(new Uint8Array(buffer)), bytes: buffer.byteLength, sha256: await sha256Hex(buffer) };
}

async function decodeBytes(what: string, enc: EncodedBytes, specs: readonly WeightSpec[]): Promise<ArrayBuffer> {
  const bytes = fromBase64(enc.base64);
  if (!bytes) throw new BundleError(`the checkpoint's ${what} are not valid base64`);
  if (bytes.byteLength !== enc.bytes) {
    throw new BundleError(`the checkpoint's ${what} are ${bytes.byteLength} bytes, the bundle says ${enc.bytes} (truncated?)`);
  }
  const sizes = specs.map(specBytes);
  if (sizes.every((s) => s !== null)) {
    const expected = sizes.reduce<number>((a, b) => a + (b ?? 0), 0);
    if (expected !== bytes.byteLength) throw new BundleError(`the checkpoint's ${what} are ${bytes.byteLength} bytes, their tensor list describes ${expected}`);
  }
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const digest = await sha256Hex(buffer);
  if (digest !== enc.sha256) {
    throw new BundleError(`the checkpoint's ${what} do not match their SHA-256 (${digest.slice(0, 12)}…, bundle ${enc.sha256.slice(0, 12)}…): the file is corrupt`);
  }
  return buffer;
}

// btoa/atob work on "binary strings"; in chunks, since spreading megabytes overflows the stack
function toBase64(bytes: Uint8Array): string {
  const CHUNK = 0x8000;
  let binary = '';
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array | null {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function finiteValues(values: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(values).filter(([, x]) => Number.isFinite(x)));
}

async function sha256Hex(data: ArrayBuffer): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', data);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

const mb = (chars: number) => `${(chars / 1024 / 1024).toFixed(1)} MB`;
