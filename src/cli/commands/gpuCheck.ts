// `gpu-check`: the lab's RL step on a real GPU against wasm (docs/gpu-check.md). `--pack DIR` (here) writes
// everything a bare GPU machine needs — Node, dawn.node, the Vulkan loader, this CLI in one file with
// tfjs's wasm files — and `--run` (there, started by the pack's run.sh) measures and writes figures.json.
import { mkdirSync, readFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import type { Command } from '../command.ts';
import { parseFlags } from '../command.ts';
import { flagInt, flagOptionalText, flagText, rejectUnknownFlags } from '../envFlags.ts';
import { writeAtomic } from '../../node/atomicWrite.ts';
import { provenance, type Provenance } from '../../node/provenance.ts';
import {
  CHECK_BACKENDS,
  GPU_CHECK_FORMAT,
  SCALES,
  type CheckBackend,
  type GpuCheckFigures,
  type Scale,
} from '../gpuCheck/figures.ts';
import { defaultWasmThreads } from '../../node/nodeBackend.ts';
import { defaultConfig, type LabConfig } from '../../lab/config.ts';
import { parseLabConfig } from '../labConfigArg.ts';
import { shellCommand } from '../shellQuote.ts';

const KNOWN = ['pack', 'run', 'out', 'rehearse', 'scales', 'steps', 'deadline-s', 'threads', 'flags', 'compile-ahead',
  'config', 'backends', 'decode-steps', 'seeds', 'seed-probe-s', 'allow-dirty', 'count-dispatches', 'stack-seeds',
  'stack-probe-s'];
/** where run.sh says the pack lies (its manifest names the commit it was built from) */
export const PACK_DIR_ENV = 'STAR_PACK_DIR';

export const gpuCheckCommand: Command = {
  name: 'gpu-check',
  summary: 'pack the GPU check for a bare GPU machine, or run it there (RL step on webgpu vs wasm)',
  help: `usage: npm run gpu-check -- --pack DIR
       gpu-check --run --out DIR [--rehearse] [--scales m,s,l] [--steps N] [--deadline-s S] [--threads N]
                 [--flags JSON] [--compile-ahead] [--config HASH] [--backends webgpu,wasm]
                 [--decode-steps N] [--seeds 1,4,16] [--seed-probe-s S] [--stack-seeds 1,4,16] [--stack-probe-s S]
       gpu-check --run --count-dispatches --out DIR [--scales m] [--config HASH] [--steps N]

  --pack DIR      write the pack into DIR (Node's binary, dawn.node, the Vulkan loader, the CLI bundled with
                  tfjs's wasm files, run.sh): under 32 MiB, so the repository and the pack fit the GPU
                  machine's 64 MiB. On that machine: sh DIR/run.sh OUT [options], from the repository root
                  (the checkpoints are read from public/checkpoints). docs/gpu-check.md
  --run           measure here: the adapter (a hardware one, or it fails), then per scale a first and N
                  timed default RL steps on webgpu and on wasm, dispatches and memory, into OUT/figures.json
                  (rewritten after every step) and OUT/README.md
  --out DIR       where --run writes
  --rehearse      accept a fallback adapter (SwiftShader) and run tiny steps (1 query × 2 rollouts, 1 turn)
  --count-dispatches  count the default RL step's dispatches by phase (prefills, decode steps, sampling;
                  forward passes, backward, optimizer) on webgpu alone, any adapter (SwiftShader's counts are
                  a GPU's): --backends webgpu --decode-steps 0 --seeds 0 --steps 0 --scales m unless given
  --scales LIST   scales in order (default m,s,l: m first, the scale the 5× target is asked at)
  --steps N       timed steps after the first, per scale and backend (default 2)
  --deadline-s S  no step starts after S seconds (default 300)
  --threads N     wasm threads (default: every core from 4 cores, at most 8, the threaded build's pool)
  --flags JSON    tfjs flags for webgpu, e.g. '{"WEBGPU_DEFERRED_SUBMIT_BATCH_SIZE":64}' (levers, no new pack)
  --compile-ahead compile each new step's shaders at once (src/model/kernels/compileAhead.ts)
  --config HASH   settings over the lab's defaults, as the page's hash, e.g. '#queriesPerStep=16' (4× the rows
                  a decode step: the proxy for several seeds in one program)
  --backends LIST which backends to measure, in order (default webgpu,wasm); webgpu-plain is webgpu with
                  the decode step's fused kernels off (the levers' before: model/fusedDecode.ts)
  --decode-steps N timed decode steps per run of the decode-step probe, run first (default 20; rehearsal 2;
                  0 skips it): a decode step of 32 rows with the levers off and on, and on wasm
  --seeds LIST    the seed probe's S values, after the decode probe (default 1,4,16; 0 skips it): S seeds in one
                  program (model/seedStack.ts), a decode step of 32 rows a seed and a micro-batch of 2,048
                  tokens a seed, against one Policy, on webgpu and wasm; seed-steps per second estimated
  --seed-probe-s S the seed probe's budget: a run that would not fit is skipped (default 90; rehearsal 300)
  --stack-seeds LIST the S-seed RL step's S values, right after the first scale (default 1,4,16; rehearsal 1,2;
                  0 skips it): S seeds of the first scale's setting train a real RL step in one program
                  (rl/seedStackStep.ts) on webgpu, a first and one timed step each; seed-steps per second measured
  --stack-probe-s S its budget: an S whose time, guessed linear in S, would not fit is skipped (default 240;
                  rehearsal 900)`,
  async run(args) {
    const { flags, positional } = parseFlags(args);
    rejectUnknownFlags(flags, positional, KNOWN, ['allow-dirty']);
    const pack = flagOptionalText(flags, 'pack');
    if (pack !== undefined) {
      if (flags.has('run')) throw new Error('--pack and --run are two steps on two machines: give one');
      const { writePack } = await import('../gpuCheck/pack.ts');
      await writePack(pack, flags.has('allow-dirty'));
      return 0;
    }
    if (!flags.has('run'))
      throw new Error('give --pack DIR (here) or --run --out DIR (on the GPU machine); see --help');
    const out = flagText(flags, 'out');
    const rehearse = flags.has('rehearse');
    const count = flags.has('count-dispatches');
    if (count && rehearse) {
      throw new Error('--count-dispatches counts the default step; --rehearse runs a tiny one: give one');
    }
    const scales = parseScales(flagText(flags, 'scales', rehearse ? 's' : count ? 'm' : 'm,s,l'));
    const threads = flagInt(flags, 'threads', defaultWasmThreads(1), 1); // the CLI's rule: every core from 4, at most 8
    if (threads > 8) throw new Error('--threads: the threaded wasm build holds at most 8');
    mkdirSync(out, { recursive: true });
    const figures: GpuCheckFigures = {
      format: GPU_CHECK_FORMAT,
      complete: false,
      rehearsal: rehearse,
      startedAt: new Date().toISOString(),
      updatedAt: '',
      command: shellCommand('gpu-check', args),
      ...packCommit(out, flags.has('allow-dirty')),
      machine: {
        nproc: os.availableParallelism(),
        cpu: os.cpus()[0]?.model ?? 'unknown',
        memoryGiB: Math.round(os.totalmem() / 2 ** 30),
        node: process.version,
        platform: `${process.platform}-${process.arch}`,
      },
      adapter: null,
      wasmThreads: null,
      compileAhead: flags.has('compile-ahead'),
      scales: {},
      errors: [],
    };
    const write = (f: GpuCheckFigures) => {
      writeAtomic(join(out, 'figures.json'), JSON.stringify(f, null, 1) + '\n');
      writeAtomic(join(out, 'README.md'), readme(f));
    };
    write(figures);
    const { measure } = await import('../gpuCheck/measure.ts');
    try {
      await measure({
        webgpuFlags: parseWebgpuFlags(flagOptionalText(flags, 'flags')),
        compileAhead: flags.has('compile-ahead'),
        scales,
        steps: flagInt(flags, 'steps', rehearse ? 1 : count ? 0 : 2, 0),
        deadlineS: flagInt(flags, 'deadline-s', rehearse || count ? 3600 : 300, 1),
        rehearse,
        anyAdapter: rehearse || count,
        wasmThreads: threads,
        write,
        figures,
        config: configOverrides(flagOptionalText(flags, 'config')),
        backends: parseBackends(flagText(flags, 'backends', count ? 'webgpu' : 'webgpu,wasm')),
        decodeSteps: flagInt(flags, 'decode-steps', rehearse ? 2 : count ? 0 : 20, 0),
        seeds: parseSeeds(flagText(flags, 'seeds', count ? '0' : '1,4,16')),
        seedProbeS: flagInt(flags, 'seed-probe-s', rehearse ? 300 : 90, 1),
        stackSeeds: parseSeeds(flagText(flags, 'stack-seeds', count ? '0' : rehearse ? '1,2' : '1,4,16'), 'stack-seeds'),
        stackProbeS: flagInt(flags, 'stack-probe-s', rehearse ? 900 : 240, 1),
      });
    } catch (e) {
      figures.errors.push(e instanceof Error ? e.message : String(e));
      write(figures);
      throw e;
    }
    console.log(`wrote ${join(out, 'figures.json')}`);
    return figures.errors.length ? 1 : 0;
  },
};

/** --flags: a JSON object of WEBGPU_* flags, numbers or booleans */
export function parseWebgpuFlags(text: string | undefined): Record<string, number | boolean> {
  if (text === undefined) return {};
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch (e) {
    throw new Error(`--flags is not JSON (${e instanceof Error ? e.message : String(e)})`, { cause: e });
  }
  if (!o || typeof o !== 'object' || Array.isArray(o))
    throw new Error('--flags needs a JSON object such as {"WEBGPU_DEFERRED_SUBMIT_BATCH_SIZE":64}');
  for (const [k, v] of Object.entries(o)) {
    if (!k.startsWith('WEBGPU_') || !(typeof v === 'number' || typeof v === 'boolean'))
      throw new Error(`--flags: ${k}=${JSON.stringify(v)} is not a WEBGPU_* flag with a number or boolean`);
  }
  return o as Record<string, number | boolean>;
}

function parseScales(text: string): Scale[] {
  const scales = text.split(',').map((s) => s.trim());
  for (const s of scales)
    if (!(SCALES as readonly string[]).includes(s))
      throw new Error(`--scales: "${s}" is not one of ${SCALES.join(', ')}`);
  return scales as Scale[];
}

/** the commit the pack was built from (its manifest), else this checkout's */
function packCommit(out: string, allowDirty: boolean): Provenance {
  const dir = process.env[PACK_DIR_ENV];
  const manifest = dir ? join(dir, 'manifest.json') : '';
  if (manifest && existsSync(manifest)) {
    const m = JSON.parse(readFileSync(manifest, 'utf8')) as Partial<Provenance>;
    return { commit: String(m.commit ?? 'unknown'), ...(m.dirtyFiles?.length ? { dirtyFiles: m.dirtyFiles } : {}) };
  }
  return provenance(join(out, 'figures.json'), { allowDirty });
}

const fmt = (v: number | null | undefined, digits = 2) => (v === null || v === undefined ? '—' : v.toFixed(digits));

/** OUT/README.md: the command, the machine, the adapter and the headline figures */
export function readme(f: GpuCheckFigures): string {
  const a = f.adapter;
  const rows = Object.entries(f.scales).map(
    ([scale, s]) =>
      `| ${scale} | ${fmt(s.wasmStepS)} | ${fmt(s.webgpuStepS)} | ${fmt(s.webgpuSpeedup)}× | ${fmt(s.dispatchesPerStep, 0)} | ${fmt(s.webgpu?.firstStep?.wallS, 1)} | ${fmt(s.webgpuPlainStepS)} (${fmt(s.webgpuPlainSpeedup)}×) | ${fmt(s.webgpuPeakAllocatedBytes != null ? s.webgpuPeakAllocatedBytes / 2 ** 20 : null, 0)} |`,
  );
  const d = f.decode;
  const probeRow = (kind: string, runs: NonNullable<typeof d>['plain']) =>
    runs
      .map(
        (r) =>
          `| ${kind} | ${fmt(r.stepMs)} | ${fmt(r.hostMs)} (${fmt(r.hostMinMs)}) | ${fmt(r.dispatches, 0)} | ${fmt(r.readbacks, 1)} | ${fmt(r.submits, 1)} |`,
      )
      .join('\n');
  const decode = d
    ? `
## A decode step alone (${d.scale}, ${d.plain[0]?.rows ?? d.fused[0]?.rows ?? '?'} rows; plain: the levers off, fused: on)

A readback's round trip ${fmt(d.readbackMs, 3)} ms; a tiny op's host cost ${fmt(d.opUs, 1)} µs. Plain ÷ fused: step ${fmt(d.stepRatio)}×,
host ${fmt(d.hostRatio)}×, dispatches ${fmt(d.dispatchRatio)}×; wasm ÷ fused: ${fmt(d.fusedVsWasm)}×.

| run | ms | host ms (least) | dispatches | readbacks | submits |
|---|---|---|---|---|---|
${[probeRow('plain', d.plain), probeRow('fused', d.fused), probeRow('wasm', d.wasm)].filter(Boolean).join('\n')}
`
    : '';
  const sp = f.seeds;
  const baseline = (b: string) => sp?.runs.find((r) => r.backend === b && r.model === 'policy')?.seedStepsPerS ?? null;
  const seedRows = sp?.runs.map((r) => {
    const base = baseline(r.backend);
    const vs = r.model === 'stack' && r.seedStepsPerS && base ? `${fmt(r.seedStepsPerS / base)}×` : '—';
    return `| ${r.backend} | ${r.model} | ${r.seeds} | ${fmt(r.decode?.stepMs)} | ${fmt(r.decode?.dispatches, 0)} | ${fmt(r.train?.stepMs, 1)} | ${fmt(r.train?.dispatches, 0)} | ${fmt(r.seedStepsPerS, 3)} | ${vs} |${r.note ? ` ${r.note}` : ''}${r.error ? ` error: ${r.error}` : ''}`;
  }) ?? [];
  const seeds = sp
    ? `
## Several seeds in one program (${sp.scale}; ${sp.runs[0]?.decode ? `${sp.runs[0].decode.rows} decode rows, micro-batch ${sp.runs[0].train?.rows ?? '?'}×${sp.runs[0].train?.tokens ?? '?'} tokens, a seed` : ''})

seed-steps/s is an ESTIMATE: S / (${sp.decodeStepsPerRlStep} decode steps + ${sp.microBatchesPerRlStep} micro-batches), not an RL step (docs/gpu-check.md);
"÷ policy" is the stack's estimate over one Policy's (S seeds run one after another).

| backend | model | S | decode step ms (S·rows) | dispatches | micro-batch ms | dispatches | seed-steps/s | ÷ policy |
|---|---|---|---|---|---|---|---|---|
${seedRows.join('\n')}
`
    : '';
  const st = f.stack;
  const stack = st
    ? `
## The S-seed RL step (${st.scale}, measured: S seeds of one setting in one program, webgpu)

Seed-steps/s at S = ${st.largestS ?? '—'} over S = 1's: **${fmt(st.speedupOverS1)}×** (the target: 6× at S = 16); over one
run's (the scale's webgpu step above): ${fmt(st.speedupOverSingleRun)}×.

| S | first step s | timed step s | seed-steps/s | dispatches | decode steps (seeds' decode steps) | mean reward |
|---|---|---|---|---|---|---|
${st.runs.map((r) => `| ${r.seeds} | ${fmt(r.firstStepS, 1)} | ${fmt(r.stepS)} | ${fmt(r.seedStepsPerS, 3)} | ${fmt(r.dispatches, 0)} | ${fmt(r.decodeSteps, 0)} (${fmt(r.seedDecodeSteps, 0)}) | ${fmt(r.meanReward, 3)} |${r.note ? ` ${r.note}` : ''}${r.error ? ` error: ${r.error}` : ''}`).join('\n')}
`
    : '';
  return `# GPU check${f.rehearsal ? ' (rehearsal: tiny steps, fallback adapter allowed)' : ''}

${f.complete ? 'Complete.' : '**Incomplete** (cut short, or still running when this was written).'} Started ${f.startedAt}, last written ${f.updatedAt}.

- command: \`${f.command}\` (commit ${f.commit})
- machine: ${f.machine.nproc} cores (${f.machine.cpu}), ${f.machine.memoryGiB} GiB, Node ${f.machine.node}, ${f.machine.platform}
- adapter: ${a ? `${[a.vendor, a.architecture, a.description].filter(Boolean).join(' · ')}${a.isFallbackAdapter ? ' (fallback)' : ''}; Vulkan driver ${a.driverFile ?? 'found by the loader'}, loader ${a.vulkanLoader ?? '—'}` : 'none'}
- wasm threads: ${f.wasmThreads ?? '—'}

| scale | wasm s/step | webgpu s/step | webgpu speed-up | dispatches/step | webgpu first step s | webgpu-plain s/step (speed-up) | webgpu peak MiB allocated |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}
${decode}${seeds}${stack}
Every figure, with the rollout/update split, decode-step and micro-batch times and memory: figures.json
(format ${f.format}; docs/gpu-check.md says what each field is).
${f.errors.length ? `\nErrors:\n${f.errors.map((e) => `- ${e}`).join('\n')}\n` : ''}`;
}

/** the settings a --config hash sets (only those it names: the rest stay the lab's defaults) */
function configOverrides(text: string | undefined): Partial<LabConfig> {
  if (text === undefined) return {};
  const full = parseLabConfig(text);
  const defaults = defaultConfig();
  return Object.fromEntries(
    Object.entries(full).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(defaults[k as keyof LabConfig])),
  );
}

/** --seeds, --stack-seeds: S values, each a positive integer up to 64, or 0 for none */
export function parseSeeds(text: string, flag = 'seeds'): number[] {
  if (text.trim() === '0') return [];
  const list = text.split(',').map((x) => Number(x.trim()));
  const bad = list.find((n) => !Number.isInteger(n) || n < 1 || n > 64);
  if (bad !== undefined)
    throw new Error(`--${flag}: ${text} is not a list of seed counts from 1 to 64 (or 0: no probe)`);
  return list;
}

function parseBackends(text: string): CheckBackend[] {
  const list = text.split(',').map((b) => b.trim());
  for (const b of list)
    if (!(CHECK_BACKENDS as readonly string[]).includes(b))
      throw new Error(`--backends: ${b} is not one of ${CHECK_BACKENDS.join(', ')}`);
  if (list.length === 0) throw new Error(`--backends: give at least one of ${CHECK_BACKENDS.join(', ')}`);
  return list as CheckBackend[];
}
