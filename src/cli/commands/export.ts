import type { Command } from '../command.ts';
import { parseFlags } from '../command.ts';
import {
  WORLD_SOURCES,
  flagChoice,
  flagInt,
  flagOptionalText,
  flagText,
  parseMix,
  rejectUnknownFlags,
} from '../envFlags.ts';
import { DATA_FLAG_HELP } from '../sandbox.ts';
import { metricsTable } from '../metricsTable.ts';
import { generateWorld } from '../../env/world.ts';
import { buildDataset } from '../../env/queries.ts';
import { teachTrajectory } from '../../env/teacher.ts';
import { aggregateMetrics, evaluatePlan } from '../../env/evaluate.ts';
import { Rng } from '../../env/random.ts';
import { exportWorld } from '../../env/node/interop.ts';
import { loadRealExamples, loadRealWorld } from '../../env/node/realData.ts';
import type { Plan, Query, World } from '../../env/types.ts';
import { makeOutDir } from '../outDir.ts';

export const exportCommand: Command = {
  name: 'export',
  summary: "write a world, queries, teacher plans and verdicts in TravelPlanner's layout",
  help: `usage: npm run cli -- export --out DIR [--size tiny|small|standard] [--queries N] [--seed K] [--mix E:M:H]
       npm run cli -- export --out DIR --world real [--queries N]

  --out DIR       folder to write: database/… (TravelPlanner's files), queries.jsonl, plans.jsonl, verdicts.jsonl
  --size S        generated world size (default small)
  --world real    export the real world (TravelPlanner's 45 training queries' rows) with the 45 parsed queries
  --plans KIND    real world only: gold (the human-annotated plans, default) or teacher
  --queries N     number of queries (default 20; real: at most 45, default 45)
  --seed K        seed of the world, the queries and the teacher (default 1)
  --mix E:M:H     easy:medium:hard weights of the queries (default 4:3:3)
  ${DATA_FLAG_HELP}

Verdicts are computed in faithful mode (the official evaluation's behaviour), so they are what
TravelPlanner's own script reports for these files. Score other plans with \`eval --dir DIR\`.`,
  async run(args) {
    const { flags, positional } = parseFlags(args);
    rejectUnknownFlags(flags, positional, ['out', 'size', 'world', 'queries', 'seed', 'mix', 'data', 'plans']);
    const out = flagText(flags, 'out');
    const worldFlag = flagChoice(flags, 'world', ['generated', 'real'] as const, 'generated');
    const size = flagChoice(flags, 'size', WORLD_SOURCES, worldFlag === 'real' ? 'real' : 'small');
    if (worldFlag === 'real' && size !== 'real') throw new Error('--world real takes no --size');
    const seed = flagInt(flags, 'seed', 1);
    const mix = parseMix(flagText(flags, 'mix', '4:3:3'));
    const planKind = flagChoice(flags, 'plans', ['gold', 'teacher'] as const, size === 'real' ? 'gold' : 'teacher');
    if (planKind === 'gold' && size !== 'real')
      throw new Error('--plans gold needs --world real (generated worlds have teacher plans only)');
    const rng = new Rng(seed).fork(0x7eac);
    const teach = (w: World, qs: Query[]) =>
      qs.map((q, i) => teachTrajectory(w, q, { rng: rng.fork(i) })?.plan ?? null);
    makeOutDir(out);
    const started = performance.now();

    let world: World;
    let queries: Query[];
    let plans: (Plan | null)[];
    if (size === 'real') {
      const dataDir = flagOptionalText(flags, 'data');
      const examples = loadRealExamples(dataDir).slice(0, flagInt(flags, 'queries', 45, 1));
      world = loadRealWorld(dataDir);
      queries = examples.map((e) => e.query);
      plans = planKind === 'gold' ? examples.map((e) => e.goldPlan) : teach(world, queries);
    } else {
      const n = flagInt(flags, 'queries', 20, 1);
      world = generateWorld(size, seed);
      queries = buildDataset(world, { size: n, mix, seed, validationSize: 0, testSize: 0 }).train;
      plans = teach(world, queries);
    }
    const verdicts = queries.map((q, i) => evaluatePlan(world, q, plans[i], { faithful: true }));
    const files = exportWorld(out, world, { queries, plans, verdicts });
    console.log(
      `wrote ${files.length} files to ${out} (${world.source} world, ${queries.length} queries) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    console.log(metricsTable(aggregateMetrics(verdicts), verdicts));
    return 0;
  },
};
