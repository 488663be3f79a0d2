// The training worker's API as the page sees it (through Comlink.Remote). Types only: the page
// imports this file, never tfjs.
import type { LabConfig } from '../lab/config.ts';
import type { MetricPoint, RunStatus } from '../store/records.ts';
import type { BackendChoice, BackendName, CalibrationProgress, Scale } from '../lab/backendChoice.ts';

export interface BackendInfo {
  name: BackendName;
  /** WebGPU adapter vendor and architecture, e.g. 'google' / 'swiftshader' ('' when unknown) */
  vendor: string;
  architecture: string;
  /** the badge text: 'webgpu · swiftshader', 'wasm · simd · 2 threads', 'cpu'; a single-threaded wasm
   *  says why in brackets, e.g. 'wasm · simd · 1 thread (not cross-origin isolated: …)' */
  label: string;
  /** wasm: the XNNPACK threads (1 unless the page is cross-origin isolated) */
  threads?: number;
  /** whether the worker is cross-origin isolated (COOP/COEP), which threads need */
  crossOriginIsolated?: boolean;
  /** why a backend was not used, if one was tried and failed */
  fallbackReason?: string;
  /** how it was chosen: measured on this device (and the figures), forced with ?backend=, or the only one */
  choice?: BackendChoice;
}

/** the calibration's progress, streamed to the page while it measures */
export type MeasureListener = (progress: CalibrationProgress) => void;

export interface RunProgress {
  runId: string;
  status: RunStatus;
  step: number;
  totalSteps: number;
  /** estimated ms to finish, from the recent step times (null before there is enough data) */
  etaMs: number | null;
  /** mean step time so far (ms) */
  meanStepMs: number | null;
  /** what the job is doing now, e.g. 'evaluating the starting point' (absent: training steps) */
  phase?: string;
  /** how many times the run stored sample episodes so far (the page reloads them when this grows) */
  episodes?: number;
  /** set when status is 'failed' (or a checkpoint/store write failed) */
  error?: string;
  /** step of the run's newest stored checkpoint (absent: none yet) */
  checkpointStep?: number;
  /** the WebGPU device was lost: the run is 'interrupted'; a new worker resumes it from its checkpoint */
  deviceLost?: boolean;
  /** the last store write failed because browser storage is full (points are kept and written later) */
  storeFull?: boolean;
}

/** a run the worker found left 'running' or 'paused' by a page that closed (or a worker that died) */
export interface InterruptedRun {
  runId: string;
  /** its status when the page went away: a 'running' one is resumed by itself */
  was: 'running' | 'paused';
}

/** What the worker streams to the page; sent in batches (a few per second), never per op. */
export type WorkerEvent =
  | { type: 'points'; runId: string; points: MetricPoint[] }
  | { type: 'progress'; progress: RunProgress };

export type WorkerListener = (events: WorkerEvent[]) => void;

export interface StartRequest {
  /** `config.stage` picks the job: RL (default) or SFT */
  config: LabConfig;
  /** RL: where it starts (default: the checkpoint shipped for `config.scale`); ignored by SFT */
  startingPoint?: StartingPointSource;
  /** continue this stored run from its newest checkpoint instead of starting a new one */
  resumeRunId?: string;
}

/** Where the RL stage starts: a shipped SFT checkpoint of a scale (served from the lab's origin), or
 *  the newest checkpoint of a stored SFT run. */
export type StartingPointSource = { kind: 'shipped'; scale: 's' | 'm' | 'l' } | { kind: 'run'; runId: string };

/** validation figures of a starting point (null: not measured, e.g. no tool-QA tasks) */
export interface StartingPointFigures {
  delivery: number | null;
  success: number | null;
  oodAccuracy: number | null;
}

/** What the page shows about a starting point, after the worker loaded and checked it (plain data). */
export interface StartingPointSummary {
  source: StartingPointSource;
  /** 'shipped checkpoint s-tiny', 'run run-… at step 300' */
  label: string;
  preset: 's' | 'm' | 'l';
  parameters: number;
  model: { dModel: number; nLayers: number; nHeads: number; contextLength: number };
  world: { size: string; seed: number };
  sftSteps: number;
  batchSize: number | null;
  trainQueries: number | null;
  /** the newest evaluation: free decoding, and constrained plan decoding where the card has it */
  evaluation: {
    split: string;
    queries: number | null;
    step: number;
    free: StartingPointFigures;
    constrained: StartingPointFigures | null;
  } | null;
  backend: string;
  trainSeconds: number | null;
  /** how the checkpoint was made (shipped ones: the CLI command and the commit) */
  command: string | null;
  commit: string | null;
  createdAt: string | null;
}

export interface TrainingWorkerApi {
  /** opens the store and chooses the backend for `scale` (default: the default setup's): the one forced, the only
   *  one offered, the choice stored for this device, or a measurement now (its progress to `onMeasure`) */
  init(options?: { forceBackend?: BackendName; scale?: Scale }, onMeasure?: MeasureListener): Promise<BackendInfo>;
  /** the backend for runs at `scale` (stored, or measured now; `remeasure`: measured again). While a run trains
   *  nothing is switched or measured: the run's own backend is answered (re-measuring then rejects). */
  backendFor(scale: Scale, options?: { remeasure?: boolean }, onMeasure?: MeasureListener): Promise<BackendInfo>;
  /** starts (or resumes) a run of the config's stage (RL or SFT); resolves with the run id once it is running */
  start(request: StartRequest, listener: WorkerListener): Promise<string>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  stop(): Promise<void>;
  /** the runs this worker marked 'interrupted' when it started (their page closed or their worker died) */
  interruptedRuns(): Promise<InterruptedRun[]>;
  /** after storage was freed: writes the owed checkpoint and the unsaved points of the live run now */
  retryStorage(): Promise<void>;
  /** loads and checks a starting point (files against their card, weights into a policy), then lets
   *  it go; rejects with the reason it cannot be used. Writes nothing. */
  inspectStartingPoint(source: StartingPointSource): Promise<StartingPointSummary>;
}
