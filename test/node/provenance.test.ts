// A record that will be committed names a commit one can check out: written from code that differs from
// HEAD it is refused, or (--allow-dirty) lists the differing files and their hashes; never "<sha>-dirty".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { provenance } from '../../src/node/provenance.ts';

let repo: string;
let elsewhere: string;
let head: string;
const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();

beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), 'provenance-'));
  elsewhere = mkdtempSync(join(tmpdir(), 'provenance-out-'));
  git('init', '-q');
  git('config', 'user.email', 't@example.com');
  git('config', 'user.name', 't');
  mkdirSync(join(repo, 'src'));
  mkdirSync(join(repo, 'results'));
  writeFileSync(join(repo, 'src', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(repo, 'results', 'old.json'), '{}\n');
  writeFileSync(join(repo, '.gitignore'), 'runs/\n');
  git('add', '.');
  git('commit', '-q', '-m', 'start');
  head = git('rev-parse', 'HEAD');
});
afterAll(() => {
  rmSync(repo, { recursive: true, force: true });
  rmSync(elsewhere, { recursive: true, force: true });
});

describe('provenance', () => {
  it('names HEAD alone from a clean tree, and a changed record (not code) keeps the tree clean', () => {
    writeFileSync(join(repo, 'results', 'old.json'), '{"changed":true}\n');
    expect(provenance('results/table.json', { cwd: repo })).toEqual({ commit: head });
    git('checkout', '--', 'results/old.json');
  });

  it('refuses a committed record from changed code, and lists the files with their SHA-256 when allowed', () => {
    const text = 'export const a = 2;\n';
    writeFileSync(join(repo, 'src', 'a.ts'), text);
    writeFileSync(join(repo, 'src', 'new.ts'), 'export {};\n'); // untracked code can be imported: it counts
    try {
      expect(() => provenance('results/table.json', { cwd: repo })).toThrow(/results\/table\.json would be committed, but the code differs from .*src\/a\.ts, src\/new\.ts.*--allow-dirty/);
      const allowed = provenance('results/table.json', { cwd: repo, allowDirty: true });
      expect(allowed.commit).toBe(head);
      expect(allowed.commit).not.toMatch(/dirty/);
      expect(allowed.dirtyFiles).toEqual([
        { path: 'src/a.ts', sha256: createHash('sha256').update(text).digest('hex') },
        { path: 'src/new.ts', sha256: createHash('sha256').update('export {};\n').digest('hex') },
      ]);
      // a record that will not be committed (an ignored folder, outside the repository) is stamped, not refused
      expect(provenance('runs/a/summary.json', { cwd: repo }).dirtyFiles).toHaveLength(2);
      expect(provenance(join(elsewhere, 'summary.json'), { cwd: repo }).dirtyFiles).toHaveLength(2);
      // a generator whose output is committed elsewhere (a GPU pack's figures) is refused wherever it writes
      expect(() => provenance(join(elsewhere, 'manifest.json'), { cwd: repo, committed: true })).toThrow(/Commit first/);
    } finally {
      git('checkout', '--', 'src/a.ts');
      rmSync(join(repo, 'src', 'new.ts'));
    }
  });

  it('records a deleted code file with a null hash', () => {
    rmSync(join(repo, 'src', 'a.ts'));
    try {
      expect(provenance('results/t.json', { cwd: repo, allowDirty: true }).dirtyFiles).toEqual([{ path: 'src/a.ts', sha256: null }]);
    } finally {
      git('checkout', '--', 'src/a.ts');
    }
  });

  it('outside git: commit "unknown", never refused', () => {
    expect(provenance(join(elsewhere, 'x.json'), { cwd: elsewhere })).toEqual({ commit: 'unknown' });
  });
});
