import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { METRIC } from '../../src/lab/metricNames.ts';

// The trainers and their hosts write and read a metric by its declared name only: a string written out beside the
// declaration is a second owner that a rename would miss.
const ROOMS = ['src/rl', 'src/cli', 'src/worker'];

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );

describe('metric names', () => {
  it('are written as strings only in their declaration, never in src/rl, src/cli or src/worker', () => {
    const names = new Set<string>(Object.values(METRIC));
    const written: string[] = [];
    for (const file of ROOMS.flatMap(files)) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/(['"`])([a-z_]+\/[a-z0-9_]+)\1/g))
        if (names.has(m[2])) written.push(`${file}: ${m[0]}`);
    }
    expect(written).toEqual([]);
  });

  it('would catch one written out', () => {
    // the pattern the test above reads with, on a line that writes a declared name out
    const line = `const stage = m['${METRIC.chartsCurriculumStage}'];`;
    const hit = [...line.matchAll(/(['"`])([a-z_]+\/[a-z0-9_]+)\1/g)].map((m) => m[2]);
    expect(hit).toEqual([METRIC.chartsCurriculumStage]);
  });
});
