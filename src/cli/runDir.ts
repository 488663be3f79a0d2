// A run's folder name in a sweep's runs folder: its settings as the page's #hash, made path-safe (seed 1 and
// every default leave no trace). Its own module so that `sweep` and `power-plan --interactions` (which
// sweep imports) both name runs the same way without importing each other.
import type { LabConfig } from '../lab/config.ts';
import { serializeHash } from '../lab/urlState.ts';

export function runDirName(lab: LabConfig): string {
  const hash = serializeHash(lab).replace(/^#/, '');
  return hash ? hash.replace(/[^A-Za-z0-9=._-]+/g, '_') : 'defaults';
}
