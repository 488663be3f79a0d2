// The benchmark harness: every suite reports named figures (flat keys such as
// `evaluator.plans_per_s`) into one object that `npm run bench -- --json FILE` writes out.
// Figures that matter are ratios measured side by side in one run.

export type Report = (key: string, value: number, unit: string, note?: string) => void;

export interface BenchSuite {
  name: string;
  /** runs the suite, reporting each figure as it is measured */
  run(report: Report, options: { quick: boolean }): Promise<void>;
}

/** process CPU seconds (user + system) in Node, so figures hold on a shared machine; wall seconds elsewhere */
export const cpuSeconds = typeof process !== 'undefined' && process.cpuUsage
  ? (): number => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; }
  : (): number => performance.now() / 1000;

/** Times `fn` over enough repetitions to fill `minMs`; returns operations per second. */
export function opsPerSecond(fn: () => void, minMs = 500, opsPerCall = 1): number {
  fn(); // warm-up
  let calls = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < minMs) {
    fn();
    calls++;
    t = performance.now();
  }
  return (calls * opsPerCall * 1000) / (t - t0);
}
