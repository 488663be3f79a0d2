// Writes a sweep's tables beside its runs: table.json and table.md for each finding (the quick grid's figures
// or the gains across seeds), and runs.csv for the grid. A table that differs only in its stamp keeps its file.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeAtomic } from '../node/atomicWrite.ts';
import type { LabConfig } from '../lab/config.ts';
import { type GainTable } from '../findings/findingGains.ts';
import { gainMarkdown } from '../findings/gainText.ts';
import { tableMarkdown, type FindingTable } from '../findings/findingTable.ts';
import { gridCsv } from './gridCsv.ts';
import type { RlSummary } from './rlRun.ts';
import { finishedRun } from './sweepRuns.ts';

/** DIR/runs.csv: the grid's runs (gridCsv.ts), finished ones with their figures; rewritten only when a row changed */
export function writeGridCsv(
  dir: string,
  grid: Map<string, LabConfig>,
  summaries: Map<string, RlSummary>,
  runs: string,
): void {
  mkdirSync(dir, { recursive: true });
  const csv = gridCsv(
    [...grid].map(([name, lab]) => ({ name, lab, summary: summaries.get(name) ?? finishedRun(join(runs, name), lab) })),
  );
  const path = join(dir, 'runs.csv');
  if (!existsSync(path) || readFileSync(path, 'utf8') !== csv) writeAtomic(path, csv);
}

export function writeTable(dir: string, table: FindingTable): void {
  mkdirSync(dir, { recursive: true });
  if (sameApartFromStamp(join(dir, 'table.json'), table)) return;
  writeAtomic(join(dir, 'table.json'), JSON.stringify(table, null, 1) + '\n');
  writeAtomic(join(dir, 'table.md'), tableMarkdown(table) + '\n');
}

export function writeGainTable(dir: string, table: GainTable): void {
  mkdirSync(dir, { recursive: true });
  if (sameApartFromStamp(join(dir, 'table.json'), table)) return;
  writeAtomic(join(dir, 'table.json'), JSON.stringify(table, null, 1) + '\n');
  writeAtomic(join(dir, 'table.md'), gainMarkdown(table) + '\n');
}

/** true when the table at `path` differs from `table` only in its stamp (commit, date): such a table keeps its
 * file, so committing one finding's new runs does not rewrite the six other tables */
function sameApartFromStamp(path: string, table: object): boolean {
  if (!existsSync(path)) return false;
  let old: unknown;
  try { old = JSON.parse(readFileSync(path, 'utf8')); } catch { return false; } // a damaged file is rewritten
  const unstamped = (t: object) => JSON.stringify({ ...t, commit: '', date: '' });
  return typeof old === 'object' && old !== null && unstamped(old) === unstamped(table);
}
