// How the training worker comes to its tfjs backend for a scale: forced with `?backend=`,
// the only one offered, the choice this device measured before (IndexedDB, while the adapter, the
// browser and the lab's build are unchanged), or a measurement now — each offered backend timed in turn
// (calibration.ts), the likely winner first so the other can stop as soon as it is behind, the faster
// kept (chooseByFigures, a pure function in src/lab/backendChoice.ts). Reports its progress as it goes.
import {
  chooseByFigures,
  measurementOrder,
  type BackendFigure,
  type Calibration,
  type CalibrationProgress,
  type DeviceKey,
  type Scale,
  sameDevice,
} from '../lab/backendChoice.ts';
import type { CalibrationStore } from '../store/calibrationStore.ts';
import type { BackendInfo } from './api.ts';
import type { BackendName } from '../lab/backendChoice.ts';
import { probeWebgpu, startBackend, startFirst } from './backend.ts';
import { measureBackend } from './calibration.ts';
import { START_LIMITS, withinTime } from './deadline.ts';

/** bumped when what the calibration measures changes, so that stored figures are measured again */
const CALIBRATION_VERSION = 1;

export interface ChooseOptions {
  /** measure again even when a stored calibration fits */
  remeasure?: boolean;
  onProgress?: (progress: CalibrationProgress) => void;
}

export class BackendChooser {
  constructor(
    private readonly store: CalibrationStore | null,
    private readonly force: BackendName | undefined,
  ) {}

  /** Starts the backend runs at `scale` train on, and says how it was chosen (BackendInfo.choice). */
  async choose(scale: Scale, options: ChooseOptions = {}): Promise<BackendInfo> {
    const probe = await probeWebgpu();
    const device = deviceKey(probe.ok ? probe.key : '');
    const stored = await this.stored(scale, device);
    if (this.force) {
      const info = await startFirst([this.force]);
      return { ...info, choice: { mode: 'forced', scale, measured: stored } };
    }
    if (!probe.ok) {
      const info = await startFirst(['wasm']);
      return {
        ...info,
        fallbackReason: [`webgpu: ${probe.reason}`, info.fallbackReason].filter(Boolean).join('; '),
        choice: { mode: 'only', scale },
      };
    }
    if (stored && !options.remeasure) {
      try {
        return {
          ...(await startBackend(stored.choice)),
          choice: { mode: 'measured', scale, calibration: stored, stored: true },
        };
      } catch {
        // the stored choice no longer starts: measure again
      }
    }
    const calibration = await this.measure(
      scale,
      device,
      measurementOrder(['webgpu', 'wasm'], device.adapter),
      options.onProgress,
    );
    let info: BackendInfo;
    try {
      info = await startBackend(calibration.choice);
    } catch (e) {
      info = await startFirst(['wasm']);
      info.fallbackReason = `${calibration.choice}: ${e instanceof Error ? e.message : String(e)}`;
    }
    if (calibration.figures.some((f) => f.status === 'measured') && this.store) {
      await withinTime(this.store.put(calibration), START_LIMITS.storeMs, 'storing the figures').catch(() => undefined); // not kept: measured again next visit
    }
    return { ...info, choice: { mode: 'measured', scale, calibration, stored: false } };
  }

  /** Times each backend of `order` in turn; the choice is the pure function's. */
  private async measure(
    scale: Scale,
    device: DeviceKey,
    order: BackendName[],
    onProgress?: (p: CalibrationProgress) => void,
  ): Promise<Calibration> {
    const t0 = performance.now();
    const figures: BackendFigure[] = [];
    const report = (current: CalibrationProgress['current']) =>
      onProgress?.({ scale, figures: [...figures], current, elapsedMs: performance.now() - t0 });
    for (const name of order) {
      const started = performance.now();
      report({ backend: name, label: name, phase: 'starting' });
      let info: BackendInfo;
      try {
        info = await startBackend(name);
      } catch (e) {
        figures.push({
          backend: name,
          label: name,
          status: 'failed',
          decodeStepMs: null,
          trainMicroBatchMs: null,
          stepMs: null,
          atLeastMs: null,
          costMs: performance.now() - started,
          note: e instanceof Error ? e.message : String(e),
        });
        continue;
      }
      const best = bestFigure(figures);
      const figure = await measureBackend(name, info.label, scale, {
        best,
        onPhase: (phase) => report({ backend: name, label: info.label, phase }),
      });
      figures.push({ ...figure, costMs: performance.now() - started });
    }
    report(null);
    return {
      scale,
      device,
      figures,
      choice: chooseByFigures(figures) ?? 'cpu',
      measuredAt: Date.now(),
      costMs: performance.now() - t0,
    };
  }

  private async stored(scale: Scale, device: DeviceKey): Promise<Calibration | null> {
    // a store that does not answer counts as empty: the backends are measured again
    const c = this.store
      ? await withinTime(this.store.get(scale), START_LIMITS.storeMs, 'reading the stored figures').catch(() => null)
      : null;
    return c && sameDevice(c.device, device) ? c : null;
  }
}

const bestFigure = (figures: readonly BackendFigure[]): number | null => {
  const measured = figures.flatMap((f) => (f.status === 'measured' && f.stepMs !== null ? [f.stepMs] : []));
  return measured.length ? Math.min(...measured) : null;
};

/** this device as the stored figures must match it */
function deviceKey(adapter: string): DeviceKey {
  const nav = typeof navigator !== 'undefined' ? navigator : undefined;
  // the worker's own script: a build names it by a hash of its code, so a new build measures again
  const script = typeof location !== 'undefined' ? location.pathname : 'node';
  return {
    adapter,
    userAgent: nav?.userAgent ?? 'unknown',
    labVersion: `calibration ${CALIBRATION_VERSION} · ${script}`,
    cores: nav?.hardwareConcurrency ?? 1,
    isolated: (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true,
  };
}
