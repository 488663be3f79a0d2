// A run's clock, its mean step time and its ETA. Pure (no timers, no tfjs): the worker's run
// loop (activeRun.ts) feeds it each step's time and reads it back; unit-tested in Node.
//
// - Elapsed time is the run's, not this session's: a resumed run carries the time of the points kept from
//   before the resume, so a point's `t` never runs backwards (step 16 read 178 s before step 15).
// - The mean step time is the optimiser step's (evaluations and the first three warm-up steps left out),
//   over every step the run kept, those before a resume included.
// - The ETA counts what is left of both: the training steps at the recent steps' pace, and each
//   evaluation still to come (every evalEvery steps and after the last) at the evaluations' measured pace.
//   Leaving them out read "6 s left" for the 25 s of a last step and its final evaluation.
import type { MetricPoint } from '../store/records.ts';
import { evaluationsLeft } from '../lab/runEstimate.ts';
import { METRIC } from '../lab/metricNames.ts';

/** step times averaged for the ETA */
export const ETA_WINDOW = 20;
/** a step slower than this gives an ETA after the first one */
export const SLOW_STEP_MS = 5_000;
/** steps at the start that compile shaders and warm caches: left out of the mean step time */
export const WARMUP_STEPS = 3;

export interface RunTimingOptions {
  totalSteps: number;
  /** the job evaluates every this many steps and after the last (null: it does not say) */
  evalEvery: number | null;
  /** the points kept from before a resume (empty for a new run) */
  history?: readonly MetricPoint[];
}

export class RunTiming {
  /** ms of training before this session (the newest kept point's t) */
  readonly elapsedBeforeMs: number;
  private readonly totalSteps: number;
  private readonly evalEvery: number | null;
  /** the recent steps' optimiser time (ms, evaluations taken out) */
  private readonly recentTrainMs: number[] = [];
  private readonly evalMs: number[] = [];
  private totalStepMs = 0;
  private stepsTimed = 0;

  constructor(o: RunTimingOptions) {
    this.totalSteps = o.totalSteps;
    this.evalEvery = o.evalEvery;
    const history = [...(o.history ?? [])].sort((a, b) => a.step - b.step);
    this.elapsedBeforeMs = history.reduce((t, p) => Math.max(t, p.t), 0);
    for (const p of history) {
      const evalSeconds = p.values[METRIC.evalSeconds];
      if (p.step === 0) {
        if (Number.isFinite(evalSeconds)) this.evalMs.push(evalSeconds * 1000);
      } else if (Number.isFinite(p.values[METRIC.timeStepMs])) {
        this.recordStep(p.step, p.values[METRIC.timeStepMs], evalSeconds);
      }
    }
  }

  /** ms since the run started, `sessionMs` into this session */
  elapsedMs(sessionMs: number): number {
    return this.elapsedBeforeMs + sessionMs;
  }

  /** an evaluation outside a step (the starting point's, step 0) */
  recordEvaluation(evalSeconds: number | undefined): void {
    if (evalSeconds !== undefined && Number.isFinite(evalSeconds)) this.evalMs.push(evalSeconds * 1000);
  }

  /** step `step` took `ms` in all, of which `evalSeconds` evaluating (undefined: it did not evaluate) */
  recordStep(step: number, ms: number, evalSeconds: number | undefined): void {
    const evalMs = evalSeconds !== undefined && Number.isFinite(evalSeconds) ? evalSeconds * 1000 : null;
    if (evalMs !== null) this.evalMs.push(evalMs);
    const trainMs = Math.max(0, ms - (evalMs ?? 0));
    this.recentTrainMs.push(trainMs);
    if (this.recentTrainMs.length > ETA_WINDOW) this.recentTrainMs.shift();
    if (step > WARMUP_STEPS) {
      this.totalStepMs += trainMs;
      this.stepsTimed++;
    }
  }

  /** the mean optimiser step (ms) over every timed step of the run, or null before one */
  get meanStepMs(): number | null {
    return this.stepsTimed ? this.totalStepMs / this.stepsTimed : null;
  }

  /** the mean evaluation (ms) over every one the run timed, or null before one */
  get meanEvalMs(): number | null {
    return this.evalMs.length ? this.evalMs.reduce((a, b) => a + b, 0) / this.evalMs.length : null;
  }

  /** the evaluations still to come after `stepsDone` */
  evaluationsLeft(stepsDone: number): number {
    if (this.evalEvery === null || stepsDone >= this.totalSteps) return 0;
    // the starting point's evaluation is behind the worker by the time it asks, even at step 0
    return evaluationsLeft(this.totalSteps, this.evalEvery, stepsDone) - (stepsDone === 0 ? 1 : 0);
  }

  /**
   * ms left after `stepsDone`: the steps at the recent pace plus the evaluations to come at theirs; null
   * until three steps are timed (one, if it was slow). Before any evaluation is timed the steps alone.
   */
  etaMs(stepsDone: number): number | null {
    const recent = this.recentTrainMs;
    if (!recent.length) return null;
    const meanTrain = recent.reduce((a, b) => a + b, 0) / recent.length;
    if (recent.length < 3 && meanTrain <= SLOW_STEP_MS) return null;
    const meanEval = this.meanEvalMs ?? 0;
    return meanTrain * Math.max(0, this.totalSteps - stepsDone) + meanEval * this.evaluationsLeft(stepsDone);
  }
}
