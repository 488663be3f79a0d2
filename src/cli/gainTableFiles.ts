// The standard gain tables a sweep wrote (DIR/T<n>/table.json), read for the commands that build on them
// (power-plan, mechanisms). Its own module so that those commands can import each other's pieces without a loop.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GAIN_TABLE_FORMAT, type GainTable } from '../findings/findingGains.ts';

/** DIR/T<n>/table.json, the standard gain tables, in finding order; throws when there is none */
export function readGainTableFiles(out: string): GainTable[] {
  const tables = readdirSync(out).filter((d) => /^T\d$/.test(d) && existsSync(join(out, d, 'table.json'))).sort()
    .map((d) => {
      const file = join(out, d, 'table.json');
      try {
        return JSON.parse(readFileSync(file, 'utf8')) as GainTable;
      } catch (e) {
        throw new Error(
          `${file} is not readable JSON (${(e as Error).message}): rewrite it with \`sweep --standard --tables-only --out ${out}\``,
          { cause: e },
        );
      }
    })
    .filter((t) => t.format === GAIN_TABLE_FORMAT);
  if (tables.length === 0)
    throw new Error(
      `${out} holds no standard tables (DIR/T1…T7/table.json, written by \`npm run cli -- sweep --standard --out ${out}\`); ` +
        `a quick sweep (--quick or a --grid) writes none: this command reads the standard sweep's (format ${GAIN_TABLE_FORMAT})`,
    );
  return tables;
}
