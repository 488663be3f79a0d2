// The code's comments stand alone: none sends the reader to a document the repository does not hold
// (a design document's "§N") or to a tracker's "issue N". A reader of the repository can follow neither;
// the reason belongs in the comment itself or in docs/. Reads every text file of src/, test/, scripts/
// and bench/ (well under a second).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const DIRS = ['src', 'test', 'scripts', 'bench'];
const TEXT = /\.(ts|mts|js|mjs|cjs|svelte|py|sh|md|html|css)$/;

/** the pointers refused: "DESIGN §4", "DESIGN.md", "issue 23" / "Issue #23" / "issues 9" / "pre-issue-22",
 *  "issue" and its number wrapped onto the next comment line, and "the issue's …" (which issue?) */
const POINTER = new RegExp(
  [
    String.raw`\bDESIGN\b`,
    String.raw`\b[Ii]ssues?[ -]#?\d`,
    String.raw`\b[Ii]ssues?\s*\n\s*(?:\/\/|\*|#)\s*#?\d`,
    String.raw`\b(?:[Tt]he|[Tt]his|[Tt]hat) issue(?:'s\b|\s+(?:was|asks|says))`,
  ].join('|'),
);

/** every line holding a pointer in `text`, as "line: text" */
function pointersIn(text: string): string[] {
  const out: string[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    // a pointer wrapped over two lines is found on the pair, reported on the first
    const pair = i + 1 < lines.length ? `${line}\n${lines[i + 1]}` : line;
    if (POINTER.test(line) || (POINTER.test(pair) && !POINTER.test(lines[i + 1] ?? ''))) out.push(`${i + 1}: ${line.trim()}`);
  });
  return out;
}

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (TEXT.test(name)) yield path;
  }
}

describe('comments that stand alone', () => {
  it('the pattern finds the pointers it is meant to, and not the words it must leave alone', () => {
    for (const bad of ['// the evaluator (DESIGN §3.3)', '// see issue 23', '/** (Issue #40) */', '// the pre-issue-22 path',
      '// its class, issue\n// 39, moved', "// the issue's metric names", '# issues 9 and 10']) {
      expect(pointersIn(bad), bad).not.toEqual([]);
    }
    for (const fine of ['const issue = parsed.issues[0];', '// every schema issue, not the first', '// arXiv 2507.19849 §3.2',
      '// rows as #1…#k', 'return `${path}: ${issue.message}`;', '// a design choice']) {
      expect(pointersIn(fine), fine).toEqual([]);
    }
  });

  it('no file of src/, test/, scripts/ or bench/ points to a design document or an issue outside the repository', () => {
    const found: string[] = [];
    for (const dir of DIRS) {
      for (const path of files(join(root, dir))) {
        if (path === fileURLToPath(import.meta.url)) continue; // this file names the patterns it refuses
        for (const hit of pointersIn(readFileSync(path, 'utf8'))) found.push(`${relative(root, path)}:${hit}`);
      }
    }
    expect(found, 'put the reason itself in the comment (or in docs/), not a pointer to where it was discussed').toEqual([]);
  });
});
