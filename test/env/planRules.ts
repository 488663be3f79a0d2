// An independent, test-only reading of TravelPlanner's commonsense and hard rules, used to check
// the teacher's plans (alongside the evaluator) and that every name in a plan was observed.
import type { Plan, Query, ToolStep, World } from '../../src/env/types.ts';

const SELF_DRIVE_SEATS = 5;
const TAXI_SEATS = 4;

function fromTo(s: string): [string, string] | null {
  const m = /from (.+?) to ([^,]+)/.exec(s);
  return m ? [m[1], m[2]] : null;
}

function nameCity(s: string): [string, string] {
  const i = s.lastIndexOf(', ');
  return [s.slice(0, i), s.slice(i + 2)];
}

/** Every rule the teacher must respect; returns the violations (empty = the plan is valid). */
export function planViolations(world: World, q: Query, plan: Plan, steps: readonly ToolStep[]): string[] {
  const bad: string[] = [];
  const people = q.people_number;
  if (plan.length !== q.days) bad.push(`plan has ${plan.length} days, query ${q.days}`);
  const observed = new Set<string>();
  for (const s of steps) {
    const o = s.observation;
    if (o.kind === 'flights') o.rows.forEach((f) => observed.add(`flight|${f.flightNumber}`));
    if (o.kind === 'restaurants') o.rows.forEach((r) => observed.add(`meal|${r.name}, ${r.city}`));
    if (o.kind === 'attractions') o.rows.forEach((a) => observed.add(`sight|${a.name}, ${a.city}`));
    if (o.kind === 'accommodations') o.rows.forEach((a) => observed.add(`stay|${a.name}, ${a.city}`));
    if (o.kind === 'drive' && s.call.tool === 'GoogleDistanceMatrix') observed.add(`${s.call.args.mode}|${s.call.args.departure}|${s.call.args.destination}`);
  }

  const cityList: string[] = [];
  const modes = new Set<string>();
  const meals = new Set<string>();
  const sights = new Set<string>();
  const cuisinesSeen = new Set<string>();
  let cost = 0;
  const stays: string[] = [];
  plan.forEach((d, i) => {
    const ft = fromTo(d.current_city);
    const cities = ft ? ft : [d.current_city];
    cityList.push(...cities);
    const date = q.date[i];
    if (ft) {
      if (d.transportation === '-') bad.push(`day ${i + 1}: travel without transportation`);
      for (const c of ft) if (!d.transportation.includes(c)) bad.push(`day ${i + 1}: transportation misses ${c}`);
      const t = d.transportation;
      if (t.startsWith('Flight Number: ')) {
        modes.add('Flight');
        const num = t.slice('Flight Number: '.length).split(',')[0];
        const f = (world.flights.get(`${ft[0]}|${ft[1]}|${date}`) ?? []).find((x) => x.flightNumber === num);
        if (!f) bad.push(`day ${i + 1}: flight ${num} not in the world on ${date}`);
        else cost += f.price * people;
        if (!observed.has(`flight|${num}`)) bad.push(`day ${i + 1}: flight ${num} never observed`);
      } else {
        const mode = t.startsWith('Self-driving') ? 'self-driving' : t.startsWith('Taxi') ? 'taxi' : null;
        if (!mode) bad.push(`day ${i + 1}: unknown transportation ${t}`);
        else {
          modes.add(mode === 'taxi' ? 'Taxi' : 'Self-driving');
          const dr = world.drives.get(`${ft[0]}|${ft[1]}`);
          if (!dr) bad.push(`day ${i + 1}: no drive ${ft.join(' → ')}`);
          else cost += (mode === 'taxi' ? Math.floor(dr.distanceKm) * Math.ceil(people / TAXI_SEATS) : Math.floor(dr.distanceKm * 0.05) * Math.ceil(people / SELF_DRIVE_SEATS));
          if (!observed.has(`${mode}|${ft[0]}|${ft[1]}`)) bad.push(`day ${i + 1}: ${mode} never observed`);
        }
      }
    } else if (d.transportation !== '-') bad.push(`day ${i + 1}: transportation on a stay day`);

    for (const key of ['breakfast', 'lunch', 'dinner'] as const) {
      const v = d[key];
      if (v === '-') {
        if (!ft) bad.push(`day ${i + 1}: no ${key} on a full day`);
        continue;
      }
      const [name, city] = nameCity(v);
      if (!cities.includes(city)) bad.push(`day ${i + 1}: ${key} in ${city}, not in ${cities.join('/')}`);
      if (meals.has(v)) bad.push(`day ${i + 1}: ${key} ${v} repeated`);
      meals.add(v);
      const r = (world.restaurants.get(city) ?? []).find((x) => x.name === name);
      if (!r) bad.push(`day ${i + 1}: ${key} ${v} not in the world`);
      else {
        cost += r.averageCost * people;
        if (city !== q.org) for (const c of q.local_constraint.cuisine ?? []) if (r.cuisines.join(', ').includes(c)) cuisinesSeen.add(c);
      }
      if (!observed.has(`meal|${v}`)) bad.push(`day ${i + 1}: ${key} ${v} never observed`);
    }

    if (d.attraction === '-') {
      if (!ft) bad.push(`day ${i + 1}: no attraction on a full day`);
    } else {
      if (!d.attraction.endsWith(';')) bad.push(`day ${i + 1}: attraction list must end with ';'`);
      for (const a of d.attraction.split(';').slice(0, -1)) {
        const [name, city] = nameCity(a);
        if (!cities.includes(city)) bad.push(`day ${i + 1}: attraction in ${city}`);
        if (sights.has(a)) bad.push(`day ${i + 1}: attraction ${a} repeated`);
        sights.add(a);
        if (!(world.attractions.get(city) ?? []).some((x) => x.name === name)) bad.push(`day ${i + 1}: attraction ${a} not in the world`);
        if (!observed.has(`sight|${a}`)) bad.push(`day ${i + 1}: attraction ${a} never observed`);
      }
    }

    stays.push(d.accommodation);
    if (i === q.days - 1) {
      if (d.accommodation !== '-') bad.push('last day must have no accommodation');
    } else if (d.accommodation === '-') bad.push(`day ${i + 1}: no accommodation`);
    else {
      const [name, city] = nameCity(d.accommodation);
      if (city !== cities[cities.length - 1]) bad.push(`day ${i + 1}: accommodation in ${city}`);
      const a = (world.accommodations.get(city) ?? []).find((x) => x.name === name);
      if (!a) bad.push(`day ${i + 1}: accommodation ${d.accommodation} not in the world`);
      else {
        cost += a.price * Math.ceil(people / a.maximumOccupancy);
        const rule = q.local_constraint['house rule'];
        if (rule && a.houseRules.includes(`No ${rule}`)) bad.push(`day ${i + 1}: accommodation forbids ${rule}`);
        const rt = q.local_constraint['room type'];
        const want = { 'entire room': 'Entire home/apt', 'private room': 'Private room', 'shared room': 'Shared room' } as const;
        if (rt === 'not shared room' ? a.roomType === 'Shared room' : rt && a.roomType !== want[rt]) bad.push(`day ${i + 1}: room type ${a.roomType} for ${rt}`);
      }
      if (!observed.has(`stay|${d.accommodation}`)) bad.push(`day ${i + 1}: accommodation never observed`);
    }
  });

  // closed route from the origin, each visited city in one block, the right number of cities
  if (cityList[0] !== q.org || cityList[cityList.length - 1] !== q.org) bad.push('route does not start and end at the origin');
  const middle = cityList.slice(1, -1);
  const blocks: string[] = [];
  for (const c of middle) if (blocks[blocks.length - 1] !== c) blocks.push(c);
  if (new Set(blocks).size !== blocks.length) bad.push(`a city is visited twice: ${blocks.join(' → ')}`);
  if (blocks.length !== q.visiting_city_number) bad.push(`${blocks.length} cities visited, query wants ${q.visiting_city_number}`);
  if (q.days > 3) for (const c of blocks) if (world.stateOf.get(c) !== q.dest) bad.push(`${c} is not in ${q.dest}`);
  if (q.days === 3 && blocks[0] !== q.dest) bad.push(`visits ${blocks[0]}, not ${q.dest}`);

  if ((modes.has('Flight') && modes.has('Self-driving')) || (modes.has('Taxi') && modes.has('Self-driving'))) bad.push(`conflicting transportation ${[...modes]}`);
  const t = q.local_constraint.transportation;
  if (t === 'no flight' && modes.has('Flight')) bad.push('flies despite no flight');
  if (t === 'no self-driving' && modes.has('Self-driving')) bad.push('drives despite no self-driving');

  // minimum nights per consecutive run of one accommodation
  for (let i = 0; i < stays.length; ) {
    let j = i;
    while (j < stays.length && stays[j] === stays[i]) j++;
    if (stays[i] !== '-') {
      const [name, city] = nameCity(stays[i]);
      const a = (world.accommodations.get(city) ?? []).find((x) => x.name === name);
      if (a && j - i < a.minimumNights) bad.push(`${stays[i]}: ${j - i} nights < minimum ${a.minimumNights}`);
    }
    i = j;
  }
  for (const c of q.local_constraint.cuisine ?? []) if (!cuisinesSeen.has(c)) bad.push(`cuisine ${c} never served`);
  if (cost > q.budget) bad.push(`cost ${cost} over budget ${q.budget}`);
  return bad;
}
