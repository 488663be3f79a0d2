// A one-line progress bar for long CLI runs (SFT, RL, sweeps): step, the caller's figures and an ETA
// from the mean step time since the start (or resume). On a terminal it redraws in place; in a log
// (CI, `> file`) it prints a line every `every` steps so the log stays readable.
import type { StepProgress } from '../rl/rlTrainer.ts';

/** the terminal whose last line is a bar or heartbeat redrawn in place, not yet ended */
let openLine: NodeJS.WriteStream | null = null;

/** ends a progress line left open on a terminal, so the next message starts a line of its own */
export function endProgressLine(): void {
  if (openLine) openLine.write('\n');
  openLine = null;
}

/** writes a progress line: in place on a terminal (left open), a line of its own in a log */
function writeProgress(out: NodeJS.WriteStream, line: string): void {
  if (out.isTTY) {
    out.write(`\r\x1b[K${line}`);
    openLine = out;
  } else out.write(`${line}\n`);
}

/** in a log (not a terminal), the most time between two progress lines: a log that stays silent longer looks hung */
export const LOG_EVERY_MS = 10_000;

export class ProgressBar {
  private readonly t0 = performance.now();
  private readonly startStep: number;
  private lastPrinted = -1;
  private lastPrintedAt = performance.now();

  constructor(private readonly total: number, startStep = 0, private readonly label = '', private readonly every = 50,
    private readonly out: NodeJS.WriteStream = process.stderr) {
    this.startStep = startStep;
  }

  update(step: number, figures: Record<string, string> = {}): void {
    const tty = this.out.isTTY;
    const due = step - Math.max(this.lastPrinted, this.startStep) >= this.every ||
      performance.now() - this.lastPrintedAt >= LOG_EVERY_MS;
    if (!tty && step !== this.total && !due) return;
    this.lastPrinted = step;
    this.lastPrintedAt = performance.now();
    const elapsed = (performance.now() - this.t0) / 1000;
    const done = step - this.startStep;
    const perStep = done > 0 ? elapsed / done : NaN;
    const eta = Number.isFinite(perStep) ? formatDuration(perStep * (this.total - step)) : '?';
    const width = 24;
    const filled = Math.round((width * step) / Math.max(1, this.total));
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
    const extra = Object.entries(figures).map(([k, v]) => `${k} ${v}`).join(' · ');
    const line = `${this.label}${bar} ${step}/${this.total}${extra ? ` · ${extra}` : ''} · ${Number.isFinite(perStep) ? perStep.toFixed(2) : '?'} s/step · ETA ${eta}`;
    writeProgress(this.out, line);
  }

  /** ends the in-place line on a terminal */
  done(): void {
    if (openLine === this.out) endProgressLine();
  }
}

/** "1 step", "2 steps" */
export function plural(n: number, noun: string, nouns = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : nouns}`;
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** what the phases of a step are called in a heartbeat */
const PHASE: Record<StepProgress['phase'], string> = {
  rollouts: 'rollouts',
  update: 'micro-batch',
  evaluation: 'evaluation rollouts',
};

/**
 * A line while a slow step runs (a webgpu step on SwiftShader takes minutes): where the step stands —
 * rollouts n of m finished, micro-batch k of n, evaluation rollouts n of m — at most every `everyMs`,
 * counted from the step's start or the last line. Quiet while steps are quick.
 */
export class Heartbeat {
  private last = performance.now();
  private stepStart = performance.now();

  constructor(
    private readonly label = '',
    private readonly everyMs = 10_000,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {}

  /** a step (or the progress bar's line) just ended: the next heartbeat is due `everyMs` from now */
  reset(): void {
    this.last = this.stepStart = performance.now();
  }

  beat(step: number, steps: number, at: StepProgress): void {
    const now = performance.now();
    if (now - this.last < this.everyMs) return;
    this.last = now;
    const what =
      at.phase === 'update'
        ? `${PHASE.update} ${at.done + 1} of ${at.total}`
        : `${PHASE[at.phase]} ${at.done} of ${at.total} finished`;
    const line = `${this.label}step ${step + (at.phase === 'evaluation' ? 0 : 1)}/${steps}: ${what} · ${formatDuration((now - this.stepStart) / 1000)} into this step`;
    writeProgress(this.out, line);
  }
}
