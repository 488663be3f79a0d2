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
import { DATA_FLAG_HELP, makeWorld } from '../sandbox.ts';
import { buildDataset } from '../../env/queries.ts';
import { toTravelPlannerQuery } from '../../env/interop/submission.ts';
import { loadRealExamples } from '../../env/node/realData.ts';
import type { Query } from '../../env/types.ts';
import { makeOutFileParent } from '../outDir.ts';
import { writeAtomic } from '../../node/atomicWrite.ts';

const SPLITS = ['train', 'validation', 'test'] as const;

export const queriesCommand: Command = {
  name: 'queries',
  summary: 'write a query dataset as JSONL (TravelPlanner query objects with idx)',
  help: `usage: npm run cli -- queries --out FILE [--size S] [--seed K] [--count N] [--mix E:M:H] [--split train|validation|test]

  --out FILE         where to write (one query per line)
  --size S           world: tiny|small|standard (default standard), or real: the 45 parsed TravelPlanner training queries
  --seed K           seed of the world and of the dataset (default 1)
  --count N          training queries (default 100); the split written is --split
  --mix E:M:H        easy:medium:hard weights of the training split (default 4:3:3)
  --split NAME       which split to write (default train); validation/test are always 4:3:3
  --validation N     validation queries drawn before train (default 100)
  --test N           test queries drawn before train (default 200)
  ${DATA_FLAG_HELP}`,
  async run(args) {
    const { flags, positional } = parseFlags(args);
    rejectUnknownFlags(flags, positional, [
      'out',
      'size',
      'seed',
      'count',
      'mix',
      'split',
      'validation',
      'test',
      'data',
    ]);
    const out = flagText(flags, 'out');
    const size = flagChoice(flags, 'size', WORLD_SOURCES, 'standard');
    const seed = flagInt(flags, 'seed', 1);
    const count = flagInt(flags, 'count', 100);
    const mix = parseMix(flagText(flags, 'mix', '4:3:3'));
    const split = flagChoice(flags, 'split', SPLITS, 'train');
    const validationSize = flagInt(flags, 'validation', 100);
    const testSize = flagInt(flags, 'test', 200);
    makeOutFileParent(out);

    let queries: Query[];
    if (size === 'real') {
      queries = loadRealExamples(flagOptionalText(flags, 'data'))
        .map((e) => e.query)
        .slice(0, count);
    } else {
      const world = makeWorld(size, seed);
      queries = buildDataset(world, { size: count, mix, seed, validationSize, testSize })[split];
    }
    writeAtomic(
      out,
      queries.map((q, i) => JSON.stringify(toTravelPlannerQuery(q, i + 1))).join('\n') + (queries.length ? '\n' : ''),
    );
    const byLevel = (l: string) => queries.filter((q) => q.level === l).length;
    console.log(
      `wrote ${queries.length} ${size === 'real' ? 'real' : split} queries (easy ${byLevel('easy')}, medium ${byLevel('medium')}, hard ${byLevel('hard')}) to ${out}`,
    );
    return 0;
  },
};
