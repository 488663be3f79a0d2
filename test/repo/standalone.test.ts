// The repository stands alone: no source, test, script, bench or doc names a folder beside the
// checkout (the real TravelPlanner rows were once read from a `shared` folder next to it, which a
// fresh clone does not have; they are now committed in data/travelplanner). .ci/run proves the same thing by running the tests in a clone with nothing
// beside it; this is the fast check that says which file to fix.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const TEXT = new Set(['.ts', '.mjs', '.js', '.cjs', '.svelte', '.json', '.md', '.sh', '.py', '.html', '.yml', '.yaml', '']);
const SKIP = new Set(['node_modules', '.git', 'dist', 'data', 'results', 'public', 'test-results', 'coverage']);

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const path = join(dir, name);
    const st = statSync(path);
    if (st.isDirectory()) yield* files(path);
    else if (st.isFile() && st.size < 2_000_000 && TEXT.has(extname(name))) yield path;
  }
}

describe('the repository stands alone', () => {
  it('no file names a folder outside the checkout', () => {
    // built from parts so this file does not match itself
    const outside = [['..', 'shared'].join('/'), ['', 'work', 'shared'].join('/'), ['', 'work', 'main'].join('/')];
    const offenders: string[] = [];
    for (const path of files(root)) {
      const text = readFileSync(path, 'utf8');
      for (const needle of outside) if (text.includes(needle)) offenders.push(`${relative(root, path)}: ${needle}`);
    }
    expect(offenders).toEqual([]);
  });
});
