// The training worker's API as the page sees it (through Comlink.Remote). Types only: the page
// imports this file, never tfjs.
import type { LabConfig } from '../lab/config.ts';
import type { MetricPoint, RunStatus } from '../store/records.ts';

export type BackendName = 'webgpu' | 'wasm' | 'cpu';

export interface BackendInfo {
  name: BackendName;
  /** WebGPU adapter vendor and architecture, e.g. 'google' / 'swiftshader' ('' when unknown) */
  vendor: string;
  architecture: string;
  /** the badge text: 'webgpu · swiftshader', 'wasm · simd', 'cpu' */
  label: string;
  /** why a better backend was not used, if one was tried and failed */
  fallbackReason?: string;
}

export interface RunProgress {
  runId: string;
  status: RunStatus;
  step: number;
  totalSteps: number;
  /** estimated ms to finish, from the recent step times (null before there is enough data) */
  etaMs: number | null;
  /** mean step time so far (ms) */
  meanStepMs: number | null;
  /** how many times the run stored sample episodes so far (the page reloads them when this grows) */
  episodes?: number;
  /** set when status is 'failed' (or a checkpoint/store write failed) */
  error?: string;
}

/** What the worker streams to the page; sent in batches (a few per second), never per op. */
export type WorkerEvent =
  | { type: 'points'; runId: string; points: MetricPoint[] }
  | { type: 'progress'; progress: RunProgress };

export type WorkerListener = (events: WorkerEvent[]) => void;

export interface StartRequest {
  config: LabConfig;
  /** continue this stored run from its newest checkpoint instead of starting a new one */
  resumeRunId?: string;
}

export interface TrainingWorkerApi {
  /** picks the backend (webgpu › wasm › cpu, or the one forced) and opens the store */
  init(options?: { forceBackend?: BackendName }): Promise<BackendInfo>;
  /** starts (or resumes) a run of the config's job (SFT today); resolves with the run id once it is running */
  start(request: StartRequest, listener: WorkerListener): Promise<string>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  stop(): Promise<void>;
}
