// What `sweep --jobs N` buys: one quick findings grid (T7: three runs of preset m) run
// with --jobs 1 and then with --jobs N (N = the cores), each into a fresh folder, in wall time:
//   sweep.wall_s.t7.jobs1 | .jobsN   wall seconds of the whole grid
//   sweep.jobs_speedup.t7            jobs1 over jobsN (at most N; less when the runs differ in length)
//   sweep.same_table.t7              1 when both sweeps wrote the same table (runs are deterministic on wasm)
// About 13 minutes on 2 cores; `--quick` skips it (a grid cannot be made small enough to say anything).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchSuite } from './harness.ts';

function sweep(out: string, jobs: number): Promise<number> {
  const t0 = performance.now();
  return new Promise((done, fail) => {
    execFile(
      join('node_modules', '.bin', 'tsx'),
      ['src/cli/main.ts', 'sweep', '--preset', 'T7', '--quick', '--out', out, '--jobs', String(jobs)],
      { maxBuffer: 64 << 20 },
      (err, _stdout, stderr) =>
        err ? fail(new Error(`sweep --jobs ${jobs}: ${stderr.slice(-400)}`)) : done((performance.now() - t0) / 1000),
    );
  });
}

/** each cell's figures, without where its run lives or how long it took */
const cells = (dir: string) =>
  (
    JSON.parse(readFileSync(join(dir, 'T7', 'table.json'), 'utf8')) as {
      cells: { lab: number | null; run?: Record<string, unknown> }[];
    }
  ).cells.map(({ lab, run }) => [lab, run?.successStart, run?.successFinal, run?.oodStart, run?.oodFinal]);

export const sweepJobsSuite: BenchSuite = {
  name: 'sweep',
  async run(report, { quick }) {
    const N = availableParallelism();
    if (quick || N < 2) {
      console.log(`  (no sweep figures: ${quick ? '--quick' : 'one core'})`);
      return;
    }
    const root = mkdtempSync(join(tmpdir(), 'star-sweep-bench-'));
    try {
      const one = await sweep(join(root, 'jobs1'), 1);
      const many = await sweep(join(root, `jobs${N}`), N);
      report('sweep.wall_s.t7.jobs1', one, 's', 'T7 quick grid, 3 runs of m, wall');
      report(`sweep.wall_s.t7.jobs${N}`, many, 's', `${N} runs at once`);
      report('sweep.jobs_speedup.t7', one / many, '×', `at most ${N}`);
      report(
        'sweep.same_table.t7',
        JSON.stringify(cells(join(root, 'jobs1'))) === JSON.stringify(cells(join(root, `jobs${N}`))) ? 1 : 0,
        '',
        'both sweeps wrote the same cells',
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
};
