// The page's side of the backend choice: the backend the worker chose for the page's scale,
// how (measured, forced, the only one), and the measurement's progress while the worker measures —
// at boot, when the scale changes, on Re-measure, or when a run starts at a scale not measured yet.
// The run player owns one of these; nothing here touches tfjs (the worker measures: src/worker/backendChooser.ts).
import type { Scale, BackendName, CalibrationProgress } from '../lab/backendChoice.ts';
import type { BackendInfo, MeasureListener } from '../worker/api.ts';
import type { TrainingWorkerHandle } from '../worker/client.ts';

/** silence from the worker at boot, no answer and no measurement under way, past which the page says so */
const SILENT_WORKER_MS = 60_000;

export class BackendState {
  /** the backend runs at the page's scale train on (null until the worker has chosen) */
  info = $state<BackendInfo | null>(null);
  error = $state<string | null>(null);
  /** the worker is measuring the backends: what it has so far; null when not */
  measuring = $state.raw<CalibrationProgress | null>(null);
  /** worker calls that may measure still pending: their progress is shown meanwhile */
  private calls = 0;

  constructor(
    private readonly host: {
      worker(): TrainingWorkerHandle | null;
      scale(): Scale;
      onError(message: string): void;
    },
  ) {}

  /** the worker's first choice, at the page's scale at boot (it looks again if the scale changed meanwhile) */
  async boot(worker: TrainingWorkerHandle, forceBackend: BackendName | undefined): Promise<void> {
    const scale = this.host.scale();
    // The worker gives each step of its start a time and falls back past it; a worker that says nothing at all
    // (its script never ran, a message lost) is named here rather than left at "starting backend…".
    let heard = performance.now();
    let silence: string | null = null;
    const watch = setInterval(() => {
      if (this.measuring) heard = performance.now(); // a measurement reports as it goes
      else if (performance.now() - heard > SILENT_WORKER_MS && !this.info && !this.error) {
        this.error =
          silence = `The training worker has not answered in ${Math.round((performance.now() - heard) / 1000)} s; reloading the page may help.`;
      }
    }, 5_000);
    try {
      this.info = await this.measured((listener) => worker.api.init({ forceBackend, scale }, listener));
      if (this.error === silence) this.error = null; // it answered after all
      if (this.host.scale() !== scale) void this.choose();
    } catch (e) {
      this.error = messageOf(e);
    } finally {
      clearInterval(watch);
    }
  }

  /** The backend for the page's scale: the worker's stored choice, or a measurement now (`remeasure`: measured
   * again). */
  async choose(remeasure = false): Promise<void> {
    const worker = this.host.worker();
    if (!worker || !this.info) return; // the boot's choice is still coming: it looks at the scale again
    const scale = this.host.scale();
    try {
      const info = await this.measured((listener) => worker.api.backendFor(scale, { remeasure }, listener));
      if (this.host.scale() === scale && worker === this.host.worker()) this.info = info; // a later scale's answer wins
    } catch (e) {
      this.host.onError(messageOf(e));
    }
  }

  /** a replacement worker's backend (recovery started it: runRecovery.svelte.ts) */
  adopt(info: BackendInfo): void {
    this.info = info;
  }

  /** the worker could not come up, or not again: the page says why */
  fail(message: string): void {
    this.error = message;
  }

  /** awaits a worker call that may measure the backends, showing the measurement's progress meanwhile */
  async measured<T>(call: (listener: MeasureListener) => Promise<T>): Promise<T> {
    const worker = this.host.worker();
    this.calls++;
    try {
      // a report that arrives after its call has answered is dropped (it travels on its own channel)
      const listener: MeasureListener = (p) => {
        if (this.calls > 0 && p.current) this.measuring = p; // the call's end clears it
      };
      return await call(worker ? worker.listenMeasure(listener) : listener);
    } finally {
      if (--this.calls === 0) this.measuring = null;
    }
  }
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
