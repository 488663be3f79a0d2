// Node-only loaders for the real TravelPlanner files (the repository's data/travelplanner by default).
// The parsers are pure (src/env/realWorld.ts, realQueries.ts); this module only finds and reads files.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plan, Query, World } from '../types.ts';
import { buildRealWorld, parseCitySet } from '../realWorld.ts';
import type { RefInfo } from '../realWorld.ts';
import { parseGoldPlan, parseRealQuery, parseStdLine } from '../realQueries.ts';

/** Environment variable naming the folder with train_ref_info.jsonl etc. */
export const REAL_DATA_ENV = 'STAR_TRAVELPLANNER_DATA';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The copy of the TravelPlanner files committed with the repository (MIT, see its LICENSE and ATTRIBUTION.md). */
export const REPO_DATA_DIR = join(REPO_ROOT, 'data/travelplanner');

/** The real-data folder: the explicit path, else $STAR_TRAVELPLANNER_DATA, else the repository's data/travelplanner. */
export function findRealDataDir(explicit?: string): string {
  const candidates = explicit
    ? [resolve(explicit)]
    : [process.env[REAL_DATA_ENV], REPO_DATA_DIR]
        .filter((p): p is string => !!p)
        .map((p) => resolve(p));
  for (const dir of candidates) if (existsSync(join(dir, 'train_ref_info.jsonl'))) return dir;
  throw new Error(
    `TravelPlanner data not found (looked for train_ref_info.jsonl in: ${candidates.join(', ')}); ` +
      `pass the folder explicitly or set ${REAL_DATA_ENV}`,
  );
}

function readLines(path: string): string[] {
  return readFileSync(path, 'utf8').split(/\r?\n/).filter((l) => l.trim() !== '');
}

export function loadCitySet(dataDir?: string): Map<string, string> {
  return parseCitySet(readFileSync(join(findRealDataDir(dataDir), 'citySet_with_states.txt'), 'utf8'));
}

/** The `real` world: the 45 training queries' reference rows, merged. */
export function loadRealWorld(dataDir?: string): World {
  const dir = findRealDataDir(dataDir);
  return buildRealWorld(readLines(join(dir, 'train_ref_info.jsonl')), loadCitySet(dir));
}

export interface RealExample {
  /** 0-based line number in std_travelplanner.jsonl (= train_ref_info.jsonl) */
  index: number;
  query: Query;
  goldPlan: Plan;
  refInfo: RefInfo;
}

/** The 45 training queries with their parsed fields, gold plans and reference information. */
export function loadRealExamples(dataDir?: string): RealExample[] {
  const dir = findRealDataDir(dataDir);
  const cities = loadCitySet(dir);
  const refs = readLines(join(dir, 'train_ref_info.jsonl'));
  return readLines(join(dir, 'std_travelplanner.jsonl')).map((line, index) => {
    try {
      const ex = parseStdLine(line);
      return {
        index,
        query: parseRealQuery(ex.queryText, cities),
        goldPlan: parseGoldPlan(ex.goldPlanText),
        refInfo: JSON.parse(refs[index] ?? '{}') as RefInfo,
      };
    } catch (e) {
      throw new Error(`std_travelplanner.jsonl line ${index + 1}: ${(e as Error).message}`, { cause: e });
    }
  });
}
