// The lab's committed reference tables (results/findings/<ID>/table.json, written by
// `npm run cli -- sweep`), bundled into the page at build time. They are read as text and checked
// here, so a half-written or hand-edited table shows its reason on its finding's page instead of
// breaking the build or the page.
import * as v from 'valibot';
import type { FindingTable } from '../../lab/findingTable.ts';

const pct = v.pipe(v.number(), v.finite());

const TableSchema = v.object({
  format: v.literal('star-lab-finding-table/1'),
  id: v.string(),
  title: v.string(),
  claim: v.string(),
  rows: v.array(v.string()),
  cols: v.array(v.string()),
  cells: v.array(v.object({
    row: v.string(),
    col: v.string(),
    lab: v.nullable(pct),
    paper: v.nullable(pct),
    best: v.boolean(),
    run: v.nullable(v.object({ where: v.string(), successStart: v.number(), successFinal: v.number(), oodStart: v.number(), oodFinal: v.number(), wallSeconds: v.number() })),
  })),
  direction: v.object({ agrees: v.nullable(v.boolean()), sentence: v.string() }),
  command: v.string(),
  commit: v.string(),
  date: v.string(),
  backend: v.string(),
  common: v.record(v.string(), v.unknown()),
  sweepSeconds: v.number(),
});

export type ReferenceTable = { table: FindingTable; error?: never } | { table?: never; error: string };

/** Reads the tables' texts keyed by path ('/results/findings/T7/table.json'); one entry per finding id. */
export function readReferenceTables(texts: Record<string, string>): Map<string, ReferenceTable> {
  const out = new Map<string, ReferenceTable>();
  for (const [path, text] of Object.entries(texts)) {
    const id = /\/(T[1-7])\/table\.json$/.exec(path)?.[1];
    if (!id) continue; // another folder (e.g. runs/) is not a finding's table
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      out.set(id, { error: `${path} is not valid JSON (${e instanceof Error ? e.message : String(e)})` });
      continue;
    }
    const parsed = v.safeParse(TableSchema, raw);
    if (!parsed.success) {
      const issue = parsed.issues[0];
      out.set(id, { error: `${path} is not a finding table: ${v.getDotPath(issue) ?? 'the file'} ${issue.message}` });
    } else if (parsed.output.id !== id) out.set(id, { error: `${path} holds the table of ${parsed.output.id}, not ${id}` });
    else out.set(id, { table: parsed.output as FindingTable });
  }
  return out;
}

// bundled by Vite at build time; an absent folder or file simply gives no entry
const bundled = import.meta.glob('/results/findings/*/table.json', { eager: true, query: '?raw', import: 'default' }) as Record<string, string>;

export const REFERENCE_TABLES = readReferenceTables(bundled);
