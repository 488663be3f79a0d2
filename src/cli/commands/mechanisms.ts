// `npm run cli -- mechanisms`: each finding's mechanism, measured (src/findings/mechanisms.ts), from the training
// metrics and evaluations of the runs each standard table holds; writes DIR/mechanisms.json and .md.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Command } from '../command.ts';
import { parseFlags } from '../command.ts';
import { flagText, rejectUnknownFlags } from '../envFlags.ts';
import { provenance } from '../../node/provenance.ts';
import { readGainTableFiles } from '../gainTableFiles.ts';
import {
  findingMechanism,
  MECHANISMS_FORMAT,
  mechanismsMarkdown,
  mechanismStep,
  nullArmLabel,
  type MechanismRun,
  type MechanismsRecord,
} from '../../findings/mechanisms.ts';
import type { GainTable } from '../../findings/findingGains.ts';
import type { FindingId } from '../../findings/findings.ts';

export const mechanismsCommand: Command = {
  name: 'mechanisms',
  summary: "each finding's mechanism, measured from its committed runs' training metrics",
  help: `usage: npm run cli -- mechanisms --out DIR [--allow-dirty]

  Reads DIR/T*/table.json (the standard tables) and, for each arm (a cell or null control) the figure of the
  mechanism the paper names needs, the metrics.jsonl and summary.json of every run the table holds; writes
  DIR/mechanisms.json and DIR/mechanisms.md: each figure per arm, the mean over seeds with its 95 % t interval
  and n, and one sentence on why the lab's regime does or does not reproduce the paper. The page shows each
  under its finding's call. Runs nothing.

  --allow-dirty  write the record from code that differs from HEAD: it lists the differing files and their
                 SHA-256 (without it such a write is refused: commit first)`,
  async run(args) {
    const { flags, positional } = parseFlags(args);
    rejectUnknownFlags(flags, positional, ['out', 'allow-dirty'], ['allow-dirty']);
    const out = resolve(flagText(flags, 'out'));
    const made = provenance(join(out, 'mechanisms.json'), { allowDirty: flags.has('allow-dirty') });
    const tables = readGainTableFiles(out);
    const runs = [...new Set(tables.flatMap((t) => [...t.cells, ...t.nullControl].flatMap((c) => c.where)))];
    const record: MechanismsRecord = {
      format: MECHANISMS_FORMAT,
      command: `npm run cli -- mechanisms --out ${flagText(flags, 'out')}${flags.has('allow-dirty') ? ' --allow-dirty' : ''}`,
      ...made,
      date: new Date().toISOString(),
      inputs: {
        tables: tables.map((t) => join(flagText(flags, 'out'), t.id, 'table.json')),
        runs: runs.length,
        folders: [...new Set(runs.map((w) => dirname(w)))].sort(),
      },
      findings: mechanismsOf(tables),
    };
    writeFileSync(join(out, 'mechanisms.json'), JSON.stringify(record, null, 1) + '\n');
    const md = mechanismsMarkdown(record);
    writeFileSync(join(out, 'mechanisms.md'), md + '\n');
    console.log(md);
    return 0;
  },
};

/** every standard table's mechanism, its arms' runs read from the folders the table names */
export function mechanismsOf(tables: readonly GainTable[]): MechanismsRecord['findings'] {
  return tables.map((t) => {
    const folders = new Map<string, string[]>();
    for (const c of t.cells) folders.set(`${c.row} · ${c.col}`, c.where);
    for (const n of t.nullControl) folders.set(nullArmLabel(n.col), n.where);
    const cache = new Map<string, MechanismRun[]>();
    const runsOf = (arm: string) => {
      if (!cache.has(arm)) cache.set(arm, (folders.get(arm) ?? []).map(readRun));
      return cache.get(arm)!;
    };
    return findingMechanism(t.id as FindingId, runsOf);
  });
}

/** one run folder as a mechanism reads it: its logged training steps and its start and end OOD accuracy */
function readRun(dir: string): MechanismRun {
  const summaryFile = join(dir, 'summary.json');
  if (!existsSync(summaryFile)) throw new Error(`${summaryFile}: no summary (the table names a run that is not there)`);
  const s = JSON.parse(readFileSync(summaryFile, 'utf8')) as {
    lab: { seed: number; trainSize: number };
    rl: { groupSize: number };
    start: { ood: number };
    final: { ood: number };
  };
  const steps = readFileSync(join(dir, 'metrics.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{"kind":"train"'))
    .map((l) => mechanismStep(JSON.parse(l) as Record<string, unknown>));
  return {
    seed: s.lab.seed,
    steps,
    groupSize: s.rl.groupSize,
    trainSize: s.lab.trainSize,
    oodStart: s.start.ood,
    oodEnd: s.final.ood,
  };
}
