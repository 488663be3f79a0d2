// A path as the user would type it in a command the CLI prints or records: relative to the working folder when inside
// it, else absolute.
import { relative } from 'node:path';

export function flagPath(p: string): string {
  const rel = relative(process.cwd(), p);
  return rel && !rel.startsWith('..') ? rel : p;
}
