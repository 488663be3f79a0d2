import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMONSENSE_KEYS, HARD_KEYS } from '../../src/env/types.ts';
import { callInWords, checkInWords, planDays } from '../../src/ui/welcome/episodeWords.ts';
import type { WelcomeEpisodeRecord } from '../../src/worker/welcomeEpisode.ts';

const { episode } = JSON.parse(readFileSync('src/ui/welcome/episode.json', 'utf8')) as WelcomeEpisodeRecord;

describe("the welcome's episode in words", () => {
  it('reads every call of the recorded episode as a question, and every check as what it tests', () => {
    for (const c of episode.calls) expect(callInWords(c.call)).toMatch(/\?$/);
    expect(callInWords('SearchFlight(Boston, Chicago, 2022-03-04)')).toBe('Flights from Boston to Chicago on 2022-03-04?');
    expect(callInWords('NotATool(x)')).toBe('NotATool(x)');
    for (const k of [...COMMONSENSE_KEYS, ...HARD_KEYS]) expect(checkInWords(k)).not.toMatch(/_/);
  });

  it("lists each day's filled lines, leaving out the empty ones", () => {
    const days = planDays(episode.plan);
    expect(days.map((d) => d.day)).toEqual(episode.plan!.map((d) => d.days));
    expect(days[0].lines.map((l) => l.what)).toEqual(['Travel', 'Stay']);
    expect(planDays(null)).toEqual([]);
  });
});
