// The mechanisms record (results/findings/mechanisms.json, `npm run cli -- mechanisms`), read and checked at
// build time: each finding's mechanism figure from its committed runs, which the Findings view shows under
// the call. A record that fails its check gives a reason instead of figures.
import * as v from 'valibot';
import { MECHANISMS_FORMAT, type FindingMechanism } from '../../findings/mechanisms.ts';
import type { Read } from './referenceTables.ts';

const bound = v.nullable(v.number());
const MechanismsSchema = v.object({
  format: v.literal(MECHANISMS_FORMAT),
  command: v.string(),
  commit: v.string(),
  date: v.string(),
  findings: v.array(v.object({
    id: v.picklist(['T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7']),
    paper: v.string(),
    sentence: v.string(),
    notLogged: v.nullable(v.string()),
    figures: v.array(v.object({
      what: v.string(),
      unit: v.picklist(['%', 'points', 'nats', 'passes', 'per rollout', 'per step']),
      steps: v.string(),
      digits: v.number(),
      arms: v.array(v.object({ arm: v.string(), n: v.number(), mean: v.number(), lo: bound, hi: bound })),
    })),
  })),
});

export type MechanismEntry = Read<FindingMechanism & { command: string; commit: string; date: string }>;

/** each finding's mechanism by id, from the record's text keyed by its path; an unreadable record is one error for
 * every finding */
export function readMechanisms(
  texts: Record<string, string>,
): Map<string, MechanismEntry> | { error: string } | undefined {
  const [path, text] = Object.entries(texts)[0] ?? [];
  if (path === undefined) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { error: `${path} is not valid JSON (${e instanceof Error ? e.message : String(e)})` };
  }
  const parsed = v.safeParse(MechanismsSchema, raw);
  if (!parsed.success)
    return {
      error: `${path} is not a mechanisms record: ${v.getDotPath(parsed.issues[0]) ?? 'the file'} ${parsed.issues[0].message}`,
    };
  const r = parsed.output;
  return new Map(
    r.findings.map((f) => [f.id, { table: { ...f, command: r.command, commit: r.commit, date: r.date } }]),
  );
}

const record = readMechanisms(
  import.meta.glob('/results/findings/mechanisms.json', { eager: true, query: '?raw', import: 'default' }) as Record<
    string,
    string
  >,
);

/** the committed mechanism of a finding: its figures, an error, or undefined when none is committed */
export function mechanismOf(id: string): MechanismEntry | undefined {
  if (!record) return undefined;
  if (record instanceof Map) return record.get(id);
  return { error: record.error };
}
