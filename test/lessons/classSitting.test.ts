import { describe, expect, it } from 'vitest';
import { lessonById, SMOKE_SIZE } from '../../src/lessons/lessons.ts';
import { settingKey } from '../../src/lessons/lessonReference.ts';
import { classToReopen, DEFAULT_SEEDS_AN_ARM, drawSittingSeeds, keptSeedsAnArm, MAX_SITTING_SEEDS, nextToRun, plannedRuns, plannedStates, runsAtOnce, sittingCounts, type StoredRunView } from '../../src/lessons/classSitting.ts';
import { runsTimeMs } from '../../src/lab/runEstimate.ts';

const dense = lessonById('dense-reward')!;
const seedsLesson = lessonById('seeds')!;

/** a random stream that returns these values in turn (then repeats the last) */
const stream = (...xs: number[]) => {
  let i = 0;
  return () => xs[Math.min(i++, xs.length - 1)];
};
/** the draw of seed s: 100 + floor(r · 99 000) = s */
const r = (s: number) => (s - 100 + 0.5) / 99_000;

describe('a class sitting on one machine', () => {
  it('trains one run a two cores, at least one and never more than it plans', () => {
    expect([1, 2, 3, 4, 5, 8, 16].map((c) => runsAtOnce(c, 20))).toEqual([1, 1, 1, 2, 2, 4, 8]);
    expect(runsAtOnce(16, 3)).toBe(3);
    expect(runsAtOnce(Number.NaN, 4)).toBe(1);
    expect(runsAtOnce(0, 4)).toBe(1);
  });

  it('draws k fresh seeds, none the class holds and no run seed twice (lesson 5 runs seed and seed + 1)', () => {
    expect(drawSittingSeeds(dense, 3, [], stream(r(500), r(600), r(700)))).toEqual([500, 600, 700]);
    // a seed already in the class, and a repeat, are drawn again
    expect(drawSittingSeeds(dense, 2, [500], stream(r(500), r(600), r(600), r(601)))).toEqual([600, 601]);
    // lesson 5: 600 runs 600 and 601, so 601 (and 599, whose second run is 600) are not fresh
    expect(drawSittingSeeds(seedsLesson, 2, [], stream(r(600), r(601), r(599), r(602)))).toEqual([600, 602]);
    const many = drawSittingSeeds(dense, MAX_SITTING_SEEDS, []);
    expect(new Set(many).size).toBe(MAX_SITTING_SEEDS);
    expect(many.every((s) => Number.isInteger(s) && s >= 100)).toBe(true);
    for (const bad of [0, -1, 1.5, MAX_SITTING_SEEDS + 1, Number.NaN]) expect(() => drawSittingSeeds(dense, bad, [])).toThrow(/seeds an arm/);
  });

  it('plans every arm of each seed, seed by seed, at the sitting\'s size', () => {
    const plan = plannedRuns(dense, [500, 600], SMOKE_SIZE);
    expect(plan.map((p) => p.key)).toEqual(['sum:500', 'success:500', 'sum:600', 'success:600']);
    expect(plan.every((p) => p.config.steps === SMOKE_SIZE.steps && p.config.seed === p.seed)).toBe(true);
    expect(plan[0].config.reward).toBe('sum');
    expect(plan[1].config.reward).toBe('success');
    expect(plan[0].setting).toBe(settingKey(plan[2].config));
    expect(plannedRuns(seedsLesson, [600]).map((p) => p.key)).toEqual(['seed-a:600', 'seed-b:601']);
  });

  it('reads what each planned run became from the stored runs, and starts the next on the free workers', () => {
    const plan = plannedRuns(dense, [500, 600, 700], SMOKE_SIZE);
    const run = (i: number, id: string, status: string, createdAt: number, hasCheckpoint = true, config = plan[i].config): StoredRunView => ({ id, config, status, createdAt, hasCheckpoint });
    const stored = [
      run(0, 'a-old', 'interrupted', 1), run(0, 'a', 'completed', 2), run(0, 'a-new', 'running', 3), // finished once: done
      run(1, 'b', 'running', 4), // training now
      run(2, 'c', 'interrupted', 5), // cut off after a checkpoint
      run(3, 'd', 'interrupted', 6, false), // cut off before one
      run(4, 'e', 'failed', 7, true, { ...plan[4].config, worldSize: 'tiny' }), // stored with the world it trained in (the checkpoint's)
      // the same seed at another setting (full size), and the same setting at another seed: not planned runs
      run(5, 'x', 'completed', 8, true, { ...plan[5].config, steps: 40 }), run(5, 'y', 'completed', 9, true, { ...plan[5].config, seed: 701 }),
    ];
    const states = plannedStates(plan, stored, new Set(['b', 'a-new']));
    expect(states).toEqual([
      { kind: 'done', runId: 'a' }, { kind: 'live', runId: 'b' }, { kind: 'resume', runId: 'c' },
      { kind: 'restart', runId: 'd' }, { kind: 'failed', runId: 'e' }, { kind: 'start' },
    ]);
    // a run the page no longer trains (a reload) is resumed, not counted as training
    expect(plannedStates(plan, stored, new Set())[1]).toEqual({ kind: 'resume', runId: 'b' });
    expect(nextToRun(states, 2)).toEqual([2, 3]);
    expect(nextToRun(states, 5)).toEqual([2, 3, 5]);
    expect(nextToRun(states, 0)).toEqual([]);
    expect(sittingCounts(states)).toEqual({ planned: 6, done: 1, live: 1, failed: 1, waiting: 3 });
  });

  it('times the sitting as its runs fill the workers in plan order', () => {
    expect(runsTimeMs([10, 20, 10, 20], 2)).toBe(40);
    expect(runsTimeMs([10, 20, 10, 20], 1)).toBe(60);
    expect(runsTimeMs([10, 20, 10, 20], 4)).toBe(20);
    expect(runsTimeMs([], 2)).toBe(0);
  });
});

describe('a class sitting after a reload', () => {
  const cls = (id: string, codes: string[], updatedAt: number, sitting?: { seeds: number[]; smoke: boolean; seedsAnArm?: number; running?: boolean }) => ({ id, codes, updatedAt, sitting });

  it('reopens the newest kept class whose sitting was running, unless the address carries another class', () => {
    const kept = [cls('a', ['x'], 3, { seeds: [500], smoke: true }), cls('b', ['y', 'z'], 2, { seeds: [600], smoke: true, running: true }), cls('c', [], 1, { seeds: [700], smoke: true, running: true })];
    expect(classToReopen(kept, [])?.id).toBe('b');
    expect(classToReopen(kept, ['y'])?.id).toBe('b');
    expect(classToReopen(kept, ['y', 'q'])).toBeNull(); // another class's link: the address wins
    expect(classToReopen([kept[0]], [])).toBeNull(); // nothing was running
  });

  it('shows the Seeds an arm the kept sitting ran with', () => {
    expect(keptSeedsAnArm({ seeds: [500, 600, 700, 800, 900], smoke: false, seedsAnArm: 5 })).toBe(5);
    expect(keptSeedsAnArm({ seeds: [500, 600, 700], smoke: false })).toBe(3); // an older record
    expect(keptSeedsAnArm(null)).toBe(DEFAULT_SEEDS_AN_ARM);
  });
});
