// T8's and T9's answers (src/findings/beyondTest.ts) from DIR/beyond-plan.json and the run folders it names, read from
// disk, and `power-plan --beyond --test`'s record of them (DIR/beyond-test.{json,md}). Its own module so that
// power-plan and the repository's record check read the runs one way.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { provenance } from '../node/provenance.ts';
import { writeAtomic } from '../node/atomicWrite.ts';
import {
  BEYOND_PLAN_FORMAT,
  beyondDesign,
  beyondTestRecord,
  testBeyond,
  type BeyondPlan,
  type BeyondRun,
} from '../findings/beyondTest.ts';
import { beyondTestMarkdown } from '../findings/beyondText.ts';
import { parseHash } from '../lab/urlState.ts';
import { withMetricNames } from '../lab/metrics.ts';
import { METRIC } from '../lab/metricNames.ts';
import { mechanismsOf } from './commands/mechanisms.ts';
import { readGainTableFiles } from './gainTableFiles.ts';
import { runDirName } from './runDir.ts';
import { flagPath } from './flagPath.ts';

/** T8's and T9's answers from DIR/beyond-plan.json and whichever of its runs have finished (relative folders read from
 *  the working folder); `mechanism` false leaves out the T1 runs' groups without signal (it reads every T1 run) */
export function beyondAnswersAt(out: string, o: { mechanism: boolean }) {
  const file = join(out, 'beyond-plan.json');
  if (!existsSync(file))
    throw new Error(`no beyond plan in ${out}: \`npx tsx scripts/beyondPlans.ts --out ${out}\` makes it`);
  const plan = JSON.parse(readFileSync(file, 'utf8')) as BeyondPlan;
  if (plan.format !== BEYOND_PLAN_FORMAT)
    throw new Error(`${file} is not the beyond plan (format ${String(plan.format)})`);
  const runsDir = flagPath(join(out, 'runs'));
  const design = beyondDesign(plan, (hash) => join(runsDir, runDirName(parseHash(hash).config)), runsDir);
  const t8Dirs = new Set(design.t8.flatMap((c) => c.dirs));
  const cache = new Map<string, BeyondRun | undefined>();
  const read = (dir: string): BeyondRun | undefined => {
    if (cache.has(dir)) return cache.get(dir);
    const summary = join(dir, 'summary.json');
    let run: BeyondRun | undefined;
    if (existsSync(summary)) {
      const s = JSON.parse(readFileSync(summary, 'utf8')) as {
        lab: { seed: number };
        steps: number;
        start: { success: number; queries: number };
        final: { success: number };
      };
      const stages = t8Dirs.has(dir)
        ? readFileSync(join(dir, 'metrics.jsonl'), 'utf8')
            .split('\n')
            .filter((l) => l.startsWith('{"kind":"train"'))
            .map((l) => {
              const m = withMetricNames(JSON.parse(l) as Record<string, unknown>);
              const stage = m[METRIC.chartsCurriculumStage];
              if (typeof stage !== 'number')
                throw new Error(`${dir}/metrics.jsonl: step ${String(m.step)} logs no ${METRIC.chartsCurriculumStage}`);
              return { step: m.step as number, stage };
            })
        : undefined;
      run = {
        seed: s.lab.seed,
        gain: 100 * (s.final.success - s.start.success), // as the run measured it: the test reads it unrounded
        start: { success: s.start.success, queries: s.start.queries },
        steps: s.steps,
        ...(stages ? { stages } : {}),
      };
    }
    cache.set(dir, run);
    return run;
  };
  // the mechanism: the T1 runs' groups without signal, by reward and scale, as the mechanisms record computes it
  const t1 =
    o.mechanism && existsSync(join(out, 'T1', 'table.json'))
      ? readGainTableFiles(out).find((t) => t.id === 'T1')
      : undefined;
  const mechanism = t1 ? (mechanismsOf([t1])[0].figures[0] ?? null) : null;
  const answers = testBeyond(plan, design, read, { sftDone: (dir) => existsSync(join(dir, 'card.json')), mechanism });
  return { plan, design, answers };
}

/** T8's and T9's answers into DIR/beyond-test.{json,md} */
export function writeBeyondTest(out: string, allowDirty: boolean): number {
  const made = provenance(join(out, 'beyond-test.json'), { allowDirty });
  const { plan, design, answers } = beyondAnswersAt(out, { mechanism: true });
  const command = `npm run cli -- power-plan --out ${flagPath(out)} --beyond --test${allowDirty ? ' --allow-dirty' : ''}`;
  const record = beyondTestRecord(plan, answers, design, { date: new Date().toISOString(), ...made, command });
  writeAtomic(join(out, 'beyond-test.json'), JSON.stringify(record, null, 1) + '\n');
  const md = beyondTestMarkdown(record);
  writeAtomic(join(out, 'beyond-test.md'), md);
  console.log(md);
  return 0;
}
