// Runs a sweep's configs, each a `run` in its own child process and folder under the sweep's runs folder, a few at
// a time; a run already finished there from today's SFT start is reused, a stopped one resumes. Ctrl-C and
// SIGTERM reach every child, which saves its last completed step (interrupt.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Interrupted, STOP_EXIT, type StopRequests } from './interrupt.ts';
import type { NodeBackend } from '../node/nodeBackend.ts';
import { readSummary, runRl, summaryIsOf, shippedCheckpointDir, type RlSummary } from './rlRun.ts';
import { moveAside } from './outDir.ts';
import { formatDuration, ProgressBar } from './progress.ts';
import type { LabConfig } from '../lab/config.ts';

/** the SFT start a run of this config reads (its weights' hash decides whether a finished run still counts) */
function startSha(lab: LabConfig): string {
  const card = JSON.parse(readFileSync(join(shippedCheckpointDir(lab.scale), 'card.json'), 'utf8')) as {
    weights: { sha256: string };
  };
  return card.weights.sha256;
}

/** the finished run of `lab` in `dir`: its summary, when it ran this config from today's SFT start (else null) */
export function finishedRun(dir: string, lab: LabConfig): RlSummary | null {
  const done = readSummary(dir);
  return done && summaryIsOf(done, lab) && done.checkpointSha256 === startSha(lab) ? done : null;
}

/** runs `configs` not finished yet in `runsDir`, `jobs` at a time, each in its own process (0: none, the finished
 * only) */
export async function runAll(
  configs: [string, LabConfig][],
  runsDir: string,
  backend: NodeBackend,
  jobs: number,
  onFinish: (name: string, s: RlSummary) => void = () => {},
  allowDirty = false,
  stops?: StopRequests,
): Promise<Map<string, RlSummary>> {
  const out = new Map<string, RlSummary>();
  const todo: [string, LabConfig][] = [];
  for (const [name, lab] of configs) {
    const done = finishedRun(join(runsDir, name), lab);
    if (done) {
      console.error(`${name}: finished earlier (${formatDuration(done.wallSeconds)}), reused`);
      out.set(name, done);
      onFinish(name, done);
    } else {
      // a run of this config finished from an SFT start that is no longer shipped: not this grid's run, so it is run
      // again (only when the sweep runs: --tables-only leaves every folder as it is)
      const stale = readSummary(join(runsDir, name));
      if (stale && jobs > 0)
        moveAside(
          join(runsDir, name),
          `its run started from SFT weights ${stale.checkpointSha256.slice(0, 12)}…, not today's ${lab.scale}-tiny`,
          'sweep',
        );
      todo.push([name, lab]);
    }
  }
  if (jobs === 0) {
    if (todo.length) console.error(`${todo.length} runs not finished: left out of the tables (--tables-only)`);
    return out;
  }
  const startCache = join(runsDir, '.start-evaluations');
  const t0 = performance.now();
  // with several runs at once, one bar over the steps of all of them (read from their metrics.jsonl)
  const total = todo.reduce((t, [, lab]) => t + lab.steps, 0);
  const stepsDone = () => todo.reduce((t, [name]) => t + trainSteps(join(runsDir, name)), 0);
  const bar = jobs > 1 && todo.length > 0 ? new ProgressBar(total, stepsDone(), 'sweep ', 5) : null;
  const poll = bar ? setInterval(() => bar.update(stepsDone(), { runs: `${finished}/${todo.length}` }), 5000) : null;
  let next = 0;
  let finished = 0;
  const children = new Set<ChildProcess>();
  const stopped = new WeakSet<ChildProcess>();
  // a stop reaches the runs in their own processes once (each saves its last completed step); none starts after it
  const forward = stops
    ? setInterval(() => {
        if (stops.signal)
          for (const c of children)
            if (!stopped.has(c)) {
              stopped.add(c);
              c.kill(stops.signal);
            }
      }, 100)
    : null;
  const one = async (name: string, lab: LabConfig, i: number): Promise<void> => {
    const dir = join(runsDir, name);
    const label = `[${i + 1}/${todo.length}]`;
    if (jobs === 1) {
      console.error(`${label} ${name}`);
      out.set(
        name,
        await runRl({
          lab,
          out: dir,
          resume: 'if-saved',
          backend,
          label: `${label} `,
          keepPolicy: false,
          startCache,
          allowDirty,
          stops,
        }),
      );
      onFinish(name, out.get(name)!);
    } else {
      console.error(`${label} ${name}: started`);
      out.set(name, await runInChild(lab, dir, backend, startCache, allowDirty, children));
      onFinish(name, out.get(name)!);
      finished++;
      console.error(
        `\n${label} ${name}: done in ${formatDuration(out.get(name)!.wallSeconds)} (${finished}/${todo.length} in ${formatDuration((performance.now() - t0) / 1000)})`,
      );
    }
  };
  const worker = async () => {
    while (next < todo.length && !stops?.signal) {
      const i = next++;
      await one(todo[i][0], todo[i][1], i);
    }
  };
  try {
    const workers = Array.from({ length: Math.min(jobs, Math.max(1, todo.length)) }, worker);
    // a stop lets every run in progress save and exit before the sweep says so; any other failure ends the sweep at
    // once
    await Promise.all(
      workers.map((w) =>
        w.catch((e: unknown) => {
          if (!(e instanceof Interrupted)) throw e;
        }),
      ),
    );
  } finally {
    if (poll) clearInterval(poll);
    if (forward) clearInterval(forward);
    bar?.done();
  }
  stops?.check(); // stopped between runs: the runs it started have saved, the rest never started
  return out;
}

/** the training steps a run folder has logged so far */
function trainSteps(dir: string): number {
  const file = join(dir, 'metrics.jsonl');
  if (!existsSync(file)) return 0;
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith('{"kind":"train"')).length;
}

/**
 * one run in its own Node process (tfjs holds one backend per process): this CLI's `run`, its log in DIR/run.log.
 * It has a process group of its own, so a Ctrl-C reaches it once, from the sweep (runAll forwards it), and an IPC
 * channel whose end (the sweep gone, even by kill -9) stops it as SIGTERM would: no run outlives its sweep.
 */
function runInChild(
  lab: LabConfig,
  dir: string,
  backend: NodeBackend,
  startCache: string,
  allowDirty: boolean,
  children: Set<ChildProcess>,
): Promise<RlSummary> {
  mkdirSync(dir, { recursive: true });
  const log = openSync(join(dir, 'run.log'), 'a');
  const args = [
    ...process.execArgv,
    process.argv[1],
    'run',
    '--config',
    JSON.stringify(lab),
    '--out',
    dir,
    '--resume-if-saved',
    '--no-policy',
    '--quiet',
    '--start-cache',
    startCache,
    '--backend',
    backend,
    ...(allowDirty ? ['--allow-dirty'] : []),
  ];
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', log, log, 'ipc'], detached: true });
    children.add(child);
    child.on('error', fail);
    child.on('exit', (code) => {
      children.delete(child);
      closeSync(log);
      const s = readSummary(dir);
      if (code === 0 && s) done(s);
      else if (code === STOP_EXIT.SIGINT || code === STOP_EXIT.SIGTERM)
        fail(new Interrupted(code === STOP_EXIT.SIGINT ? 'SIGINT' : 'SIGTERM'));
      else fail(new Error(`run ${dir} failed (exit ${String(code)}); see ${join(dir, 'run.log')}`));
    });
  });
}
