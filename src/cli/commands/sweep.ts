// `npm run cli -- sweep`: the grid behind one of the seven findings (src/lab/findings.ts), run after run,
// each a `run` (rlRun.ts) in its own folder under --runs, named by its config; a run already finished
// there is reused, so a sweep can be continued later and findings that share cells (T1/T2/T3, T1/T6)
// share runs. Prints and writes table.md and table.json in the paper's shape, the paper's numbers beside.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Command } from '../command.ts';
import { parseFlags } from '../command.ts';
import { flagChoice, flagInt, flagOptionalText, flagText, rejectUnknownFlags } from '../envFlags.ts';
import { NODE_BACKENDS } from '../nodeBackend.ts';
import { readSummary, runRl, type RlSummary } from '../rlRun.ts';
import { gitCommit } from '../checkpointDir.ts';
import { formatDuration } from '../progress.ts';
import { cellConfig, findingById, FINDINGS, type Finding } from '../../lab/findings.ts';
import type { LabConfig } from '../../lab/config.ts';
import { serializeHash } from '../../lab/urlState.ts';
import { findingTable, tableMarkdown, type FindingTable } from '../../lab/findingTable.ts';

/** --quick: sized so that the seven grids (23 distinct runs) fit in about two hours of this 2-core machine */
export const QUICK: Partial<LabConfig> = { steps: 12, queriesPerStep: 4, groupSize: 4, evalEvery: 12, evalQueries: 40, learningRate: 3e-4 };

const KNOWN = ['preset', 'quick', 'out', 'runs', 'backend', 'steps'];

export function runDirName(lab: LabConfig): string {
  const hash = serializeHash(lab).replace(/^#/, '');
  return hash ? hash.replace(/[^A-Za-z0-9=._-]+/g, '_') : 'defaults';
}

export const sweepCommand: Command = {
  name: 'sweep',
  summary: "run a finding's grid (T1…T7) and print its table beside the paper's",
  help: `usage: npm run cli -- sweep --preset T1|…|T7|all [--quick] --out DIR [--runs DIR] [--steps N] [--backend wasm|cpu]

  --preset ID   the finding: ${FINDINGS.map((f) => `${f.id} ${f.title}`).join('; ')}; or all
  --quick       the reference size: ${Object.entries(QUICK).map(([k, v]) => `${k}=${String(v)}`).join(' ')}
  --out DIR     writes DIR/<ID>/table.md and table.json
  --runs DIR    the runs' folders (default DIR/runs); finished runs there are reused, unfinished ones resumed
  --steps N     override the steps of every run
  --backend B   wasm (default) or cpu`,
  async run(args) {
    const { flags, positional } = parseFlags(args);
    rejectUnknownFlags(flags, positional, KNOWN);
    const id = flagText(flags, 'preset');
    const findings = id.toLowerCase() === 'all' ? FINDINGS : [findingById(id)];
    const out = resolve(flagText(flags, 'out'));
    const runs = resolve(flagOptionalText(flags, 'runs') ?? join(out, 'runs'));
    const backend = flagChoice(flags, 'backend', NODE_BACKENDS, 'wasm');
    const common: Partial<LabConfig> = { ...(flags.has('quick') ? QUICK : {}) };
    if (flags.has('steps')) common.steps = flagInt(flags, 'steps', 12, 1);
    const command = `npm run cli -- sweep ${args.join(' ')}`;
    for (const f of findings) {
      const t0 = performance.now();
      const summaries = await runGrid(f, common, runs, backend);
      const lookup = (lab: LabConfig) => {
        const s = summaries.get(runDirName(lab));
        return s ? { start: s.start, final: s.final, wallSeconds: s.wallSeconds, where: relative(process.cwd(), join(runs, runDirName(lab))) } : undefined;
      };
      const table = findingTable(f, lookup, { command, commit: gitCommit(), date: new Date().toISOString(), backend, common,
        sweepSeconds: (performance.now() - t0) / 1000 });
      writeTable(join(out, f.id), table);
      console.log(`\n${tableMarkdown(table)}`);
    }
    return 0;
  },
};

async function runGrid(f: Finding, common: Partial<LabConfig>, runsDir: string, backend: (typeof NODE_BACKENDS)[number]): Promise<Map<string, RlSummary>> {
  const configs = new Map<string, LabConfig>();
  for (const cell of f.cells) {
    const lab = cellConfig(f, cell, common);
    if (lab) configs.set(runDirName(lab), lab);
  }
  const out = new Map<string, RlSummary>();
  let i = 0;
  for (const [name, lab] of configs) {
    i++;
    const dir = join(runsDir, name);
    const done = readSummary(dir);
    if (done && done.hash === serializeHash(lab)) {
      console.error(`[${f.id} ${i}/${configs.size}] ${name}: finished earlier (${formatDuration(done.wallSeconds)}), reused`);
      out.set(name, done);
      continue;
    }
    console.error(`[${f.id} ${i}/${configs.size}] ${name}`);
    out.set(name, await runRl({ lab, out: dir, resume: true, backend, label: `${f.id} ${i}/${configs.size} `, keepPolicy: false }));
  }
  return out;
}

function writeTable(dir: string, table: FindingTable): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'table.json'), JSON.stringify(table, null, 1) + '\n');
  writeFileSync(join(dir, 'table.md'), tableMarkdown(table) + '\n');
}
