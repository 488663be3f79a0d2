// The page's half of the test holds (src/worker/testHolds.ts says what they are for): `?holds=after-step:N`
// is honoured only when the page's own response carried the test server's `Server-Timing` marker, which no
// production host sends. Honoured, every worker the page starts holds after step N, and
// `window.__testHolds` lists the held runs and releases them. Refused, the page says so on the console,
// sets `data-test-holds="refused"` on <html> (what the browser test reads), and trains straight through.
import { HOLD_CHANNEL, HOLD_MARKER, parseHolds, type HoldMessage } from '../worker/testHolds.ts';
import { setWorkerHolds } from '../worker/client.ts';

export interface TestHoldsHandle {
  /** the runs held so far, in the order they held (a run and the step it holds after) */
  held: { runId: string; step: number }[];
  /** releases one held run, or every one */
  release(runId?: string): void;
}

declare global {
  interface Window {
    __testHolds?: TestHoldsHandle;
  }
}

/** whether the page's own response carried the test server's marker */
function servedWithMarker(): boolean {
  const nav = performance.getEntriesByType?.('navigation')[0] as PerformanceNavigationTiming | undefined;
  return nav?.serverTiming?.some((entry) => entry.name === HOLD_MARKER) ?? false;
}

/** Reads `?holds=` once at load: arms the workers and `window.__testHolds` where the test server asked. */
export function installTestHolds(): void {
  const value = new URLSearchParams(location.search).get('holds');
  if (value === null) return;
  if (!servedWithMarker()) {
    document.documentElement.dataset.testHolds = 'refused';
    console.info('?holds= is for the browser tests and this page was not served by them: ignored');
    return;
  }
  let steps: number[];
  try {
    steps = parseHolds(value);
  } catch (e) {
    // a mistyped test fails here, loudly, instead of waiting for a hold that never comes
    document.documentElement.dataset.testHolds = 'invalid';
    console.error(e instanceof Error ? e.message : String(e));
    return;
  }
  setWorkerHolds(steps);
  const channel = new BroadcastChannel(HOLD_CHANNEL);
  const handle: TestHoldsHandle = {
    held: [],
    release: (runId) => channel.postMessage({ type: 'release', runId } satisfies HoldMessage),
  };
  channel.onmessage = (event: MessageEvent<HoldMessage>) => {
    if (event.data?.type === 'held') handle.held.push({ runId: event.data.runId, step: event.data.step });
  };
  window.__testHolds = handle;
  document.documentElement.dataset.testHolds = steps.map((s) => `after-step:${s}`).join(',');
}
