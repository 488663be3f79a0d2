// The commit a measurement script's committed record names (plain Node, so the scripts that run without tsx
// share src/node/provenance.ts's rule): refused before measuring where the code differs from HEAD, because a
// record naming "<sha>-dirty" cannot be checked out; with --allow-dirty the record lists each differing file
// and its SHA-256 instead.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const CODE_PATHS = ['src', 'data', 'scripts', 'public/checkpoints', 'package.json', 'package-lock.json'];

/** { commit, dirtyFiles? } for the checkout at `root`; throws where it differs from HEAD and allowDirty is false */
export function recordCommit(root, allowDirty) {
  const git = (args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  let commit;
  try { commit = git(['rev-parse', 'HEAD']).trim(); } catch { return { commit: 'unknown' }; }
  const entries = git(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', ...CODE_PATHS])
    .split('\0')
    .filter(Boolean);
  const dirtyFiles = [];
  for (let i = 0; i < entries.length; i++) {
    const status = entries[i].slice(0, 2);
    const path = entries[i].slice(3);
    if (status.includes('R') || status.includes('C')) i++;
    const full = join(root, path);
    dirtyFiles.push({
      path,
      sha256:
        existsSync(full) && statSync(full).isFile()
          ? createHash('sha256').update(readFileSync(full)).digest('hex')
          : null,
    });
  }
  if (dirtyFiles.length === 0) return { commit };
  if (!allowDirty) {
    throw new Error(
      `the code differs from ${commit.slice(0, 10)} (${dirtyFiles
        .slice(0, 8)
        .map((f) => f.path)
        .join(', ')}): a record of it could not be ` +
        'checked out. Commit first, or pass --allow-dirty to record the differing files and their hashes.',
    );
  }
  return { commit, dirtyFiles };
}
