import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RL_METRICS } from '../../src/lab/metrics.ts';
import { afterFailure, armConfig, isSmokeRun, LESSON_IDS, LESSON_SIZE, LESSONS, lessonById, SMOKE_SIZE } from '../../src/lessons/lessons.ts';
import { referenceWithMetricNames, lessonSettings, settingKey, settingReference, type LessonReference } from '../../src/lessons/lessonReference.ts';
import { runDirName, STANDARD } from '../../src/cli/commands/sweep.ts';
import { committedRuns, referenceMaxSeed } from '../../src/cli/commands/lessons.ts';

const RUNS = 'results/findings/runs';

describe('the lessons', () => {
  it('run at the findings\' standard size, so their reference is the committed cells', () => {
    expect(LESSON_SIZE).toEqual(STANDARD);
  });

  it('are complete: five or more, each with a question, predictions its judge can name, and charts of metrics the trainer reports', () => {
    expect(LESSONS.length).toBeGreaterThanOrEqual(5);
    const known = new Set(RL_METRICS.map((m) => m.key));
    for (const l of LESSONS) {
      expect(l.question.endsWith('?'), l.id).toBe(true);
      const keys = l.predictions.map((p) => p.key);
      expect(new Set(keys).size, l.id).toBe(keys.length);
      const named = l.judge.kind === 'ends' ? [l.judge.aHigher, l.judge.same, l.judge.aLower]
        : l.judge.kind === 'rises' ? [...l.judge.keys, l.judge.neither] : [...l.judge.bounds.map(([, k]) => k), l.judge.beyond];
      expect(new Set(named), l.id).toEqual(new Set(keys));
      for (const c of l.charts) expect(known.has(c.metric), `${l.id}: ${c.metric}`).toBe(true);
      expect(l.charts.some((c) => c.role === 'mechanism'), l.id).toBe(true);
      expect(l.arms[0].key).not.toBe(l.arms[1].key);
    }
  });

  it('are the lessons a link can open: LESSON_IDS (src/lab/urlState.ts, which reads #lesson=) in order', () => {
    expect(LESSONS.map((l) => l.id)).toEqual([...LESSON_IDS]);
  });

  it('every arm is a cell of the standard grids: its seed-1 run is committed', () => {
    for (const l of LESSONS) for (const arm of l.arms) {
      const dir = join(RUNS, runDirName(armConfig(arm, 1)));
      expect(existsSync(join(dir, 'summary.json')), `${l.id} · ${arm.key}: ${dir}`).toBe(true);
    }
  });

  it('the committed reference (results/lessons/reference.json) is the one the committed runs give — rerun `npm run cli -- lessons` when seeds land', () => {
    const committed = referenceWithMetricNames(JSON.parse(readFileSync('results/lessons/reference.json', 'utf8')) as LessonReference);
    for (const s of lessonSettings()) {
      const runs = committedRuns(RUNS, s.config, s.metrics, referenceMaxSeed(RUNS));
      const fresh = runs.length ? settingReference(s.key, runs, s.metrics) : undefined;
      expect(committed.settings[s.key], `${s.key}: results/lessons/reference.json is stale; run npm run cli -- lessons`).toEqual(fresh);
    }
  });
});

describe('a run\'s size', () => {
  it('is smoke when every smoke setting is its, so the full-size page never shows a smoke sitting', () => {
    for (const lesson of LESSONS) {
      expect(isSmokeRun(armConfig(lesson.arms[0], 3, SMOKE_SIZE))).toBe(true);
      expect(isSmokeRun(armConfig(lesson.arms[0], 3))).toBe(false);
    }
    // one smoke setting changed (a full run with the smoke's steps) is not a smoke run
    expect(isSmokeRun({ ...armConfig(LESSONS[0].arms[0], 1, SMOKE_SIZE), evalQueries: 300 })).toBe(false);
  });
});

describe('an episode\'s failed tool call', () => {
  it('is the first call that failed, with what the agent did next', () => {
    const calls = [
      { call: 'SearchCity(Texas)', error: false },
      { call: 'SearchAttraction(Dothan)', error: true, injected: true },
      { call: 'SearchAttraction(Dothan)', error: false },
    ];
    expect(afterFailure(calls)).toEqual({ failed: 'SearchAttraction(Dothan)', injected: true, next: 'SearchAttraction(Dothan)', index: 1 });
    expect(afterFailure(calls.slice(0, 2))!.next).toBeNull(); // it wrote its plan
    expect(afterFailure(calls.slice(0, 1))).toBeNull();
  });

  it('every arm of every lesson has a committed trip before and after training, and the tool-failures arm a failed call and what came next', () => {
    type Trip = { step: number; trajectory: { prompt: string; plan: unknown; calls: { call: string; error: boolean; injected?: boolean }[] } };
    const episodes = JSON.parse(readFileSync('results/lessons/episodes.json', 'utf8')) as {
      settings: Record<string, { before: Trip & { checkpoint: string }; after: Trip }>;
    };
    for (const lesson of LESSONS)
      for (const arm of lesson.arms) {
        const s = episodes.settings[settingKey(armConfig(arm, 1))];
        expect(s, `${lesson.id} ${arm.key}`).toBeDefined();
        expect(s.before.step).toBe(0);
        expect(s.after.step).toBeGreaterThan(0);
        // the same request, planned twice
        expect(s.before.trajectory.prompt, `${lesson.id} ${arm.key}`).toBe(s.after.trajectory.prompt);
      }
    const failures = lessonById('tool-failures')!.arms.find((a) => a.key === 'failures')!;
    const s = episodes.settings[settingKey(armConfig(failures, 1))];
    for (const trip of [s.before, s.after]) {
      const f = afterFailure(trip.trajectory.calls);
      expect(f).not.toBeNull();
      expect(f!.injected).toBe(true);
      // what the agent did next: another call, or its plan
      expect(f!.next !== null || trip.trajectory.plan !== null).toBe(true);
    }
  });
});
