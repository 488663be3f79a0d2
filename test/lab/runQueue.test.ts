import { EVAL_FIXED_QUERIES, STEP_FIXED_ROLLOUTS, estimateStepMs, formatEta } from '../../src/lab/runEstimate.ts';
import { describe, expect, it } from 'vitest';
import { defaultConfig, type LabConfig } from '../../src/lab/config.ts';
import { findingById } from '../../src/findings/findings.ts';
import { parseHash } from '../../src/lab/urlState.ts';
import { cancelWaiting, clearFinished, continueQueue, emptyQueue, enqueue, markStarted, markStarting, nextToStart, queueEta, recordProgress, startFailed, waitingCount, type ProgressReport, type RunQueue } from '../../src/lab/runQueue.ts';
import { gridRuns } from '../../src/findings/findingRuns.ts';

const TINY = parseHash('#finding=T7&scale=l&steps=1&queriesPerStep=1&groupSize=2&evalEvery=1&evalQueries=0&evalToolQa=1&trainSize=20&seed=6').config;
const cfg = (patch: Partial<LabConfig>): LabConfig => ({ ...defaultConfig(), ...patch });
const report = (runId: string, status: ProgressReport['status'], step = 0, extra: Partial<ProgressReport> = {}): ProgressReport =>
  ({ runId, status, step, etaMs: null, meanStepMs: null, ...extra });

describe('the queue', () => {
  const three = () => enqueue(emptyQueue(), gridRuns(findingById('T7'), TINY).map((r) => ({ label: r.cells[0], config: r.config })));

  it('starts runs one after another, each when the previous completes', () => {
    let q = three();
    expect(waitingCount(q)).toBe(3);
    expect(nextToStart(q, true)).toBeNull(); // a run of the user's own is going
    const first = nextToStart(q, false)!;
    expect(first.id).toBe(q.items[0].id);
    q = markStarted(markStarting(q, first.id), first.id, 'run-a');
    expect(nextToStart(q, false)).toBeNull(); // one at a time
    q = recordProgress(q, report('run-a', 'running', 1, { etaMs: 500, meanStepMs: 100 }));
    expect(q.items[0]).toMatchObject({ step: 1, etaMs: 500, meanStepMs: 100, status: 'running' });
    q = recordProgress(q, report('run-a', 'completed', 1));
    expect(q.items[0].status).toBe('completed');
    expect(nextToStart(q, false)?.id).toBe(q.items[1].id);
  });

  it('ignores reports of runs it did not start', () => {
    let q = three();
    q = markStarting(q, q.items[0].id); // the worker has not answered with the run id yet
    const before = q;
    q = recordProgress(q, report('someone-else', 'completed', 5));
    expect(q).toBe(before);
  });

  it('holds after the user stops a queued run, until they continue', () => {
    let q = three();
    q = markStarted(markStarting(q, q.items[0].id), q.items[0].id, 'run-a');
    q = recordProgress(q, report('run-a', 'stopped', 0));
    expect(q.held).toBe(true);
    expect(nextToStart(q, false)).toBeNull();
    expect(nextToStart(continueQueue(q), false)?.id).toBe(q.items[1].id);
  });

  it('moves on after a failed run but holds after a failed start', () => {
    let q = three();
    q = markStarted(markStarting(q, q.items[0].id), q.items[0].id, 'run-a');
    q = recordProgress(q, report('run-a', 'failed', 0, { error: 'out of memory' }));
    expect(q.items[0]).toMatchObject({ status: 'failed', error: 'out of memory' });
    expect(nextToStart(q, false)?.id).toBe(q.items[1].id);
    q = startFailed(markStarting(q, q.items[1].id), q.items[1].id, 'no backend');
    expect(q.held).toBe(true);
    expect(nextToStart(q, false)).toBeNull();
  });

  it('cancelling drops the waiting runs and keeps the running one', () => {
    let q = three();
    q = markStarted(markStarting(q, q.items[0].id), q.items[0].id, 'run-a');
    q = cancelWaiting(q);
    expect(q.items.map((i) => i.status)).toEqual(['running']);
    expect(nextToStart(q, false)).toBeNull();
    q = recordProgress(q, report('run-a', 'stopped'));
    expect(q.held).toBe(false); // nothing waits, so nothing to hold
    expect(clearFinished(q).items).toEqual([]);
  });

  it('numbers items uniquely across enqueues', () => {
    const q = enqueue(three(), [{ label: 'x', config: TINY }]);
    expect(new Set(q.items.map((i) => i.id)).size).toBe(4);
  });
});

describe('ETA', () => {
  it('scales a measured step time by model size and rollouts (its fixed part aside), preferring the same scale', () => {
    const s = cfg({ scale: 's', groupSize: 4, queriesPerStep: 1 });
    // twice the rollouts: twice the rollouts' part, the same fixed part
    expect(estimateStepMs(cfg({ scale: 's', groupSize: 8, queriesPerStep: 1 }), [{ config: s, meanStepMs: 1000 }]))
      .toBeCloseTo((1000 * (8 + STEP_FIXED_ROLLOUTS)) / (4 + STEP_FIXED_ROLLOUTS));
    expect(estimateStepMs(cfg({ scale: 'm', groupSize: 4, queriesPerStep: 1 }), [{ config: s, meanStepMs: 1000 }])).toBeCloseTo(2000);
    const samples = [{ config: s, meanStepMs: 1000 }, { config: cfg({ scale: 'l', groupSize: 4, queriesPerStep: 1 }), meanStepMs: 99_999 }];
    expect(estimateStepMs(s, samples)).toBeCloseTo(1000);
    expect(estimateStepMs(s, [])).toBeNull();
    expect(estimateStepMs(s, [{ config: s, meanStepMs: Number.NaN }])).toBeNull();
  });

  it('adds the running run’s ETA to the estimates of the waiting ones', () => {
    let q = enqueue(emptyQueue(), [1, 2, 3].map((n) => ({ label: `r${n}`, config: cfg({ scale: 's', steps: 10, evalEvery: 5 }) })));
    expect(queueEta(q).totalMs).toBeNull(); // nothing measured yet
    q = markStarted(markStarting(q, q.items[0].id), q.items[0].id, 'run-a');
    q = recordProgress(q, report('run-a', 'running', 4, { etaMs: 6000, meanStepMs: 1000 }));
    const eta = queueEta(q);
    expect(eta.perItem.get(q.items[0].id)).toBe(6000);
    // a waiting run: 10 steps and its 3 evaluations (steps 0, 5, 10), each counted as a step while no
    // run here has timed an evaluation
    expect(eta.perItem.get(q.items[1].id)).toBeCloseTo(13_000);
    expect(eta.totalMs).toBeCloseTo(32_000);
    expect([eta.doneSteps, eta.totalSteps]).toEqual([4, 30]);
    q = recordProgress(q, report('run-a', 'completed', 10));
    expect(queueEta(q).perItem.get(q.items[0].id)).toBe(0);
    expect(queueEta(q).doneSteps).toBe(10);
  });

  it('uses stored runs before any queued run has a step time', () => {
    const q = enqueue(emptyQueue(), [{ label: 'a', config: cfg({ scale: 's', steps: 3 }) }]);
    expect(queueEta(q, [{ config: cfg({ scale: 's', evalEvery: 40 }), meanStepMs: 2000 }]).totalMs).toBeCloseTo(6000 + 2 * 2000);
  });

  it('counts a waiting run’s evaluations, the final one included, at the measured evaluation time', () => {
    const run = cfg({ scale: 's', steps: 3, evalEvery: 40 }); // evaluates at step 0 and after step 3
    const q = enqueue(emptyQueue(), [{ label: 'a', config: run }]);
    const stored = [{ config: cfg({ scale: 's' }), meanStepMs: 2000, meanEvalMs: 20_000 }];
    expect(queueEta(q, stored).totalMs).toBeCloseTo(3 * 2000 + 2 * 20_000);
    // an evaluation of twice the queries and tasks costs twice their part of the time, its fixed part once
    const bigger = cfg({ scale: 's', evalQueries: 2 * run.evalQueries, evalToolQa: 2 * run.evalToolQa });
    const units = run.evalQueries + run.evalToolQa;
    const evalMs = (20_000 * (units + EVAL_FIXED_QUERIES)) / (2 * units + EVAL_FIXED_QUERIES);
    expect(queueEta(q, [{ ...stored[0], config: bigger }]).totalMs).toBeCloseTo(3 * 2000 + 2 * evalMs);
  });

  it('formats durations', () => {
    expect([formatEta(null), formatEta(4_400), formatEta(200_000), formatEta(3_900_000)]).toEqual(['…', '4 s', '3 min 20 s', '1 h 05 min']);
  });
});

// a queue state is plain data: the page keeps it in $state.raw and replaces it on every change
it('never mutates the queue it is given', () => {
  const q: RunQueue = Object.freeze({ ...enqueue(emptyQueue(), [{ label: 'a', config: TINY }]) });
  Object.freeze(q.items);
  expect(() => cancelWaiting(markStarted(markStarting(q, 1), 1, 'x'))).not.toThrow();
});
