// What made a record: the commit of the code, and whether that commit alone made it. A record that names
// "<sha>-dirty" cannot be checked out: nobody can tell which edits produced it. So a record that will be
// committed (its path inside the repository and not git-ignored) is refused from a tree whose code differs
// from HEAD, unless the caller allows it, and then the record lists each differing file with its hash.
// A record written elsewhere (a temp folder, an ignored runs/) is stamped the same way but never refused.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';

/** the tracked paths whose content decides what a command computes (results and docs do not) */
export const CODE_PATHS = ['src', 'data', 'scripts', 'public/checkpoints', 'package.json', 'package-lock.json'];

/** a file that differs from HEAD: its path from the repository's root and the SHA-256 of its content now (null:
 * deleted) */
export interface DirtyFile {
  path: string;
  sha256: string | null;
}

/** the commit a record names; `dirtyFiles` only where the code differed from it (and the caller allowed that) */
export interface Provenance {
  commit: string;
  dirtyFiles?: DirtyFile[];
}

const git = (cwd: string, args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });

/**
 * The provenance of a record about to be written to `out`, for the code in the repository around `cwd`.
 * Throws, before anything is written, when the code differs from HEAD, `out` would be committed and
 * `allowDirty` is not set (`committed`: what it writes becomes a committed record elsewhere, e.g. a GPU pack's
 * figures, wherever `out` lies). Outside git: commit "unknown".
 */
export function provenance(
  out: string,
  o: { allowDirty?: boolean; cwd?: string; committed?: boolean } = {},
): Provenance {
  const cwd = o.cwd ?? process.cwd();
  let root: string;
  let head: string;
  try {
    root = git(cwd, ['rev-parse', '--show-toplevel']).trim();
    head = git(cwd, ['rev-parse', 'HEAD']).trim();
  } catch {
    return { commit: 'unknown' };
  }
  const dirtyFiles = differingFiles(root);
  if (dirtyFiles.length === 0) return { commit: head };
  if (!o.allowDirty && (o.committed || committable(root, resolve(cwd, out)))) {
    const list =
      dirtyFiles
        .slice(0, 8)
        .map((f) => f.path)
        .join(', ') + (dirtyFiles.length > 8 ? ` and ${dirtyFiles.length - 8} more` : '');
    throw new Error(
      `${relative(root, resolve(cwd, out)) || out} would be committed, but the code differs from ${head.slice(0, 10)} (${list}): ` +
        'a record of it could not be checked out. Commit first, or pass --allow-dirty to record the differing files and their hashes.',
    );
  }
  return { commit: head, dirtyFiles };
}

/** tracked code files that differ from HEAD and untracked ones beside them (an untracked module can be imported) */
function differingFiles(root: string): DirtyFile[] {
  const out = git(root, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', ...CODE_PATHS]);
  const entries = out.split('\0').filter(Boolean);
  const files: DirtyFile[] = [];
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    const status = e.slice(0, 2);
    const path = e.slice(3);
    if (status.includes('R') || status.includes('C')) i++; // a rename's second entry is its old path
    const full = resolve(root, path);
    const sha256 =
      existsSync(full) && statSync(full).isFile()
        ? createHash('sha256').update(readFileSync(full)).digest('hex')
        : null;
    files.push({ path, sha256 });
  }
  return files.sort((a, b) => a.path.localeCompare(b.path));
}

/** whether a file at `path` would be committed: inside the repository and not ignored */
function committable(root: string, path: string): boolean {
  const rel = relative(root, path);
  if (rel.startsWith('..') || isAbsolute(rel)) return false;
  if (rel === '') return true;
  try {
    git(root, ['check-ignore', '-q', '--', rel]);
    return false; // exit 0: ignored
  } catch {
    return true;
  }
}
