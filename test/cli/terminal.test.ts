// The researcher's terminal, in process (no CLI process started): the settings list is the table's every row,
// `runs` and `compare` read committed runs, a typo finds its setting, a log gets a progress line at least every
// 10 s, and a progress line on a terminal is ended before any other message.
import { describe, expect, it, vi } from 'vitest';
import { SETTING_KEYS, SETTINGS } from '../../src/lab/config.ts';
import { settingRows } from '../../src/cli/commands/settings.ts';
import { runsRow, runsTable } from '../../src/cli/commands/runs.ts';
import { compareText, groupOf, successDifference } from '../../src/cli/commands/compare.ts';
import { findRunFolders } from '../../src/cli/runFolders.ts';
import { editDistance, nearestName } from '../../src/cli/nearest.ts';
import { endProgressLine, LOG_EVERY_MS, ProgressBar } from '../../src/cli/progress.ts';
import { terminalChart } from '../../src/cli/terminalChart.ts';
import { aOr } from '../../src/cli/outDir.ts';

const RECIPE = 'results/rl-recipe';

describe('settings', () => {
  it('lists every row of the settings table with its default, range, scope and doc', () => {
    const rows = settingRows();
    expect(rows.map((r) => r.name)).toEqual(SETTING_KEYS);
    for (const r of rows) expect(r.doc).toBe(SETTINGS[r.name].doc);
    expect(rows.find((r) => r.name === 'clipHigh')).toMatchObject({ default: '0.28', range: 'number 0–1', appliesTo: 'RL: DAPO' });
    expect(rows.find((r) => r.name === 'algorithm')).toMatchObject({ range: 'grpo | dapo | arpo', appliesTo: 'RL' });
    expect(rows.find((r) => r.name === 'mix')?.default).toBe('4:3:3');
  });

  it('a typo finds the nearest name, and a word near nothing finds none', () => {
    expect(nearestName('stpes', SETTING_KEYS)).toBe('steps');
    expect(nearestName('learningrate', SETTING_KEYS)).toBe('learningRate');
    expect(nearestName('zzzzzz', SETTING_KEYS)).toBeNull();
    expect(editDistance('ab', 'ba')).toBe(1);
    expect(aOr('RL run')).toBe('an RL run');
    expect(aOr('sweep')).toBe('a sweep');
  });
});

describe('runs and compare read committed runs', () => {
  it('runs: one row per run, with its interval, status and hash', () => {
    const found = findRunFolders(RECIPE);
    expect(found.length).toBeGreaterThan(5);
    const row = runsRow(found.find((r) => r.dir.endsWith('s-seed2-real'))!);
    expect(row).toMatchObject({ scale: 's', algorithm: 'GRPO', steps: '40', status: 'finished' });
    expect(row.success).toMatch(/^0\.\d{3} \[0\.\d{3}, 0\.\d{3}\] → 0\.\d{3} \[0\.\d{3}, 0\.\d{3}\]$/);
    expect(row.hash).toContain('seed=2');
    expect(runsTable([row]).split('\n')).toHaveLength(2);
  });

  it('compare: two runs with the difference and its named interval; seed groups with Welch; the curves drawn', () => {
    const a = groupOf('A', `${RECIPE}/s-seed3-null`);
    const b = groupOf('B', `${RECIPE}/s-seed2-real`);
    expect(successDifference(a, b)).toMatch(/^B − A, final validation success: \+0\.\d{3} \[\+0\.\d{3}, \+0\.\d{3}\] \(95 % Newcombe hybrid score interval over B's 300 and A's 300 validation queries/);
    const text = compareText([a, b], 40);
    expect(text).toContain('settings B differs from A in: advantages shuffled → real, seed 3 → 2');
    expect(text).toContain('* A   o B');
    const seeds = groupOf('C', `${RECIPE}/s-seed1-real,${RECIPE}/s-seed2-real,${RECIPE}/s-seed4-real`);
    const nulls = groupOf('D', `${RECIPE}/s-seed1-null,${RECIPE}/s-seed3-null`);
    expect(successDifference(nulls, seeds)).toMatch(/95 % Welch t interval over C's 3 and D's 2 runs/);
    expect(() => groupOf('E', RECIPE)).toThrow(/not the seeds of one setting/);
    expect(() => groupOf('F', `${RECIPE}/no-such`)).toThrow(/no such folder/);
  });

  it('a terminal chart puts each series where its points are', () => {
    const chart = terminalChart([{ mark: '*', label: 'up', points: [{ x: 0, y: 0 }, { x: 10, y: 1 }] }], { width: 11, height: 3, yMin: 0, yMax: 1 });
    const rows = chart.split('\n');
    expect(rows[0]).toMatch(/│ +\*+$/); // the top row reaches the last column
    expect(rows[2]).toMatch(/│\*+ +$/); // the bottom row starts at the first
  });
});

describe('progress in a log and on a terminal', () => {
  const stream = (isTTY: boolean) => {
    const written: string[] = [];
    return { written, out: { isTTY, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream };
  };

  it('in a log, a line every `every` steps or at least every 10 s', () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      const { written, out } = stream(false);
      const bar = new ProgressBar(100, 0, '', 50, out);
      bar.update(1);
      expect(written).toHaveLength(0); // quick steps: no line yet
      vi.advanceTimersByTime(LOG_EVERY_MS);
      bar.update(2);
      expect(written).toHaveLength(1);
      expect(written[0]).toMatch(/ 2\/100 .*\n$/);
    } finally {
      vi.useRealTimers();
    }
  });

  it('on a terminal, a message after the bar starts its own line', () => {
    const { written, out } = stream(true);
    new ProgressBar(10, 0, '', 5, out).update(3);
    expect(written.at(-1)).not.toMatch(/\n$/);
    endProgressLine();
    expect(written.at(-1)).toBe('\n');
    endProgressLine(); // nothing open: nothing written
    expect(written).toHaveLength(2);
  });
});
