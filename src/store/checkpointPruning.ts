// Which stored checkpoints to delete when browser storage is full: every run keeps only its newest
// one (the one a resume or an RL starting point reads), so no run loses the ability to continue.
// Pure, so the choice is tested without IndexedDB.

/** a checkpoint's key in the store: [runId, step] */
export type CheckpointKey = readonly [runId: string, step: number];

/** The keys to delete: all but the highest step of each run (order of the input is irrelevant). */
export function checkpointsToPrune(keys: readonly CheckpointKey[]): CheckpointKey[] {
  const newest = new Map<string, number>();
  for (const [runId, step] of keys) newest.set(runId, Math.max(step, newest.get(runId) ?? -Infinity));
  return keys.filter(([runId, step]) => step !== newest.get(runId));
}
