// The page reads the confirmatory test and T8/T9's answers as committed, checked at build time: the committed
// records pass the check, and a broken or foreign one gives a reason instead of figures. Milliseconds.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BEYOND_TEST, CONFIRMATORY_TEST, readBeyondTest, readConfirmatoryTest } from '../../src/ui/findings/planRecords.ts';

describe('the plan records the Findings view shows', () => {
  it('reads the committed records', () => {
    expect(CONFIRMATORY_TEST?.error).toBeUndefined();
    expect(CONFIRMATORY_TEST?.table?.results.length).toBe(4);
    expect(BEYOND_TEST?.error).toBeUndefined();
    expect(BEYOND_TEST?.table?.T8.switches.length).toBe(6);
  });

  it('gives a reason for a broken or foreign record, and nothing for an absent one', () => {
    const path = '/results/findings/beyond-test.json';
    expect(readBeyondTest({ [path]: '{' })?.error).toMatch(/beyond-test\.json is not valid JSON/);
    const record = JSON.parse(readFileSync('results/findings/beyond-test.json', 'utf8')) as { T8: { finished: unknown } };
    record.T8.finished = 'some';
    expect(readBeyondTest({ [path]: JSON.stringify(record) })?.error).toMatch(/is not T8's and T9's test: T8\.finished/);
    expect(readConfirmatoryTest({ '/x.json': JSON.stringify({ format: 'other' }) })?.error).toMatch(/not a confirmatory test: format/);
    expect(readConfirmatoryTest({})).toBeUndefined();
  });
});
