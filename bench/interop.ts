// TravelPlanner interop at `standard` size: writing a world as TravelPlanner's database files
// (CSV text, ~100k flight rows) and reading them back into a World. In memory, so the figures
// measure the codec, not the disk.
import type { BenchSuite } from './harness.ts';
import { generateWorld } from '../src/env/world.ts';
import { csvRows, worldFromDatabaseFiles, worldToDatabaseFiles } from '../src/env/interop/database.ts';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export const interopSuite: BenchSuite = {
  name: 'interop',
  async run(report, { quick }) {
    const world = generateWorld('standard', 100);
    const exportMs: number[] = [];
    const loadMs: number[] = [];
    let files = worldToDatabaseFiles(world);
    for (let i = 0; i < (quick ? 1 : 5); i++) {
      let t0 = performance.now();
      files = worldToDatabaseFiles(world);
      exportMs.push(performance.now() - t0);
      t0 = performance.now();
      worldFromDatabaseFiles((rel, onRow) => csvRows(files.get(rel) ?? '', onRow), (rel) => files.get(rel) ?? null);
      loadMs.push(performance.now() - t0);
    }
    const bytes = [...files.values()].reduce((n, t) => n + t.length, 0);
    report(
      'interop.export_ms.standard',
      median(exportMs),
      'ms',
      `database CSV text, ${(bytes / 1e6).toFixed(1)} MB, median of ${exportMs.length}`,
    );
    report('interop.load_ms.standard', median(loadMs), 'ms', `CSV text -> World, median of ${loadMs.length}`);
  },
};
