// wasm with 1 thread against all threads, side by side in one bench run. tfjs fixes the thread
// count when the backend starts, so each side runs in its own process (wasmThreadsChild.ts), the
// two alternating, ROUNDS times each; the figures take each side's fastest round (the machine is
// shared: a slower round is someone else's load, which `wasm.threads.cpu_per_wall` and the load
// average show). Wall time throughout: CPU time would count a threaded step once per thread.
//   train.tokens_per_s.<p>.wasm.t1 | .tN (N = wasm.threads) | .threads_speedup   SFT 4×128 tokens per wall second
//   decode.step_ms_b64.<p>.wasm.t1 | .tN (N = wasm.threads) | .threads_speedup   one decode step, batch 64, 200 tokens
// of context
import { spawn } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Report } from './harness.ts';
import type { ThreadsResult } from './wasmThreadsChild.ts';

const CHILD = fileURLToPath(new URL('./wasmThreadsChild.ts', import.meta.url));

function runChild(threads: number, quick: boolean): Promise<ThreadsResult> {
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      [...process.execArgv, CHILD, String(threads), ...(quick ? ['--quick'] : [])],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.on('error', fail);
    child.on('exit', (code) => {
      const line = text.split('\n').find((l) => l.startsWith('RESULT '));
      if (code === 0 && line) done(JSON.parse(line.slice(7)) as ThreadsResult);
      else fail(new Error(`wasm-threads child (${threads} threads) exited ${String(code)}: ${text.slice(-400)}`));
    });
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

export async function measureWasmThreads(report: Report, quick: boolean): Promise<void> {
  const N = Math.min(8, availableParallelism());
  if (N < 2) {
    console.log('  (no wasm thread figures: this machine has one core)');
    return;
  }
  const rounds = quick ? 1 : Number(process.env.STAR_BENCH_THREAD_ROUNDS ?? 2);
  const load0 = loadavg()[0];
  const one: ThreadsResult[] = [];
  const all: ThreadsResult[] = [];
  for (let r = 0; r < rounds; r++) {
    one.push(await runChild(1, quick));
    all.push(await runChild(N, quick));
  }
  const [B, T] = quick ? [2, 64] : [4, 128];
  for (const p of ['s', 'm', 'l']) {
    const t1 = Math.min(...one.map((x) => x.trainMs[p]));
    const tN = Math.min(...all.map((x) => x.trainMs[p]));
    const med = `medians ${median(one.map((x) => x.trainMs[p])).toFixed(0)} / ${median(all.map((x) => x.trainMs[p])).toFixed(0)} ms per step`;
    report(`train.tokens_per_s.${p}.wasm.t1`, (B * T * 1000) / t1, 'tokens/s', `${B}×${T}, wall, best of ${rounds}`);
    report(`train.tokens_per_s.${p}.wasm.tN`, (B * T * 1000) / tN, 'tokens/s', `${N} threads, wall, best of ${rounds}`);
    report(`train.tokens_per_s.${p}.wasm.threads_speedup`, t1 / tN, '×', med);
    const d1 = Math.min(...one.map((x) => x.decodeMs[p]));
    const dN = Math.min(...all.map((x) => x.decodeMs[p]));
    report(
      `decode.step_ms_b64.${p}.wasm.t1`,
      d1,
      'ms',
      quick ? 'quick: batch 16, 64 tokens' : 'batch 64, 200 tokens of context, wall',
    );
    report(`decode.step_ms_b64.${p}.wasm.tN`, dN, 'ms', `${N} threads`);
    report(
      `decode.step_ms_b64.${p}.wasm.threads_speedup`,
      d1 / dN,
      '×',
      `medians ${median(one.map((x) => x.decodeMs[p])).toFixed(1)} / ${median(all.map((x) => x.decodeMs[p])).toFixed(1)} ms`,
    );
  }
  report('wasm.threads', all[0].threads, 'threads', `the threaded build's own count (asked ${N})`);
  const sameLoss = one.concat(all).every((x) => ['s', 'm', 'l'].every((p) => x.loss[p] === one[0].loss[p]));
  report('wasm.threads.same_loss', sameLoss ? 1 : 0, '', 'first-step SFT loss bit-equal on 1 and N threads');
  report(
    'wasm.threads.cpu_per_wall.t1',
    median(one.map((x) => x.cpuPerWall)),
    '',
    'process CPU s per wall s (1 = a whole core)',
  );
  report(`wasm.threads.cpu_per_wall.tN`, median(all.map((x) => x.cpuPerWall)), '', `${N} = every thread had a core`);
  report(
    'machine.loadavg_1m',
    (load0 + loadavg()[0]) / 2,
    '',
    `runnable tasks on ${availableParallelism()} cores, mean of start and end`,
  );
}
