// `npm run cli -- runs [DIR]`: a table of the RL runs under a folder (default runs/), one line each.
import { existsSync } from 'node:fs';
import type { Command } from '../command.ts';
import { parseFlags } from '../command.ts';
import { rejectUnknownFlags } from '../envFlags.ts';
import { findRunFolders, shownDir, type RunFolder } from '../runFolders.ts';
import { formatDuration } from '../progress.ts';
import type { RunFigures } from '../../findings/findingTable.ts';

const f3 = (x: number | null | undefined) => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(3) : 'n/a');

/** "0.293 [0.245, 0.347]": a success with its 95 % interval where the run recorded one */
export function successWithInterval(x: RunFigures): string {
  const ci = typeof x.successLo === 'number' && Number.isFinite(x.successLo) ? ` [${f3(x.successLo)}, ${f3(x.successHi)}]` : '';
  return `${f3(x.success)}${ci}`;
}

export interface RunsRow {
  run: string;
  scale: string;
  algorithm: string;
  steps: string;
  success: string;
  wall: string;
  status: string;
  hash: string;
}

export function runsRow(r: RunFolder): RunsRow {
  const s = r.summary;
  const status =
    r.status.kind === 'finished'
      ? 'finished'
      : r.status.kind === 'unfinished'
        ? r.status.savedStep !== null ? `unfinished, saved at step ${r.status.savedStep}` : 'unfinished, nothing saved'
        : `unreadable: ${r.status.why}`;
  return {
    run: shownDir(r.dir),
    scale: s?.lab.scale ?? '',
    algorithm: s ? s.rl.algorithm.toUpperCase() : '',
    steps: s ? String(s.steps) : '',
    success: s ? `${successWithInterval(s.start)} → ${successWithInterval(s.final)}` : '',
    wall: s ? formatDuration(s.wallSeconds) : '',
    status,
    hash: s ? s.hash || '(defaults)' : '',
  };
}

const HEAD: RunsRow = { run: 'run', scale: 'scale', algorithm: 'algo', steps: 'steps', success: 'validation success, start → final (95 % interval)',
  wall: 'wall', status: 'status', hash: 'setting (lab hash)' };

export function runsTable(rows: readonly RunsRow[]): string {
  const keys = Object.keys(HEAD) as (keyof RunsRow)[];
  const widths = keys.map((k) => Math.max(...[HEAD, ...rows].map((r) => r[k].length)));
  // the hash goes last and whole: it is what reruns the run
  const line = (r: RunsRow) => keys.map((k, i) => (i === keys.length - 1 ? r[k] : r[k].padEnd(widths[i]))).join('  ');
  return [line(HEAD), ...rows.map(line)].join('\n');
}

export const runsCommand: Command = {
  name: 'runs',
  summary: 'a table of the RL runs under a folder: setting, scale, algorithm, steps, success, wall time, status',
  help: `usage: npm run cli -- runs [DIR] [--json]

  Every RL run under DIR (default runs/; any depth), one line each: its folder, scale, algorithm, steps,
  validation success at the start and at the end with their 95 % Wilson intervals over the evaluation's
  queries, wall time, status (finished, or unfinished with the step it saved) and its setting as
  the lab hash (the page's link, or --config of \`run\`). Compare runs with \`compare\`.
  --json            the rows as JSON`,
  async run(args) {
    const { flags, positional } = parseFlags(args);
    rejectUnknownFlags(flags, positional.slice(1), ['json'], ['json']);
    const root = positional[0] ?? 'runs';
    if (!existsSync(root)) throw new Error(`${root}: no such folder (runs are listed from a folder of run folders, e.g. runs/ or results/)`);
    const rows = findRunFolders(root).map(runsRow);
    if (flags.has('json')) {
      console.log(JSON.stringify(rows, null, 1));
      return 0;
    }
    if (rows.length === 0) {
      console.log(`${root}: no RL runs (a run folder holds summary.json or run.json)`);
      return 0;
    }
    console.log(runsTable(rows));
    console.log(`\n${rows.length} ${rows.length === 1 ? 'run' : 'runs'} under ${root}`);
    return 0;
  },
};
