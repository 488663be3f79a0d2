// The flake finder: runs the browser tests (one e2e group, one shard, or every group) N times, idle or beside K CPU
// burners, and reports each test's pass rate with its 95 % interval, so a test that passes only on a quiet (or only on
// a busy) machine shows before it blocks someone's work. It serves the dist/ already built: run `npx vite build`
// first.
//
//   npx tsx scripts/flake-finder.ts --group lessons --runs 10                 one group, 10 times, idle
//   npx tsx scripts/flake-finder.ts --group lessons --runs 10 --burners 2     the same beside two CPU burners
//   npx tsx scripts/flake-finder.ts --shard 2 --runs 3                         one shard (E2E_SHARD 1, 2 or long)
//   npx tsx scripts/flake-finder.ts --stage --runs 10                          npm test's e2e stage: shards 1 and
//                                                                             2 side by side, as scripts/test.sh does
//   npx tsx scripts/flake-finder.ts --runs 3                                   every group, one after another
//   --json FILE                                                               the tally as JSON too
//
// A burner is a `node` process spinning on one core for as long as the runs last (as a loaded CI machine or a second
// job would). Whatever else loads the machine counts too, so the report gives the 1-minute load average sampled
// every 5 s over each run: the load the tests actually met. Each run's full log goes to
// test-results/flake-finder/run-<i>[-<shard>].log; the report names the first failure message of each test that
// failed. Exits non-zero when any test failed in any run.
import { execSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { wilson } from '../src/stats/intervals.ts';

const { values } = parseArgs({
  options: {
    group: { type: 'string' },
    shard: { type: 'string' },
    stage: { type: 'boolean', default: false },
    runs: { type: 'string', default: '10' },
    burners: { type: 'string', default: '0' },
    json: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(
    'npx tsx scripts/flake-finder.ts [--group G | --shard 1|2|long | --stage] [--runs N] [--burners K] [--json FILE]',
  );
  process.exit(0);
}
const runs = Number(values.runs);
const burners = Number(values.burners);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs ${values.runs}: a whole number of runs, 1 or more`);
if (!Number.isInteger(burners) || burners < 0) throw new Error(`--burners ${values.burners}: 0 or more`);
if ([values.group, values.shard, values.stage || undefined].filter((x) => x !== undefined).length > 1)
  throw new Error('--group, --shard and --stage: one of them');
if (values.shard && !['1', '2', 'long'].includes(values.shard))
  throw new Error(`--shard ${values.shard}: 1, 2 or long`);

const root = new URL('..', import.meta.url).pathname;
const logs = join(root, 'test-results', 'flake-finder');
mkdirSync(logs, { recursive: true });
const env = { ...process.env };
delete env.E2E_ONLY;
delete env.E2E_SHARD;
if (values.group) env.E2E_ONLY = values.group;
if (values.shard) env.E2E_SHARD = values.shard;
const what = values.group
  ? `group ${values.group}`
  : values.shard
    ? `shard ${values.shard}`
    : values.stage
      ? "npm test's e2e stage (shards 1 and 2 side by side)"
      : 'every e2e group';
// one run is one e2e process, or the two shards side by side
const lanes: (string | undefined)[] = values.stage ? ['1', '2'] : [undefined];

interface Tally {
  passed: number;
  failed: number;
  seconds: number[];
  firstFailure?: string;
}
const tally = new Map<string, Tally>();
const runSeconds: number[] = [];

/** one `node scripts/e2e.mjs` (of shard `lane`, when given); its log to a file, its ✓ / ✗ lines into the tally */
function runLane(i: number, lane: string | undefined): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['scripts/e2e.mjs'], {
      cwd: root,
      env: lane ? { ...env, E2E_SHARD: lane } : env,
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (out += d));
    child.on('close', (code) => {
      writeFileSync(join(logs, `run-${i}${lane ? `-${lane}` : ''}.log`), out);
      const lines = out.split('\n');
      let tests = 0;
      lines.forEach((line, at) => {
        const ok = /^ {2}✓ (.*) \(([\d.]+)s\)$/.exec(line);
        const bad = /^ {2}✗ (.*)$/.exec(line);
        if (!ok && !bad) return;
        tests++;
        const name = (ok ?? bad)![1];
        const t = tally.get(name) ?? { passed: 0, failed: 0, seconds: [] };
        if (ok) {
          t.passed++;
          t.seconds.push(Number(ok[2]));
        } else {
          t.failed++;
          t.firstFailure ??= `run ${i}: ${(lines[at + 1] ?? '').trim()}`;
        }
        tally.set(name, t);
      });
      // a run that crashed before its tests (no ✓ / ✗ at all) counts against the whole group
      if (tests === 0) {
        const t = tally.get('(the e2e run itself)') ?? { passed: 0, failed: 0, seconds: [] };
        t.failed++;
        t.firstFailure ??= `run ${i}: exit ${code}, ${lines.filter(Boolean).slice(-1)[0] ?? 'no output'}`;
        tally.set('(the e2e run itself)', t);
      }
      resolve(`exit ${code}, ${lines.find((l) => /^e2e.*passed/.test(l)) ?? ''}`);
    });
  });
}

const loads: { mean: number; min: number }[] = [];
/** one run: every lane at once; its wall time and the load average it met */
async function runOnce(i: number): Promise<void> {
  const t0 = Date.now();
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(loadavg()[0]), 5000);
  const said = await Promise.all(lanes.map((lane) => runLane(i, lane)));
  clearInterval(sampler);
  const s = (Date.now() - t0) / 1000;
  runSeconds.push(s);
  const load = samples.length
    ? { mean: samples.reduce((a, b) => a + b, 0) / samples.length, min: Math.min(...samples) }
    : { mean: loadavg()[0], min: loadavg()[0] };
  loads.push(load);
  const met = `load average ${load.mean.toFixed(1)} (min ${load.min.toFixed(1)})`;
  console.log(`run ${i}/${runs}: ${s.toFixed(0)} s, ${met}; ${said.join('; ')}`);
}

const spinning: ChildProcess[] = [];
for (let b = 0; b < burners; b++) spinning.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
const stopBurners = () => spinning.forEach((p) => p.kill());
process.on('SIGINT', () => {
  stopBurners();
  process.exit(130);
});

const started = new Date().toISOString();
const commit = (() => {
  try {
    return execSync('git rev-parse --short HEAD', { cwd: root }).toString().trim();
  } catch {
    return null; // not a git checkout
  }
})();
/** the tally so far, one row a test */
function tallyRows() {
  return [...tally].map(([name, t]) => {
    const n = t.passed + t.failed;
    const ci = wilson(t.passed, n);
    const median = [...t.seconds].sort((a, b) => a - b)[Math.floor(t.seconds.length / 2)];
    return { name, passed: t.passed, n, lo: ci.lo, hi: ci.hi, medianS: median ?? null, firstFailure: t.firstFailure };
  });
}
/** the JSON report, rewritten after every run, so a finder stopped early still leaves the runs it finished */
function writeJson(): void {
  if (!values.json) return;
  const report = {
    what,
    commit,
    runs,
    runsFinished: runSeconds.length,
    burners,
    started,
    runSeconds,
    loadAverage: loads,
    tests: tallyRows(),
  };
  writeFileSync(values.json, JSON.stringify(report, null, 2));
}

console.log(`flake finder: ${what}, ${runs} run(s), ${burners} CPU burner(s) beside them; logs in ${logs}`);
try {
  for (let i = 1; i <= runs; i++) {
    await runOnce(i);
    writeJson();
  }
} finally {
  stopBurners();
}

const pct = (x: number) => `${(100 * x).toFixed(0)} %`;
console.log(
  `\n${what}, ${burners} burner(s), runs of ${runSeconds.map((s) => s.toFixed(0)).join(', ')} s, ` +
    `load average ${loads.map((l) => l.mean.toFixed(1)).join(', ')}:`,
);
const rows = tallyRows();
for (const r of rows) {
  const mark = r.passed === r.n ? '✓' : '✗';
  console.log(
    `  ${mark} ${r.passed}/${r.n} passed (95 % interval ${pct(r.lo)}–${pct(r.hi)})` +
      `${r.medianS === null ? '' : `, median ${r.medianS.toFixed(0)} s`}: ${r.name}`,
  );
  if (r.firstFailure) console.log(`      first failure, ${r.firstFailure}`);
}
process.exit(rows.some((r) => r.passed < r.n) || rows.length === 0 ? 1 : 0);
