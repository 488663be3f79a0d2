// Which tfjs backend trains, chosen by measuring them on this device. The worker times a
// few decode steps and one training micro-batch of the chosen scale's model on each backend the browser
// offers (src/worker/calibration.ts); everything here is the pure part: what a measurement reports,
// the order to measure in, when to stop measuring a backend that has already lost, which one wins,
// and the sentences the page shows. No tfjs, no DOM: unit-tested in Node (test/lab/backendChoice.test.ts).
import { defaultConfig, type LabConfig } from './config.ts';
import { evaluationsLeft, formatStepTime, type StepSample } from './runEstimate.ts';
import { configFromRecord } from './urlState.ts';

export type BackendName = 'webgpu' | 'wasm' | 'cpu';
export type Scale = LabConfig['scale'];

const DEFAULTS = defaultConfig();

/**
 * The calibration's shapes and weights. The shapes are the default RL setup's: a rollout batch of
 * groupSize × queriesPerStep rows (8 × 4 = 32) decoding over a 256-slot KV cache (a rollout's middle; no
 * prompt is prefilled, whose own shaders would only lengthen the warm-up: on a CPU-emulated GPU every
 * new shader costs a compile), and a training micro-batch of 4 rows of 256 tokens (half the default
 * 2048-token budget, microBatchTokens: the first visit pays for it twice, warm-up and timing). The
 * weights turn the two times into the figure compared, an estimate of one default RL step at the scale
 * (decode steps and micro-batches per step, with tool calls, the old and reference log-prob passes and the
 * optimiser folded in), set from RL steps at s on wasm in the browser (docs/performance.md, "How the page
 * picks its backend"): an order of magnitude, which is what the choice and a first ETA need.
 */
export const CALIBRATION = {
  decodeBatch: DEFAULTS.groupSize * DEFAULTS.queriesPerStep,
  cacheSlots: 256,
  /** timed decode steps (after one untimed, which compiles) */
  decodeSteps: 8,
  trainRows: 4,
  trainTokens: 256,
  decodeStepsPerRlStep: 220,
  microBatchesPerRlStep: 18,
  /** a backend still warming up (shader compiles) or timing after this long is left unmeasured */
  capMs: 30_000,
  /** figures within 10 % are a tie: measurement noise on a busy machine is that large */
  tie: 0.1,
} as const;

/** the context length of the model the calibration builds: the shipped checkpoints'
 * (public/checkpoints/<scale>-tiny/card.json) */
export const CALIBRATION_CONTEXT = 576;

/** a tie (or no figure at all) goes to the first of these: wasm's speed does not hang on shader compiles for
 *  the new tensor shapes a run meets (rollout batches shrink, micro-batches change length), which the
 *  calibration's fixed shapes do not see */
export const TIE_ORDER: readonly BackendName[] = ['wasm', 'webgpu', 'cpu'];

/** what measuring one backend came to */
export type FigureStatus =
  | 'measured' // timed to the end: stepMs is its figure
  | 'dropped' // stopped once already slower than another's finished figure: atLeastMs is a lower bound
  | 'capped' // ran past CALIBRATION.capMs before it had a figure
  | 'failed'; // did not start, or threw

export interface BackendFigure {
  backend: BackendName;
  /** the badge's name of it, e.g. 'webgpu · swiftshader', 'wasm · simd · 1 thread' */
  label: string;
  status: FigureStatus;
  /** mean ms of one decode step at CALIBRATION.decodeBatch rows (null: not reached) */
  decodeStepMs: number | null;
  /** ms of one training micro-batch (forward, backward, AdamW) (null: not reached) */
  trainMicroBatchMs: number | null;
  /** the figure compared: estimated ms of one default RL step at this scale (measured only) */
  stepMs: number | null;
  /** dropped: the estimate it had already reached, a lower bound on its stepMs */
  atLeastMs: number | null;
  /** ms this backend's measurement took (start, warm-up with its compiles, timing) */
  costMs: number;
  /** why it was dropped, capped or failed */
  note?: string;
}

/** what the figures were measured on: a stored calibration counts only while all of it is unchanged */
export interface DeviceKey {
  /** the WebGPU adapter (vendor · architecture · description, '(fallback)' when it says so); '' when none */
  adapter: string;
  /** the browser and its version */
  userAgent: string;
  /** the lab's build (its worker bundle's name, which the build hashes from its code) */
  labVersion: string;
  cores: number;
  /** cross-origin isolated: wasm may use threads */
  isolated: boolean;
}

/** one scale's measurement on one device, as kept in IndexedDB (src/store/calibrationStore.ts) */
export interface Calibration {
  scale: Scale;
  device: DeviceKey;
  figures: BackendFigure[];
  choice: BackendName;
  /** Date.now() when it finished */
  measuredAt: number;
  /** ms the whole measurement took */
  costMs: number;
}

/** How the worker came to its backend. */
export type BackendChoice =
  /** `?backend=` in the address; `measured`: this device's stored calibration at the scale, if any, to compare with */
  | { mode: 'forced'; scale: Scale; measured: Calibration | null }
  /** one backend to offer (no WebGPU adapter, say): nothing to measure */
  | { mode: 'only'; scale: Scale }
  /** by measurement; `stored`: read back from an earlier visit (it cost nothing now) */
  | { mode: 'measured'; scale: Scale; calibration: Calibration; stored: boolean };

/** The calibration in progress, for the page: what is finished, and what is being measured. */
export interface CalibrationProgress {
  scale: Scale;
  figures: BackendFigure[];
  current: { backend: BackendName; label: string; phase: string } | null;
  /** ms since the measurement started */
  elapsedMs: number;
}

export const sameDevice = (a: DeviceKey, b: DeviceKey): boolean =>
  a.adapter === b.adapter &&
  a.userAgent === b.userAgent &&
  a.labVersion === b.labVersion &&
  a.cores === b.cores &&
  a.isolated === b.isolated;

/** a WebGPU adapter that emulates a GPU on the CPU (SwiftShader, llvmpipe/lavapipe, or one that says it is a
 * fallback) */
export const looksSoftware = (adapter: string): boolean =>
  /swiftshader|llvmpipe|lavapipe|software|\(fallback\)/i.test(adapter);

/**
 * The order to measure in: the backend likely to win first, so the other can be dropped as soon as
 * it is behind. A software adapter is a hint only — it is still measured — but it goes last.
 */
export function measurementOrder(offered: readonly BackendName[], adapter: string): BackendName[] {
  const first: BackendName[] = looksSoftware(adapter) ? ['wasm', 'webgpu', 'cpu'] : ['webgpu', 'wasm', 'cpu'];
  return first.filter((b) => offered.includes(b));
}

/** the figure from the two times */
export const stepEstimateMs = (decodeStepMs: number, trainMicroBatchMs: number): number =>
  decodeStepMs * CALIBRATION.decodeStepsPerRlStep + trainMicroBatchMs * CALIBRATION.microBatchesPerRlStep;

/**
 * While a backend is being timed: the least its figure can come to from what is measured so far (the
 * fastest decode step seen, and the micro-batch if timed), and whether that already loses to `best`,
 * another backend's finished figure, by more than a tie.
 */
export function alreadySlower(
  decodeStepsMs: readonly number[],
  trainMicroBatchMs: number | null,
  best: number | null,
): { atLeastMs: number; slower: boolean } {
  const fastest = decodeStepsMs.length ? Math.min(...decodeStepsMs) : 0;
  const atLeastMs =
    fastest * CALIBRATION.decodeStepsPerRlStep + (trainMicroBatchMs ?? 0) * CALIBRATION.microBatchesPerRlStep;
  return { atLeastMs, slower: best !== null && atLeastMs > best * (1 + CALIBRATION.tie) };
}

const usable = (f: BackendFigure): f is BackendFigure & { stepMs: number } =>
  f.status === 'measured' && f.stepMs !== null && Number.isFinite(f.stepMs) && f.stepMs > 0;

/**
 * The choice, from the figures alone: the fastest measured backend; figures within CALIBRATION.tie of
 * the fastest are a tie, settled by TIE_ORDER. A dropped backend had already lost; a capped one has no
 * figure and loses to any measured one; a failed one is out. With no figure at all, the first in
 * TIE_ORDER that did not fail; null when every backend failed (the caller falls back to `cpu`).
 */
export function chooseByFigures(figures: readonly BackendFigure[]): BackendName | null {
  const measured = figures.filter(usable);
  const byOrder = (a: BackendFigure, b: BackendFigure) => TIE_ORDER.indexOf(a.backend) - TIE_ORDER.indexOf(b.backend);
  if (measured.length) {
    const best = Math.min(...measured.map((f) => f.stepMs));
    return measured.filter((f) => f.stepMs <= best * (1 + CALIBRATION.tie)).sort(byOrder)[0].backend;
  }
  return figures.filter((f) => f.status !== 'failed').sort(byOrder)[0]?.backend ?? null;
}

/** '1.9 s', '240 ms' */
export function formatMs(ms: number): string {
  if (ms >= 10_000) return `${Math.round(ms / 1000)} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms)} ms`;
}

/** a backend's figure on the badge, a step time as everywhere: '1.9 s/step', '≥ 23.0 s/step', 'no figure …' */
export function figureText(f: BackendFigure): string {
  if (f.status === 'measured' && f.stepMs !== null) return `${formatStepTime(f.stepMs)}/step`;
  if (f.status === 'dropped' && f.atLeastMs !== null) return `≥ ${formatStepTime(f.atLeastMs)}/step`;
  if (f.status === 'capped') return `no figure: still warming up after ${formatMs(CALIBRATION.capMs)}`;
  return `failed${f.note ? `: ${f.note}` : ''}`;
}

/** how the chosen backend compares with another: '12× faster here than webgpu · swiftshader' */
export function comparison(chosen: BackendFigure, other: BackendFigure): string {
  const name = other.label || other.backend;
  if (other.status === 'failed') return `${name} failed${other.note ? ` (${other.note})` : ''}`;
  if (other.status === 'capped') return `${name} had no figure after ${formatMs(CALIBRATION.capMs)} (still compiling)`;
  const theirs = other.status === 'measured' ? other.stepMs : other.atLeastMs;
  if (chosen.stepMs === null || theirs === null) return `chosen over ${name}`;
  const ratio = theirs / chosen.stepMs;
  if (ratio <= 1 + CALIBRATION.tie && ratio >= 1 / (1 + CALIBRATION.tie))
    return `as fast as ${name} here (a tie, within ${CALIBRATION.tie * 100} %)`;
  const times = ratio >= 10 ? Math.round(ratio).toString() : ratio.toFixed(1);
  return ratio > 1
    ? `${other.status === 'dropped' ? 'at least ' : ''}${times}× faster here than ${name}`
    : `${(1 / ratio).toFixed(1)}× slower here than ${name}`;
}

/** The sentence for a calibration: the choice, its figure, and how it compares with each other backend. */
export function describeCalibration(c: Calibration): string {
  const chosen = c.figures.find((f) => f.backend === c.choice);
  if (!chosen) return `${c.choice}: every measured backend failed`;
  const others = c.figures.filter((f) => f !== chosen).map((f) => comparison(chosen, f));
  return `${chosen.label} (${figureText(chosen)} at ${c.scale})${others.length ? ` — ${others.join('; ')}` : ''}`;
}

/**
 * The notice for a forced backend (`?backend=`): what was forced, and how it compares with what this
 * device measured at the scale, where a measurement is stored.
 */
export function forcedNotice(
  forced: { name: BackendName; label: string },
  scale: Scale,
  measured: Calibration | null,
): string {
  const head = `The backend was forced with ?backend=${forced.name} in the address: training runs on ${forced.label}.`;
  if (!measured)
    return `${head} Without it the lab measures the backends this browser offers and trains on the faster; it has not measured them at ${scale} here yet.`;
  const mine = measured.figures.find((f) => f.backend === forced.name);
  const choice = measured.figures.find((f) => f.backend === measured.choice);
  if (measured.choice === forced.name || !choice)
    return `${head} It is also what the lab's own measurement at ${scale} chose here (${describeCalibration(measured)}).`;
  const versus = mine ? `; ${forced.name} measured ${figureText(mine)}` : '';
  return `${head} The lab's own measurement at ${scale} chose ${choice.label} here (${figureText(choice)}${versus}); remove ?backend= to train on it.`;
}

/** a backend's own figure in a calibration (null: not measured to the end) */
export function figureOf(c: Calibration, backend: BackendName): number | null {
  return c.figures.find((f) => f.backend === backend && f.status === 'measured')?.stepMs ?? null;
}

/** what a stored run's summary says of its times (src/store/records.ts RunSummarySchema) */
interface RunTimes { meanStepMs?: number; meanEvalMs?: number; wallMs?: number; steps?: number }

/**
 * A completed run's start: its wall time less its steps and evaluations at their means — the model build, the
 * starting point's load, the warm-up steps' excess and the end's checkpoint and samples. null where the run
 * kept no wall time (older builds, resumed runs) or no evaluation time.
 */
function startOf(config: LabConfig, t: RunTimes): number | null {
  if (!t.wallMs || !t.meanStepMs || !t.meanEvalMs) return null;
  const steps = t.steps ?? config.steps;
  return Math.max(0, t.wallMs - t.meanStepMs * steps - t.meanEvalMs * evaluationsLeft(steps, config.evalEvery, 0));
}

/**
 * The times the run estimate scales from (runEstimate.ts): the stored
 * RL runs that trained on `backend`, and — at a scale none of them ran at — that backend's calibration
 * figure as one step of the default setup there. A figure measured on another backend never counts.
 */
export function stepSamplesFor(
  runs: readonly { kind: string; backend: string; config: Record<string, unknown>; status?: string;
    summary: RunTimes }[],
  backend: BackendName | null,
  calibrations: readonly Calibration[],
): StepSample[] {
  if (!backend) return [];
  const samples: StepSample[] = runs.flatMap((r) => {
    if (r.kind !== 'rl' || !r.summary.meanStepMs || backendOfLabel(r.backend) !== backend) return [];
    const config = configFromRecord(r.config).config;
    const start = r.status === 'completed' ? startOf(config, r.summary) : null;
    return [{ config, meanStepMs: r.summary.meanStepMs,
      ...(r.summary.meanEvalMs ? { meanEvalMs: r.summary.meanEvalMs } : {}),
      ...(start !== null ? { startMs: start } : {}) }];
  });
  for (const c of calibrations) {
    const ms = figureOf(c, backend);
    if (ms === null || samples.some((s) => s.config.scale === c.scale)) continue;
    const start = calibrationStartMs(c, backend);
    samples.push({ config: { ...DEFAULTS, mix: [...DEFAULTS.mix], stage: 'rl', scale: c.scale }, meanStepMs: ms,
      calibration: true, ...(start !== null ? { startMs: start } : {}) });
  }
  return samples;
}

/**
 * What the calibration measured of a start on `backend`: its cost less the steps it timed — building the model and
 * the first decode step and micro-batch, which compile their shaders. A floor of a run's start (which also loads
 * its starting point and builds its world); null without a measured figure.
 */
export function calibrationStartMs(c: Calibration, backend: BackendName): number | null {
  const f = c.figures.find((x) => x.backend === backend && x.status === 'measured');
  if (!f || f.decodeStepMs === null || f.trainMicroBatchMs === null) return null;
  return Math.max(0, f.costMs - CALIBRATION.decodeSteps * f.decodeStepMs - f.trainMicroBatchMs);
}

/** the backend as the page knows it (BackendInfo, src/worker/api.ts) */
export interface ChosenBackend {
  name: BackendName;
  label: string;
  fallbackReason?: string;
  choice?: BackendChoice;
}

/** the calibration behind a backend: the measurement it was chosen by, or (forced) this device's stored one */
export function calibrationOf(backend: ChosenBackend | null): Calibration | null {
  const c = backend?.choice;
  return c?.mode === 'measured' ? c.calibration : c?.mode === 'forced' ? c.measured : null;
}

/** The page's notice about its backend, when there is something to say beyond the badge (null: nothing). */
export function backendNotice(backend: ChosenBackend): string | null {
  const c = backend.choice;
  if (c?.mode === 'forced') return forcedNotice(backend, c.scale, c.measured);
  if (backend.name === 'cpu')
    return `Training runs on cpu, plain JavaScript and the slowest backend: ${backend.fallbackReason ?? 'no other backend started'}.`;
  // no WebGPU here, so the lab trains on WebAssembly as designed: the badge's reason says why, no notice
  if (c?.mode === 'only') return null;
  if (backend.fallbackReason) return `Training runs on ${backend.label}: ${backend.fallbackReason}.`;
  return null;
}

/** What a run keeps of how its backend was chosen (RunRecord.calibration; the Runs view and bundles show it). */
export interface RunCalibration {
  mode: BackendChoice['mode'];
  scale: Scale;
  /** the measurement behind the choice (forced: this device's measurement at the scale, if one was stored) */
  figures: BackendFigure[];
  /** what the measurement chose (null: nothing measured) */
  choice: BackendName | null;
  measuredAt: number | null;
  /** the sentence shown, e.g. 'wasm · simd · 1 thread (1.9 s/step at s) — at least 12× faster here than webgpu ·
   * swiftshader' */
  summary: string;
}

/** the run's record of its backend choice */
export function runCalibration(
  backend: { name: BackendName; label: string; fallbackReason?: string },
  choice: BackendChoice,
): RunCalibration {
  const measured = choice.mode === 'measured' ? choice.calibration : choice.mode === 'forced' ? choice.measured : null;
  const summary =
    choice.mode === 'measured'
      ? `measured: ${describeCalibration(choice.calibration)}`
      : choice.mode === 'forced'
        ? `forced with ?backend=${backend.name}${measured ? `; measured here at ${measured.scale}: ${describeCalibration(measured)}` : ''}`
        : `the only backend offered${backend.fallbackReason ? ` (${backend.fallbackReason})` : ''}`;
  return {
    mode: choice.mode,
    scale: choice.scale,
    figures: measured?.figures ?? [],
    choice: measured?.choice ?? null,
    measuredAt: measured?.measuredAt ?? null,
    summary,
  };
}

/** the backend of a run record's label ('wasm · simd · 1 thread' → 'wasm'), null when it names none */
export function backendOfLabel(label: string): BackendName | null {
  const name = label.split(' ')[0];
  return name === 'webgpu' || name === 'wasm' || name === 'cpu' ? name : null;
}

/** one backend's name and figure for the badge's second line: 'webgpu ≥ 23 s' (the headline has the full names) */
const figureBrief = (f: BackendFigure): string =>
  `${f.backend} ${f.status === 'measured' || f.status === 'dropped' ? figureText(f).replace('/step', '') : figureText(f)}`;

/** what the calibration's figure estimates: one RL step of the default setup (its rollouts per step) */
const DEFAULT_STEP_WORDS = `a default RL step (${DEFAULTS.queriesPerStep} queries × ${DEFAULTS.groupSize} rollouts)`;

/** The badge's one line, in plain words (the backend's own label and why it was chosen are one tap away): e.g.
 *  "CPU (WebAssembly), 1 thread". `threads`: wasm's thread count (1 when not known). */
export function badgeHeadline(
  backend: (ChosenBackend & { threads?: number }) | null,
  measuring: CalibrationProgress | null,
): string | null {
  if (measuring) return `Measuring the backends at ${measuring.scale}… (${Math.round(measuring.elapsedMs / 1000)} s)`;
  if (!backend) return null;
  const threads = backend.threads ?? 1;
  const plain =
    backend.name === 'webgpu'
      ? 'GPU (WebGPU)'
      : backend.name === 'wasm'
        ? `CPU (WebAssembly), ${threads} thread${threads === 1 ? '' : 's'}`
        : 'CPU (plain JavaScript, the slowest)';
  return backend.choice?.mode === 'forced' ? `${plain}, forced` : plain;
}

/** What the header's badge says: the backend (its label, in the mono font) and how it compares or was chosen; then the
 *  figures behind it, or the measurement under way. */
export function badgeText(
  backend: ChosenBackend | null,
  measuring: CalibrationProgress | null,
): { label: string; note: string; detail: string } | null {
  if (measuring) {
    const done = measuring.figures.map(figureBrief);
    const now = measuring.current
      ? [`${measuring.current.label.replace(/ \(.*\)$/, '')}: ${measuring.current.phase}…`]
      : [];
    return {
      label: '',
      note: `Measuring the backends at ${measuring.scale}… (${Math.round(measuring.elapsedMs / 1000)} s)`,
      detail: [...done, ...now].join(' · '),
    };
  }
  if (!backend) return null;
  const c = backend.choice;
  if (c?.mode === 'measured') {
    const chosen = c.calibration.figures.find((f) => f.backend === backend.name);
    const others = chosen ? c.calibration.figures.filter((f) => f !== chosen).map((f) => comparison(chosen, f)) : [];
    const when = c.stored ? 'measured on an earlier visit' : `measured just now in ${formatMs(c.calibration.costMs)}`;
    // an estimate of a default step from a short timing, not a run's measured step time (the Step time tile): said so
    return {
      label: backend.label,
      note: others.join('; '),
      detail: `${DEFAULT_STEP_WORDS} at ${c.scale}, estimated from a short timing: ${c.calibration.figures.map(figureBrief).join(' · ')} (${when})`,
    };
  }
  if (c?.mode === 'forced') {
    const m = c.measured;
    const detail = m
      ? `measured here at ${c.scale}: ${m.figures.map(figureBrief).join(' · ')}; the measurement chose ${m.choice}`
      : `not measured at ${c.scale} here: open the page without ?backend= to measure`;
    return { label: backend.label, note: `forced with ?backend=${backend.name}`, detail };
  }
  return {
    label: backend.label,
    note: '',
    detail:
      c?.mode === 'only' ? `the only backend here${backend.fallbackReason ? ` (${backend.fallbackReason})` : ''}` : '',
  };
}

/**
 * Why wasm trains on one thread on a machine of `cores` (< 4) cores, in plain words for the badge: on 2
 * cores a second thread made training slower (0.77–0.96× in Node, bench model wasm.threads.*), as one core
 * stays with the page and these models' matrix products are too small to split across a busy core.
 */
export function fewCoresReason(cores: number): string {
  if (cores <= 1) return 'this machine has 1 core, so the work runs on one';
  return `this machine has ${cores} cores; splitting the work across cores only speeds it up from 4 cores on, so it runs on one`;
}

/**
 * Why wasm keeps to one thread in this browser whatever its cores, or null. Firefox (ESR 153 here): the threaded
 * build creates its pool of 8 workers from the training worker, and on 4 of 10 cross-origin isolated loads that
 * blocked the training worker for good — no timer of its own fires again, so only the plain build avoids it.
 */
export function threadsRefusedBy(userAgent: string): string | null {
  return /\bFirefox\//.test(userAgent)
    ? 'in Firefox the threaded build hangs on some page loads, so it runs on one'
    : null;
}
