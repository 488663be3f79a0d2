// Does a run made again give back a committed run's figures to the bit? A plan may reuse committed seeds as one of
// its cells only if today's code trains them exactly as the code that made them; this compares every value of every
// record of the committed metrics.jsonl with the new run's, wall-clock timings aside (keys under `time/` and
// `eval/seconds`: they measure the machine, not the run). Names are read as they are now (a metric renamed since
// is compared under its new name). An interval's bounds (`…_lo`, `…_hi`) are compared to 1e-9: they are a function
// of the figure beside them, which is compared to the bit, and the normal quantile behind them has changed in its
// last digits since early runs were recorded. Keys the new code logs and the old did not are listed, not compared.
// Writes the verdict to --out as JSON and exits 1 when any value differs.
//
//   npx tsx scripts/check-reproduction.ts COMMITTED_RUN_DIR NEW_RUN_DIR [--out FILE]
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withMetricNames } from '../src/lab/metrics';

const [committedDir, newDir] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const outAt = process.argv.indexOf('--out');
const out = outAt > 0 ? process.argv[outAt + 1] : undefined;
if (!committedDir || !newDir) {
  console.error('usage: npx tsx scripts/check-reproduction.ts COMMITTED_RUN_DIR NEW_RUN_DIR [--out FILE]');
  process.exit(2);
}

type Row = Record<string, unknown>;
const isTiming = (key: string) => key.startsWith('time/') || key === 'eval/seconds';
const isBound = (key: string) => key.endsWith('_lo') || key.endsWith('_hi');
const records = (dir: string): Row[] =>
  readFileSync(join(dir, 'metrics.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => withMetricNames(JSON.parse(line) as Row));
const same = (key: string, a: unknown, b: unknown) =>
  Object.is(a, b) ||
  (isBound(key) && typeof a === 'number' && typeof b === 'number' && Math.abs(a - b) <= 1e-9);

const before = records(committedDir);
const after = records(newDir);
const differences: Row[] = [];
const newKeys = new Set<string>();
let compared = 0;
let boundsWithin = 0;
if (before.length !== after.length) differences.push({ what: 'records', committed: before.length, again: after.length });
for (let i = 0; i < Math.min(before.length, after.length); i++) {
  const [a, b] = [before[i], after[i]];
  for (const key of Object.keys(b)) if (!(key in a)) newKeys.add(key);
  for (const [key, value] of Object.entries(a)) {
    if (isTiming(key)) continue;
    compared++;
    // Object.is: -0 and NaN are compared as written, bit for bit of the JSON's double
    if (!Object.is(value, b[key]) && same(key, value, b[key])) boundsWithin++;
    if (!same(key, value, b[key])) {
      differences.push({ record: i, kind: a.kind, step: a.step, key, committed: value, again: b[key] });
    }
  }
}

const verdict = {
  what:
    'a committed run made again: every logged value compared to the bit under its current name, wall-clock ' +
    "timings aside, an interval's bounds to 1e-9",
  command: `npx tsx scripts/check-reproduction.ts ${committedDir} ${newDir}${out ? ` --out ${out}` : ''}`,
  committed: committedDir,
  again: newDir,
  records: { committed: before.length, again: after.length },
  valuesCompared: compared,
  boundsEqualOnlyTo1e9: boundsWithin,
  identical: differences.length === 0,
  differences: differences.slice(0, 50),
  differencesTotal: differences.length,
  keysOnlyInTheNewRun: [...newKeys].sort(),
};
if (out) writeFileSync(out, JSON.stringify(verdict, null, 1) + '\n');
console.log(
  verdict.identical
    ? `identical: ${compared} values in ${before.length} records (timings aside; ${boundsWithin} interval bounds ` +
        'equal to 1e-9, not to the bit)' +
        (newKeys.size ? `; the new run also logs ${[...newKeys].join(', ')}` : '')
    : `DIFFERENT: ${differences.length} of ${compared} values; first: ${JSON.stringify(differences[0])}`,
);
process.exit(verdict.identical ? 0 : 1);
