import { describe, expect, it } from 'vitest';
import { WATCH_IT_LEARN_HASH, watchItLearnConfig } from '../../src/lab/watchItLearn.ts';
import { serializeHash } from '../../src/lab/urlState.ts';

describe('Watch it learn', () => {
  it('is the measured RL run, read whole from its link', () => {
    const config = watchItLearnConfig();
    expect(config.stage).toBe('rl');
    expect(serializeHash(config)).toBe(WATCH_IT_LEARN_HASH);
  });
});
