import { writeFileSync } from 'node:fs';
import type { Command } from '../command.ts';
import { parseFlags } from '../command.ts';
import { suites } from '../../../bench/suites.ts';

export const benchCommand: Command = {
  name: 'bench',
  summary: 'run the benchmarks and print every figure (optionally as flat JSON)',
  help: `usage: npm run bench -- [--json FILE] [--only NAME[,NAME]] [--quick]

  --json FILE   also write every figure to FILE as one flat JSON object ({"evaluator.plans_per_s": …})
  --only NAMES  run only these suites (comma-separated); suites: see the list printed at start
  --quick       shorter measurements (for smoke tests)`,
  async run(args) {
    const { flags } = parseFlags(args);
    const only = typeof flags.get('only') === 'string' ? String(flags.get('only')).split(',') : null;
    const quick = flags.has('quick');
    const figures: Record<string, number> = {};
    console.log(`suites: ${suites.map((s) => s.name).join(', ')}`);
    for (const suite of suites) {
      if (only && !only.includes(suite.name)) continue;
      console.log(`\n== ${suite.name}`);
      await suite.run((key, value, unit, note) => {
        figures[key] = value;
        const shown = Math.abs(value) >= 100 ? value.toFixed(0) : value.toPrecision(3);
        console.log(`  ${key.padEnd(36)} ${shown.padStart(12)} ${unit}${note ? `  (${note})` : ''}`);
      }, { quick });
    }
    const out = flags.get('json');
    if (typeof out === 'string') {
      writeFileSync(out, JSON.stringify(figures, null, 2) + '\n');
      console.log(`\nwrote ${Object.keys(figures).length} figures to ${out}`);
    }
    return 0;
  },
};
