// tfjs's WebGPU matmul program, for the side-by-side in webgpuFigures.ts. tfjs picks one per shape: its
// tiled MatMulPacked (4×4 outputs a thread) for all but the smallest outputs. On SwiftShader (CPU-
// emulated WebGPU) each MatMulPacked variant takes ~1.5 s to compile against ~0.3 s for
// MatMulSmallOutputSize (timed shader by shader with createComputePipelineAsync), and the first SFT
// step of preset s meets 11 of them: 17 of its 22 s. Running every matmul as MatMulSmallOutputSize
// cuts that first step 2.6× but makes a warm SFT step ~1.5× slower and a rollout's decode steps slower
// too (webgpu.first_step_s.train.matmul_*, webgpu.first_rollout_s.matmul_*), so the lab keeps tfjs's
// choice; the figures say what the trade is on the adapter measured.
import * as tf from '@tensorflow/tfjs';

export type MatmulProgram = 'auto' | 'small';

/** tfjs's WEBGPU_MATMUL_PROGRAM_TYPE: -1 lets it choose per shape, 2 is MatMulSmallOutputSizeProgram */
const TYPE: Record<MatmulProgram, number> = { auto: -1, small: 2 };

export function setMatmulProgram(choice: MatmulProgram): void {
  tf.env().set('WEBGPU_MATMUL_PROGRAM_TYPE', TYPE[choice]);
}
