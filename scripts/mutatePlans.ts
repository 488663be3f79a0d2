// Rule-breaking variants of a plans.jsonl, for comparing the lab's evaluator with TravelPlanner's
// own script (scripts/official_crosscheck.py): each variant applies 1–2 random edits to a plan
// (blank or delete a field, move an item to another city, a random flight or drive, a repeated
// item, a dropped day, a truncated text). Seeded. The edits live in src/env/planMutations.ts.
//   npx tsx scripts/mutatePlans.ts DIR OUT.jsonl [COUNT] [SEED]   (DIR: an `export` folder)
import { readFileSync, writeFileSync } from 'node:fs';
import { loadWorldFromDir } from '../src/env/node/interop.ts';
import { mutatePlans, type PlanRecord } from '../src/env/planMutations.ts';

const [dir, outFile, countArg = '400', seedArg = '7'] = process.argv.slice(2);
if (!dir || !outFile) {
  console.error('usage: npx tsx scripts/mutatePlans.ts DIR OUT.jsonl [COUNT] [SEED]');
  process.exit(2);
}
const world = loadWorldFromDir(dir);
const plans = readFileSync(`${dir}/plans.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as PlanRecord);
const out = mutatePlans(world, plans, Number(countArg), Number(seedArg)).map((p) => JSON.stringify(p));
writeFileSync(outFile, out.join('\n') + '\n');
console.log(`wrote ${out.length} variants to ${outFile}`);
