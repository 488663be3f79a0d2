// What the veRL export targets (cli/verlJob.ts): veRL's version, the models that stand for the lab's
// scales, and the GPU memory each needs. Read by every file the export writes.
import type { LabConfig } from '../../lab/config.ts';

export const VERL_VERSION = '0.7.0';
export const DATA_SOURCE = 'star-lab/travelplanner';

/** Qwen2.5-Instruct at the paper's three scales (s/m/l mirror 1.5B/3B/7B). */
export const MODEL_OF_SCALE: Record<LabConfig['scale'], string> = {
  s: 'Qwen/Qwen2.5-1.5B-Instruct',
  m: 'Qwen/Qwen2.5-3B-Instruct',
  l: 'Qwen/Qwen2.5-7B-Instruct',
};

/**
 * GPU memory a scale needs, estimated for full fine-tuning with FSDP and a colocated vLLM rollout:
 * AdamW training state is about 16 bytes per parameter (bf16 weights and gradients, fp32 master
 * weights and two moments), sharded over the GPUs, plus the rollout engine's weights and KV cache
 * (gpu_memory_utilization of each GPU).
 */
export const GPU_MEMORY_OF_SCALE: Record<
  LabConfig['scale'],
  { params: string; state: string; advice: string; tp: number }
> = {
  s: {
    params: '1.5 B',
    state: '≈ 25 GB',
    advice:
      '1 × 80 GB (or 2 × 40 GB); 1 × 40 GB with actor_rollout_ref.actor.fsdp_config.param_offload=True and optimizer_offload=True',
    tp: 1,
  },
  m: {
    params: '3.1 B',
    state: '≈ 50 GB',
    advice: '2 × 80 GB (or 4 × 40 GB); 1 × 80 GB with parameter and optimizer offload',
    tp: 1,
  },
  l: {
    params: '7.6 B',
    state: '≈ 120 GB',
    advice: '4 × 80 GB (8 recommended); 2 × 80 GB with parameter and optimizer offload',
    tp: 2,
  },
};
