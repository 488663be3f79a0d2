// The rooms' import rules are written in three places: the rules that `npm run layers` checks
// (.dependency-cruiser.mjs, ROOMS), the table in docs/architecture.md ("The rules"), and each room's
// README.md ("May import:"). This test holds the three to one another, and holds every folder of src/
// to a row, so that a new room cannot escape the rules unnoticed. It only reads files (well under a second).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const { ROOMS } = (await import(pathToFileURL(join(root, '.dependency-cruiser.mjs')).href)) as { ROOMS: [string, string[], string][] };
const dir = (room: string) => (room === 'bench' ? 'bench/' : `src/${room}/`);
/** every room folder named in a piece of text, e.g. "`src/env/`, `src/stats/`" → ['src/env/', 'src/stats/'] */
const roomsIn = (text: string) => [...text.matchAll(/(?:src\/[a-z]+|bench)\//g)].map((m) => m[0]);
/** the rooms a README must describe: every room of src/ (bench/ is described by docs/benchmarks.md) */
const WITH_README = ROOMS.map(([room]) => room).filter((room) => room !== 'bench');

describe('the layers', () => {
  it('every folder of src/ is a room of .dependency-cruiser.mjs (a folder without a row would be unchecked)', () => {
    const folders = readdirSync(join(root, 'src')).filter((n) => statSync(join(root, 'src', n)).isDirectory());
    expect(folders.filter((f) => !ROOMS.some(([room]) => room === f))).toEqual([]);
  });

  it("docs/architecture.md's rules table is the config's, row for row", () => {
    const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| `((?:src\/[a-z]+|bench)\/)` \| (.*) \|$/gm)].map((m) => [m[1], roomsIn(m[2])]);
    expect(rows).toEqual(ROOMS.map(([room, allowed]) => [dir(room), allowed.map(dir)]));
  });

  it("each room's README.md says what the config allows it to import", () => {
    for (const [room, allowed] of ROOMS) {
      const path = join(root, dir(room), 'README.md');
      if (!existsSync(path)) {
        expect(WITH_README, `${dir(room)}README.md is missing`).not.toContain(room);
        continue;
      }
      const line = readFileSync(path, 'utf8').split('\n').find((l) => l.startsWith('May import:'));
      expect(line, `${dir(room)}README.md has no "May import:" line`).toBeDefined();
      expect(roomsIn(line!), `${dir(room)}README.md`).toEqual(allowed.map(dir));
    }
  });
});
