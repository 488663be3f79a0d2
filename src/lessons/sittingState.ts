// What a lesson's sitting shows while it runs: its state, each arm's word and whether
// "Resume the lesson" is offered. An arm whose run is not training right now is "halted" — but while the
// page is resuming the sitting by itself (after a reload, before the Lab has restarted the arm; or between
// two arms that take turns, before the next has started) that is not a stop, and saying "stopped" and
// offering "Resume the lesson" for that second would be false. Pure: no DOM, no tfjs.

/** an arm of a sitting: not started, training now, finished, stopped (or not yet resumed), failed */
export type ArmState = 'missing' | 'live' | 'done' | 'halted' | 'failed';

export type SittingState = 'loading' | 'new' | 'running' | 'resuming' | 'halted' | 'finished';

/**
 * The sitting's state from its arms' (null: no sitting). `resuming`: the page is resuming or continuing it by
 * itself right now, so a halted or missing arm is about to train. `listed`: the stored runs have been read —
 * before, no sitting is not yet "new" (that would offer Run for a sitting about to appear).
 */
export function sittingState(arms: readonly ArmState[] | null, resuming: boolean, listed = true): SittingState {
  if (!arms) return listed ? 'new' : 'loading';
  if (arms.every((a) => a === 'done' || a === 'failed')) return 'finished';
  if (arms.some((a) => a === 'live')) return 'running';
  if (resuming) return 'resuming';
  return 'halted';
}

/** an arm's word beside its steps; `resuming` as for sittingState (an arm may resume while its sibling trains) */
export function armStatusText(arm: ArmState, resuming: boolean): string {
  switch (arm) {
    case 'live': return 'training';
    case 'done': return 'finished';
    case 'failed': return 'failed';
    case 'missing': return resuming ? 'starting' : 'waiting';
    case 'halted': return resuming ? 'resuming' : 'stopped';
  }
}

/** "Resume the lesson" is for a sitting that stopped and that nothing is resuming */
export const offersResume = (sitting: SittingState): boolean => sitting === 'halted';
