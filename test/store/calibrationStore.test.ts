// A device's backend calibration in its own IndexedDB database (fake-indexeddb): one record per scale,
// overwritten by a new measurement; a record that does not fit the schema (an older build's, a
// hand-edited one) reads as missing, so the page measures again instead of trusting it.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { openDB } from 'idb';
import { CalibrationStore } from '../../src/store/calibrationStore.ts';
import type { Calibration } from '../../src/lab/backendChoice.ts';

let count = 0;
const freshName = () => `star-lab-device-test-${++count}`;
const calibration = (scale: Calibration['scale'], choice: Calibration['choice'] = 'wasm'): Calibration => ({
  scale,
  device: { adapter: 'google · swiftshader', userAgent: 'Chrome/140', labVersion: 'calibration 1 · /assets/trainingWorker-a.js', cores: 2, isolated: false },
  figures: [
    { backend: 'wasm', label: 'wasm · simd · 1 thread', status: 'measured', decodeStepMs: 5, trainMicroBatchMs: 60, stepMs: 1960, atLeastMs: null, costMs: 3000 },
    { backend: 'webgpu', label: 'webgpu · swiftshader', status: 'capped', decodeStepMs: null, trainMicroBatchMs: null, stepMs: null, atLeastMs: null, costMs: 30000, note: 'no figure after 30 s' },
  ],
  choice,
  measuredAt: 1234,
  costMs: 33000,
});

describe('CalibrationStore', () => {
  it('keeps one calibration per scale; a new measurement replaces the old', async () => {
    const store = await CalibrationStore.open(freshName());
    expect(await store.get('s')).toBeNull();
    await store.put(calibration('s'));
    await store.put(calibration('m', 'webgpu'));
    expect(await store.get('s')).toEqual(calibration('s'));
    expect((await store.get('m'))?.choice).toBe('webgpu');
    await store.put(calibration('s', 'webgpu'));
    expect((await store.get('s'))?.choice).toBe('webgpu');
    await store.clear();
    expect(await store.get('m')).toBeNull();
    store.close();
  });

  it('reads a record that does not fit the schema as missing', async () => {
    const name = freshName();
    const store = await CalibrationStore.open(name);
    store.close();
    const db = await openDB(name, 1);
    await db.put('calibrations', { ...calibration('s'), choice: 'gpu' });
    await db.put('calibrations', { scale: 'm', figures: 'fast' });
    db.close();
    const again = await CalibrationStore.open(name);
    expect(await again.get('s')).toBeNull();
    expect(await again.get('m')).toBeNull();
    again.close();
  });
});
