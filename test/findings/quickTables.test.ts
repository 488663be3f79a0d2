// One run a cell is described, never called: a single run's end moves by several points from seed to seed, so
// a quick table (results/findings-quick) or the page's table of your own runs says what the runs measured and
// nothing about whether the lab agrees with the paper's direction.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FINDING_TABLE_FORMAT, findingTable, ONE_RUN_NO_CALL, redescribedTable, tableMarkdown } from '../../src/findings/findingTable.ts';
import { FINDINGS } from '../../src/findings/findings.ts';

/** words that make a call on the paper's direction */
const CALL = /agrees?\b|does not agree|disagrees?|contradicts?|supports?\b|rules? out|reproduces?|Direction:/i;

const dir = 'results/findings-quick';
const ids = readdirSync(dir).filter((d) => existsSync(join(dir, d, 'table.json')));

describe('the quick tables', () => {
  it('all seven are committed', () => {
    expect(ids.sort()).toEqual(FINDINGS.map((f) => f.id));
  });

  it.each(ids)('%s describes its runs and calls no direction (table.json and table.md)', (id) => {
    const json = JSON.parse(readFileSync(join(dir, id, 'table.json'), 'utf8')) as Record<string, unknown>;
    expect(json.format).toBe(FINDING_TABLE_FORMAT);
    expect(json).not.toHaveProperty('direction');
    expect(json.description).toEqual(expect.any(String));
    expect(json.description as string).not.toMatch(CALL);
    const md = readFileSync(join(dir, id, 'table.md'), 'utf8');
    // the paper's own claim is quoted as it is; the rest of the table may not call
    const own = md.split('\n').filter((l) => !l.startsWith('Paper: ')).join('\n');
    expect(own).not.toMatch(CALL);
    expect(md).toContain(ONE_RUN_NO_CALL);
    expect(json.commit as string).not.toMatch(/dirty/);
  });

  it("a table of one run a cell describes, whichever way its runs point (here 10 % far below 0 %)", () => {
    const figures = (success: number) => ({ success, delivery: 1, csMicro: 1, hardMicro: 1, ood: 0.5 });
    const t7 = FINDINGS.find((f) => f.id === 'T7')!;
    const t = findingTable(t7, (lab) => ({ start: figures(0.2), final: figures(lab.toolFailureRate === 0.1 ? 0.05 : 0.4), wallSeconds: 5, where: 'x' }),
      { command: 'c', commit: 'abc', date: '2026-01-01T00:00:00Z', backend: 'wasm', common: {}, sweepSeconds: 60 });
    expect(t.description).toBe('Success at 0 / 5 / 10 % tool failures: 40.0 / 40.0 / 5.0.');
    expect(tableMarkdown(t).split('\n').filter((l) => !l.startsWith('Paper: ')).join('\n')).not.toMatch(CALL);
  });

  it('a table written as /1 keeps its cells and stamp, loses its call, and is described as today\'s sweep would', () => {
    const figures = (success: number) => ({ success, delivery: 1, csMicro: 1, hardMicro: 1, ood: 0.5 });
    const t5 = FINDINGS.find((f) => f.id === 'T5')!;
    const now = findingTable(t5, (lab) => ({ start: figures(0.2), final: figures(lab.mix[0] === 0 ? 0.1 : 0.3), wallSeconds: 5, where: 'x' }),
      { command: 'sweep', commit: 'abc', date: '2026-01-01T00:00:00Z', backend: 'wasm', common: {}, sweepSeconds: 60 });
    const { description: _d, ...rest } = now;
    const v1 = { ...rest, format: 'star-lab-finding-table/1', direction: { agrees: true, sentence: 'Mixed 4:3:3 30.0 vs hard-only 10.0 (paper 49.9 vs 25.9).' } };
    const again = redescribedTable(t5, v1, { command: 'redescribe', commit: 'def', date: '2026-12-05T00:00:00Z' });
    expect(again).not.toHaveProperty('direction');
    expect({ ...again, redescribed: undefined }).toEqual({ ...now, redescribed: undefined });
    expect(tableMarkdown(again)).toContain('Described again from these cells, without the call the sweep made, by `redescribe` at commit def');
    expect(() => redescribedTable(FINDINGS[0], v1, again.redescribed!)).toThrow(/a table of T5, not T1/);
  });
});
