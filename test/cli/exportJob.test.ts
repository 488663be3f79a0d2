// `cli export-job --engine verl`: the exported folder's Python tools and reward are
// ports of src/env, so they are checked against it on the same inputs (one python3 process per test,
// all cases in one JSONL file); the parquet files are read back by two readers other than the writer
// (hyparquet, and arrow-rs through parquet-wasm); the YAML is parsed; bad input writes nothing.
// veRL itself and GPUs are not available here: the module imports fall back to a local BaseTool.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { readParquet, writeParquet } from 'parquet-wasm';
import { parse as parseYaml } from 'yaml';
import { exportJobCommand } from '../../src/cli/commands/exportJob.ts';
import { commands } from '../../src/cli/commands/index.ts';
import { ARPO_REFUSAL } from '../../src/cli/verlJob.ts';
import { PARQUET_COLUMNS, verlRows } from '../../src/cli/verl/parquet.ts';
import { systemPrompt } from '../../src/cli/verl/toolsAndPrompt.ts';
import { VERL_VERSION } from '../../src/cli/verl/target.ts';
import { generateWorld } from '../../src/env/world.ts';
import { buildDataset } from '../../src/env/queries.ts';
import { teachTrajectory } from '../../src/env/teacher.ts';
import { Rng } from '../../src/env/random.ts';
import { TOOL_NAMES, callTool, parseToolCall } from '../../src/env/tools.ts';
import { renderObservation } from '../../src/env/render.ts';
import { evaluatePlan } from '../../src/env/evaluate.ts';
import { computeReward, type RewardKind, commonsenseMacro, commonsenseMicro, hardMacro, hardMicro } from '../../src/env/rewards.ts';
import { mutatePlans, type PlanRecord } from '../../src/env/planMutations.ts';
import { toTravelPlannerQuery } from '../../src/env/interop/submission.ts';
import type { Plan, Query, World } from '../../src/env/types.ts';

const PYTHON = process.env.PYTHON ?? 'python3';
const hasPython = spawnSync(PYTHON, ['--version'], { stdio: 'ignore' }).status === 0;
const DRIVER = resolve(__dirname, 'fixtures/verl_driver.py');
// reward and steps named: the run_phase lines below read them (the defaults moved to the recipe's Sum, 40 steps)
const CONFIG = '#scale=s&reward=curriculum&steps=200&worldSize=tiny&trainSize=200&toolFailureRate=0.1&seed=3';
const TRAIN = 200;
const VALIDATION = 20;

let root: string;
let job: string;
let world: World;
let train: Query[];

/** Run the driver once over `cases`; one parsed result per case that yields one. */
function python(cases: unknown[]): unknown[] {
  const file = join(root, `cases-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(file, cases.map((c) => JSON.stringify(c)).join('\n') + '\n');
  const out = execFileSync(PYTHON, [DRIVER, job, file], { encoding: 'utf8', maxBuffer: 1 << 29 });
  return out.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as unknown);
}

async function exportJob(args: string[]): Promise<number> {
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  try {
    return await exportJobCommand.run(args);
  } finally {
    log.mockRestore();
  }
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'star-export-job-'));
  job = join(root, 'job');
  expect(await exportJob(['--config', CONFIG, '--engine', 'verl', '--out', job, '--validation', String(VALIDATION), '--test', '0', '--gpus', '4'])).toBe(0);
  world = generateWorld('tiny', 1);
  train = buildDataset(world, { size: TRAIN, mix: [4, 3, 3], seed: 1, validationSize: VALIDATION, testSize: 0 }).train;
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('export-job writes a veRL job folder', () => {
  it('has every file, an executable run.sh that bash can parse, and the overrides mapped from the config', () => {
    for (const f of ['run.sh', 'README.md', 'tool_config.yaml', 'reward.py', 'travelplanner_tools.py', 'travelplanner_db.py', 'job.json',
      'data/train.parquet', 'data/val.parquet', 'database/flights/clean_Flights_2022.csv', 'database/background/citySet_with_states.txt']) {
      expect(existsSync(join(job, f)), f).toBe(true);
    }
    const run = readFileSync(join(job, 'run.sh'), 'utf8');
    expect(spawnSync('bash', ['-n', join(job, 'run.sh')]).status).toBe(0);
    for (const o of ['python3 -m verl.trainer.main_ppo', 'algorithm.adv_estimator=grpo', 'actor_rollout_ref.rollout.n=8', 'actor_rollout_ref.actor.clip_ratio_low=0.2',
      'actor_rollout_ref.actor.clip_ratio_high=0.2', 'actor_rollout_ref.actor.clip_ratio_c=3.0', 'actor_rollout_ref.actor.use_kl_loss=True',
      'actor_rollout_ref.actor.kl_loss_coef=0.001', 'actor_rollout_ref.actor.kl_loss_type=low_var_kl', 'actor_rollout_ref.actor.loss_agg_mode=token-mean',
      'actor_rollout_ref.actor.optim.lr=0.000001', 'data.train_batch_size=4', 'actor_rollout_ref.rollout.multi_turn.enable=True',
      'actor_rollout_ref.rollout.multi_turn.max_assistant_turns=25', 'custom_reward_function.name=compute_score', 'Qwen/Qwen2.5-1.5B-Instruct',
      'GPUS=4', 'trainer.n_gpus_per_node="$GPUS"', 'trainer.nnodes="$NODES"', `VERL_VERSION=${VERL_VERSION}`,
      // curriculum (the default reward) as three phases at ⌈0.333·200⌉ and ⌈0.667·200⌉
      'run_phase sum 67 True', 'run_phase macro 134 False', 'run_phase success 200 False']) {
      expect(run, o).toContain(o);
    }
    const m = /max_tool_response_length=(\d+)/.exec(run);
    expect(Number(m?.[1])).toBeGreaterThan(256); // veRL's default would cut a flight list
    const manifest = JSON.parse(readFileSync(join(job, 'job.json'), 'utf8')) as { verlVersion: string; tools: { failureRate: number; seed: number } };
    expect(manifest.verlVersion).toBe(VERL_VERSION);
    expect(manifest.tools).toEqual({ failureRate: 0.1, seed: 3 });
    expect(readFileSync(join(job, 'README.md'), 'utf8')).toContain('GPU memory');
  });

  it('tool_config.yaml parses as veRL reads it: six native tools with flat string parameters', () => {
    const cfg = parseYaml(readFileSync(join(job, 'tool_config.yaml'), 'utf8')) as { tools: { class_name: string; config: Record<string, unknown>; tool_schema: { type: string; function: { name: string; description: string; parameters: { type: string; properties: Record<string, { type: string; description: string }>; required: string[] } } } }[] };
    expect(cfg.tools.map((t) => t.tool_schema.function.name)).toEqual(TOOL_NAMES);
    for (const t of cfg.tools) {
      const f = t.tool_schema.function;
      expect(t.class_name).toBe(`travelplanner_tools.${f.name}Tool`);
      expect(t.config).toEqual({ type: 'native', failure_rate: 0.1, seed: 3 });
      expect(t.tool_schema.type).toBe('function');
      expect(f.description.length).toBeGreaterThan(10);
      expect(f.parameters.type).toBe('object');
      expect(f.parameters.required.length).toBeGreaterThan(0);
      expect(Object.keys(f.parameters.properties)).toEqual(f.parameters.required);
      for (const p of Object.values(f.parameters.properties)) expect(p.type).toBe('string');
    }
  });

  it('the parquet files read back with hyparquet and through arrow-rs (parquet-wasm): rows, columns, content', async () => {
    const bytes = readFileSync(join(job, 'data/train.parquet'));
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    expect(Number(parquetMetadata(buffer).num_rows)).toBe(TRAIN);
    const rows = (await parquetReadObjects({ file: buffer })) as Record<string, unknown>[];
    expect(rows.length).toBe(TRAIN);
    expect(Object.keys(rows[0])).toEqual([...PARQUET_COLUMNS]);
    const plain = (x: unknown) => JSON.parse(JSON.stringify(x, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))) as unknown;
    // the exported queries are the lab's: the same split a lab run of this config draws
    expect(plain(rows)).toEqual(plain(verlRows(train, 'train')));
    const row = rows[7] as { prompt: { role: string; content: string }[]; reward_model: { style: string; ground_truth: string }; extra_info: { index: bigint; split: string; need_tools_kwargs: boolean; tools_kwargs: Record<string, unknown> }; agent_name: string };
    expect(row.prompt).toEqual([{ role: 'system', content: systemPrompt() }, { role: 'user', content: train[7].query }]);
    expect(row.reward_model.style).toBe('rule');
    expect(JSON.parse(row.reward_model.ground_truth)).toEqual(toTravelPlannerQuery(train[7], 8));
    expect(row.extra_info.need_tools_kwargs).toBe(true);
    expect(Number(row.extra_info.index)).toBe(7);
    expect(Object.keys(row.extra_info.tools_kwargs)).toEqual(TOOL_NAMES);
    expect(row.agent_name).toBe('tool_agent');
    for (const split of ['train', 'val']) {
      const b = readFileSync(join(job, `data/${split}.parquet`));
      const arrow = readParquet(new Uint8Array(b));
      const again = writeParquet(arrow); // arrow-rs decoded our file into Arrow arrays and wrote it anew
      const viaArrow = await parquetReadObjects({ file: again.buffer.slice(again.byteOffset, again.byteOffset + again.byteLength) as ArrayBuffer });
      const direct = await parquetReadObjects({ file: b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) });
      expect(plain(viaArrow)).toEqual(plain(direct));
      expect(direct.length).toBe(split === 'train' ? TRAIN : VALIDATION);
    }
  });
});

describe.runIf(!hasPython && process.env.CI)('python3', () => {
  it('is installed (the parity tests need it; .ci/run installs Debian\'s python3)', () => {
    expect.fail(`${PYTHON} not found`);
  });
});

describe.skipIf(!hasPython)('the exported Python equals the lab (one python3 process per test)', () => {
  it('tools: the same observation text as the lab for the teacher\'s calls on 200 queries and odd calls, without and with seeded failures', () => {
    const calls: { name: string; args: unknown }[] = [];
    train.forEach((q, i) => {
      const t = teachTrajectory(world, q, { rng: new Rng(11).fork(i) });
      for (const s of t?.steps ?? []) calls.push({ name: s.call.tool, args: { ...s.call.args } });
    });
    const teacherCalls = calls.length;
    const [city] = world.stateOf.keys();
    const [state] = world.citiesByState.keys();
    for (const c of world.stateOf.keys()) for (const tool of ['SearchAccommodation', 'SearchRestaurant', 'SearchAttraction']) calls.push({ name: tool, args: { city: c } });
    for (const s of world.citiesByState.keys()) calls.push({ name: 'SearchCity', args: { state: s } });
    calls.push(
      { name: 'SearchFlight', args: { departure: 'Atlantis', destination: city, date: '2022-03-02' } },
      { name: 'SearchFlight', args: { departure: city, destination: city, date: '2022-3-2' } },
      { name: 'SearchFlight', args: { departure: city, destination: city, date: '2023-01-05' } },
      { name: 'SearchFlight', args: { origin: city, destination: city, date: '2022-03-05' } },
      { name: 'SearchFlight', args: { departure: city, origin: city, destination: city, date: '2022-03-05' } },
      { name: 'SearchFlight', args: { departure: city, destination: city } },
      { name: 'SearchFlight', args: { departure: city, destination: 5, date: '2022-03-05' } },
      { name: 'SearchFlight', args: ['x'] },
      { name: 'SearchFlight', args: { ' Departure ': `  ${city} `, 'Destination City': city, date: '2022-03-05', 1: 'x' } },
      { name: 'GoogleDistanceMatrix', args: { departure: city, destination: city, mode: 'walking' } },
      { name: 'GoogleDistanceMatrix', args: { departure: city, destination: [...world.stateOf.keys()][1], mode: 'Self Driving' } },
      { name: 'GoogleDistanceMatrix', args: { departure: city, destination: 'Nowhere', mode: 'taxi' } },
      { name: 'SearchAccommodation', args: { city: null } },
      { name: 'SearchRestaurant', args: { city: true } },
      { name: 'SearchAttraction', args: { town: city } },
      { name: 'SearchCity', args: { state: 'Atlantis' } },
      { name: 'SearchCity', args: { state: `${state}` } },
      { name: 'FlightSearch', args: { departure: city, destination: city, date: '2022-03-07' } },
      { name: 'toString', args: {} },
      { name: ' CitySearch ', args: { state } },
    );
    for (const [u, v] of [...world.drives.keys()].slice(0, 40).map((k) => k.split('|'))) {
      calls.push({ name: 'GoogleDistanceMatrix', args: { departure: u, destination: v, mode: 'self-driving' } }, { name: 'GoogleDistanceMatrix', args: { departure: u, destination: v, mode: 'taxi' } });
    }
    const lab = (rate: number, seed: number) => {
      const rng = new Rng(seed);
      return calls.map(({ name, args }) => {
        const parsed = parseToolCall(name, args as Record<string, unknown>);
        if ('error' in parsed) return parsed.error;
        return renderObservation(callTool(world, parsed, { failureRate: rate, rng }));
      });
    };
    const expected = [...lab(0, 1), ...lab(0.3, 5)];
    const results = python([
      { kind: 'tools_config', rate: 0, seed: 1 }, ...calls.map((c) => ({ kind: 'tool', ...c })),
      { kind: 'tools_config', rate: 0.3, seed: 5 }, ...calls.map((c) => ({ kind: 'tool', ...c })),
    ]) as { text: string; failure: boolean }[];
    expect(results.length).toBe(expected.length);
    const mismatches = results.map((r, i) => (r.text === expected[i] ? null : { call: calls[i % calls.length], python: r.text.slice(0, 300), lab: expected[i].slice(0, 300) })).filter((x) => x !== null);
    const failures = results.slice(calls.length).filter((r) => r.failure).length;
    console.log(`tool parity: ${results.length} calls (${teacherCalls} teacher calls on ${TRAIN} queries, twice: rate 0 and rate 0.3 with ${failures} seeded failures), ${mismatches.length} mismatches`);
    expect(mismatches.slice(0, 3)).toEqual([]);
    expect(teacherCalls).toBeGreaterThan(TRAIN);
    expect(failures).toBeGreaterThan(calls.length * 0.2);
  });

  it('reward.py: the same verdicts (lab and faithful mode) and the same four rewards as the lab on teacher plans and rule-breaking variants', () => {
    const records: PlanRecord[] = train.map((q, i) => ({ idx: i + 1, query: q.query, plan: (teachTrajectory(world, q, { rng: new Rng(11).fork(i) })?.plan ?? null) as PlanRecord['plan'] }));
    const variants = mutatePlans(world, records, 900, 7);
    const odd: PlanRecord[] = [
      { idx: 1, query: '', plan: [] as PlanRecord['plan'] },
      { idx: 2, query: '', plan: [{}, 'day two', null, 7] as unknown as PlanRecord['plan'] },
      { idx: 3, query: '', plan: records[2].plan!.map((d) => ({ ...d, breakfast: 5, lunch: null, attraction: ['A', 1], dinner: { x: 1 } })) },
      { idx: 4, query: '', plan: records[3].plan!.map((d) => ({ ...d, accommodation: `${String(d.accommodation)} ` })) },
    ];
    const cases = [...records, ...variants, ...odd];
    const switches = [0.333, 0.667] as const; // the config's defaults, written to job.json
    const expected = cases.map((c) => {
      const q = train[c.idx - 1];
      const lab = evaluatePlan(world, q, c.plan as Plan | null);
      const faithful = evaluatePlan(world, q, c.plan as Plan | null, { faithful: true });
      const r = (kind: RewardKind, progress = 0) => computeReward(kind, lab, progress, switches);
      return {
        lab: JSON.parse(JSON.stringify(lab)) as unknown,
        faithful: JSON.parse(JSON.stringify(faithful)) as unknown,
        scores: { sum: r('sum'), macro: r('macro'), success: r('success'), 'c0.1': r('curriculum', 0.1), 'c0.5': r('curriculum', 0.5), 'c0.9': r('curriculum', 0.9) },
        parts: { delivered: lab.delivered ? 1 : 0, final_pass: lab.finalPass ? 1 : 0, commonsense_micro: commonsenseMicro(lab), hard_micro: hardMicro(lab), commonsense_macro: commonsenseMacro(lab), hard_macro: hardMacro(lab) },
      };
    });
    const results = python(cases.map((c) => ({ kind: 'plan', query: toTravelPlannerQuery(train[c.idx - 1], c.idx), plan: c.plan }))) as {
      lab: unknown; faithful: unknown; scores: Record<string, Record<string, number>>;
    }[];
    expect(results.length).toBe(cases.length);
    const bad: string[] = [];
    let rewardsCompared = 0;
    results.forEach((r, i) => {
      const e = expected[i];
      if (JSON.stringify(r.lab) !== JSON.stringify(e.lab)) bad.push(`plan ${i} lab verdicts: python ${JSON.stringify(r.lab).slice(0, 600)}\n lab ${JSON.stringify(e.lab).slice(0, 600)}`);
      if (JSON.stringify(r.faithful) !== JSON.stringify(e.faithful)) bad.push(`plan ${i} faithful verdicts: python ${JSON.stringify(r.faithful).slice(0, 600)}\n lab ${JSON.stringify(e.faithful).slice(0, 600)}`);
      for (const [k, v] of Object.entries(e.scores)) {
        rewardsCompared++;
        if (r.scores[k].score !== v) bad.push(`plan ${i} reward ${k}: python ${r.scores[k].score}, lab ${v}`);
      }
      for (const [k, v] of Object.entries(e.parts)) if (r.scores.sum[k] !== v) bad.push(`plan ${i} ${k}: python ${r.scores.sum[k]}, lab ${v}`);
      if (r.scores.sum.plan_found !== (Array.isArray(cases[i].plan) && cases[i].plan!.length > 0 ? 1 : 0)) bad.push(`plan ${i}: plan_found ${r.scores.sum.plan_found}`);
    });
    const delivered = expected.filter((e) => e.parts.delivered).length;
    const passing = expected.filter((e) => e.parts.final_pass).length;
    console.log(`reward parity: ${cases.length} plans (${records.length} teacher, ${variants.length + odd.length} variants; ${delivered} delivered, ${passing} pass), verdicts in 2 modes and ${rewardsCompared} rewards compared, ${bad.length} mismatches`);
    expect(cases.length).toBeGreaterThanOrEqual(1000);
    expect(passing).toBeGreaterThan(100);
    expect(cases.length - passing).toBeGreaterThan(300);
    expect(bad.slice(0, 3)).toEqual([]);
  });

  it('reward.py reads the plan from the last assistant turn only, and every tool_config class resolves', () => {
    const plan = [{ days: 1, current_city: 'A' }];
    const p = JSON.stringify(plan);
    const solutions: [string, unknown, string][] = [
      [`<tool_call>{}</tool_call>user\n<tool_response>\nrows\n</tool_response>\nassistant\nDone.\n<plan>${p}</plan>`, plan, 'plan_tag'],
      [`<|im_start|>assistant\n<plan>\n\`\`\`json\n${p}\n\`\`\`\n</plan><|im_end|>`, plan, 'plan_tag'],
      [`Here it is:\n\`\`\`json\n${p}\n\`\`\``, plan, 'json_fence'],
      [`<plan>${p}</plan> but first <tool_call>{}</tool_call>user\n<tool_response>\nx\n</tool_response>\nassistant\nI ran out of turns.`, null, 'none'],
      ['<plan>[{"days": NaN}]</plan>', null, 'plan_tag:not_json'],
      ['<plan>{"days": 1}</plan>', null, 'plan_tag:not_a_plan'],
      ['<plan>[]</plan>', null, 'plan_tag:not_a_plan'],
      [`<plan>{"plan": ${p}}</plan>`, plan, 'plan_tag'],
      ['no plan at all', null, 'none'],
    ];
    const cfg = parseYaml(readFileSync(join(job, 'tool_config.yaml'), 'utf8')) as { tools: { class_name: string; tool_schema: { function: { name: string } } }[] };
    const results = python([...solutions.map(([text]) => ({ kind: 'solution', text })), { kind: 'schemas', classes: cfg.tools.map((t) => t.class_name) }]) as { plan: unknown; how: string }[];
    solutions.forEach(([text, plan, how], i) => expect(results[i], text).toEqual({ plan, how }));
    expect(results[solutions.length]).toEqual(Object.fromEntries(cfg.tools.map((t) => [t.class_name, t.tool_schema.function.name])));
  });
});

describe('export-job refuses bad input and writes nothing', () => {
  const out = () => join(root, 'refused');
  const refuse = async (args: string[], message: RegExp) => {
    await expect(exportJob(args)).rejects.toThrow(message);
  };

  it('an unknown engine, or --engine without one (none given is verl, the only one)', async () => {
    await refuse(['--config', '#scale=s', '--engine', 'deepspeed', '--out', out()], /unknown engine "deepspeed".*verl/);
    await refuse(['--config', '#scale=s', '--engine', '--out', out()], /--engine needs a value/);
    expect(existsSync(out())).toBe(false);
  });

  it('a config that does not validate', async () => {
    await refuse(['--config', '#scale=xl&trainSize=5', '--engine', 'verl', '--out', out()], /scale.*must be one of s, m, l/s);
    await refuse(['--config', '{"scale": "s", "nonsense": 1}', '--engine', 'verl', '--out', out()], /nonsense: unknown setting/);
    await refuse(['--config', '{not json', '--engine', 'verl', '--out', out()], /not valid JSON/);
    await refuse(['--config', '#algorithm=arpo', '--engine', 'verl', '--out', out()], new RegExp(ARPO_REFUSAL.slice(0, 40).replace(/[().]/g, '\\$&')));
    await refuse(['--config', '#stage=sft', '--engine', 'verl', '--out', out()], /stage is "sft"/);
    expect(existsSync(out())).toBe(false);
  });

  it('an existing non-empty folder without --force; with it, a folder of other files still (an earlier job is moved aside, kept)', async () => {
    mkdirSync(out(), { recursive: true });
    writeFileSync(join(out(), 'keep.txt'), 'mine');
    await refuse(['--config', '#scale=s&worldSize=tiny&trainSize=20', '--engine', 'verl', '--out', out()], /exists and is not empty; pass --force/);
    // --force replaces an export job only: the user's file is neither deleted nor moved
    await refuse(['--config', '#scale=s&worldSize=tiny&trainSize=20', '--engine', 'verl', '--out', out(), '--force'], /holds files that are not an export job \(keep\.txt\); --force replaces only an earlier job/);
    expect(readdirSync(out())).toEqual(['keep.txt']);
    rmSync(join(out(), 'keep.txt'));
    writeFileSync(join(out(), 'job.json'), '{"earlier": true}');
    expect(await exportJob(['--config', '#scale=m&worldSize=tiny&trainSize=20&algorithm=dapo&reward=sum&steps=200', '--engine', 'verl', '--out', out(), '--force', '--validation', '5', '--test', '0'])).toBe(0);
    const aside = readdirSync(root).filter((f) => f.startsWith('refused.replaced-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(root, aside[0], 'job.json'), 'utf8')).toBe('{"earlier": true}'); // the earlier job, whole
    expect(readdirSync(root).filter((f) => f.includes('export-job'))).toEqual([]); // no staging folder left
    const run = readFileSync(join(out(), 'run.sh'), 'utf8');
    expect(spawnSync('bash', ['-n', join(out(), 'run.sh')]).status).toBe(0);
    for (const o of ['python3 -m recipe.dapo.main_dapo', 'VERL_HOME', 'algorithm.filter_groups.enable=True', 'algorithm.filter_groups.metric=seq_reward',
      'algorithm.filter_groups.max_num_gen_batches=3', 'reward_model.reward_manager=dapo', 'reward_model.overlong_buffer.enable=True',
      'actor_rollout_ref.actor.clip_ratio_high=0.28', 'actor_rollout_ref.actor.use_kl_loss=False', 'Qwen/Qwen2.5-3B-Instruct',
      '+custom_reward_function.reward_kwargs.reward=sum', "run_phase '' 200 True"]) {
      expect(run, o).toContain(o);
    }
  });

  it('is registered, so the CLI lists it in its help and runs it', () => {
    const command = commands.find((c) => c.name === 'export-job');
    expect(command).toBe(exportJobCommand);
    expect(command?.help).toContain('--engine verl');
  });
});
