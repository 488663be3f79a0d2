// The 45 human-annotated gold plans, scored against the real world and their parsed queries.
// They pass every official check; what the lab's stricter mode and a per-query world flag are
// genuine quirks of the benchmark data (pinned here, explained in the comments).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluatePlan } from '../../src/env/evaluate.ts';
import { buildRealWorld } from '../../src/env/realWorld.ts';
import { loadCitySet, loadRealExamples, loadRealWorld } from '../../src/env/node/realData.ts';
import { exportWorld, loadWorldFromDir } from '../../src/env/node/interop.ts';
import { COMMONSENSE_KEYS, HARD_KEYS } from '../../src/env/types.ts';
import type { Verdicts } from '../../src/env/types.ts';

const world = loadRealWorld();
const examples = loadRealExamples();

/** index -> "key: reason" of every failed check */
function failures(verdicts: Verdicts[]): Record<number, string[]> {
  const out: Record<number, string[]> = {};
  verdicts.forEach((v, i) => {
    const bad = [
      ...COMMONSENSE_KEYS.filter((k) => v.commonsense[k].pass === false).map((k) => `${k}: ${v.commonsense[k].reason}`),
      ...(v.hard ? HARD_KEYS.filter((k) => v.hard![k].pass === false).map((k) => `${k}: ${v.hard![k].reason}`) : ['hard checks gated off']),
    ];
    if (bad.length) out[i] = bad;
  });
  return out;
}

describe('gold plans on the real world', () => {
  const faithful = examples.map((e) => evaluatePlan(world, e.query, e.goldPlan, { faithful: true }));

  it('pass every check of the official evaluation', () => {
    expect(failures(faithful)).toEqual({});
    expect(faithful.every((v) => v.finalPass)).toBe(true);
  });

  it('apply each hard constraint exactly where the parsed query poses it', () => {
    const applied = (k: (typeof HARD_KEYS)[number]) => faithful.filter((v) => v.hard![k].pass === true).length;
    // budget always; house rule 15, cuisine 16, room type 17, transportation 12 of the 45 queries
    expect(HARD_KEYS.map(applied)).toEqual([45, 15, 16, 17, 12]);
    const posed = (k: 'house rule' | 'cuisine' | 'room type' | 'transportation') => examples.filter((e) => e.query.local_constraint[k] !== null).length;
    expect([posed('house rule'), posed('cuisine'), posed('room type'), posed('transportation')]).toEqual([15, 16, 17, 12]);
  });

  it('stay within their budgets', () => {
    faithful.forEach((v, i) => expect(v.cost!, `line ${i}`).toBeLessThanOrEqual(examples[i].query.budget));
  });

  it('lab mode flags one genuine slip: line 41 visits San Angelo sights on a day spent in San Antonio', () => {
    // The official current-city check loops over the LETTERS of a one-city day's name (quirk Q2),
    // so "San Angelo Museum of Fine Arts, San Angelo(Texas)" passes for San Antonio there.
    const lab = examples.map((e) => evaluatePlan(world, e.query, e.goldPlan));
    expect(failures(lab)).toEqual({
      41: [expect.stringMatching(/^is_valid_information_in_current_city: Day 4 attraction 'San Angelo Museum of Fine Arts' is in San Angelo, but the day is spent in San Antonio/)],
    });
  });

  it('use only their own reference rows, except line 41 (San Angelo sights come from other queries)', () => {
    const cities = loadCitySet();
    const own = examples.map((e) => evaluatePlan(buildRealWorld([e.refInfo], cities), e.query, e.goldPlan, { faithful: true }));
    expect(failures(own)).toEqual({
      41: [expect.stringMatching(/^is_valid_information_in_sandbox: Day 4 attraction 'San Angelo Museum of Fine Arts'/), 'hard checks gated off'],
    });
  });

  it('get the same verdicts from the exported and re-loaded real database', () => {
    const dir = mkdtempSync(join(tmpdir(), 'star-gold-'));
    try {
      exportWorld(dir, world);
      const back = loadWorldFromDir(dir);
      const again = examples.map((e) => evaluatePlan(back, e.query, e.goldPlan, { faithful: true }));
      expect(again).toEqual(faithful);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
