// Node side of TravelPlanner interop: write a world (and queries, plans, verdicts) as a folder in
// TravelPlanner's layout, and read such a folder back, including the real TravelPlanner database
// (its flights table is hundreds of MB, so CSV files are streamed in chunks, not read whole).
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { Plan, Query, Verdicts, World } from '../types.ts';
import { worldFromDatabaseFiles, worldToDatabaseFiles } from '../interop/database.ts';
import type { SkipRow } from '../interop/database.ts';
import type { RawRow } from '../interop/rows.ts';
import { parseCsvRecords } from '../interop/csv.ts';
import { toSubmission, toTravelPlannerQuery, toVerdictRecord } from '../interop/submission.ts';

export const QUERIES_FILE = 'queries.jsonl';
export const PLANS_FILE = 'plans.jsonl';
export const VERDICTS_FILE = 'verdicts.jsonl';

export interface ExportExtras {
  queries?: readonly Query[];
  /** one per query (null = not delivered), written as the submission format */
  plans?: readonly (Plan | null)[];
  /** one per query */
  verdicts?: readonly Verdicts[];
}

function writeText(dir: string, rel: string, text: string): void {
  const path = join(dir, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const jsonl = (items: unknown[]) => items.map((x) => JSON.stringify(x)).join('\n') + (items.length ? '\n' : '');

/** Write `world` in TravelPlanner's database layout under `dir`, plus queries/plans/verdicts (idx = position + 1, as
 * TravelPlanner numbers submissions). Returns the files written. */
export function exportWorld(dir: string, world: World, extras: ExportExtras = {}): string[] {
  const written: string[] = [];
  for (const [rel, text] of worldToDatabaseFiles(world)) {
    writeText(dir, rel, text);
    written.push(rel);
  }
  const { queries, plans, verdicts } = extras;
  if (queries) {
    writeText(dir, QUERIES_FILE, jsonl(queries.map((q, i) => toTravelPlannerQuery(q, i + 1))));
    written.push(QUERIES_FILE);
  }
  if (plans) {
    if (!queries || plans.length !== queries.length) throw new Error('plans need their queries, one plan per query');
    writeText(dir, PLANS_FILE, jsonl(plans.map((p, i) => toSubmission(i + 1, queries[i], p))));
    written.push(PLANS_FILE);
  }
  if (verdicts) {
    if (!queries || verdicts.length !== queries.length) throw new Error('verdicts need their queries, one per query');
    writeText(dir, VERDICTS_FILE, jsonl(verdicts.map((v, i) => toVerdictRecord(i + 1, v))));
    written.push(VERDICTS_FILE);
  }
  return written;
}

/**
 * A World from a folder in TravelPlanner's layout (an export of this lab, or the real `database/`
 * parent). `onSkip`: report and leave out rows the lab's types cannot hold instead of failing.
 */
export function loadWorldFromDir(dir: string, onSkip?: SkipRow): World {
  if (!existsSync(join(dir, 'database'))) throw new Error(`${dir} has no database/ folder (TravelPlanner's layout)`);
  return worldFromDatabaseFiles(
    (rel, onRow) => {
      const path = join(dir, rel);
      if (!existsSync(path)) throw new Error(`missing ${path}`);
      forEachCsvRow(path, onRow);
    },
    (rel) => {
      const path = join(dir, rel);
      return existsSync(path) ? readFileSync(path, 'utf8') : null;
    },
    onSkip,
  );
}

/** Stream a CSV file's rows (keyed by header) in 8 MB chunks, cutting only between records. */
export function forEachCsvRow(path: string, onRow: (row: RawRow) => void, chunkBytes = 8 << 20): void {
  const fd = openSync(path, 'r');
  const buffer = Buffer.alloc(chunkBytes);
  const decoder = new StringDecoder('utf8');
  let header: string[] | null = null;
  let carry = '';
  const emit = (text: string) => {
    parseCsvRecords(text, (cells) => {
      if (header === null) {
        header = cells.map((h, i) => (i === 0 ? h.replace(/^\uFEFF/, '') : h));
        return;
      }
      const row: RawRow = {};
      for (let i = 0; i < header.length; i++) row[header[i]] = cells[i];
      onRow(row);
    });
  };
  try {
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      const text = carry + decoder.write(buffer.subarray(0, n));
      // cut after the last newline that is outside quotes
      let inQuotes = false;
      let cut = 0;
      for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === 34) inQuotes = !inQuotes;
        else if (c === 10 && !inQuotes) cut = i + 1;
      }
      if (cut > 0) emit(text.slice(0, cut));
      carry = text.slice(cut);
    }
    carry += decoder.end();
    if (carry.trim() !== '') emit(carry);
  } finally {
    closeSync(fd);
  }
}

/** Read a JSON-lines file: one entry per non-blank line, with its 1-based line number; bad JSON is reported, not
 * thrown. */
export function readJsonLines(path: string): { line: number; value?: unknown; error?: string }[] {
  const out: { line: number; value?: unknown; error?: string }[] = [];
  if (!existsSync(path)) throw new Error(`no such file: ${path}`);
  readFileSync(path, 'utf8').split(/\r?\n/).forEach((text, i) => {
    if (text.trim() === '') return;
    try {
      out.push({ line: i + 1, value: JSON.parse(text) });
    } catch (e) {
      out.push({ line: i + 1, error: `not JSON (${(e as Error).message})` });
    }
  });
  return out;
}
