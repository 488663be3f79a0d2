// `cli export-job --engine verl` (DESIGN §6): a lab experiment as a folder that veRL runs on real LLMs.
// This module builds every file of the folder in memory (so a bad input writes nothing); the command
// (commands/exportJob.ts) validates the flags and writes the folder. The Python files next to this
// module (verl/*.py) are copied as they are: the tools and the reward are ports of src/env, kept equal
// to it by test/cli/exportJob.test.ts.
//
// The veRL keys below were read from veRL's v0.7.0 tag (verl/trainer/config/ppo_trainer.yaml,
// verl/tools/base_tool.py, verl/experimental/agent_loop/tool_agent_loop.py,
// verl/utils/reward_score/__init__.py, recipe/dapo/config/dapo_trainer.yaml,
// examples/data_preprocess/gsm8k_multiturn_w_tool.py for the parquet layout).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parquetWriteBuffer } from 'hyparquet-writer';
import type { SchemaElement } from 'hyparquet';
import type { LabConfig } from '../lab/config.ts';
import { serializeHash } from '../lab/urlState.ts';
import { rlConfigFromLab, type RlConfig } from '../rl/rlConfig.ts';
import { TOOL_ARGUMENTS, TOOL_NAMES, callTool, renderObservation } from '../env/tools.ts';
import { teachTrajectory } from '../env/teacher.ts';
import { Rng } from '../env/random.ts';
import { worldDates } from '../env/world.ts';
import { worldToDatabaseFiles } from '../env/interop/database.ts';
import { toTravelPlannerQuery } from '../env/interop/submission.ts';
import type { Query, ToolName, World } from '../env/types.ts';

export const VERL_VERSION = '0.7.0';
export const ENGINES = ['verl'] as const;
export type Engine = (typeof ENGINES)[number];
export const DATA_SOURCE = 'star-lab/travelplanner';

/** Qwen2.5-Instruct at the paper's three scales (DESIGN §1: s/m/l mirror 1.5B/3B/7B). */
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
export const GPU_MEMORY_OF_SCALE: Record<LabConfig['scale'], { params: string; state: string; advice: string; tp: number }> = {
  s: { params: '1.5 B', state: '≈ 25 GB', advice: '1 × 80 GB (or 2 × 40 GB); 1 × 40 GB with actor_rollout_ref.actor.fsdp_config.param_offload=True and optimizer_offload=True', tp: 1 },
  m: { params: '3.1 B', state: '≈ 50 GB', advice: '2 × 80 GB (or 4 × 40 GB); 1 × 80 GB with parameter and optimizer offload', tp: 1 },
  l: { params: '7.6 B', state: '≈ 120 GB', advice: '4 × 80 GB (8 recommended); 2 × 80 GB with parameter and optimizer offload', tp: 2 },
};

/** Why ARPO is not exported (the command prints this). */
export const ARPO_REFUSAL =
  'export-job cannot export ARPO: its authors\' code (dongguanting/ARPO) is a fork of veRL 0.3.1.dev whose own vLLM rollout ' +
  'calls tools through text tags (it stops at </search> or </python> and splices a <result> block into the text) and branches ' +
  'rollouts on entropy inside that worker. veRL ' + VERL_VERSION + ' has no ARPO rollout, and its BaseTool tools and tool agent loop ' +
  'do not plug into that fork, so no faithful job can be written. Export the same experiment with algorithm=grpo or algorithm=dapo, ' +
  'or run ARPO in the lab.';

export const STAGE_REFUSAL = (stage: string) =>
  `export-job writes an RL job, but the config's stage is "${stage}": SFT on teacher trajectories belongs to veRL's SFT trainer (verl.trainer.fsdp_sft_trainer); export the RL stage (stage=rl)`;

/** The Python modules copied into the job folder. */
export const PYTHON_FILES = ['travelplanner_db.py', 'travelplanner_tools.py', 'reward.py'] as const;
const PYTHON_DIR = join(dirname(fileURLToPath(import.meta.url)), 'verl');

export function pythonSource(name: (typeof PYTHON_FILES)[number]): string {
  return readFileSync(join(PYTHON_DIR, name), 'utf8');
}

// ---------------------------------------------------------------------------------------------
// Prompt and tools

const TOOL_DOCS: Record<ToolName, { description: string; args: Record<string, string> }> = {
  SearchFlight: {
    description: 'List the flights from one city to another on a date (flight number, price per person, departure and arrival time, duration, distance).',
    args: { departure: 'the city to fly from', destination: 'the city to fly to', date: 'the date of the flight, YYYY-MM-DD (e.g. 2022-03-16)' },
  },
  GoogleDistanceMatrix: {
    description: 'The duration, distance and cost of driving between two cities, by self-driving (cost per car of up to 5 people) or taxi (cost per taxi of up to 4 people).',
    args: { departure: 'the city to drive from', destination: 'the city to drive to', mode: 'self-driving or taxi' },
  },
  SearchAccommodation: {
    description: "List a city's accommodations (name, price per night, room type, house rules, minimum nights, maximum occupancy, rating).",
    args: { city: 'the city' },
  },
  SearchRestaurant: {
    description: "List a city's restaurants (name, average cost per person, cuisines, rating).",
    args: { city: 'the city' },
  },
  SearchAttraction: {
    description: "List a city's attractions (name, address, phone, website).",
    args: { city: 'the city' },
  },
  SearchCity: {
    description: 'List the cities of a state that have travel information.',
    args: { state: 'the state, e.g. California' },
  },
};

/** veRL's tool schema of each tool (flat string parameters, all required). */
export function toolSchemas(): { type: 'function'; function: { name: string; description: string; parameters: { type: 'object'; properties: Record<string, { type: 'string'; description: string }>; required: string[] } } }[] {
  return TOOL_NAMES.map((name) => ({
    type: 'function',
    function: {
      name,
      description: TOOL_DOCS[name].description,
      parameters: {
        type: 'object',
        properties: Object.fromEntries(TOOL_ARGUMENTS[name].map((a) => [a, { type: 'string', description: TOOL_DOCS[name].args[a] }])),
        required: [...TOOL_ARGUMENTS[name]],
      },
    },
  }));
}

/** The system prompt of every row: the task, the six tools and the plan format the reward reads. */
export function systemPrompt(): string {
  const tools = TOOL_NAMES.map((t) => `- ${t}(${TOOL_ARGUMENTS[t].join(', ')}): ${TOOL_DOCS[t].description}`).join('\n');
  return [
    'You are a travel planner. Plan the trip the user asks for using only information returned by the tools below; call them as often as you need (a failed call may be retried).',
    '',
    'Tools:',
    tools,
    '',
    'When you have what you need, answer with the plan and nothing after it: a JSON list with one object per day of the trip inside <plan></plan>, each with the keys',
    '"days" (1, 2, …), "current_city", "transportation", "breakfast", "attraction", "lunch", "dinner", "accommodation" (all text; "-" when there is none):',
    '- current_city: "from A to B" on a day that travels from city A to city B, else the city of the day.',
    '- transportation: "Flight Number: F0123456, from A to B, Departure Time: 08:00, Arrival Time: 10:05", or "Self-driving, from A to B, duration: 2 hours 5 mins, distance: 190 km, cost: 9", or "Taxi, from A to B, …"; "-" when the day does not travel.',
    '- breakfast, lunch, dinner, accommodation: "Name, City" exactly as the tools list them.',
    '- attraction: "Name, City;" for each attraction, e.g. "Liberty Plaza, Denver;City Museum, Denver;".',
    'The trip starts at the origin on the first day and returns there on the last; stay where you sleep (an accommodation every night but the last), do not repeat a restaurant or an attraction, and keep the total cost within the budget and every constraint of the request.',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Parquet rows (veRL's multi-turn tool layout, examples/data_preprocess/gsm8k_multiturn_w_tool.py)

export interface VerlRow {
  data_source: string;
  prompt: { role: string; content: string }[];
  ability: string;
  reward_model: { style: string; ground_truth: string };
  extra_info: {
    index: bigint;
    split: string;
    need_tools_kwargs: boolean;
    tools_kwargs: Record<string, { create_kwargs: { split: string; index: bigint } }>;
  };
  agent_name: string;
}

export function verlRows(queries: readonly Query[], split: 'train' | 'validation'): VerlRow[] {
  const system = systemPrompt();
  return queries.map((q, i) => ({
    data_source: DATA_SOURCE,
    prompt: [{ role: 'system', content: system }, { role: 'user', content: q.query }],
    ability: 'travel-planning',
    reward_model: { style: 'rule', ground_truth: JSON.stringify(toTravelPlannerQuery(q, i + 1)) },
    extra_info: {
      index: BigInt(i),
      split,
      need_tools_kwargs: true,
      tools_kwargs: Object.fromEntries(TOOL_NAMES.map((t) => [t, { create_kwargs: { split, index: BigInt(i) } }])),
    },
    agent_name: 'tool_agent',
  }));
}

const str = (name: string): SchemaElement => ({ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' });
const int64 = (name: string): SchemaElement => ({ name, type: 'INT64', repetition_type: 'OPTIONAL' });
const group = (name: string, children: number, extra: Partial<SchemaElement> = {}): SchemaElement => ({ name, repetition_type: 'OPTIONAL', num_children: children, ...extra });

/** The parquet schema (Arrow's layout: prompt a 3-level LIST of structs, the rest nested structs). */
export function verlSchema(): SchemaElement[] {
  const tools = TOOL_NAMES.flatMap((t) => [group(t, 1), group('create_kwargs', 2), str('split'), int64('index')]);
  return [
    { name: 'schema', num_children: 6 },
    str('data_source'),
    group('prompt', 1, { converted_type: 'LIST' }), { name: 'list', repetition_type: 'REPEATED', num_children: 1 }, group('element', 2), str('role'), str('content'),
    str('ability'),
    group('reward_model', 2), str('style'), str('ground_truth'),
    group('extra_info', 4), int64('index'), str('split'), { name: 'need_tools_kwargs', type: 'BOOLEAN', repetition_type: 'OPTIONAL' }, group('tools_kwargs', TOOL_NAMES.length), ...tools,
    str('agent_name'),
  ];
}

export const PARQUET_COLUMNS = ['data_source', 'prompt', 'ability', 'reward_model', 'extra_info', 'agent_name'] as const;

export function parquetOf(rows: readonly VerlRow[]): Uint8Array {
  if (rows.length === 0) throw new Error('a parquet file needs at least one row');
  // key order inside each struct must follow the schema
  const ordered = rows.map((r) => ({
    ...r,
    reward_model: { style: r.reward_model.style, ground_truth: r.reward_model.ground_truth },
    extra_info: {
      index: r.extra_info.index, split: r.extra_info.split, need_tools_kwargs: r.extra_info.need_tools_kwargs,
      tools_kwargs: Object.fromEntries(TOOL_NAMES.map((t) => [t, { create_kwargs: { split: r.extra_info.tools_kwargs[t].create_kwargs.split, index: r.extra_info.tools_kwargs[t].create_kwargs.index } }])),
    },
  }));
  const buffer = parquetWriteBuffer({
    columnData: PARQUET_COLUMNS.map((name) => ({ name, data: ordered.map((r) => r[name]) })),
    schema: verlSchema(),
    kvMetadata: [{ key: 'star-lab', value: `export-job --engine verl (veRL ${VERL_VERSION} multi-turn tool layout)` }],
  });
  return new Uint8Array(buffer);
}

// ---------------------------------------------------------------------------------------------
// Lengths: measured on the world and the teacher, so nothing the tools return is cut

/** The longest text any well-formed call can return in this world (characters). */
export function longestObservation(world: World): number {
  let longest = 0;
  const see = (text: string) => void (longest = Math.max(longest, text.length));
  for (const [key, rows] of world.flights) {
    const [departure, destination, date] = key.split('|');
    see(renderObservation({ kind: 'flights', rows, departure, destination, date }));
  }
  for (const city of world.stateOf.keys()) {
    see(renderObservation({ kind: 'accommodations', rows: world.accommodations.get(city) ?? [] }));
    see(renderObservation({ kind: 'restaurants', rows: world.restaurants.get(city) ?? [] }));
    see(renderObservation({ kind: 'attractions', rows: world.attractions.get(city) ?? [] }));
    see(renderObservation(callTool(world, { tool: 'SearchFlight', args: { departure: city, destination: city, date: '2022/03/01' } })));
  }
  for (const cities of world.citiesByState.values()) see(renderObservation({ kind: 'cities', cities }));
  return longest;
}

export interface Lengths {
  /** veRL multi_turn.max_tool_response_length (characters) */
  maxToolResponse: number;
  /** data.max_prompt_length (tokens) */
  maxPrompt: number;
  /** data.max_response_length (tokens): assistant turns and tool responses together */
  maxResponse: number;
  /** the teacher's longest trajectory, in characters, that maxResponse was sized from */
  teacherLongestChars: number;
}

/** Characters per token assumed for Qwen2.5's tokenizer on this text (tables, names, JSON): conservative. */
const CHARS_PER_TOKEN = 3;
const roundUp = (x: number, to: number) => Math.ceil(x / to) * to;
/** a float setting as veRL's YAML writes it (3 -> 3.0) */
const fl = (x: number) => (Number.isInteger(x) ? x.toFixed(1) : String(x));

export function measureLengths(world: World, train: readonly Query[], seed: number): Lengths {
  const maxToolResponse = roundUp(Math.max(256, longestObservation(world) * 1.1), 256);
  const schemaChars = JSON.stringify(toolSchemas()).length;
  const longestQuery = Math.max(0, ...train.map((q) => q.query.length));
  const maxPrompt = roundUp(((systemPrompt().length + schemaChars + longestQuery) / CHARS_PER_TOKEN) * 1.25 + 64, 512);
  const rng = new Rng(seed).fork(0x7eac);
  let teacherLongestChars = 0;
  train.forEach((q, i) => {
    const t = teachTrajectory(world, q, { rng: rng.fork(i) });
    if (!t) return;
    let chars = JSON.stringify(t.plan).length + 200; // the plan turn with its tags and a sentence
    for (const s of t.steps) chars += renderObservation(s.observation).length + JSON.stringify({ name: s.call.tool, arguments: s.call.args }).length + 60;
    teacherLongestChars = Math.max(teacherLongestChars, chars);
  });
  // room for a policy that searches more than the teacher and thinks aloud: 1.5 × the teacher's longest
  const maxResponse = roundUp(Math.max(2048, (teacherLongestChars / CHARS_PER_TOKEN) * 1.5), 1024);
  return { maxToolResponse, maxPrompt, maxResponse, teacherLongestChars };
}

// ---------------------------------------------------------------------------------------------
// tool_config.yaml, run.sh, README.md, job.json

const yamlString = (s: string) => JSON.stringify(s); // a JSON string is a valid YAML double-quoted scalar

export function toolConfigYaml(failureRate: number, seed: number): string {
  const lines = [
    `# STAR Lab export: the six TravelPlanner tools for veRL ${VERL_VERSION} (actor_rollout_ref.rollout.multi_turn.tool_config_path).`,
    '# Each class answers from ./database exactly as the lab does; failure_rate and seed: the lab config\'s tool failures.',
    'tools:',
  ];
  for (const s of toolSchemas()) {
    const f = s.function;
    lines.push(
      `  - class_name: travelplanner_tools.${f.name}Tool`,
      '    config:',
      '      type: native',
      `      failure_rate: ${failureRate}`,
      `      seed: ${seed}`,
      '    tool_schema:',
      '      type: function',
      '      function:',
      `        name: ${f.name}`,
      `        description: ${yamlString(f.description)}`,
      '        parameters:',
      '          type: object',
      '          properties:',
      ...Object.entries(f.parameters.properties).flatMap(([name, p]) => [
        `            ${name}:`,
        '              type: string',
        `              description: ${yamlString(p.description)}`,
      ]),
      `          required: [${f.parameters.required.join(', ')}]`,
    );
  }
  return lines.join('\n') + '\n';
}

export interface JobPlan {
  lab: LabConfig;
  rl: RlConfig;
  hash: string;
  world: { source: World['source']; seed: number; label: string };
  trainSize: number;
  validationSize: number;
  lengths: Lengths;
  gpus: number;
  nodes: number;
  learningRate: number;
  learningRateNote: string;
  /** curriculum phases: [stage, last step] */
  phases: [string, number][];
  overlongBufferTokens: number;
  epochs: number;
  miniBatch: number;
}

/** The lab's context length the overlong buffer is measured against (the shipped checkpoints' card). */
function labContextLength(scale: string): number {
  const card = resolve(dirname(fileURLToPath(import.meta.url)), '../../public/checkpoints', `${scale}-tiny`, 'card.json');
  try {
    if (existsSync(card)) return (JSON.parse(readFileSync(card, 'utf8')) as { contextLength?: number }).contextLength ?? 576;
  } catch {
    // fall through
  }
  return 576;
}

/** veRL's learning rate: the lab's own value when set, else veRL's GRPO recipe value for Qwen2.5-Instruct. */
export const VERL_DEFAULT_LR = 1e-6;
const LAB_DEFAULT_LR = 1e-4;

export function planJob(lab: LabConfig, o: { worldSource: World['source']; worldSeed: number; trainSize: number; validationSize: number; lengths: Lengths; gpus: number; nodes: number; lr?: number }): JobPlan {
  const rl = rlConfigFromLab(lab);
  const steps = rl.steps;
  const phases: [string, number][] = [];
  if (rl.reward === 'curriculum') {
    // the lab's stage at step k (0-based) is curriculumStage(k / steps): Sum for k < s1·steps, …
    const end1 = Math.min(steps, Math.ceil(rl.curriculumSwitches[0] * steps));
    const end2 = Math.min(steps, Math.max(end1, Math.ceil(rl.curriculumSwitches[1] * steps)));
    for (const [stage, end, start] of [['sum', end1, 0], ['macro', end2, end1], ['success', steps, end2]] as const) if (end > start) phases.push([stage, end]);
  }
  let learningRate: number;
  let learningRateNote: string;
  if (o.lr !== undefined) {
    learningRate = o.lr;
    learningRateNote = 'from --lr';
  } else if (lab.learningRate !== LAB_DEFAULT_LR) {
    learningRate = lab.learningRate;
    learningRateNote = "the config's learningRate";
  } else {
    learningRate = VERL_DEFAULT_LR;
    learningRateNote = `veRL's GRPO recipe value for Qwen2.5-Instruct (the config keeps the lab's default ${LAB_DEFAULT_LR}, which is sized for the lab's toy models)`;
  }
  const ctx = labContextLength(lab.scale);
  const overlongBufferTokens = lab.algorithm === 'dapo' && rl.overlongBuffer > 0
    ? Math.max(1, Math.min(o.lengths.maxResponse - 1, Math.round((o.lengths.maxResponse * rl.overlongBuffer) / ctx)))
    : 0;
  const stepsPerEpoch = Math.max(1, Math.floor(o.trainSize / rl.queriesPerStep));
  const miniBatch = rl.queriesPerStep % rl.miniBatches === 0 ? rl.queriesPerStep / rl.miniBatches : rl.queriesPerStep;
  return {
    lab, rl, hash: serializeHash(lab), world: { source: o.worldSource, seed: o.worldSeed, label: o.worldSource === 'real' ? 'real' : `${o.worldSource}, seed ${o.worldSeed}` },
    trainSize: o.trainSize, validationSize: o.validationSize, lengths: o.lengths, gpus: o.gpus, nodes: o.nodes, learningRate, learningRateNote,
    phases, overlongBufferTokens, epochs: Math.ceil(steps / stepsPerEpoch) + 1, miniBatch,
  };
}

/** A path for a Hydra override: a double-quoted shell word holding a single-quoted Hydra string (paths may hold ':' or spaces). */
const hydraPath = (shellExpr: string) => `"'${shellExpr}'"`;

/** `run.sh`: veRL's trainer with the lab config's settings as overrides. */
export function runSh(p: JobPlan): string {
  const { rl, lab, lengths } = p;
  const dapo = lab.algorithm === 'dapo';
  const overrides: [string, string][] = [
    ['# algorithm (DESIGN §4; veRL core_algos: GRPO advantages, PPO clip, dual-clip, k3 KL)', ''],
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
    ['# reward (reward.py: the lab\'s evaluator and rewards, DESIGN §3.4)', ''],
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
      ['algorithm.filter_groups.max_num_gen_batches', String(rl.maxGenBatches)],
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
  const phases = p.phases.length > 0
    ? p.phases.map(([stage, end], i) => `run_phase ${stage} ${end} ${i === 0 ? 'True' : 'False'}   # ${stage} until step ${end} of ${rl.steps}`).join('\n')
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
${dapo ? `if [ -z "\${VERL_HOME:-}" ] || [ ! -f "$VERL_HOME/recipe/dapo/main_dapo.py" ]; then
  echo "DAPO runs veRL's recipe/dapo, which is not part of the pip package: set VERL_HOME to a checkout of veRL v$VERL_VERSION" >&2
  exit 1
fi
cd "$VERL_HOME"   # recipe/dapo's Hydra config is found relative to the source tree
` : ''}
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

/** job.json: what the Python side reads (the world facts the database layout cannot hold, the reward) and a record of the export. */
export function jobManifest(p: JobPlan, world: World): Record<string, unknown> {
  return {
    format: 'star-lab-verl-job/1',
    engine: 'verl',
    verlVersion: VERL_VERSION,
    config: p.lab,
    hash: p.hash,
    model: MODEL_OF_SCALE[p.lab.scale],
    world: {
      source: p.world.source,
      seed: p.world.seed,
      // SearchCity lists these (a state's cities with data); the flight search answers these dates
      citiesByState: Object.fromEntries(world.citiesByState),
      dates: [...worldDates(world)],
    },
    data: { train: p.trainSize, validation: p.validationSize, mix: p.lab.mix },
    tools: { failureRate: p.rl.toolFailureRate, seed: p.rl.seed },
    reward: { kind: p.rl.reward, switchPoints: p.rl.curriculumSwitches, steps: p.rl.steps, phases: p.phases, faithful: false },
    lengths: p.lengths,
    learningRate: { value: p.learningRate, from: p.learningRateNote },
  };
}

export function readme(p: JobPlan): string {
  const { lab, rl } = p;
  const mem = GPU_MEMORY_OF_SCALE;
  const dapo = lab.algorithm === 'dapo';
  const rewardLine = rl.reward === 'curriculum'
    ? `Curriculum: Sum, then Macro, then Success at ${rl.curriculumSwitches.map((x) => `${Math.round(x * 1000) / 10} %`).join(' and ')} of training. veRL passes no training step to a reward function, so run.sh trains in phases (${p.phases.map(([s, e]) => `${s} to step ${e}`).join(', ')}): each phase sets \`+custom_reward_function.reward_kwargs.stage\`, saves a checkpoint at its last step, and the next phase resumes from it.`
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
| algorithm ${lab.algorithm} | \`algorithm.adv_estimator=grpo\`${dapo ? ', `algorithm.filter_groups` (metric `seq_reward`, `max_num_gen_batches=' + rl.maxGenBatches + '`), `reward_model.reward_manager=dapo`' : ''} |
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

export interface VerlJobInput {
  lab: LabConfig;
  world: World;
  train: readonly Query[];
  validation: readonly Query[];
  gpus: number;
  nodes: number;
  lr?: number;
}

/** Every file of the job folder, by relative path. Throws (before anything is written) on a job that cannot run. */
export function buildVerlJob(input: VerlJobInput): { files: Map<string, string | Uint8Array>; plan: JobPlan } {
  const { lab, world, train, validation } = input;
  if (lab.algorithm === 'arpo') throw new Error(ARPO_REFUSAL);
  if (lab.stage !== 'rl') throw new Error(STAGE_REFUSAL(lab.stage));
  if (train.length === 0) throw new Error('the config yields no training queries');
  if (validation.length === 0) throw new Error('the validation split is empty (--validation must be at least 1)');
  const lengths = measureLengths(world, train, lab.seed);
  const plan = planJob(lab, { worldSource: world.source, worldSeed: world.seed, trainSize: train.length, validationSize: validation.length, lengths, gpus: input.gpus, nodes: input.nodes, lr: input.lr });
  const files = new Map<string, string | Uint8Array>();
  for (const [rel, text] of worldToDatabaseFiles(world)) files.set(rel, text);
  files.set('data/train.parquet', parquetOf(verlRows(train, 'train')));
  files.set('data/val.parquet', parquetOf(verlRows(validation, 'validation')));
  files.set('tool_config.yaml', toolConfigYaml(plan.rl.toolFailureRate, plan.rl.seed));
  files.set('run.sh', runSh(plan));
  files.set('README.md', readme(plan));
  files.set('job.json', JSON.stringify(jobManifest(plan, world), null, 2) + '\n');
  for (const name of PYTHON_FILES) files.set(name, pythonSource(name));
  return { files, plan };
}
