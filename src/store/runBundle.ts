// A run as one portable file (`star-lab-run-bundle/1`): its record, metric points, sample episodes
// and newest checkpoint, as JSON with the checkpoint's binary parts in base64 beside their byte
// length and SHA-256. A bundle crosses a trust boundary (a download, another browser, a hand edit),
// so decoding checks everything (schema, sizes, hashes, that every part belongs to the run) and
// throws a BundleError naming every fault it found (fixing one at a time and importing
// again to meet the next is a poor way to learn what is wrong); the store writes nothing from a
// bundle that fails.
// Pure: no DOM, no tfjs, no IndexedDB (src/store/labStore.ts reads and writes the records).
import { dequal } from 'dequal';
import * as v from 'valibot';
import { SETTINGS } from '../lab/config.ts';
import { storedConfigProblems } from '../lab/urlState.ts';
import {
  EpisodeSchema,
  MetricPointSchema,
  RunSchema,
  WeightSpecSchema,
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
  /** every fault found, each a sentence of its own (the message names them all) */
  readonly faults: readonly string[];
  constructor(faults: string | readonly string[]) {
    const list = typeof faults === 'string' ? [faults] : faults;
    super(
      list.length === 1
        ? list[0]
        : `the bundle has ${list.length} faults: ${list.map((f, i) => `(${i + 1}) ${f}`).join('; ')}`,
    );
    this.name = 'BundleError';
    this.faults = list;
  }
}

/** faults listed in full; past this many the message counts the rest (a file of garbage has thousands) */
const MAX_LISTED = 10;

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
      curriculumStage: v.optional(v.picklist(['sum', 'macro', 'success'])),
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
      ...(cp.curriculumStage ? { curriculumStage: cp.curriculumStage } : {}),
    },
  };
  return JSON.stringify(file);
}

/** Reads a bundle's text; throws a BundleError with the reason when anything is wrong. */
export async function decodeRunBundle(text: string): Promise<RunBundle> {
  if (text.length > MAX_BUNDLE_CHARS)
    throw new BundleError(`the file is ${mb(text.length)}, more than a bundle can be (${mb(MAX_BUNDLE_CHARS)})`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new BundleError(
      `the file is not valid JSON (${e instanceof Error ? e.message : String(e)}); is it cut short?`,
    );
  }
  const format = raw !== null && typeof raw === 'object' ? (raw as { format?: unknown }).format : undefined;
  if (format !== BUNDLE_FORMAT) {
    throw new BundleError(
      `the file is not a STAR Lab run bundle (format ${JSON.stringify(format) ?? 'missing'}, expected "${BUNDLE_FORMAT}")`,
    );
  }
  const parsed = v.safeParse(BundleFileSchema, raw);
  if (!parsed.success) {
    // every schema issue, not the first: valibot checks the whole file before it answers
    const faults = parsed.issues.map((issue) => {
      const path = issue.path?.map((p) => String(p.key)).join('.') ?? '';
      return `the bundle does not match its format: ${path ? `${path}: ` : ''}${issue.message}`;
    });
    throw new BundleError(listed(faults));
  }
  const file = parsed.output;
  const id = file.run.id;
  const faults: string[] = [];

  for (const p of file.metrics)
    if (p.runId !== id)
      faults.push(`the metric point at step ${p.step} belongs to run "${p.runId}", not to the bundle's run "${id}"`);
  for (const e of file.episodes)
    if (e.runId !== id)
      faults.push(`the episode at step ${e.step} belongs to run "${e.runId}", not to the bundle's run "${id}"`);
  const steps = new Set<number>();
  for (const p of file.metrics) {
    if (steps.has(p.step)) faults.push(`two metric points at step ${p.step}`);
    steps.add(p.step);
  }
  const episodeKeys = new Set<string>();
  for (const e of file.episodes) {
    const key = `${e.step}/${e.index}`;
    if (episodeKeys.has(key)) faults.push(`two episodes at step ${e.step} with index ${e.index}`);
    episodeKeys.add(key);
  }
  faults.push(...setupProblems(file));

  let checkpoint: CheckpointRecord | null = null;
  const cp = file.checkpoint;
  if (cp) {
    if (cp.runId !== id) faults.push(`the checkpoint belongs to run "${cp.runId}", not to the bundle's run "${id}"`);
    const weights = await decodeBytes('weights', cp.weights, cp.weightSpecs);
    const optimizer = await decodeBytes('optimizer state', cp.optimizer, cp.optimizerSpecs);
    for (const part of [weights, optimizer]) if (typeof part === 'string') faults.push(part);
    if (typeof weights !== 'string' && typeof optimizer !== 'string') {
      checkpoint = {
        runId: id,
        step: cp.step,
        createdAt: cp.createdAt,
        weights,
        weightSpecs: cp.weightSpecs,
        optimizer,
        optimizerSpecs: cp.optimizerSpecs,
        rngState: cp.rngState,
        ...(cp.curriculumStage ? { curriculumStage: cp.curriculumStage } : {}),
      };
    }
  }
  if (faults.length) throw new BundleError(listed(faults));
  return { run: file.run, metrics: file.metrics, episodes: file.episodes, checkpoint };
}

/**
 * Every way the bundle's setup is not what its run ran: a config no link could give (checked as a
 * link is: src/lab/urlState.ts), a stage other than the run's kind, a length other than its
 * summary's, or a step past the end. Runs of the first builds (kind 'demo-sort') have no lab setup
 * and are checked only as records.
 */
function setupProblems(file: Pick<BundleFile, 'run' | 'metrics' | 'episodes' | 'checkpoint'>): string[] {
  const { run } = file;
  const configProblems = storedConfigProblems(run.config);
  const faults = configProblems.map((p) => {
    const where = p.key.includes(',') ? `run.config (${p.key})` : `run.config.${p.key}`;
    return `the run's setup is not one a link could give: ${where}${p.message.startsWith('is ') ? ' ' : ': '}${p.message}`;
  });
  if (run.kind !== 'rl' && run.kind !== 'sft') return faults;
  // a setting already refused above is not compared again (a −5 steps would also "differ from the summary")
  const refused = (key: string) => configProblems.some((p) => p.key === key);
  const stage = run.config.stage;
  if (stage !== undefined && !refused('stage') && stage !== run.kind)
    faults.push(`the run is a${run.kind === 'rl' ? 'n RL' : 'n SFT'} run, but its setup says stage ${String(stage)}`);
  const total = run.summary.totalSteps;
  const steps = typeof run.config.steps === 'number' ? run.config.steps : SETTINGS.steps.default;
  if (!refused('steps') && steps !== total)
    faults.push(`the run's setup says ${steps} steps, its summary ${total}: the setup is not the one it ran`);
  const past = (what: string, step: number) => `${what} at step ${step}, past the run's ${total} steps`;
  if (run.summary.steps > total) faults.push(past('the summary ends', run.summary.steps));
  const point = file.metrics.find((p) => p.step > total);
  if (point) faults.push(past('a metric point', point.step));
  const episode = file.episodes.find((e) => e.step > total);
  if (episode) faults.push(past('an episode', episode.step));
  if (file.checkpoint && file.checkpoint.step > total) faults.push(past('the checkpoint', file.checkpoint.step));
  return faults;
}

/** the faults to name: all of them up to MAX_LISTED, then a count of the rest */
function listed(faults: string[]): string[] {
  if (faults.length <= MAX_LISTED) return faults;
  return [...faults.slice(0, MAX_LISTED), `${faults.length - MAX_LISTED} more faults not listed`];
}

/** the status a bundle's run is stored with: a running or paused run arrives interrupted (no worker runs it here) */
export const importedStatus = (status: RunRecord['status']): RunRecord['status'] =>
  status === 'running' || status === 'paused' ? 'interrupted' : status;

/**
 * Whether two bundles hold the same run, whatever id each is stored under: the same record (its
 * status as an import stores it), points, episodes and checkpoint, byte for byte. A bundle imported
 * again is then recognised rather than stored as a second copy. dequal compares the
 * ArrayBuffers' bytes and ignores key order (a record read back from IndexedDB need not keep it).
 */
export function sameRun(a: RunBundle, b: RunBundle): boolean {
  const plain = (x: RunBundle) => ({
    run: { ...x.run, id: '', status: importedStatus(x.run.status) },
    metrics: [...x.metrics].sort((p, q) => p.step - q.step).map((p) => ({ ...p, runId: '' })),
    episodes: [...x.episodes].sort((e, f) => e.step - f.step || e.index - f.index).map((e) => ({ ...e, runId: '' })),
    checkpoint: x.checkpoint && { ...x.checkpoint, runId: '' },
  });
  return dequal(plain(a), plain(b));
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

/** the bytes, or the fault that keeps them out */
async function decodeBytes(
  what: string,
  enc: EncodedBytes,
  specs: readonly WeightSpec[],
): Promise<ArrayBuffer | string> {
  const bytes = fromBase64(enc.base64);
  if (!bytes) return `the checkpoint's ${what} are not valid base64`;
  if (bytes.byteLength !== enc.bytes)
    return `the checkpoint's ${what} are ${bytes.byteLength} bytes, the bundle says ${enc.bytes} (truncated?)`;
  const sizes = specs.map(specBytes);
  if (sizes.every((s) => s !== null)) {
    const expected = sizes.reduce<number>((a, b) => a + (b ?? 0), 0);
    if (expected !== bytes.byteLength)
      return `the checkpoint's ${what} are ${bytes.byteLength} bytes, their tensor list describes ${expected}`;
  }
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const digest = await sha256Hex(buffer);
  if (digest !== enc.sha256) {
    return `the checkpoint's ${what} do not match their SHA-256 (${digest.slice(0, 12)}…, bundle ${enc.sha256.slice(0, 12)}…): the file is corrupt`;
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
