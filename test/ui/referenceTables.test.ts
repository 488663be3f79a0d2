import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findingTable } from '../../src/findings/findingTable.ts';
import { gainTable } from '../../src/findings/findingGains.ts';
import { findingById } from '../../src/findings/findings.ts';
import { INTERACTION_TEST, readGainTables, readInteractionTest, readReferenceTables, REFERENCE_TABLES, STANDARD_TABLES } from '../../src/ui/findings/referenceTables.ts';

const meta = { command: 'npm run cli -- sweep --preset T7 --quick', commit: 'abc', date: '2026-01-01T00:00:00Z', backend: 'wasm', common: {}, sweepSeconds: 60 };
const figures = (success: number) => ({ success, delivery: 1, csMicro: 1, hardMicro: 1, ood: 0.5 });
const t7 = findingTable(findingById('T7'), (lab) => ({ start: figures(0.2), final: figures(lab.toolFailureRate === 0.1 ? 0.1 : 0.3), wallSeconds: 5, where: 'x' }), meta);

describe('readReferenceTables', () => {
  it("reads a sweep's table by its folder and skips other folders", () => {
    const tables = readReferenceTables({ '/results/findings/T7/table.json': JSON.stringify(t7), '/results/findings/runs/table.json': '{}' });
    expect([...tables.keys()]).toEqual(['T7']);
    expect(tables.get('T7')?.table?.cells.find((c) => c.col === '10 %')?.lab).toBe(10);
  });

  it('gives a reason for a broken, foreign or misplaced table instead of throwing', () => {
    const tables = readReferenceTables({
      '/results/findings/T1/table.json': '{"format": "star-lab-finding-ta',
      '/results/findings/T2/table.json': JSON.stringify({ ...t7, id: 'T2', cells: [{ row: 'x' }] }),
      '/results/findings/T3/table.json': JSON.stringify(t7),
    });
    expect(tables.get('T1')?.error).toMatch(/not valid JSON/);
    expect(tables.get('T2')?.error).toMatch(/not a finding table: cells/);
    expect(tables.get('T3')?.error).toMatch(/table of T7, not T3/);
  });
});

/** every committed finding table (results/findings-quick/<ID>/table.json, results/findings/<ID>/table.json), by folder */
function committed(): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const dir of readdirSync('results').filter((d) => d.startsWith('findings'))) {
    for (const id of readdirSync(join('results', dir))) {
      const file = join('results', dir, id, 'table.json');
      if (existsSync(file)) (out[dir] ??= {})[`/${file}`] = readFileSync(file, 'utf8');
    }
  }
  return out;
}

describe('the committed tables', () => {
  it('every results/findings*/<ID>/table.json validates: quick ones as quick tables, standard ones as gain tables', () => {
    const byDir = committed();
    expect(Object.keys(byDir['findings-quick'] ?? {})).toHaveLength(7);
    for (const [dir, texts] of Object.entries(byDir)) {
      const read = dir === 'findings-quick' ? readReferenceTables(texts) : readGainTables(texts);
      expect(read.size, dir).toBe(Object.keys(texts).length);
      for (const [id, r] of read) expect(r.error, `${dir}/${id}`).toBeUndefined();
    }
  });

  it('are the ones the page bundles (quick from findings-quick/, standard from findings/)', () => {
    expect(REFERENCE_TABLES.size).toBe(7);
    for (const r of REFERENCE_TABLES.values()) expect(r.error).toBeUndefined();
    expect(STANDARD_TABLES.size).toBe(Object.keys(committed().findings ?? {}).length);
    // the page keeps what the sweep wrote: T6's scale × choice interactions survive the reading
    expect(STANDARD_TABLES.get('T6')?.table?.compares.interactions?.map((x) => x.paper)).toEqual([11.2, 11.9]);
  });

  it('a gain table is not read as a quick one, nor the other way round', () => {
    const g = gainTable(findingById('T7'), () => undefined, [1, 2, 3], { size: 'standard', command: 'x', commit: 'abc', date: '2026-01-01', backend: 'wasm', common: {} });
    expect(readGainTables({ '/results/findings/T7/table.json': JSON.stringify(g) }).get('T7')?.error).toBeUndefined();
    expect(readReferenceTables({ '/results/findings-quick/T7/table.json': JSON.stringify(g) }).get('T7')?.error).toMatch(/not a finding table: format/);
    expect(readGainTables({ '/results/findings/T7/table.json': JSON.stringify(t7) }).get('T7')?.error).toMatch(/not a finding table: format/);
  });
});

describe('readInteractionTest', () => {
  const path = '/results/findings/interactions-test.json';
  const committed = readFileSync(new URL('../../results/findings/interactions-test.json', import.meta.url), 'utf8');
  it('reads the committed planned test, the one the page bundles', () => {
    const read = readInteractionTest({ [path]: committed });
    expect(read?.error).toBeUndefined();
    expect(read?.table?.results[0].finding).toBe('T6');
    expect(INTERACTION_TEST?.table).toEqual(read?.table);
  });
  it('is absent without a file, and gives a reason for a broken or foreign one', () => {
    expect(readInteractionTest({})).toBeUndefined();
    expect(readInteractionTest({ [path]: committed.slice(0, 40) })?.error).toMatch(/not valid JSON/);
    const raw = JSON.parse(committed) as { results: { cells: unknown[] }[] };
    raw.results[0].cells.pop();
    expect(readInteractionTest({ [path]: JSON.stringify(raw) })?.error).toMatch(/not an interactions test: results\.0\.cells/);
    expect(readInteractionTest({ [path]: JSON.stringify({ format: 'star-lab-interaction-plan/1' }) })?.error).toMatch(/not an interactions test: format/);
  });
});
