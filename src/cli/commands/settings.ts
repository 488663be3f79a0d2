// `npm run cli -- settings`: every row of the settings table (src/lab/config.ts), read from the table itself:
// its name, default, range or choices, the stage and RL algorithms that read it, and its one-line doc.
import type { Command } from '../command.ts';
import { parseFlags } from '../command.ts';
import { rejectUnknownFlags } from '../envFlags.ts';
import { GROUP_LABELS, SETTING_KEYS, SETTINGS, type Setting, type SettingKey } from '../../lab/config.ts';
import { didYouMean } from '../nearest.ts';
import { plural } from '../progress.ts';

export interface SettingRow {
  name: SettingKey;
  group: string;
  default: string;
  range: string;
  /** the stage and algorithms that read it: "RL and SFT", "RL: DAPO", … */
  appliesTo: string;
  doc: string;
}

const value = (v: unknown) => (Array.isArray(v) ? v.join(':') : String(v));

export function settingRows(): SettingRow[] {
  return SETTING_KEYS.map((name) => {
    const s: Setting = SETTINGS[name];
    const range =
      s.kind === 'choice'
        ? s.choices.join(' | ')
        : s.kind === 'mix'
          ? `easy:medium:hard, each 0–${s.max}`
          : `${s.kind === 'int' ? 'integer' : 'number'} ${s.min}–${s.max}`;
    const stage = s.stage === 'rl' ? 'RL' : s.stage === 'sft' ? 'SFT' : 'RL and SFT';
    const appliesTo = s.algorithms ? `RL: ${s.algorithms.only.map((a) => a.toUpperCase()).join(', ')}` : stage;
    return { name, group: GROUP_LABELS[s.group], default: value(s.default), range, appliesTo, doc: s.doc };
  });
}

export const settingsCommand: Command = {
  name: 'settings',
  summary: 'every setting of an experiment: default, range, what reads it, what it does',
  help: `usage: npm run cli -- settings [NAME…] [--json]

  Every setting of the lab's settings table (src/lab/config.ts, the one the page's controls come from): its
  name, default, range or choices, the stage and RL algorithms that read it, and its one-line doc.
  A run's --config names them ('#steps=40&seed=2' or '{"steps":40,"seed":2}'); \`run\` also takes the
  common ones as options (--seed, --steps, --scale, …: see run --help).
  NAME…             only these settings (a name typed wrong gets the nearest one)
  --json            the rows as JSON`,
  async run(args) {
    const { flags, positional } = parseFlags(args);
    rejectUnknownFlags(flags, [], ['json'], ['json']);
    const unknown = positional.filter((n) => !(SETTING_KEYS as string[]).includes(n));
    if (unknown.length > 0)
      throw new Error(unknown.map((n) => `"${n}" is not a setting${didYouMean(n, SETTING_KEYS)}`).join('; ') + '; npm run cli -- settings lists them all');
    const rows = settingRows().filter((r) => positional.length === 0 || positional.includes(r.name));
    if (flags.has('json')) {
      console.log(JSON.stringify(rows, null, 1));
      return 0;
    }
    let group = '';
    const w = (k: keyof SettingRow) => Math.max(...rows.map((r) => r[k].length));
    const [wn, wd, wr] = [w('name'), Math.min(12, w('default')), Math.min(28, w('range'))];
    for (const r of rows) {
      if (r.group !== group) {
        group = r.group;
        console.log(`\n${group}`);
      }
      console.log(`  ${r.name.padEnd(wn)}  ${r.default.padEnd(wd)}  ${r.range.padEnd(wr)}  ${r.appliesTo}`);
      console.log(`  ${' '.repeat(wn)}  ${r.doc}`);
    }
    console.log(`\n${plural(rows.length, 'setting')} (name, default, range or choices, what reads it; then what it does)`);
    return 0;
  },
};
