// A run survives being stopped the way a researcher's runs are stopped: `npm run cli -- run …` started as the
// README starts it, in a process group of its own as a terminal starts it, and signalled from outside at
// seeded random moments — Ctrl-C to the group (what a terminal sends), kill -9 of the group (a crash, an OOM
// killer), SIGTERM to the CLI process itself (a batch system before it kills) — each followed by the
// command it printed (or, after kill -9, the documented one: the same with --resume). The chain ends with
// the metrics of a run never stopped, every figure; each stop by signal saves the last completed step.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Rng } from '../../src/env/random.ts';
import { splitShellWords } from '../../src/cli/shellQuote.ts';

const tmp = mkdtempSync(join(tmpdir(), 'star-faults-'));
const live = new Set<number>();
afterAll(() => {
  for (const pgid of live) try { process.kill(-pgid, 'SIGKILL'); } catch { /* gone */ }
  rmSync(tmp, { recursive: true, force: true });
});

// the shipped s checkpoint in its tiny world; 5 steps of one query × 2 rollouts, evaluated at 0, 2, 4 and 5 on 2 queries
const CONFIG = '#stage=rl&scale=s&worldSize=tiny&steps=5&queriesPerStep=1&groupSize=2&evalEvery=2&evalQueries=2&evalToolQa=1&trainSize=10&seed=7';
const LINES = 9; // eval 0, train 1, 2, eval 2, train 3, 4, eval 4, train 5, eval 5
const runArgs = (out: string) => ['run', '--config', CONFIG, '--out', out, '--no-policy'];

/** `status`: what a shell reports ($?): the exit code, or 128 + the number of the signal that ended npm */
interface Ended { status: number; stderr: string }
interface Cli { child: ChildProcess; done: Promise<Ended> }

/** `npm run cli -- ARGS` in a new process group (a terminal's job), as a user types it */
function npmCli(args: string[]): Cli {
  const child = spawn('npm', ['run', 'cli', '--', ...args], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child.pid!);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
  child.stdout!.resume();
  const done = new Promise<Ended>((resolve) => {
    child.on('exit', async (code, signal) => {
      await groupGone(child.pid!); // npm is gone; the lab's own process must be too before its files are read
      live.delete(child.pid!);
      resolve({ status: code ?? 128 + constants.signals[signal!], stderr });
    });
  });
  return { child, done };
}

async function groupGone(pgid: number): Promise<void> {
  // a bound only against a hang: a loaded machine can take many seconds to save and exit
  for (let i = 0; i < 1200; i++) {
    try { process.kill(-pgid, 0); } catch { return; }
    await sleep(100);
  }
  throw new Error(`process group ${pgid} still alive 120 s after npm exited`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const metricLines = (dir: string) => (existsSync(join(dir, 'metrics.jsonl')) ? readFileSync(join(dir, 'metrics.jsonl'), 'utf8').split('\n').filter((l) => l.trim()).length : 0);

/** waits until DIR/metrics.jsonl holds `lines` lines, then `delayMs` more (the process still running) */
async function reach(cli: Cli, dir: string, lines: number, delayMs: number): Promise<boolean> {
  let exited = false;
  void cli.done.then(() => { exited = true; });
  while (!exited && metricLines(dir) < lines) await sleep(50);
  if (exited) return false;
  await sleep(delayMs);
  return !exited;
}

/** the lab's node process under npm (npm → sh → node): the leaf of the tree */
function labProcess(pid: number): number {
  for (;;) {
    const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    if (kids.length === 0) return pid;
    pid = kids[0];
  }
}

/** metrics.jsonl less its timings (wall-clock, not training) */
const figures = (dir: string) => readFileSync(join(dir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => {
  const m = JSON.parse(l) as Record<string, unknown>;
  for (const k of Object.keys(m)) if (k.startsWith('time/') || k === 'eval/seconds') delete m[k];
  return m;
});
const trainSteps = (dir: string) => figures(dir).filter((m) => m.kind === 'train').length;
const savedStep = (dir: string) => (JSON.parse(readFileSync(join(dir, 'resume', 'state.json'), 'utf8')) as { step: number }).step;

/** the command a stopped run printed last ("continue with:" and the command on the next line), as argv for npmCli */
function printedCommand(stderr: string): string[] {
  const lines = stderr.trimEnd().split('\n');
  const at = lines.map((l) => /continue with:$/.test(l)).lastIndexOf(true);
  expect(at, `no resume command in:\n${stderr}`).toBeGreaterThanOrEqual(0);
  const words = splitShellWords(lines[at + 1].trim());
  expect(words.slice(0, 4)).toEqual(['npm', 'run', 'cli', '--']);
  return words.slice(4);
}

describe('fault injection: a CLI run stopped from outside resumes to the figures of a run never stopped', () => {
  it('Ctrl-C to the group, kill -9 of the group, SIGTERM to the CLI: each resumed, the end identical', async () => {
    const rng = new Rng(50);
    const ref = join(tmp, 'reference');
    const dir = join(tmp, 'stopped');
    const reference = npmCli(runArgs(ref)); // beside the chain: one uninterrupted run shared by every stop

    // 1. Ctrl-C as a terminal sends it: SIGINT to the whole process group, at a random moment of steps 1–3
    const a = npmCli(runArgs(dir));
    expect(await reach(a, dir, 1 + rng.int(3), rng.int(1500))).toBe(true);
    const trainedAtStop = [trainSteps(dir)];
    process.kill(-a.child.pid!, 'SIGINT');
    const ra = await a.done;
    const trainedAfterStop = [trainSteps(dir)];
    expect(ra.status, ra.stderr).toBe(130);
    expect(ra.stderr).toMatch(/interrupted \(SIGINT\); step \d of 5 saved/);
    // the last completed step is the saved one: nothing trained is lost
    expect(savedStep(dir)).toBe(trainSteps(dir));
    const resume = printedCommand(ra.stderr);
    expect(resume).toEqual([...runArgs(dir), '--resume']);

    // 2. kill -9 of the group during the printed command, at a random moment: no handler runs, the last save stands
    const b = npmCli(resume);
    const before = metricLines(dir);
    if (await reach(b, dir, before + 1 + rng.int(2), rng.int(1500))) process.kill(-b.child.pid!, 'SIGKILL');
    const rb = await b.done;
    expect(rb.status).toBe(137); // stopped mid-run (a run that beat the kill would exit 0)

    // 3. the documented resume, then SIGTERM to the lab's own process (not the group) at a random moment
    const c = npmCli(resume);
    const seen = metricLines(dir);
    expect(await reach(c, dir, Math.min(LINES - 1, seen + 1 + rng.int(2)), rng.int(800))).toBe(true);
    trainedAtStop.push(trainSteps(dir));
    process.kill(labProcess(c.child.pid!), 'SIGTERM');
    const rc = await c.done;
    trainedAfterStop.push(trainSteps(dir));
    expect(rc.status, rc.stderr).toBe(143);
    expect(savedStep(dir)).toBe(trainSteps(dir));
    expect(printedCommand(rc.stderr)).toEqual(resume);

    // 4. the printed command once more: the run finishes, and every figure is the unstopped run's
    const d = await npmCli(resume).done;
    expect(d.status, d.stderr).toBe(0);
    const r = await reference.done;
    expect(r.status, r.stderr).toBe(0);
    expect(figures(dir)).toEqual(figures(ref));
    expect(figures(dir)).toHaveLength(LINES);
    expect(existsSync(join(dir, 'resume'))).toBe(false);
    // answered at the next rollout turn or micro-batch, not at the run's end: at most the step in progress when the
    // signal came completes after it (counted in steps, not seconds, so a loaded machine cannot fail it)
    trainedAtStop.forEach((n, i) => expect(trainedAfterStop[i]).toBeLessThanOrEqual(n + 1));
  }, 400_000);
});
