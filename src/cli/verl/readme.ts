// README.md of a veRL job (cli/verlJob.ts): how to run it, its files, the lab settings beside their veRL
// overrides, the GPU memory of each scale and the reward's keys.
import type { JobPlan } from './plan.ts';
import { GPU_MEMORY_OF_SCALE, MODEL_OF_SCALE, VERL_VERSION } from './target.ts';

export function readme(p: JobPlan): string {
  const { lab, rl } = p;
  const mem = GPU_MEMORY_OF_SCALE;
  const dapo = lab.algorithm === 'dapo';
  const rewardLine =
    rl.reward === 'curriculum'
      ? `Curriculum: Sum, then Macro, then Success at ${[rl.curriculumSwitch1, rl.curriculumSwitch2].map((x) => `${Math.round(x * 1000) / 10} %`).join(' and ')} of training. veRL passes no training step to a reward function, so run.sh trains in phases (${p.phases.map(([s, e]) => `${s} to step ${e}`).join(', ')}): each phase sets \`+custom_reward_function.reward_kwargs.stage\`, saves a checkpoint at its last step, and the next phase resumes from it.`
      : `${rl.reward[0].toUpperCase()}${rl.reward.slice(1)} (\`+custom_reward_function.reward_kwargs.reward=${rl.reward}\`).`;
  return `# STAR Lab experiment as a veRL job

Exported by STAR Lab's \`npm run cli -- export-job --engine verl\` from the lab config

    ${p.hash}

${lab.algorithm.toUpperCase()} on **${MODEL_OF_SCALE[lab.scale]}** (lab scale \`${lab.scale}\`), ${p.trainSize} training queries (mix ${lab.mix.join(':')}), ${p.validationSize} validation queries, world: ${p.world.label}, tool failure rate ${Math.round(rl.toolFailureRate * 1000) / 10} %, reward ${rl.reward}.

## Run

    pip install 'verl[vllm]==${VERL_VERSION}'      # or verl[sglang]; Python ≥ 3.10, CUDA GPUs
    bash run.sh --gpus 8 --nodes 1                 # defaults: --gpus ${p.gpus} --nodes ${p.nodes}
    bash run.sh -- trainer.logger='["console","wandb"]'   # anything after -- is one more Hydra override
${dapo ? `\nDAPO runs veRL's \`recipe/dapo\` (\`python3 -m recipe.dapo.main_dapo\`), which the pip package does not include: set \`VERL_HOME\` to a checkout of veRL's \`v${VERL_VERSION}\` tag.\n` : ''}
Environment: \`MODEL_PATH\` (a local copy of the model), \`ROLLOUT\` (\`vllm\`, default, or \`sglang\`), \`TP\` (rollout tensor parallelism), \`CKPT_DIR\` (default \`./checkpoints\`), \`SAVE_FREQ\` (default ${rl.evalEvery}). On a multi-node Ray cluster the folder must be at the same path on every node (the tools and the reward read \`database/\` next to them).

Versions: veRL **${VERL_VERSION}** (every override key was read from that tag), vLLM or SGLang as that release pins them, Qwen2.5-Instruct from the Hugging Face hub.

## Files

| file | what it is |
|---|---|
| \`run.sh\` | \`${dapo ? 'python3 -m recipe.dapo.main_dapo' : 'python3 -m verl.trainer.main_ppo'}\` with the lab config mapped to veRL overrides (table below) |
| \`data/train.parquet\`, \`data/val.parquet\` | one row per query in veRL's multi-turn tool layout: \`data_source\`, \`prompt\` (system prompt naming the six tools and the plan format, then the query), \`ability\`, \`reward_model\` (\`style: rule\`, \`ground_truth\`: the query as TravelPlanner's JSON), \`extra_info\` (\`index\`, \`split\`, \`need_tools_kwargs\`, \`tools_kwargs\` with each tool's \`create_kwargs\`), \`agent_name: tool_agent\` |
| \`database/\` | the world in TravelPlanner's own layout (flights, accommodations, restaurants, attractions, distances, city set) |
| \`travelplanner_tools.py\` | the six tools as \`verl.tools.base_tool.BaseTool\` subclasses, answering from \`database/\` with the lab's text, rows and order; tool failures at the config's rate from a seeded stream |
| \`tool_config.yaml\` | veRL's tool list: class, \`config\` (\`type: native\`, \`failure_rate\`, \`seed\`), OpenAI function schema |
| \`reward.py\` | \`compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs)\`: reads the plan (JSON inside \`<plan></plan>\` in the last assistant turn), scores it with TravelPlanner's 8 commonsense and 5 hard checks, returns the reward as \`score\` and every verdict as an extra key (standard library only) |
| \`travelplanner_db.py\` | reads \`database/\` for the two modules above |
| \`job.json\`, \`star_lab_world.json\` | the export's record: config, world facts the database layout cannot hold (each state's searchable cities, the flight dates), reward schedule, measured lengths |

## Settings

| lab | veRL |
|---|---|
| algorithm ${lab.algorithm} | \`algorithm.adv_estimator=grpo\`${dapo ? ', `algorithm.filter_groups` (metric `seq_reward`, `max_num_gen_batches=' + rl.dapoMaxGenBatches + '`), `reward_model.reward_manager=dapo`' : ''} |
| group size ${rl.groupSize} | \`actor_rollout_ref.rollout.n=${rl.groupSize}\` |
| queries per step ${rl.queriesPerStep} | \`data.train_batch_size=${rl.queriesPerStep}\`, \`ppo_mini_batch_size=${p.miniBatch}\` |
| clip ε ${rl.clipLow} / ${rl.clipHigh}, dual clip ${rl.dualClip} | \`clip_ratio_low=${rl.clipLow}\`, \`clip_ratio_high=${rl.clipHigh}\`, \`clip_ratio_c=${rl.dualClip}\` |
| KL ${rl.klCoef} (k3) | \`use_kl_loss=${rl.klCoef > 0 ? 'True' : 'False'}\`, \`kl_loss_coef=${rl.klCoef}\`, \`kl_loss_type=low_var_kl\` |
| loss aggregation ${rl.lossAggregation} | \`loss_agg_mode=${rl.lossAggregation}\` |
| learning rate | \`optim.lr=${p.learningRate}\` (${p.learningRateNote}) |
| steps ${rl.steps}, evaluate every ${rl.evalEvery} | \`trainer.total_training_steps\`, \`trainer.test_freq=${rl.evalEvery}\` (greedy validation) |
| tool calls per episode ${rl.maxTurns} | \`multi_turn.max_assistant_turns=${rl.maxTurns + 1}\` |
| — | \`multi_turn.max_tool_response_length=${p.lengths.maxToolResponse}\` characters: the longest answer any tool gives in this world, +10 % (veRL's default 256 would cut a flight list) |
| — | \`data.max_prompt_length=${p.lengths.maxPrompt}\`, \`data.max_response_length=${p.lengths.maxResponse}\` tokens: 1.5 × the teacher's longest trajectory (${p.lengths.teacherLongestChars} characters at 3 characters a token) |
| tool failure rate | \`tool_config.yaml\` \`failure_rate: ${rl.toolFailureRate}\`, \`seed: ${rl.seed}\` |
${dapo ? `| overlong buffer ${rl.overlongBuffer} of the lab's context | \`reward_model.overlong_buffer.len=${p.overlongBufferTokens}\` (the same fraction of \`max_response_length\`), \`penalty_factor=1.0\` |\n` : ''}| reward | ${rewardLine} |
| scale ${lab.scale} | \`actor_rollout_ref.model.path=${MODEL_OF_SCALE[lab.scale]}\` |

Where veRL differs from the lab: the policy is a pretrained chat model writing text, not the lab's token language, and RL starts from the Instruct model rather than an SFT checkpoint (run veRL's SFT trainer on teacher trajectories first to follow the paper); ${dapo ? "veRL's dynamic sampling stops with an error after `max_num_gen_batches` batches where the lab trains on what it kept; " : ''}tool failures are drawn per process from the seeded stream, so under concurrent rollouts which call fails varies from run to run.

## GPU memory

Estimates for full fine-tuning (FSDP, AdamW: about 16 bytes of training state per parameter, sharded over the GPUs) with a colocated rollout engine; sequences of ${p.lengths.maxPrompt + p.lengths.maxResponse} tokens with gradient checkpointing.

| scale | model | parameters | training state | GPUs |
|---|---|---|---|---|
${(['s', 'm', 'l'] as const).map((s) => `| ${s}${s === lab.scale ? ' (this job)' : ''} | ${MODEL_OF_SCALE[s]} | ${mem[s].params} | ${mem[s].state} | ${mem[s].advice} |`).join('\n')}

## Reward keys

\`score\` is the reward veRL trains on; the other keys (logged by veRL as reward extra info): \`delivered\`, \`final_pass\`, \`commonsense_micro\`, \`commonsense_macro\`, \`hard_micro\`, \`hard_macro\`, \`hard_checked\`, \`reward_sum\`, \`reward_macro\`, \`reward_success\`, \`stage\` (0 sum, 1 macro, 2 success), \`cost\` (−1 when it cannot be priced), \`plan_found\`, \`plan_tag\`, and one key per check (\`cs_<check>\`, \`hard_<check>\`: 1 pass, 0 fail; a check the query does not pose counts as a pass, as in TravelPlanner's macro rates). Watch \`delivered\` and \`final_pass\` separately: a dense reward can buy delivery with correctness.
`;
}
