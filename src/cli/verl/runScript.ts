// run.sh of a veRL job (cli/verlJob.ts): veRL's trainer with the lab config's settings as Hydra
// overrides, its environment and version checks, and a curriculum's phases.
import type { JobPlan } from './plan.ts';
import { GPU_MEMORY_OF_SCALE, MODEL_OF_SCALE, VERL_VERSION } from './target.ts';

/** a float setting as veRL's YAML writes it (3 -> 3.0) */
const fl = (x: number) => (Number.isInteger(x) ? x.toFixed(1) : String(x));

/** A path for a Hydra override: a double-quoted shell word holding a single-quoted Hydra string (paths may hold ':' or
 * spaces). */
const hydraPath = (shellExpr: string) => `"'${shellExpr}'"`;

/** `run.sh`: veRL's trainer with the lab config's settings as overrides. */
export function runSh(p: JobPlan): string {
  const { rl, lab, lengths } = p;
  const dapo = lab.algorithm === 'dapo';
  const overrides: [string, string][] = [
    ['# algorithm (veRL core_algos: GRPO advantages, PPO clip, dual-clip, k3 KL)', ''],
    ['algorithm.adv_estimator', 'grpo'],
    ['algorithm.norm_adv_by_std_in_grpo', 'True'],
    ['algorithm.use_kl_in_reward', 'False'],
    ['actor_rollout_ref.rollout.n', String(rl.groupSize)],
    ['actor_rollout_ref.actor.clip_ratio_low', fl(rl.clipLow)],
    ['actor_rollout_ref.actor.clip_ratio_high', fl(rl.clipHigh)],
    ['actor_rollout_ref.actor.clip_ratio_c', fl(rl.dualClip)],
    ['actor_rollout_ref.actor.use_kl_loss', rl.klCoef > 0 ? 'True' : 'False'],
    ['actor_rollout_ref.actor.kl_loss_coef', fl(rl.klCoef)],
    ['actor_rollout_ref.actor.kl_loss_type', 'low_var_kl'],
    ['actor_rollout_ref.actor.loss_agg_mode', rl.lossAggregation],
    ['actor_rollout_ref.actor.entropy_coeff', '0'],
    ['actor_rollout_ref.actor.grad_clip', fl(rl.maxGradNorm)],
    ['actor_rollout_ref.actor.optim.lr', String(p.learningRate)],
    ['actor_rollout_ref.actor.ppo_mini_batch_size', String(p.miniBatch)],
    ['actor_rollout_ref.rollout.temperature', fl(rl.temperature)],
    ['# data', ''],
    ['data.train_files', hydraPath('$JOB_DIR/data/train.parquet')],
    ['data.val_files', hydraPath('$JOB_DIR/data/val.parquet')],
    ['data.train_batch_size', String(rl.queriesPerStep)],
    ['data.max_prompt_length', String(lengths.maxPrompt)],
    ['data.max_response_length', String(lengths.maxResponse)],
    ['data.filter_overlong_prompts', 'True'],
    ['data.truncation', 'error'],
    ['data.return_raw_chat', 'True'],
    ['data.seed', String(rl.seed)],
    ['# multi-turn tool rollouts (veRL agent loop)', ''],
    ['actor_rollout_ref.rollout.name', '"$ROLLOUT"'],
    ['actor_rollout_ref.rollout.mode', 'async'],
    ['actor_rollout_ref.rollout.multi_turn.enable', 'True'],
    ['actor_rollout_ref.rollout.multi_turn.format', 'hermes'],
    ['actor_rollout_ref.rollout.multi_turn.tool_config_path', hydraPath('$JOB_DIR/tool_config.yaml')],
    ['actor_rollout_ref.rollout.multi_turn.max_assistant_turns', String(rl.maxTurns + 1)],
    ['actor_rollout_ref.rollout.multi_turn.max_tool_response_length', String(lengths.maxToolResponse)],
    ['actor_rollout_ref.rollout.agent.default_agent_loop', 'tool_agent'],
    ['actor_rollout_ref.rollout.tensor_model_parallel_size', '"$TP"'],
    ['actor_rollout_ref.rollout.gpu_memory_utilization', '0.6'],
    ['actor_rollout_ref.rollout.val_kwargs.temperature', '0'],
    ['actor_rollout_ref.rollout.val_kwargs.do_sample', 'False'],
    ['actor_rollout_ref.rollout.val_kwargs.n', '1'],
    ['# model and memory', ''],
    ['actor_rollout_ref.model.path', hydraPath('$MODEL_PATH')],
    ['actor_rollout_ref.model.use_remove_padding', 'True'],
    ['actor_rollout_ref.model.enable_gradient_checkpointing', 'True'],
    ['actor_rollout_ref.actor.use_dynamic_bsz', 'True'],
    ['actor_rollout_ref.actor.ppo_max_token_len_per_gpu', String(2 * (lengths.maxPrompt + lengths.maxResponse))],
    ['actor_rollout_ref.rollout.log_prob_use_dynamic_bsz', 'True'],
    ['actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu', String(2 * (lengths.maxPrompt + lengths.maxResponse))],
    ['actor_rollout_ref.ref.log_prob_use_dynamic_bsz', 'True'],
    ['actor_rollout_ref.ref.log_prob_max_token_len_per_gpu', String(2 * (lengths.maxPrompt + lengths.maxResponse))],
    ['# reward (reward.py: the lab\'s evaluator and rewards)', ''],
    ['custom_reward_function.path', hydraPath('$JOB_DIR/reward.py')],
    ['custom_reward_function.name', 'compute_score'],
    ['+custom_reward_function.reward_kwargs.reward', rl.reward],
    ['# the tools module must import in every Ray worker', ''],
    ['+ray_kwargs.ray_init.runtime_env.env_vars.PYTHONPATH', hydraPath('$WORKER_PYTHONPATH')],
    ['# trainer', ''],
    ['trainer.n_gpus_per_node', '"$GPUS"'],
    ['trainer.nnodes', '"$NODES"'],
    ['trainer.total_epochs', String(p.epochs)],
    ['trainer.test_freq', String(rl.evalEvery)],
    ['trainer.save_freq', '"$SAVE_FREQ"'],
    ['trainer.resume_mode', 'auto'],
    ['trainer.logger', `'["console"]'`],
    ['trainer.project_name', 'star-lab'],
    ['trainer.experiment_name', '"$EXPERIMENT"'],
    ['trainer.default_local_dir', hydraPath('$CKPT_DIR')],
    ['trainer.max_actor_ckpt_to_keep', '2'],
  ];
  if (dapo) {
    overrides.push(
      ['# DAPO (recipe/dapo: dynamic sampling, soft overlong punishment)', ''],
      ['data.gen_batch_size', String(rl.queriesPerStep)],
      ['algorithm.filter_groups.enable', 'True'],
      ['algorithm.filter_groups.metric', 'seq_reward'],
      ['algorithm.filter_groups.max_num_gen_batches', String(rl.dapoMaxGenBatches)],
      ['reward_model.reward_manager', 'dapo'],
      ['reward_model.overlong_buffer.enable', p.overlongBufferTokens > 0 ? 'True' : 'False'],
      ['reward_model.overlong_buffer.len', String(p.overlongBufferTokens)],
      ['reward_model.overlong_buffer.penalty_factor', '1.0'],
      ['reward_model.overlong_buffer.log', 'False'],
    );
  }
  // bash allows comments between the words of a multi-line array assignment
  const array = overrides.map(([k, v]) => (v === '' ? `  ${k}` : `  ${k}=${v}`));
  const entry = dapo ? 'python3 -m recipe.dapo.main_dapo' : 'python3 -m verl.trainer.main_ppo';
  const phases =
    p.phases.length > 0
      ? p.phases
          .map(
            ([stage, end], i) =>
              `run_phase ${stage} ${end} ${i === 0 ? 'True' : 'False'}   # ${stage} until step ${end} of ${rl.steps}`,
          )
          .join('\n')
      : `run_phase '' ${rl.steps} True`;
  const scaleMem = GPU_MEMORY_OF_SCALE[lab.scale];
  return `#!/usr/bin/env bash
# STAR Lab export (cli export-job --engine verl): the lab experiment
#   ${p.hash}
# as a veRL ${VERL_VERSION} job on ${MODEL_OF_SCALE[lab.scale]}. Usage (README.md):
#   bash run.sh [--gpus N] [--nodes K] [-- extra Hydra overrides]
# Environment: MODEL_PATH, ROLLOUT (vllm|sglang), CKPT_DIR, SAVE_FREQ, TP${dapo ? ', VERL_HOME (a veRL v' + VERL_VERSION + ' source checkout: DAPO runs recipe/dapo)' : ''}.
set -euo pipefail
JOB_DIR="$(cd "$(dirname "\${BASH_SOURCE[0]}")" && pwd)"
GPUS=${p.gpus}
NODES=${p.nodes}
while [ $# -gt 0 ]; do
  case "$1" in
    --gpus) GPUS="$2"; shift 2 ;;
    --nodes) NODES="$2"; shift 2 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
EXTRA=("$@")   # further Hydra overrides, after --
VERL_VERSION=${VERL_VERSION}
MODEL_PATH="\${MODEL_PATH:-${MODEL_OF_SCALE[lab.scale]}}"
ROLLOUT="\${ROLLOUT:-vllm}"
TP="\${TP:-${scaleMem.tp}}"
CKPT_DIR="\${CKPT_DIR:-$JOB_DIR/checkpoints}"
SAVE_FREQ="\${SAVE_FREQ:-${rl.evalEvery}}"
EXPERIMENT="\${EXPERIMENT:-${lab.algorithm}-${lab.reward}-${lab.scale}-${p.trainSize}q}"
WORKER_PYTHONPATH="$JOB_DIR\${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH="$WORKER_PYTHONPATH"

if ! python3 -c 'import verl' 2>/dev/null; then
  echo "veRL is not installed for python3: pip install 'verl[vllm]==$VERL_VERSION' (or [sglang]); see README.md" >&2
  exit 1
fi
installed="$(python3 -c 'import verl; print(getattr(verl, "__version__", "unknown"))')"
if [ "$installed" != "$VERL_VERSION" ]; then
  echo "warning: this job was written for veRL $VERL_VERSION, python3 has veRL $installed; the override keys may differ" >&2
fi
${
  dapo
    ? `if [ -z "\${VERL_HOME:-}" ] || [ ! -f "$VERL_HOME/recipe/dapo/main_dapo.py" ]; then
  echo "DAPO runs veRL's recipe/dapo, which is not part of the pip package: set VERL_HOME to a checkout of veRL v$VERL_VERSION" >&2
  exit 1
fi
cd "$VERL_HOME"   # recipe/dapo's Hydra config is found relative to the source tree
`
    : ''
}
ARGS=(
${array.join('\n')}
)

# One training run; a curriculum runs as phases (veRL passes no training step to a reward function):
# each phase trains to its last step with its stage, saves, and the next resumes from that checkpoint.
run_phase() { # stage, last step, validate before training
  local stage_args=()
  if [ -n "$1" ]; then stage_args=("+custom_reward_function.reward_kwargs.stage=$1"); fi
  ${entry} "\${ARGS[@]}" \${stage_args[@]+"\${stage_args[@]}"} trainer.total_training_steps="$2" trainer.val_before_train="$3" \${EXTRA[@]+"\${EXTRA[@]}"}
}

${phases}
`;
}
