// The page's handle on the training worker. The page imports this (and api.ts types), never
// tfjs: everything heavy happens behind `Comlink.Remote<TrainingWorkerApi>`.
import * as Comlink from 'comlink';
import type { MeasureListener, TrainingWorkerApi, WorkerListener } from './api.ts';

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
    name: 'star-lab-training',
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
