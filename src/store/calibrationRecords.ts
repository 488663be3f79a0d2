// The backend calibration as stored (valibot schemas): a device's measurement per scale in its own
// IndexedDB database (calibrationStore.ts), and the copy a run keeps of the choice it trained under
// (RunRecord.calibration). Types: src/lab/backendChoice.ts; these schemas check what is read back.
import * as v from 'valibot';
import type { BackendFigure, Calibration, RunCalibration } from '../lab/backendChoice.ts';

const finite = v.pipe(v.number(), v.finite());
const backendName = v.picklist(['webgpu', 'wasm', 'cpu']);
const scale = v.picklist(['s', 'm', 'l']);

export const BackendFigureSchema = v.object({
  backend: backendName,
  label: v.string(),
  status: v.picklist(['measured', 'dropped', 'capped', 'failed']),
  decodeStepMs: v.nullable(finite),
  trainMicroBatchMs: v.nullable(finite),
  stepMs: v.nullable(finite),
  atLeastMs: v.nullable(finite),
  costMs: finite,
  note: v.optional(v.string()),
});

export const CalibrationSchema = v.object({
  scale,
  device: v.object({
    adapter: v.string(),
    userAgent: v.string(),
    labVersion: v.string(),
    cores: finite,
    isolated: v.boolean(),
  }),
  figures: v.array(BackendFigureSchema),
  choice: backendName,
  measuredAt: finite,
  costMs: finite,
});

export const RunCalibrationSchema = v.object({
  mode: v.picklist(['forced', 'only', 'measured']),
  scale,
  figures: v.array(BackendFigureSchema),
  choice: v.nullable(backendName),
  measuredAt: v.nullable(finite),
  summary: v.string(),
});

// the schemas and the lab's types describe the same records
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _figure: Same<v.InferOutput<typeof BackendFigureSchema>, BackendFigure> = true;
const _calibration: Same<v.InferOutput<typeof CalibrationSchema>, Calibration> = true;
const _run: Same<v.InferOutput<typeof RunCalibrationSchema>, RunCalibration> = true;
