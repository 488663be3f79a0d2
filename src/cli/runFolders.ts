// The RL runs under a folder, as `runs`, `compare` and `run --dry-run` read them: each run folder (one holding a
// run.json, a summary.json or a resume state) with its summary when finished, its saved step when not, and its
// metric lines. Reads only; a folder it cannot read is listed as such, never a crash.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { withMetricNames } from '../lab/metrics.ts';
import type { StepSample } from '../lab/runEstimate.ts';
import type { RlSummary } from './rlRun.ts';
import { RUN_FILE } from './outDir.ts';

export interface RunFolder {
  dir: string;
  /** the summary of a finished run (null: unfinished or unreadable) */
  summary: RlSummary | null;
  /** finished, or unfinished with the step its resume state saved (null: nothing saved yet) */
  status: { kind: 'finished' } | { kind: 'unfinished'; savedStep: number | null } | { kind: 'unreadable'; why: string };
}

const SKIP = new Set(['node_modules', 'policy', 'resume', '.git']);

/** every run folder under `root` (itself included), depth-first in name order, at most `depth` folders down */
export function findRunFolders(root: string, depth = 6): RunFolder[] {
  const out: RunFolder[] = [];
  const walk = (dir: string, left: number) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    if (names.includes('summary.json') || names.includes(RUN_FILE)) {
      out.push(readRunFolder(dir));
      return;
    }
    if (left === 0) return;
    for (const n of names) {
      if (SKIP.has(n) || n.startsWith('.') || n.includes('.replaced-')) continue;
      const p = join(dir, n);
      try {
        if (statSync(p).isDirectory()) walk(p, left - 1);
      } catch {
        /* gone while listed */
      }
    }
  };
  walk(root, depth);
  return out;
}

export function readRunFolder(dir: string): RunFolder {
  if (existsSync(join(dir, 'summary.json'))) {
    let summary: RlSummary | null = null;
    try {
      summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as RlSummary;
    } catch {
      /* said below */
    }
    if (!summary || summary.format !== 'star-lab-rl-summary/1')
      return { dir, summary: null, status: { kind: 'unreadable', why: 'summary.json is not an RL run summary' } };
    return { dir, summary, status: { kind: 'finished' } };
  }
  let savedStep: number | null = null;
  try {
    const s = JSON.parse(readFileSync(join(dir, 'resume', 'state.json'), 'utf8')) as { step?: unknown };
    if (typeof s.step === 'number') savedStep = s.step;
  } catch {
    /* nothing saved yet */
  }
  return { dir, summary: null, status: { kind: 'unfinished', savedStep } };
}

export type MetricLine = { kind: string; step: number } & Record<string, number | string>;

/** a run's metrics.jsonl, renamed metrics read under their names now; a line that is not JSON is skipped */
export function readMetricLines(dir: string): MetricLine[] {
  const p = join(dir, 'metrics.jsonl');
  if (!existsSync(p)) return [];
  return readFileSync(p, 'utf8').split('\n').flatMap((l) => {
    try {
      return l.trim() ? [withMetricNames(JSON.parse(l) as MetricLine)] : [];
    } catch {
      return [];
    }
  });
}

/** a finished run as the estimate reads it: its mean step (rollouts, rewards, update), mean evaluation and the rest */
export function stepSampleOf(run: RunFolder): StepSample | null {
  const s = run.summary;
  if (!s || !(s.steps > 0)) return null;
  const lines = readMetricLines(run.dir);
  const num = (l: MetricLine, k: string) => (typeof l[k] === 'number' ? (l[k] as number) : 0);
  const steps = lines.filter((l) => l.kind === 'train').map((l) => num(l, 'time/rollout') + num(l, 'time/reward') + num(l, 'time/update'));
  const evals = lines.filter((l) => l.kind === 'eval' && typeof l['eval/seconds'] === 'number').map((l) => num(l, 'eval/seconds'));
  if (steps.length === 0 || steps.every((x) => x === 0)) return null;
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const meanStepMs = mean(steps) * 1000;
  const meanEvalMs = evals.length > 0 ? mean(evals) * 1000 : undefined;
  const startMs = Math.max(0, s.wallSeconds * 1000 - meanStepMs * steps.length - (meanEvalMs ?? 0) * evals.length);
  return { config: s.lab, meanStepMs, meanEvalMs, startMs };
}

/** a folder as the tables show it: relative to the working directory when under it */
export const shownDir = (dir: string) => {
  const r = relative(process.cwd(), dir);
  return r && !r.startsWith('..') ? r : dir;
};
