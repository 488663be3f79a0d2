// The 45 real TravelPlanner training queries: every field parsed from the natural-language text,
// pinned row by row (each row was checked by reading the query text), and cross-checked against
// the reference-information keys (flight keys name the origin, the cities and the dates).
import { describe, expect, it } from 'vitest';
import { loadCitySet, loadRealExamples } from '../../src/env/node/realData.ts';
import { levelOf, parseGoldPlan, parseRealQuery, QueryParseError } from '../../src/env/realQueries.ts';
import { parsePythonLiteral, PythonLiteralError } from '../../src/env/pythonLiteral.ts';
import { generateWorld } from '../../src/env/world.ts';
import { buildDataset } from '../../src/env/queries.ts';

// [line, org, dest, days, visiting_city_number, first date, people_number, budget,
//  house rule, cuisines ("/"-joined, text order), room type, transportation, level]
type Row = [number, string, string, number, number, string, number, number, string | null, string | null, string | null, string | null, string];
const EXPECTED: Row[] = [
  [0, "St. Petersburg", "Rockford", 3, 1, "2022-03-16", 1, 1700, null, null, null, null, "easy"],
  [1, "Kansas City", "Pensacola", 3, 1, "2022-03-27", 1, 900, null, null, null, null, "easy"],
  [2, "Las Vegas", "Stockton", 3, 1, "2022-03-03", 1, 1400, null, null, null, null, "easy"],
  [3, "New Orleans", "Louisville", 3, 1, "2022-03-12", 1, 1900, null, null, null, null, "easy"],
  [4, "Las Vegas", "Denver", 3, 1, "2022-03-12", 1, 1600, null, null, null, null, "easy"],
  [5, "Orlando", "Texas", 5, 2, "2022-03-10", 1, 3100, null, null, null, null, "easy"],
  [6, "Santa Ana", "Montana", 5, 2, "2022-03-06", 1, 3600, null, null, null, null, "easy"],
  [7, "Baton Rouge", "Texas", 5, 2, "2022-03-01", 1, 2300, null, null, null, null, "easy"],
  [8, "Memphis", "Pennsylvania", 5, 2, "2022-03-22", 1, 1400, null, null, null, null, "easy"],
  [9, "Greer", "Pennsylvania", 5, 2, "2022-03-05", 1, 3400, null, null, null, null, "easy"],
  [10, "Houston", "Utah", 7, 3, "2022-03-23", 1, 7700, null, null, null, null, "easy"],
  [11, "Oklahoma City", "Colorado", 7, 3, "2022-03-01", 1, 3000, null, null, null, null, "easy"],
  [12, "Gulfport", "Texas", 7, 3, "2022-03-24", 1, 4200, null, null, null, null, "easy"],
  [13, "Daytona Beach", "Texas", 7, 3, "2022-03-18", 1, 3600, null, null, null, null, "easy"],
  [14, "Punta Gorda", "Wisconsin", 7, 3, "2022-03-16", 1, 5700, null, null, null, null, "easy"],
  [15, "Fort Lauderdale", "Norfolk", 3, 1, "2022-03-16", 2, 2300, null, "American/French", null, null, "medium"],
  [16, "Sacramento", "Atlanta", 3, 1, "2022-03-14", 2, 4700, "parties", null, null, null, "medium"],
  [17, "Asheville", "Baltimore", 3, 1, "2022-03-20", 8, 6500, "children under 10", null, null, null, "medium"],
  [18, "Washington", "Orlando", 3, 1, "2022-03-15", 2, 2000, null, null, "private room", null, "medium"],
  [19, "Fort Lauderdale", "Milwaukee", 3, 1, "2022-03-08", 2, 1100, null, "American/Chinese", null, null, "medium"],
  [20, "Nashville", "Pennsylvania", 5, 2, "2022-03-12", 6, 15100, null, null, "entire room", null, "medium"],
  [21, "New York", "Louisiana", 5, 2, "2022-03-15", 4, 12300, "smoking", null, null, null, "medium"],
  [22, "San Jose", "Idaho", 5, 2, "2022-03-01", 7, 13900, null, "Indian/French", null, null, "medium"],
  [23, "Asheville", "New York", 5, 2, "2022-03-13", 2, 4700, null, "Mexican/Chinese", null, null, "medium"],
  [24, "Memphis", "Minnesota", 5, 2, "2022-03-01", 4, 13800, null, null, "private room", null, "medium"],
  [25, "Santa Ana", "Texas", 7, 3, "2022-03-25", 4, 5800, "children under 10", null, null, null, "medium"],
  [26, "Sault Ste. Marie", "Michigan", 7, 3, "2022-03-15", 5, 12700, null, null, "entire room", null, "medium"],
  [27, "St. Louis", "California", 7, 3, "2022-03-17", 2, 9500, null, "American/Chinese", null, null, "medium"],
  [28, "Louisville", "Michigan", 7, 3, "2022-03-08", 4, 19400, null, null, "private room", null, "medium"],
  [29, "Oakland", "Oregon", 7, 3, "2022-03-12", 2, 4500, null, "Italian/Mediterranean", null, null, "medium"],
  [30, "Houston", "Fayetteville", 3, 1, "2022-03-20", 2, 1500, "children under 10", "American/Mediterranean/French/Chinese", null, "no self-driving", "hard"],
  [31, "Bangor", "Washington", 3, 1, "2022-03-21", 3, 3100, "pets", null, "entire room", "no self-driving", "hard"],
  [32, "Grand Forks", "Minneapolis", 3, 1, "2022-03-17", 2, 1300, "parties", null, "entire room", "no flight", "hard"],
  [33, "Provo", "Phoenix", 3, 1, "2022-03-24", 2, 1400, "pets", "Indian/American/French/Italian", "private room", null, "hard"],
  [34, "Atlanta", "Chattanooga", 3, 1, "2022-03-07", 5, 3600, null, "French/Mediterranean/Indian/Chinese", "entire room", "no self-driving", "hard"],
  [35, "Atlanta", "Minnesota", 5, 2, "2022-03-03", 3, 7900, "parties", null, "entire room", "no self-driving", "hard"],
  [36, "Richmond", "Florida", 5, 2, "2022-03-09", 7, 8500, "visitors", "French/American/Mediterranean/Italian", "entire room", null, "hard"],
  [37, "Sacramento", "Washington", 5, 2, "2022-03-22", 3, 3600, null, "American/Mediterranean/Italian/French", "entire room", "no flight", "hard"],
  [38, "Evansville", "Texas", 5, 2, "2022-03-17", 2, 2800, "children under 10", null, "private room", "no flight", "hard"],
  [39, "Denver", "Texas", 5, 2, "2022-03-08", 5, 7100, "smoking", "American/French/Mediterranean/Italian", null, "no flight", "hard"],
  [40, "Indianapolis", "Colorado", 7, 3, "2022-03-11", 5, 15100, "pets", "Mexican/Italian/Mediterranean/Indian", "entire room", null, "hard"],
  [41, "Seattle", "Texas", 7, 3, "2022-03-10", 4, 11000, "parties", null, "entire room", "no self-driving", "hard"],
  [42, "Greensboro", "New York", 7, 3, "2022-03-20", 2, 3800, null, "Chinese/French/American/Indian", "entire room", "no flight", "hard"],
  [43, "Moline", "Texas", 7, 3, "2022-03-19", 2, 5500, null, "American/Chinese/Mexican/French", "entire room", "no flight", "hard"],
  [44, "Minneapolis", "Ohio", 7, 3, "2022-03-17", 2, 5100, "pets", "American/Mediterranean/Chinese/Italian", null, "no flight", "hard"],
];

const examples = loadRealExamples();
const cities = loadCitySet();

describe('real queries', () => {
  it('has all 45 queries', () => {
    expect(examples).toHaveLength(45);
    expect(EXPECTED).toHaveLength(45);
  });

  it.each(EXPECTED)('line %i parses to the pinned fields', (line, org, dest, days, visiting, start, people, budget, rule, cuisine, room, transport, level) => {
    const q = examples[line].query;
    expect(q.org).toBe(org);
    expect(q.dest).toBe(dest);
    expect(q.days).toBe(days);
    expect(q.visiting_city_number).toBe(visiting);
    expect(q.date[0]).toBe(start);
    expect(q.date).toHaveLength(days);
    // consecutive days
    q.date.forEach((d, i) => expect(Date.parse(d) - Date.parse(start)).toBe(i * 86_400_000));
    expect(q.people_number).toBe(people);
    expect(q.budget).toBe(budget);
    expect(q.local_constraint).toEqual({
      'house rule': rule,
      cuisine: cuisine ? cuisine.split('/') : null,
      'room type': room,
      transportation: transport,
    });
    expect(q.level).toBe(level);
    expect(levelOf(q.local_constraint)).toBe(level);
  });

  it('agrees with the reference-information keys (origin, route through dest, dates)', () => {
    for (const { index, query, refInfo } of examples) {
      const flights = Object.keys(refInfo)
        .map((k) => /^Flight from (.+?) to (.+) on (\S+)$/.exec(k))
        .filter((m): m is RegExpExecArray => m !== null);
      expect(flights.length, `line ${index}`).toBe(query.visiting_city_number + 1);
      expect(flights[0][1], `line ${index} org`).toBe(query.org);
      expect(flights.at(-1)![2], `line ${index} return`).toBe(query.org);
      expect(flights[0][3], `line ${index} start`).toBe(query.date[0]);
      for (const f of flights) expect(query.date, `line ${index}`).toContain(f[3]);
      const visited = flights.slice(1).map((f) => f[1]);
      if (query.days === 3) expect(visited).toEqual([query.dest]);
      else for (const c of visited) expect(cities.get(c), `line ${index}: ${c}`).toBe(query.dest);
      expect(flights.at(-1)![3], `line ${index} end`).toBe(query.date.at(-1));
    }
  });

  it('level counts: 15 easy, 15 medium, 15 hard, as TravelPlanner\'s train split', () => {
    const count = (l: string) => examples.filter((e) => e.query.level === l).length;
    expect([count('easy'), count('medium'), count('hard')]).toEqual([15, 15, 15]);
  });

  it('reports what is missing instead of guessing', () => {
    expect(() => parseRealQuery('A trip from Boston to Denver for 3 days, with a budget of $900.', cities)).toThrow(QueryParseError);
    expect(() => parseRealQuery('From Boston to Denver for 3 days, March 1st to March 3rd, 2022.', cities)).toThrow(/dollar/);
    expect(() => parseRealQuery('From Boston to Denver for 5 days, March 1st to March 3rd, 2022, $900.', cities)).toThrow(/disagree/);
  });

  it('reads back the lab generator\'s own query texts (other phrasings, every constraint)', () => {
    const world = generateWorld('tiny', 4);
    const { train } = buildDataset(world, { size: 40, mix: [1, 1, 2], seed: 4, validationSize: 0, testSize: 0 });
    const sortCuisine = (q: { local_constraint: { cuisine: string[] | null } }) => q.local_constraint.cuisine?.slice().sort() ?? null;
    for (const q of train) {
      const p = parseRealQuery(q.query, cities);
      expect({ ...p, cuisine: sortCuisine(p), local_constraint: null }, q.query).toEqual({ ...q, cuisine: sortCuisine(q), local_constraint: null });
      expect({ ...p.local_constraint, cuisine: null }, q.query).toEqual({ ...q.local_constraint, cuisine: null });
    }
  });

  it('parses a sentence it has never seen', () => {
    const q = parseRealQuery('Plan a 3-day trip for 3 people from Boston to Denver, March 1st to March 3rd, 2022, budget $2,500; no flights please, and we need private rooms.', cities);
    expect([q.org, q.dest, q.people_number, q.budget, q.local_constraint.transportation, q.local_constraint['room type'], q.level]).toEqual(
      ['Boston', 'Denver', 3, 2500, 'no flight', 'private room', 'hard'],
    );
  });
});

describe('gold plans', () => {
  it('all 45 parse, one day per query day, numbered 1..n, padding removed', () => {
    for (const { index, query, goldPlan } of examples) {
      expect(goldPlan.map((d) => d.days), `line ${index}`).toEqual(Array.from({ length: query.days }, (_, i) => i + 1));
      for (const day of goldPlan) for (const v of Object.values(day)) expect(v === '' , `line ${index}`).toBe(false);
      expect(goldPlan[0].current_city, `line ${index}`).toBe(`from ${query.org} to ${goldPlan[0].current_city.split(' to ')[1]}`);
    }
  });

  it('keeps quotes, apostrophes and escapes as Python wrote them', () => {
    const plan = parseGoldPlan(`[{'days': 1, 'current_city': "from A to B", 'transportation': '-', 'breakfast': "Joe's Diner, B", 'attraction': 'It\\'s \\u00e9t\\xe9, B;', 'lunch': '-', 'dinner': '-', 'accommodation': '-'}, {}, {}]`);
    expect(plan).toHaveLength(1);
    expect(plan[0].breakfast).toBe("Joe's Diner, B");
    expect(plan[0].attraction).toBe("It's été, B;");
  });
});

describe('python literal parser', () => {
  it('reads None/True/False, numbers, tuples and nesting', () => {
    expect(parsePythonLiteral("{'a': None, 'b': [True, False, (1, -2.5e3)], 3: 'x' 'y'}")).toEqual({ a: null, b: [true, false, [1, -2500]], 3: 'xy' });
  });
  it('rejects anything that is not a literal (no eval)', () => {
    for (const bad of ["__import__('os')", "[1, 2", "{'a' 1}", "'open", '[1] extra']) {
      expect(() => parsePythonLiteral(bad), bad).toThrow(PythonLiteralError);
    }
  });
});
