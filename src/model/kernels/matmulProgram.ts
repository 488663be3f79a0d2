// Which of tfjs's WebGPU matmul programs a decoding step (Policy.step, Policy.prefill) runs — a knob
// for the side-by-side figures; the lab keeps tfjs's choice. tfjs picks one per shape: its tiled
// MatMulPacked (4×4 outputs a thread) for all but the smallest outputs, the fast one on a real GPU, whose
// shader compiles there in milliseconds. On a CPU-emulated adapter (Chromium's SwiftShader) each
// MatMulPacked variant takes ~1.5 s to compile against ~0.3 s for MatMulSmallOutputSize (timed shader by
// shader), which is most of a first step's wait: 17 of the 22 s of preset s's first SFT step. Measured
// there (bench webgpu, `?only=matmul`): the small program cuts a first SFT step 20 → 8 s but makes each
// warm one 1.8 → 3.2 s; for decoding it cuts a first rollout of 4 RL queries 38 → 32 s (43 → 25 s in
// another run) but makes the same rollout warm 19.6 → 22.4 s. Every run does many rollouts and steps,
// so neither trade pays for a run, and the lab leaves tfjs's choice on every adapter.
import * as tf from '@tensorflow/tfjs';

export type MatmulProgram = 'auto' | 'small';

/** tfjs's WEBGPU_MATMUL_PROGRAM_TYPE: -1 lets it choose per shape, 2 is MatMulSmallOutputSizeProgram */
const FLAG = 'WEBGPU_MATMUL_PROGRAM_TYPE';
const TYPE: Record<MatmulProgram, number> = { auto: -1, small: 2 };

let decoding: MatmulProgram = 'auto';

/** set the program decoding steps run on webgpu ('auto': tfjs's choice, the lab's) */
export function setDecodingMatmul(choice: MatmulProgram): void {
  decoding = choice;
}

export function decodingMatmul(): MatmulProgram {
  return decoding;
}

/** runs `fn` (synchronous: tfjs reads the flag as each matMul runs) with decoding's matmul program on webgpu */
export function whileDecoding<T>(fn: () => T): T {
  if (decoding === 'auto' || tf.getBackend() !== 'webgpu') return fn();
  const env = tf.env();
  const previous = env.getNumber(FLAG);
  env.set(FLAG, TYPE[decoding]);
  try {
    return fn();
  } finally {
    env.set(FLAG, previous);
  }
}
