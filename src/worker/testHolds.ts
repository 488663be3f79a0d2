// Test holds: a browser test's way to make a moment happen instead of hoping to see it. A worker given
// holds stops its run after a named step (that step's points stored and shown, its checkpoint written if
// one was due) and waits until the test releases it, so a test can reload with two lesson arms surely
// mid-run, however fast or slow the machine is.
//
// They are off unless the page turns them on, and the page turns them on only where the test server
// asks for them twice: `?holds=after-step:N` in the address and a `Server-Timing: star-lab-test-holds`
// header on the page's own response (src/ui/testHolds.ts). A production host sends no such header, so
// on it the same link trains straight through. Why a response header rather than a separate test
// build: the browser tests then play the very bundle that ships, and the header is one no static host
// sends by accident. Held runs and releases travel on a BroadcastChannel, which reaches the page and
// every worker of the origin with no change to the worker's API.
//
// No tfjs; the page half (client.ts) only names the worker, the worker half waits.

/** the channel the held workers and the page's `window.__testHolds` talk on */
export const HOLD_CHANNEL = 'star-lab-test-holds';
/** the Server-Timing entry the test server sends with the page: without it `?holds=` is refused */
export const HOLD_MARKER = 'star-lab-test-holds';
const NAME_PREFIX = ' holds=';

/** a worker says it holds; the page answers with a release */
export type HoldMessage =
  | { type: 'held'; runId: string; step: number }
  | { type: 'release'; runId?: string };

/**
 * The steps a `?holds=` value asks to hold after: `after-step:2` or `after-step:2,after-step:4`.
 * Throws on anything else, naming it, so a mistyped test fails at once instead of never holding.
 */
export function parseHolds(value: string): number[] {
  const steps = value.split(',').map((part) => {
    const m = /^after-step:(\d{1,6})$/.exec(part.trim());
    if (!m || Number(m[1]) < 1) throw new Error(`holds=${value}: each hold is after-step:N with N ≥ 1 ("${part}")`);
    return Number(m[1]);
  });
  return [...new Set(steps)].sort((a, b) => a - b);
}

/** the worker's name with its holds (a worker reads its own name; the page's address it cannot see) */
export function workerName(base: string, steps: readonly number[]): string {
  return steps.length ? `${base}${NAME_PREFIX}${steps.join(',')}` : base;
}

/** the holds a worker's name carries (none for a name without them) */
export function holdsFromWorkerName(name: string): number[] {
  const at = name.indexOf(NAME_PREFIX);
  if (at < 0) return [];
  return name
    .slice(at + NAME_PREFIX.length)
    .split(',')
    .map(Number)
    .filter((n) => Number.isInteger(n) && n >= 1);
}

/**
 * A worker's holds: `after(runId, step)` resolves at once unless `step` is held, else once the page
 * releases this run (or every run). Each step holds once per worker: a run resumed past it never holds
 * again there.
 */
export class TestHolds {
  private readonly channel: BroadcastChannel;
  private readonly waiting = new Map<string, () => void>();
  private readonly done = new Set<string>();

  constructor(private readonly steps: readonly number[]) {
    this.channel = new BroadcastChannel(HOLD_CHANNEL);
    this.channel.onmessage = (event: MessageEvent<HoldMessage>) => {
      const m = event.data;
      if (m?.type !== 'release') return;
      for (const runId of [...this.waiting.keys()]) if (m.runId === undefined || m.runId === runId) this.release(runId);
    };
  }

  /** lets `runId` go, if held (a Stop always gets through) */
  release(runId: string): void {
    const wake = this.waiting.get(runId);
    this.waiting.delete(runId);
    wake?.();
  }

  /** null where a worker was given no holds (every production page) */
  static fromWorkerName(name: string): TestHolds | null {
    const steps = holdsFromWorkerName(name);
    return steps.length && typeof BroadcastChannel !== 'undefined' ? new TestHolds(steps) : null;
  }

  /** whether `after(runId, step)` would wait */
  holds(runId: string, step: number): boolean {
    return this.steps.includes(step) && !this.done.has(`${runId}@${step}`);
  }

  after(runId: string, step: number): Promise<void> {
    if (!this.holds(runId, step)) return Promise.resolve();
    this.done.add(`${runId}@${step}`);
    return new Promise<void>((resolve) => {
      this.waiting.set(runId, resolve);
      this.channel.postMessage({ type: 'held', runId, step } satisfies HoldMessage);
    });
  }
}
