import { describe, expect, it } from 'vitest';
import { armStatusText, offersResume, sittingState, type ArmState } from '../../src/lessons/sittingState.ts';

describe('a sitting\'s state as the lesson page shows it (no "stopped" or "Resume" flash)', () => {
  it('a reloaded sitting the page is resuming by itself reads "resuming", not "stopped", and offers no Resume', () => {
    const arms: ArmState[] = ['halted', 'halted'];
    expect(sittingState(arms, true)).toBe('resuming');
    expect(arms.map((a) => armStatusText(a, true))).toEqual(['resuming', 'resuming']);
    expect(offersResume(sittingState(arms, true))).toBe(false);
    // one arm back already, its sibling still being resumed: the sitting runs, the sibling is "resuming"
    const half: ArmState[] = ['live', 'halted'];
    expect(sittingState(half, true)).toBe('running');
    expect(armStatusText('halted', true)).toBe('resuming');
    expect(offersResume(sittingState(half, true))).toBe(false);
  });

  it('between two arms that take turns, the next one is "starting", and no Resume is offered', () => {
    const between: ArmState[] = ['done', 'missing'];
    expect(sittingState(between, true)).toBe('resuming');
    expect(armStatusText('missing', true)).toBe('starting');
    expect(offersResume(sittingState(between, true))).toBe(false);
  });

  it('a sitting nothing resumes is stopped, and offers Resume; finished and running as they are', () => {
    expect(sittingState(['halted', 'done'], false)).toBe('halted');
    expect(armStatusText('halted', false)).toBe('stopped');
    expect(offersResume('halted')).toBe(true);
    expect(sittingState(['done', 'missing'], false)).toBe('halted');
    expect(sittingState(['live', 'missing'], false)).toBe('running');
    expect(armStatusText('missing', false)).toBe('waiting');
    expect(sittingState(['done', 'failed'], true)).toBe('finished');
    expect(sittingState(null, false)).toBe('new');
    // before the stored runs are read, no sitting is not yet a new one (no Run offered for a sitting about to appear)
    expect(sittingState(null, false, false)).toBe('loading');
    expect(offersResume('loading')).toBe(false);
  });
});
