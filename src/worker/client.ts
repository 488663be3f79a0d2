// The page's handle on the training worker. The page imports this (and api.ts types), never
// tfjs: everything heavy happens behind `Comlink.Remote<TrainingWorkerApi>`.
import * as Comlink from 'comlink';
import type { MeasureListener, TrainingWorkerApi, WorkerListener } from './api.ts';
import { workerName } from './testHolds.ts';

/** the steps every worker this page starts holds after: set once at load, only where a test server asks
 * (src/ui/testHolds.ts); empty on a production page */
let holdSteps: readonly number[] = [];
export function setWorkerHolds(steps: readonly number[]): void {
  holdSteps = steps;
}

export interface TrainingWorkerHandle {
  api: Comlink.Remote<TrainingWorkerApi>;
  /** wraps a listener so the worker can call it back across the thread boundary */
  listen(listener: WorkerListener): WorkerListener & Comlink.ProxyMarked;
  /** the same for the backend calibration's progress */
  listenMeasure(listener: MeasureListener): MeasureListener & Comlink.ProxyMarked;
  terminate(): void;
}

export function createTrainingWorker(onCrash: (message: string) => void): TrainingWorkerHandle {
  const worker = new Worker(new URL('./trainingWorker.ts', import.meta.url), {
    type: 'module',
    name: workerName('star-lab-training', holdSteps),
  });
  worker.addEventListener('error', (event) => {
    onCrash(event.message || 'the training worker failed to load');
  });
  const api = Comlink.wrap<TrainingWorkerApi>(worker);
  return {
    api,
    listen: (listener) => Comlink.proxy(listener),
    listenMeasure: (listener) => Comlink.proxy(listener),
    terminate() {
      api[Comlink.releaseProxy]();
      worker.terminate();
    },
  };
}
