// Counts GPU compute dispatches on tfjs's `webgpu` backend. Every program the backend runs on the GPU
// goes through WebGPUBackend.recordAndSubmit, which records exactly one dispatchWorkgroups (the lab's
// kernels that write several buffers record theirs beside it and say so: onRawDispatch); ops that
// tfjs forwards to the CPU (small tensors still on the CPU, WEBGPU_CPU_FORWARD), reshapes (no program)
// and uploads/readbacks (buffer copies, not compute) never reach it. So its call count is the number of
// compute dispatches, the per-dispatch cost a small model pays on a real GPU.
import * as tf from '@tensorflow/tfjs';
import { onRawDispatch } from '../../src/model/kernels/rawDispatch.ts';

interface ProgramLike { constructor: { name: string }; shaderKey?: string }
type Record3 = (program: ProgramLike, ...rest: unknown[]) => unknown;

export interface DispatchCounter {
  /** dispatches since install (or the last reset) */
  readonly count: number;
  /** the same split by program (tfjs's classes: UnaryOpProgram, BinaryOpProgram, …; the lab's: star_…) */
  readonly byProgram: ReadonlyMap<string, number>;
  reset(): void;
  /** dispatches recorded while `fn` runs (awaited) */
  measure(fn: () => Promise<unknown> | unknown): Promise<number>;
  uninstall(): void;
}

export function installDispatchCounter(): DispatchCounter {
  if (tf.getBackend() !== 'webgpu') throw new Error(`dispatch counter: the backend is ${tf.getBackend()}, not webgpu`);
  const backend = tf.backend() as unknown as { recordAndSubmit: Record3 };
  const original = backend.recordAndSubmit;
  const byProgram = new Map<string, number>();
  let count = 0;
  backend.recordAndSubmit = function (this: unknown, program: ProgramLike, ...rest: unknown[]) {
    count++;
    // tfjs's own programs are classes; the lab's fused ones are plain objects named by their shader key
    const name =
      program.constructor.name === 'Object'
        ? String(program.shaderKey).split('_').slice(0, 3).join('_')
        : program.constructor.name;
    byProgram.set(name, (byProgram.get(name) ?? 0) + 1);
    return original.call(this, program, ...rest);
  };
  // the lab's kernels that write several buffers record their dispatch themselves (kernels/rawDispatch.ts)
  let installed = true;
  onRawDispatch((key) => {
    if (!installed) return;
    count++;
    byProgram.set(key, (byProgram.get(key) ?? 0) + 1);
  });
  return {
    get count() { return count; },
    byProgram,
    reset() { count = 0; byProgram.clear(); },
    async measure(fn) {
      const before = count;
      await fn();
      return count - before;
    },
    uninstall() {
      backend.recordAndSubmit = original;
      installed = false;
    },
  };
}
