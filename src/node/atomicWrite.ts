// Files written whole or not at all, as SQLite and LevelDB write theirs: the bytes go to a file beside the
// target, are flushed to the disk (fsync), and the file is renamed over the target (one step on a POSIX file
// system), then the folder's entry is flushed too. A kill -9, a crash or a full disk at any moment leaves
// the old file or the new one, never half of one; a write that fails removes its partial file.
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export function writeAtomic(path: string, data: string | Uint8Array): void {
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    const fd = openSync(tmp, 'w');
    try {
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      for (let at = 0; at < bytes.byteLength;) at += writeSync(fd, bytes, at, bytes.byteLength - at);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true }); // a full disk keeps no half-written file
    throw e;
  }
  syncFolder(dirname(path));
}

/** flushes a folder's entries (the rename above) to the disk; a file system that cannot (some network ones) is left as
 * it is */
function syncFolder(dir: string): void {
  let fd: number | null = null;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch { /* not supported here: the rename itself is still atomic */ } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** the errors that say the disk, not the lab, refused a write: full, read-only, over quota, not permitted */
const WRITE_FAILURES: Record<string, string> = {
  ENOSPC: 'the disk is full', EDQUOT: 'the disk quota is used up', EROFS: 'the file system is read-only',
  EACCES: 'permission denied', EPERM: 'operation not permitted', EIO: 'an input/output error of the disk',
};

/** what the disk said, in words, when `e` is such a refusal (else null) */
export function writeFailure(e: unknown): string | null {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && code in WRITE_FAILURES ? `${WRITE_FAILURES[code]} (${code})` : null;
}
