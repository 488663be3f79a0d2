import { join } from 'node:path';
import type { Command } from '../command.ts';
import { parseFlags } from '../command.ts';
import { flagText, rejectUnknownFlags } from '../envFlags.ts';
import { metricsTable } from '../metricsTable.ts';
import { aggregateMetrics, evaluatePlan } from '../../env/evaluate.ts';
import { queryFromTravelPlanner, toVerdictRecord } from '../../env/interop/submission.ts';
import type { TravelPlannerQuery } from '../../env/interop/submission.ts';
import { QUERIES_FILE, loadWorldFromDir, readJsonLines } from '../../env/node/interop.ts';
import type { Plan, Verdicts } from '../../env/types.ts';
import { makeOutFileParent } from '../outDir.ts';
import { writeAtomic } from '../../node/atomicWrite.ts';

export const evalCommand: Command = {
  name: 'eval',
  summary: "score plans (TravelPlanner submission JSONL) against a world folder in TravelPlanner's layout",
  help: `usage: npm run cli -- eval --dir DIR --plans FILE --out FILE [--queries FILE] [--lab]

  --dir DIR       a folder with TravelPlanner's database/ (from \`export\`, or the real TravelPlanner database)
  --plans FILE    one {"idx", "query", "plan"} object per line (TravelPlanner's submission format)
  --queries FILE  TravelPlanner query objects with "idx", one per line (default DIR/${QUERIES_FILE})
  --out FILE      one JSON line per plan line, in order:
                  {"idx", "commonsense": {key: true|false|null}, "hard": {…}|null, "final_pass", "reasons", "cost"}
                  or {"line", "error"} for a line that cannot be scored (the rest is still scored)
  --lab           lab mode (the lab's stricter reading) instead of the official evaluation's behaviour

Prints TravelPlanner's metrics over the scored lines. Exit code 1 when some line could not be scored.`,
  async run(args) {
    const { flags, positional } = parseFlags(args);
    rejectUnknownFlags(flags, positional, ['dir', 'plans', 'queries', 'out', 'lab'], ['lab']);
    const dir = flagText(flags, 'dir');
    const plansFile = flagText(flags, 'plans');
    const queriesFile = flagText(flags, 'queries', join(dir, QUERIES_FILE));
    const out = flagText(flags, 'out');
    const faithful = !flags.has('lab');
    makeOutFileParent(out);

    // odd rows of a real database (e.g. a room type the lab does not model) are left out, and counted
    const skipped = new Map<string, { count: number; first: string }>();
    const world = loadWorldFromDir(dir, (path, row, reason) => {
      const s = skipped.get(path);
      if (s) s.count++;
      else skipped.set(path, { count: 1, first: `row ${row}: ${reason}` });
    });
    for (const [path, s] of skipped)
      console.error(`left out ${s.count} unreadable rows of ${path} (first: ${s.first})`);
    const queries = new Map<number, TravelPlannerQuery>();
    for (const entry of readJsonLines(queriesFile)) {
      if (entry.error !== undefined) throw new Error(`${queriesFile} line ${entry.line}: ${entry.error}`);
      let q: TravelPlannerQuery;
      try {
        q = queryFromTravelPlanner(entry.value);
      } catch (e) {
        throw new Error(`${queriesFile} line ${entry.line}: ${(e as Error).message}`, { cause: e });
      }
      if (queries.has(q.idx)) throw new Error(`${queriesFile} line ${entry.line}: idx ${q.idx} appears twice`);
      queries.set(q.idx, q);
    }

    const lines: string[] = [];
    const verdicts: Verdicts[] = [];
    const errors: string[] = [];
    for (const entry of readJsonLines(plansFile)) {
      const problem = (message: string) => {
        errors.push(`${plansFile} line ${entry.line}: ${message}`);
        lines.push(JSON.stringify({ line: entry.line, error: message }));
      };
      if (entry.error !== undefined) {
        problem(entry.error);
        continue;
      }
      const record = entry.value as Record<string, unknown> | null;
      if (record === null || typeof record !== 'object' || Array.isArray(record)) {
        problem('expected an object {"idx", "query", "plan"}');
        continue;
      }
      const idx = record.idx;
      if (typeof idx !== 'number' || !Number.isInteger(idx)) {
        problem('no integer "idx"');
        continue;
      }
      const query = queries.get(idx);
      if (!query) {
        problem(`idx ${idx} is not in ${queriesFile}`);
        continue;
      }
      const plan = record.plan ?? null;
      if (plan !== null && !Array.isArray(plan)) {
        problem('"plan" must be a list of day objects or null');
        continue;
      }
      // the raw days go to the evaluator, which reads missing fields as the official code does
      const v = evaluatePlan(world, query, plan as Plan | null, { faithful });
      verdicts.push(v);
      lines.push(JSON.stringify(toVerdictRecord(idx, v)));
    }
    writeAtomic(out, lines.join('\n') + (lines.length ? '\n' : ''));

    console.log(
      `scored ${verdicts.length} of ${lines.length} plan lines (${faithful ? 'faithful' : 'lab'} mode) -> ${out}`,
    );
    if (verdicts.length > 0) console.log(metricsTable(aggregateMetrics(verdicts), verdicts));
    for (const e of errors) console.error(e);
    return errors.length > 0 ? 1 : 0;
  },
};
