import { describe, expect, it } from 'vitest';
import { keptCurve, resumeWords } from '../../src/lab/resumeNotice.ts';

describe('the resume notice', () => {
  it('says the curve up to the checkpoint is kept only when every step of it is stored', () => {
    expect(keptCurve([0, 1, 2, 3], 2)).toBe('its curve up to step 2 is kept, and the steps after it are trained again');
    expect(keptCurve([1, 2], 2)).toBe('its curve up to step 2 is kept, and the steps after it are trained again'); // SFT has no step 0
    expect(keptCurve([0, 1, 3], 2)).toBe('its curve up to step 2 is kept except step 2, which was not saved');
    expect(keptCurve([0], 3)).toBe('its curve up to step 3 is kept except steps 1, 2, 3, which were not saved');
    expect(keptCurve([], 50)).toMatch(/except steps 1, 2, 3, 4, 5, … \(50 in all\), which were not saved$/);
  });
});

describe('what the page says while it resumes a run', () => {
  it('says what it is doing, names the run as the learner knows it, and never asks to start what it restarts itself', () => {
    const why = 'The page closed while a run trained';
    expect(resumeWords.resuming(why, 'your run', 6)).toBe('The page closed while a run trained: resuming your run from step 6…');
    expect(resumeWords.resumed(why, 'your run', 6, keptCurve([0, 1, 2, 3, 4, 5, 6], 6))).toMatch(/^The page closed while a run trained: your run resumed by itself from step 6; its curve/);
    const lesson = resumeWords.noCheckpoint(why, 'the “No failures” arm', true);
    expect(lesson).toMatch(/starts again from the beginning by itself/);
    expect(lesson).not.toMatch(/start it again/i);
    expect(resumeWords.noCheckpoint(why, 'your run', false)).toMatch(/nothing to resume from: Start trains it again/);
    expect(resumeWords.tooOften('The GPU device was lost', 'your run', 2)).toMatch(/^The GPU device was lost again\. Your run was resumed 2 times/);
  });
});
