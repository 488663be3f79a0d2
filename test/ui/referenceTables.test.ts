import { describe, expect, it } from 'vitest';
import { findingTable } from '../../src/lab/findingTable.ts';
import { findingById } from '../../src/lab/findings.ts';
import { readReferenceTables } from '../../src/ui/findings/referenceTables.ts';

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
