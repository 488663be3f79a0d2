// results/findings-quick/<ID>/table.{json,md} as format /2: one run a cell described, never called. The quick
// tables' runs started from SFT weights that are no longer shipped, so `sweep --quick --tables-only` cannot read
// them again; this keeps each table's cells and stamp as its sweep wrote them, drops the direction it called and
// describes the cells again (findingTable.ts redescribedTable). Refused from code that differs from HEAD.
//   npx tsx scripts/redescribeQuickTables.ts [--allow-dirty]
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { findingById } from '../src/findings/findings.ts';
import { redescribedTable, tableMarkdown, type FindingTable } from '../src/findings/findingTable.ts';
import { provenance } from '../src/node/provenance.ts';

const dir = join('results', 'findings-quick');
const command = 'npx tsx scripts/redescribeQuickTables.ts';
const made = provenance(join(dir, 'T1', 'table.json'), { allowDirty: process.argv.includes('--allow-dirty') });
const stamp = { command, ...made, date: new Date().toISOString() };
for (const id of readdirSync(dir).filter((d) => existsSync(join(dir, d, 'table.json'))).sort()) {
  const file = join(dir, id, 'table.json');
  const old = JSON.parse(readFileSync(file, 'utf8')) as Parameters<typeof redescribedTable>[1];
  if (old.format !== 'star-lab-finding-table/1') {
    console.log(`${file}: already ${old.format}, left as it is`);
    continue;
  }
  const table: FindingTable = redescribedTable(findingById(id), old, stamp);
  writeFileSync(file, JSON.stringify(table, null, 1) + '\n');
  writeFileSync(join(dir, id, 'table.md'), tableMarkdown(table) + '\n');
  console.log(`${file}: ${table.description}`);
}
