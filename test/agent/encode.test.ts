import { describe, expect, it } from 'vitest';
import type { Query, ToolCall, Trajectory } from '../../src/env/types.ts';
import { encodeCall, encodeQuery, encodeTrajectory, parseCallTokens, toIds } from '../../src/agent/encode.ts';
import { decodePlan, unresolvableNext } from '../../src/agent/plan.ts';
import { VOCAB, numberTokens, detokenize } from '../../src/agent/vocab.ts';

const query: Query = {
  org: 'Buffalo', dest: 'Flagstaff', days: 3, visiting_city_number: 1, date: ['2022-03-16', '2022-03-17', '2022-03-18'],
  people_number: 2, budget: 2450, query: 'a trip', level: 'medium',
  local_constraint: { 'house rule': 'pets', cuisine: null, 'room type': null, transportation: null },
};

// a hand-made trajectory with two restaurant lists for Flagstaff: the plan must resolve in the latest
const traj: Trajectory = {
  query,
  steps: [
    { call: { tool: 'SearchFlight', args: { departure: 'Buffalo', destination: 'Flagstaff', date: '2022-03-16' } },
      observation: { kind: 'flights', rows: [
        { flightNumber: 'F1', price: 300, depTime: '08:10', arrTime: '11:30', elapsed: '3 hours 20 minutes', date: '2022-03-16', origin: 'Buffalo', dest: 'Flagstaff', distance: 2000 },
        { flightNumber: 'F2', price: 250, depTime: '15:40', arrTime: '19:04', elapsed: '3 hours 24 minutes', date: '2022-03-16', origin: 'Buffalo', dest: 'Flagstaff', distance: 2000 }] } },
    { call: { tool: 'SearchRestaurant', args: { city: 'Flagstaff' } }, observation: { kind: 'error', message: 'temporarily unavailable', failure: true } },
    { call: { tool: 'SearchRestaurant', args: { city: 'Flagstaff' } }, observation: { kind: 'restaurants', rows: [
      { name: 'Pine Cafe, Downtown', averageCost: 12, cuisines: ['Cafe', 'American'], rating: 4, city: 'Flagstaff' },
      { name: 'Red Wok', averageCost: 31, cuisines: ['Chinese'], rating: 3.5, city: 'Flagstaff' }] } },
    { call: { tool: 'SearchAttraction', args: { city: 'Flagstaff' } }, observation: { kind: 'attractions', rows: [
      { name: 'Lowell Observatory', latitude: 0, longitude: 0, address: '', phone: '', website: '', city: 'Flagstaff' },
      { name: 'Museum of Northern Arizona', latitude: 0, longitude: 0, address: '', phone: '', website: '', city: 'Flagstaff' }] } },
    { call: { tool: 'SearchAccommodation', args: { city: 'Flagstaff' } }, observation: { kind: 'accommodations', rows: [
      { name: 'Cozy Loft', price: 120, roomType: 'Entire home/apt', houseRules: ['No smoking'], minimumNights: 1, maximumOccupancy: 3, rating: 4, city: 'Flagstaff' }] } },
    { call: { tool: 'GoogleDistanceMatrix', args: { departure: 'Flagstaff', destination: 'Buffalo', mode: 'self-driving' } },
      observation: { kind: 'drive', mode: 'self-driving', drive: { origin: 'Flagstaff', destination: 'Buffalo', durationMinutes: 1926, distanceKm: 3200 }, cost: 160 } },
  ],
  plan: [
    { days: 1, current_city: 'from Buffalo to Flagstaff', transportation: 'Flight Number: F2, from Buffalo to Flagstaff, Departure Time: 15:40, Arrival Time: 19:04',
      breakfast: '-', attraction: '-', lunch: '-', dinner: 'Red Wok, Flagstaff', accommodation: 'Cozy Loft, Flagstaff' },
    { days: 2, current_city: 'Flagstaff', transportation: '-', breakfast: 'Pine Cafe, Downtown, Flagstaff',
      attraction: 'Lowell Observatory, Flagstaff;Museum of Northern Arizona, Flagstaff;', lunch: '-', dinner: '-', accommodation: 'Cozy Loft, Flagstaff' },
    { days: 3, current_city: 'from Flagstaff to Buffalo', transportation: 'Self-driving, from Flagstaff to Buffalo, duration: 32 hours 6 mins, distance: 3,200 km, cost: 160',
      breakfast: '-', attraction: '-', lunch: '-', dinner: '-', accommodation: '-' },
  ],
};

describe('vocabulary', () => {
  it('is a few hundred unique tokens covering the 312 cities and 64 states', () => {
    expect(VOCAB.size).toBeGreaterThan(300);
    expect(VOCAB.size).toBeLessThan(1024);
    expect(new Set(VOCAB.tokens).size).toBe(VOCAB.size);
    expect(VOCAB.cities.length).toBe(312);
    expect(VOCAB.states.length).toBe(64);
    expect(VOCAB.token(VOCAB.id('city:Buffalo'))).toBe('city:Buffalo');
    expect(() => VOCAB.id('city:Atlantis')).toThrow(/no token/);
  });
  it('numbers are base-100 digits, most significant first', () => {
    expect(numberTokens(0)).toEqual(['n0']);
    expect(numberTokens(253)).toEqual(['n2', 'n53']);
    expect(numberTokens(10000)).toEqual(['n1', 'n0', 'n0']);
    expect(() => numberTokens(-1)).toThrow(/cannot encode/);
  });
});

describe('calls', () => {
  const calls: ToolCall[] = [
    { tool: 'SearchFlight', args: { departure: 'Buffalo', destination: 'Flagstaff', date: '2022-03-18' } },
    { tool: 'GoogleDistanceMatrix', args: { departure: 'Buffalo', destination: 'Flagstaff', mode: 'taxi' } },
    { tool: 'SearchAccommodation', args: { city: 'Flagstaff' } },
    { tool: 'SearchRestaurant', args: { city: 'Flagstaff' } },
    { tool: 'SearchAttraction', args: { city: 'Flagstaff' } },
    { tool: 'SearchCity', args: { state: 'New York' } },
  ];
  it('round-trip through tokens', () => {
    for (const c of calls) expect(parseCallTokens(encodeCall(c, '2022-03-16'), '2022-03-16')).toEqual({ ok: true, value: c });
    expect(detokenize(encodeCall(calls[0], '2022-03-16'))).toBe('<call> SearchFlight city:Buffalo city:Flagstaff d+2 </call>');
  });
  it('malformed calls give a clear error, never a throw', () => {
    const p = (s: string) => parseCallTokens(toIds(s.split(' ')), '2022-03-16');
    expect(p('<call> SearchFlight city:Buffalo city:Flagstaff city:Boston </call>')).toEqual({ ok: false, error: 'SearchFlight: argument 3 must be a day offset d+k, got "city:Boston"' });
    expect(p('<call> SearchCity city:Buffalo </call>')).toMatchObject({ ok: false, error: expect.stringMatching(/must be a state/) });
    expect(p('<call> SearchRestaurant </call>')).toMatchObject({ ok: false, error: expect.stringMatching(/expected 1 argument/) });
    expect(p('<call> n5 city:Buffalo </call>')).toMatchObject({ ok: false, error: expect.stringMatching(/unknown tool "n5"/) });
    expect(p('<call> </call>')).toMatchObject({ ok: false, error: 'empty call' });
    expect(parseCallTokens([99999], '2022-03-16')).toMatchObject({ ok: false });
  });
});

describe('trajectories', () => {
  it('encode with the loss mask on calls and plan only, and the plan decodes back exactly', () => {
    const enc = encodeTrajectory(traj);
    expect(enc.tokens.length).toBe(enc.lossMask.length);
    const text = enc.tokens.map((t) => VOCAB.token(t));
    // query and observations are masked out; calls, plan and <eos> are in
    text.forEach((tok, i) => {
      if (['<q>', '</q>', '<bos>', '<obs>', '</obs>', '<err>', '<fail>'].includes(tok)) expect(enc.lossMask[i]).toBe(0);
      if (['<call>', '</call>', '<plan>', '</plan>', '<eos>', '<bf>'].includes(tok)) expect(enc.lossMask[i]).toBe(1);
    });
    const policyTokens = text.filter((_, i) => enc.lossMask[i] === 1).join(' ');
    // the plan names no city: day 1 takes the flight searched from the origin, items resolve in the arrival city
    expect(policyTokens).toContain('<plan> <day> <go> flight #2 <bf> - <at> - <lu> - <di> #2 <ac> #1 <day> <bf> #1');
    expect(policyTokens).toContain('<day> <go> self-driving <bf> - <at> - <lu> - <di> - <ac> - </plan>');
    expect(policyTokens.endsWith('</plan> <eos>')).toBe(true);
    const s = text.indexOf('<plan>');
    const back = decodePlan(enc.tokens.slice(s), { query, steps: traj.steps });
    expect(back).toEqual({ ok: true, value: traj.plan });
  });
  it('the query prompt states constraints', () => {
    expect(detokenize(encodeQuery(query))).toBe('<bos> <q> city:Buffalo <to> city:Flagstaff <day> n3 <visit> n1 <date> n22 n3 n16 <people> n2 <budget> n24 n50 <rule> pets </q>');
  });
  it('decodePlan reports references it cannot resolve', () => {
    const ctx = { query, steps: traj.steps };
    const d = (s: string) => decodePlan(toIds(s.split(' ')), ctx);
    const fly = '<day> <go> flight #2';
    expect(d(`<plan> ${fly} <bf> #9 <at> - <lu> - <di> - <ac> - </plan>`))
      .toEqual({ ok: false, error: 'day 1 breakfast: #9 is not among the 2 restaurants observed in Flagstaff' });
    // <from> resolves in the city the day left: Buffalo, which was never searched
    expect(d(`<plan> ${fly} <bf> <from> #1 <at> - <lu> - <di> - <ac> - </plan>`))
      .toEqual({ ok: false, error: 'day 1 breakfast: no restaurants search for Buffalo was observed' });
    expect(d('<plan> <day> <bf> <from> #1 <at> - <lu> - <di> - <ac> - </plan>'))
      .toEqual({ ok: false, error: 'day 1 breakfast: <from> on a day without travel' });
    // a stay day keeps the trip where it is: in the origin before any travel
    expect(d('<plan> <day> <bf> #1 <at> - <lu> - <di> - <ac> - </plan>'))
      .toEqual({ ok: false, error: 'day 1 breakfast: no restaurants search for Buffalo was observed' });
    expect(d(`<plan> ${fly} <bf> - <at> - <lu> - <di> - <ac> #1 <day> <go> taxi <bf> - <at> - <lu> - <di> - <ac> - </plan>`))
      .toEqual({ ok: false, error: 'day 2: no taxi distance leaving Flagstaff was observed' });
    // the only drive searched from the origin is none: Buffalo → … was never searched by car
    expect(d('<plan> <day> <go> self-driving <bf> - <at> - <lu> - <di> - <ac> - </plan>'))
      .toEqual({ ok: false, error: 'day 1: no self-driving distance leaving Buffalo was observed' });
    expect(d(`<plan> <day> <go> flight #7 <bf> -`)).toEqual({ ok: false, error: expect.stringMatching(/^day 1: flight #7 is not among the \d+ flights observed from Buffalo to Flagstaff$/) });
    expect(d('<plan> <day> <go> <bf> -')).toMatchObject({ ok: false, error: expect.stringMatching(/expected flight #k, self-driving or taxi after <go>/) });
    expect(d(`<plan> ${fly} <bf> -`)).toMatchObject({ ok: false, error: expect.stringMatching(/expected <at>/) });
    expect(d('<plan> </plan>')).toEqual({ ok: false, error: 'plan: no days' });
  });
  it('<go> takes the latest successful search of its mode from the current city', () => {
    const drive = (destination: string, cost: number | null) => ({
      call: { tool: 'GoogleDistanceMatrix', args: { departure: 'Flagstaff', destination, mode: 'self-driving' } } as ToolCall,
      observation: cost === null
        ? { kind: 'drive' as const, mode: 'self-driving' as const, drive: null, cost: null }
        : { kind: 'drive' as const, mode: 'self-driving' as const, drive: { origin: 'Flagstaff', destination, durationMinutes: 600, distanceKm: 900 }, cost } });
    const last = '<day> <go> self-driving <bf> - <at> - <lu> - <di> - <ac> - </plan>';
    const plan = `<plan> <day> <go> flight #1 <bf> - <at> - <lu> - <di> - <ac> #1 ${last}`;
    // a later drive to Boston wins over the earlier one to Buffalo; a later search with no route does not
    const steps = [...traj.steps, drive('Boston', 90), drive('Denver', null)];
    const r = decodePlan(toIds(plan.split(' ')), { query, steps });
    expect(r.ok && r.value[1].current_city).toBe('from Flagstaff to Boston');
    expect(r.ok && r.value[1].transportation).toMatch(/^Self-driving, from Flagstaff to Boston, .*cost: 90$/);
  });
  it('a plan naming an unobserved place cannot be encoded', () => {
    const bad: Trajectory = { ...traj, plan: traj.plan!.map((d, i) => (i === 1 ? { ...d, breakfast: 'Nowhere Diner, Flagstaff' } : d)) };
    expect(() => encodeTrajectory(bad)).toThrow(/"Nowhere Diner" is not in an observed restaurants list of Flagstaff/);
  });
  it('a plan the language cannot say (a jumping route, an unsearched leg, an item outside the day\'s cities) is refused with the reason', () => {
    const jump: Trajectory = { ...traj, plan: traj.plan!.map((d, i) => (i === 2 ? { ...d, current_city: 'from Boston to Buffalo' } : d)) };
    expect(() => encodeTrajectory(jump)).toThrow(/day 3: leaves from Boston, but the trip is in Flagstaff/);
    const unsearched: Trajectory = { ...traj, plan: traj.plan!.map((d, i) => (i === 2 ? { ...d, current_city: 'from Flagstaff to Boston' } : d)) };
    expect(() => encodeTrajectory(unsearched)).toThrow(/day 3: goes to Boston, but the latest self-driving search from Flagstaff leads to Buffalo/);
    const away: Trajectory = { ...traj, plan: traj.plan!.map((d, i) => (i === 1 ? { ...d, lunch: 'Some Place, Buffalo' } : d)) };
    expect(() => encodeTrajectory(away)).toThrow(/day 2 lunch: Buffalo is not one of the day's cities/);
  });
});

describe('constrained decoding: what cannot come next in a plan', () => {
  const bans = (prefix: string) => detokenize(unresolvableNext(toIds(prefix.split(' ')), { query, steps: traj.steps })).split(' ').filter(Boolean);
  const refsFrom = (k: number) => Array.from({ length: 41 - k }, (_, i) => `#${k + i}`);
  it('bans modes with no searched leg and refs past the end of the list the slot resolves in', () => {
    // from Buffalo only a flight was searched
    expect(bans('<plan> <day> <go>')).toEqual(['self-driving', 'taxi']);
    expect(bans('<plan> <day> <go> flight')).toEqual(refsFrom(3)); // 2 flights
    // in Flagstaff: 2 restaurants (the latest list), 2 attractions, 1 accommodation; Buffalo has no list, so no <from>
    expect(bans('<plan> <day> <go> flight #2 <bf>')).toEqual([...refsFrom(3), '<from>']);
    expect(bans('<plan> <day> <go> flight #2 <bf> - <at> #1')).toEqual([...refsFrom(3), '<from>']);
    expect(bans('<plan> <day> <go> flight #2 <bf> - <at> - <lu> - <di> - <ac>')).toEqual([...refsFrom(2), '<from>']);
    // <from> with nothing to resolve in: every ref is banned
    expect(bans('<plan> <day> <go> flight #2 <bf> <from>')).toEqual(refsFrom(1));
    // a stay day in the origin: nothing was searched there
    expect(bans('<plan> <day> <bf>')).toEqual([...refsFrom(1), '<from>']);
    // day 2 stays in Flagstaff; day 3 drives home, and the drive's <from> resolves in Flagstaff
    const day1 = '<plan> <day> <go> flight #2 <bf> - <at> - <lu> - <di> #2 <ac> #1';
    expect(bans(`${day1} <day> <bf>`)).toEqual([...refsFrom(3), '<from>']);
    expect(bans(`${day1} <day> <go>`)).toEqual(['flight', 'taxi']);
    expect(bans(`${day1} <day> <go> self-driving <bf>`)).toEqual(refsFrom(1)); // Buffalo: none; <from> Flagstaff: allowed
    expect(bans(`${day1} <day> <go> self-driving <bf> <from>`)).toEqual(refsFrom(3));
  });
  it('bans nothing where the next token is not a reference choice, or after a prefix that already went wrong', () => {
    for (const p of ['<plan>', '<plan> <day>', '<plan> <day> <go> flight #2', '<plan> <day> <go> flight #2 <bf> #1', '<plan> <day> <go> self-driving <bf>']) {
      expect(bans(p)).toEqual([]);
    }
  });
});
