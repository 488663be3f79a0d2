import { describe, expect, it } from 'vitest';
import { keptCurve } from '../../src/lab/resumeNotice.ts';

describe('the resume notice', () => {
  it('says the curve up to the checkpoint is kept only when every step of it is stored', () => {
    expect(keptCurve([0, 1, 2, 3], 2)).toBe('its curve up to step 2 is kept, and the steps after it are trained again');
    expect(keptCurve([1, 2], 2)).toBe('its curve up to step 2 is kept, and the steps after it are trained again'); // SFT has no step 0
    expect(keptCurve([0, 1, 3], 2)).toBe('its curve up to step 2 is kept except step 2, which was not saved');
    expect(keptCurve([0], 3)).toBe('its curve up to step 3 is kept except steps 1, 2, 3, which were not saved');
    expect(keptCurve([], 50)).toMatch(/except steps 1, 2, 3, 4, 5, … \(50 in all\), which were not saved$/);
  });
});
