// The backend calibration's own figures, on the bench page (bench.html?only=calibration): what the lab's
// worker does on a first visit — measure every backend this browser offers at a scale and start the
// faster (src/worker/backendChooser.ts) — and on a later visit (the stored figures read back), timed,
// with each backend's figures as the calibration saw them (a dropped backend's is a lower bound).
import type { Report } from '../harness.ts';
import type { Scale } from '../../src/lab/backendChoice.ts';
import { BackendChooser } from '../../src/worker/backendChooser.ts';
import { CalibrationStore } from '../../src/store/calibrationStore.ts';

export async function measureCalibration(report: Report, scales: readonly Scale[]): Promise<void> {
  const store = await CalibrationStore.open('star-lab-device-bench'); // not the lab's own: the page's choice stays
  try {
    for (const scale of scales) {
      await store.clear();
      let t = performance.now();
      const first = await new BackendChooser(store, undefined).choose(scale);
      const firstMs = performance.now() - t;
      t = performance.now();
      const later = await new BackendChooser(store, undefined).choose(scale);
      const laterMs = performance.now() - t;
      const c = first.choice?.mode === 'measured' ? first.choice.calibration : null;
      report(
        `calibration.first_visit_s.${scale}`,
        firstMs / 1000,
        's',
        c ? 'every backend offered measured, the faster started' : `nothing to measure (${first.choice?.mode})`,
      );
      report(
        `calibration.later_visit_ms.${scale}`,
        laterMs,
        'ms',
        later.choice?.mode === 'measured' && later.choice.stored
          ? 'the stored figures read back, the backend started'
          : 'measured again',
      );
      report(`calibration.choice_is_wasm.${scale}`, first.name === 'wasm' ? 1 : 0, '', first.label);
      for (const f of c?.figures ?? []) {
        const key = (what: string) => `calibration.${what}.${scale}.${f.backend}`;
        const figure = f.stepMs ?? f.atLeastMs;
        if (figure !== null)
          report(
            key('step_ms'),
            figure,
            'ms',
            `${f.status === 'dropped' ? 'at least (dropped once behind)' : f.status}: one default RL step, estimated; ${f.label}`,
          );
        if (f.decodeStepMs !== null) report(key('decode_step_ms'), f.decodeStepMs, 'ms', 'one decode step of 32 rows');
        if (f.trainMicroBatchMs !== null)
          report(key('micro_batch_ms'), f.trainMicroBatchMs, 'ms', 'forward, backward, AdamW on 4 × 256 tokens');
        report(key('cost_s'), f.costMs / 1000, 's', `${f.status}${f.note ? `: ${f.note}` : ''}`);
      }
    }
  } finally {
    store.close();
  }
}
