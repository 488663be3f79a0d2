// Where the real TravelPlanner files come from: the copy committed in data/travelplanner, so a fresh
// clone with nothing beside it has them; --data and $STAR_TRAVELPLANNER_DATA still name another folder.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { REAL_DATA_ENV, REPO_DATA_DIR, findRealDataDir, loadRealExamples } from '../../src/env/node/realData.ts';

const repoRoot = resolve(fileURLToPath(new URL('../..', import.meta.url)));

describe('the real TravelPlanner data folder', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('defaults to data/travelplanner inside the repository, with its license and attribution', () => {
    vi.stubEnv(REAL_DATA_ENV, '');
    expect(findRealDataDir()).toBe(REPO_DATA_DIR);
    expect(relative(repoRoot, REPO_DATA_DIR)).toBe(join('data', 'travelplanner'));
    for (const f of ['train_ref_info.jsonl', 'std_travelplanner.jsonl', 'example_evaluation.jsonl', 'citySet_with_states.txt', 'database_columns.md', 'README.md', 'ATTRIBUTION.md'])
      expect(existsSync(join(REPO_DATA_DIR, f)), f).toBe(true);
    expect(readFileSync(join(REPO_DATA_DIR, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) 2024 OSU Natural Language Processing/);
    expect(loadRealExamples()).toHaveLength(45);
  });

  it('takes $STAR_TRAVELPLANNER_DATA, and an explicit folder over both', () => {
    const other = mkdtempSync(join(tmpdir(), 'star-tp-'));
    try {
      copyFileSync(join(REPO_DATA_DIR, 'train_ref_info.jsonl'), join(other, 'train_ref_info.jsonl'));
      vi.stubEnv(REAL_DATA_ENV, other);
      expect(findRealDataDir()).toBe(other);
      expect(findRealDataDir(REPO_DATA_DIR)).toBe(REPO_DATA_DIR);
      // a variable naming a folder without the files falls back to the repository's copy
      vi.stubEnv(REAL_DATA_ENV, join(other, 'nothing-here'));
      expect(findRealDataDir()).toBe(REPO_DATA_DIR);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('names the folder it looked in when an explicit one lacks the files', () => {
    const missing = join(tmpdir(), 'star-tp-missing');
    expect(() => findRealDataDir(missing)).toThrow(new RegExp(`looked for train_ref_info\\.jsonl in: ${missing.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
  });
});
