// The GPU check's cheap parts (docs/gpu-check.md): figures.json's headline fields and its shape check, the
// pack's size and contents check, the order in which the Node webgpu backend tries Vulkan drivers, and
// run.sh's syntax (it must run under a plain POSIX sh and never use a `node` from PATH). Packing itself
// (~30 MB, minutes of xz) and the measurement are rehearsed by hand, as the doc says.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { figuresProblems, GPU_CHECK_FORMAT, seedStepsPerS, summarizeDecode, summarizeScale, summarizeStack, type SeedRunFigures, type StackRunFigures, type BackendFigures, type CheckBackend, type DecodeProbeFigures, type GpuCheckFigures, type StepFigures } from '../../src/cli/gpuCheck/figures.ts';
import { packProblems, PACK_LIMIT_BYTES, REQUIRED } from '../../src/cli/gpuCheck/pack.ts';
import { driverCandidates, NVIDIA_ICD_DIR, SWIFTSHADER_ICD } from '../../src/node/nodeWebgpu.ts';
import { parseSeeds, parseWebgpuFlags, readme } from '../../src/cli/commands/gpuCheck.ts';
import { estimateRunS, SEED_PROBE } from '../../src/cli/gpuCheck/seedProbe.ts';

const step = (wallS: number, dispatches?: number): StepFigures => ({ wallS, rolloutS: wallS * 0.7, updateS: wallS * 0.3, rollouts: 32, decodeSteps: 200,
  decodeStepMs: 1, microBatches: 18, microBatchMs: 1, ...(dispatches === undefined ? {} : { dispatches }) });
const part = (backend: CheckBackend, first: StepFigures, steps: StepFigures[]): BackendFigures => ({ backend, firstStep: first, steps, stepS: null });

describe('figures.json', () => {
  it("a scale's headline: wasm over webgpu step time, dispatches over the timed steps (the first step's when none was timed)", () => {
    const s = summarizeScale({ groupSize: 8 }, part('webgpu', step(9, 30_000), [step(1, 27_000), step(3, 29_000)]), part('wasm', step(10), [step(8), step(12)]));
    expect(s.webgpuStepS).toBe(2);
    expect(s.wasmStepS).toBe(10);
    expect(s.webgpuSpeedup).toBe(5);
    expect(s.dispatchesPerStep).toBe(28_000);
    const onlyFirst = summarizeScale({}, part('webgpu', step(9, 30_000), []), undefined);
    expect([onlyFirst.webgpuStepS, onlyFirst.dispatchesPerStep, onlyFirst.wasmStepS, onlyFirst.webgpuSpeedup]).toEqual([9, 30_000, null, null]);
    expect(s.webgpuPeakAllocatedBytes).toBeNull(); // no pool figures
  });

  it("a scale's peak of the webgpu buffer pool: the most allocated in any phase of any step, the first included", () => {
    const phase = (peakAllocatedBytes: number) => ({ peakUsedBytes: 1, peakAllocatedBytes, allocatedBytes: 1, evictedBuffers: 0 });
    const first = { ...step(9), pool: { rollout: phase(5e6), update: phase(9e6) } };
    const later = { ...step(2), pool: { rollout: phase(7e6), update: null } };
    expect(summarizeScale({}, part('webgpu', first, [later]), undefined).webgpuPeakAllocatedBytes).toBe(9e6);
    expect(summarizeScale({}, part('webgpu', later, [later]), undefined).webgpuPeakAllocatedBytes).toBe(7e6);
    expect('webgpuPeakAllocatedBytes' in summarizeScale({}, undefined, part('wasm', step(9), []))).toBe(false);
  });

  it('the levers before and after: webgpu-plain beside webgpu, and the decode probe\'s ratios', () => {
    const s = summarizeScale({}, part('webgpu', step(9), [step(2)]), part('wasm', step(10), [step(10)]), part('webgpu-plain', step(9), [step(5)]));
    expect([s.webgpuSpeedup, s.webgpuPlainStepS, s.webgpuPlainSpeedup]).toEqual([5, 5, 2]);
    expect('webgpuPlainStepS' in summarizeScale({}, part('webgpu', step(9), []), undefined)).toBe(false);
    const run = (stepMs: number, hostMs: number, dispatches?: number): DecodeProbeFigures => ({ rows: 32, cacheLength: 96, steps: 20, stepMs, hostMs, ...(dispatches ? { dispatches } : {}) });
    const d = summarizeDecode({ scale: 'm', readbackMs: 0.1, opUs: 25, plain: [run(20, 16, 114), run(24, 20, 114)], fused: [run(6, 4, 31), run(5, 5, 31)], wasm: [run(16.5, 16.5)] });
    expect(d.stepRatio).toBe(4);
    expect(d.hostRatio).toBe(4);
    expect(d.dispatchRatio).toBeCloseTo(114 / 31, 12);
    expect(d.fusedVsWasm).toBe(3);
    expect(summarizeDecode({ scale: 'm', readbackMs: null, opUs: null, plain: [], fused: [run(6, 4, 31)], wasm: [] }).stepRatio).toBeNull();
  });

  it('the shape check passes sound figures and names what is wrong', () => {
    const f: Partial<GpuCheckFigures> = { format: GPU_CHECK_FORMAT, adapter: null, scales: { m: summarizeScale({}, part('webgpu', step(2, 5), []), part('wasm', step(4), [])) } };
    expect(figuresProblems(JSON.parse(JSON.stringify(f)))).toEqual([]);
    const { adapter: _a, ...noAdapter } = f;
    expect(figuresProblems(noAdapter)).toEqual(['no adapter']);
    const bad = JSON.parse(JSON.stringify(f));
    bad.scales.m.webgpuStepS = 'fast';
    bad.scales.xl = bad.scales.m;
    delete bad.scales.m.dispatchesPerStep;
    expect(figuresProblems(bad)).toEqual(['scales.m.webgpuStepS is fast', 'scales.m.dispatchesPerStep is undefined', 'unknown scale xl', 'scales.xl.webgpuStepS is fast', 'scales.xl.dispatchesPerStep is undefined']);
  });

  it('README.md names the adapter and carries the table', () => {
    const f = { format: GPU_CHECK_FORMAT, complete: false, rehearsal: false, startedAt: 't0', updatedAt: 't1', command: 'gpu-check --run', commit: 'abc',
      machine: { nproc: 16, cpu: 'x', memoryGiB: 128, node: 'v20', platform: 'linux-x64' }, wasmThreads: 8, errors: [],
      adapter: { vendor: 'nvidia', architecture: 'hopper', description: 'NVIDIA H200', isFallbackAdapter: false, driverFile: null, vulkanLoader: 'libvulkan.so.1' },
      scales: { m: summarizeScale({}, part('webgpu', step(9, 30_000), [step(1, 27_000)]), part('wasm', step(10), [step(6)])) } } satisfies GpuCheckFigures;
    const text = readme(f);
    expect(text).toContain('nvidia · hopper · NVIDIA H200;');
    expect(text).toContain('**Incomplete**');
    expect(text).toContain('| m | 6.00 | 1.00 | 6.00× | 27000 | 9.0 |');
  });
});

describe('the seed probe', () => {
  const run = (model: SeedRunFigures['model'], seeds: number, decodeMs: number, trainMs: number): SeedRunFigures => ({ backend: 'webgpu', model, seeds, wallS: 1,
    decode: { rows: 32 * seeds, cacheLength: 96, steps: 10, stepMs: decodeMs, hostMs: 1, dispatches: 70 }, train: { rows: 4, tokens: 512, steps: 3, stepMs: trainMs, hostMs: 1, dispatches: 600 } });

  it('estimates seed-steps per second as S over D decode steps and M micro-batches', () => {
    expect(seedStepsPerS(run('stack', 4, 25, 500), 160, 6)).toBeCloseTo(4000 / (160 * 25 + 6 * 500), 12);
    expect(seedStepsPerS({ seeds: 4, decode: run('stack', 4, 25, 500).decode }, 160, 6)).toBeNull(); // no micro-batch: no estimate
  });

  it("README's table: each run, and the stack's estimate over one Policy's on its backend", () => {
    const policy = { ...run('policy', 1, 20, 150), seedStepsPerS: 0.2 };
    const stack = { ...run('stack', 16, 40, 900), seedStepsPerS: 1.0 };
    const f = { format: GPU_CHECK_FORMAT, complete: true, rehearsal: false, startedAt: 't0', updatedAt: 't1', command: 'gpu-check --run', commit: 'abc',
      machine: { nproc: 16, cpu: 'x', memoryGiB: 128, node: 'v20', platform: 'linux-x64' }, wasmThreads: 8, errors: [], adapter: null, scales: {},
      seeds: { scale: 'm', decodeStepsPerRlStep: 160, microBatchesPerRlStep: 6, runs: [policy, stack, { backend: 'wasm', model: 'stack', seeds: 16, wallS: 0, note: 'skipped: time' }] } } satisfies GpuCheckFigures;
    const text = readme(f);
    expect(text).toContain('| webgpu | stack | 16 | 40.00 | 70 | 900.0 | 600 | 1.000 | 5.00× |');
    expect(text).toContain('| wasm | stack | 16 | — | — | — | — | — | — | skipped: time');
  });

  it("a run's time at S: the last run's timed steps scaled by S, its compiles and set-up once", () => {
    // SEED_PROBE: 2 + 10 decode steps, 1 + 3 micro-batches: 12 × 0.1 s + 4 × 1 s = 5.2 s timed of a 10 s run
    const last = { ...run('stack', 1, 100, 1000), wallS: 10 };
    expect(estimateRunS(last, 4, SEED_PROBE)).toBeCloseTo(4.8 + 4 * 5.2, 9);
    expect(estimateRunS({ ...last, wallS: 1 }, 4, SEED_PROBE)).toBeCloseTo(4 * 5.2, 9); // never less than the timed part
  });

  it('--seeds takes seed counts, or 0 for none', () => {
    expect(parseSeeds('1,4,16')).toEqual([1, 4, 16]);
    expect(parseSeeds('0')).toEqual([]);
    expect(() => parseSeeds('1,x')).toThrow('--seeds: 1,x is not a list');
    expect(() => parseSeeds('0,4')).toThrow('--seeds');
  });
});

describe('--flags', () => {
  it('takes WEBGPU_* flags with numbers or booleans, and names anything else', () => {
    expect(parseWebgpuFlags(undefined)).toEqual({});
    expect(parseWebgpuFlags('{"WEBGPU_DEFERRED_SUBMIT_BATCH_SIZE":64,"WEBGPU_CPU_FORWARD":false}')).toEqual({ WEBGPU_DEFERRED_SUBMIT_BATCH_SIZE: 64, WEBGPU_CPU_FORWARD: false });
    expect(() => parseWebgpuFlags('{"WASM_X":1}')).toThrow('--flags: WASM_X=1 is not a WEBGPU_* flag');
    expect(() => parseWebgpuFlags('{"WEBGPU_PRINT_SHADER":"all"}')).toThrow('is not a WEBGPU_* flag with a number or boolean');
    expect(() => parseWebgpuFlags('[1]')).toThrow('--flags needs a JSON object');
    expect(() => parseWebgpuFlags('{oops')).toThrow('--flags is not JSON');
  });
});

describe('the pack', () => {
  const files = (bytes: number) => REQUIRED.map((path, i) => ({ path, bytes: i === 0 ? bytes : 1, sha256: '' }));
  const manifest = (bytes: number) => ({ files: files(bytes), totalBytes: bytes + REQUIRED.length - 1 });

  it('fits under its limit with everything run.sh needs', () => {
    expect(packProblems(manifest(1000))).toEqual([]);
    expect(packProblems(manifest(PACK_LIMIT_BYTES))[0]).toMatch(/^32\.0 MiB is over the pack's 32\.0 MiB/);
    const m = manifest(1000);
    expect(packProblems({ files: m.files.filter((f) => f.path !== 'node.xz'), totalBytes: m.totalBytes - 1 })).toEqual(['node.xz is missing']);
    expect(packProblems({ ...m, totalBytes: 5 })).toEqual([`totalBytes 5 is not the files' ${m.totalBytes}`]);
  });

  it('run.sh is POSIX sh and only runs the node it unpacked', () => {
    execFileSync('sh', ['-n', 'src/cli/gpuCheck/run.sh']);
    const script = readFileSync('src/cli/gpuCheck/run.sh', 'utf8').split('\n').filter((l) => !l.trim().startsWith('#')).join('\n');
    expect(script).not.toMatch(/(^|[\s;&|(])node\s/m);
    expect(script).toContain('"$work/node"');
  });
});

describe('the Vulkan drivers the Node webgpu backend tries', () => {
  const fs = (files: Record<string, string[]>) => ({
    exists: (p: string) => p in files || Object.values(files).flat().includes(p),
    list: (d: string) => files[d] ?? [],
  });
  it("the loader's own search (when it has files), then NVIDIA's container path, then SwiftShader", () => {
    const { exists, list } = fs({ '/usr/share/vulkan/icd.d': ['lvp_icd.x86_64.json'], [NVIDIA_ICD_DIR]: ['nvidia_icd.json', 'README'], [SWIFTSHADER_ICD]: [] });
    expect(driverCandidates({ HOME: '/root' }, exists, list)).toEqual([null, `${NVIDIA_ICD_DIR}/nvidia_icd.json`, SWIFTSHADER_ICD]);
  });
  it('skips the loader when it has nothing to find, and follows what the user set', () => {
    const { exists, list } = fs({ [SWIFTSHADER_ICD]: [] });
    expect(driverCandidates({ HOME: '/root' }, exists, list)).toEqual([SWIFTSHADER_ICD]);
    expect(driverCandidates({ HOME: '/root', VK_ICD_FILENAMES: '/x.json' }, exists, list)).toEqual([null]);
    const withNvidia = fs({ [NVIDIA_ICD_DIR]: ['nvidia_icd.json'], [SWIFTSHADER_ICD]: [] });
    expect(driverCandidates({ HOME: '/root', STAR_WEBGPU_ADAPTER: 'software' }, withNvidia.exists, withNvidia.list)).toEqual([SWIFTSHADER_ICD]);
  });
});

describe('the S-seed RL step probe', () => {
  it('seed-steps per second measured: the largest S over S = 1 and over one run; skipped runs say why', () => {
    const runs: StackRunFigures[] = [
      { seeds: 1, firstStepS: 9, stepS: 5 },
      { seeds: 4, firstStepS: 12, stepS: 8, dispatches: 7400, decodeSteps: 190, seedDecodeSteps: 700 },
      { seeds: 16, note: 'skipped: ~300 s if linear in S, 100 s left' },
    ];
    const s = summarizeStack('m', 4, runs);
    expect(s.runs.map((r) => r.seedStepsPerS)).toEqual([0.2, 0.5, null]);
    expect([s.largestS, s.speedupOverS1, s.speedupOverSingleRun, s.singleRunSeedStepsPerS]).toEqual([4, 2.5, 2, 0.25]);
    expect(summarizeStack('m', null, [{ seeds: 1, firstStepS: 9 }]).speedupOverS1).toBeNull(); // no timed step
    const f = { format: GPU_CHECK_FORMAT, complete: true, rehearsal: false, startedAt: 't0', updatedAt: 't1', command: 'gpu-check --run', commit: 'abc',
      machine: { nproc: 16, cpu: 'x', memoryGiB: 128, node: 'v20', platform: 'linux-x64' }, wasmThreads: 8, errors: [], adapter: null, scales: {},
      stack: s } satisfies GpuCheckFigures;
    const text = readme(f);
    expect(text).toContain('Seed-steps/s at S = 4 over S = 1\'s: **2.50×**');
    expect(text).toContain('| 4 | 12.0 | 8.00 | 0.500 | 7400 | 190 (700) | — |');
    expect(text).toContain('| 16 | — | — | — | — | — (—) | — | skipped: ~300 s');
  });
});
