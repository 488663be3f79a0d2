import type { Command } from '../command.ts';
import { parseFlags } from '../command.ts';
import { WORLD_SOURCES, flagChoice, flagInt, flagOptionalText, rejectUnknownFlags } from '../envFlags.ts';
import { DATA_FLAG_HELP, makeWorld } from '../sandbox.ts';
import { findNameConflicts, worldSummary } from '../../env/world.ts';

export const worldCommand: Command = {
  name: 'world',
  summary: 'summarize a generated or the real TravelPlanner world',
  help: `usage: npm run cli -- world [--size tiny|small|standard|real] [--seed K] [--json]

  --size S      world size, or "real" for the world built from TravelPlanner's 45 training queries (default standard)
  --seed K      generator seed (default 1; ignored for real)
  --json        print the summary as one JSON object
  ${DATA_FLAG_HELP}`,
  async run(args) {
    const { flags, positional } = parseFlags(args);
    rejectUnknownFlags(flags, positional, ['size', 'seed', 'json', 'data'], ['json']);
    const size = flagChoice(flags, 'size', WORLD_SOURCES, 'standard');
    const seed = flagInt(flags, 'seed', 1);
    const world = makeWorld(size, seed, flagOptionalText(flags, 'data'));
    const summary = worldSummary(world);
    if (flags.has('json')) {
      console.log(JSON.stringify(summary));
      return 0;
    }
    for (const [k, v] of Object.entries(summary)) console.log(`  ${k.padEnd(18)} ${v}`);
    const conflicts = findNameConflicts(world);
    // real rows break the lab's naming rule (TravelPlanner matches names by substring): say how often
    console.log(
      `  ${'name conflicts'.padEnd(18)} ${conflicts.length}${conflicts.length ? ` (e.g. ${conflicts[0]})` : ''}`,
    );
    const states = [...world.citiesByState].map(([s, c]) => `${s} (${c.length})`);
    console.log(
      `  ${'states'.padEnd(18)} ${states.slice(0, 12).join(', ')}${states.length > 12 ? `, … ${states.length - 12} more` : ''}`,
    );
    return 0;
  },
};
