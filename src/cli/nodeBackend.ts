// The tfjs backend of a CLI run in Node: `wasm` (XNNPACK kernels; the default for anything long —
// `cpu` is 6–40× slower on these models, bench sft-cpu) or `cpu` (plain JS, bit-reproducible).
import * as tf from '@tensorflow/tfjs';

export const NODE_BACKENDS = ['wasm', 'cpu'] as const;
export type NodeBackend = (typeof NODE_BACKENDS)[number];

export async function useNodeBackend(name: NodeBackend): Promise<void> {
  if (name === 'wasm') await import('@tensorflow/tfjs-backend-wasm');
  if (!(await tf.setBackend(name))) throw new Error(`the tfjs ${name} backend failed to start`);
  await tf.ready();
}
