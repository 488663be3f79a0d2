import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/env/random.ts';
import { generateWorld } from '../../src/env/world.ts';
import { generateToolQa, scoreToolQa, teachToolQa, TOOLQA_KINDS, toolQaKey } from '../../src/env/toolqa.ts';
import type { ToolQaAnswer, ToolQaTask } from '../../src/env/toolqa.ts';
import type { World } from '../../src/env/types.ts';

/** The gold answers recomputed straight from the world, independently of the tools. */
function checkGold(world: World, task: ToolQaTask): void {
  const q = task.question;
  const names = task.accepted.map((a) => (a.kind === 'name' ? a.name : `#${a.value}`));
  switch (q.kind) {
    case 'cheapestFlight': {
      const rows = world.flights.get(`${q.from}|${q.to}|${q.date}`)!;
      const min = Math.min(...rows.map((f) => f.price));
      expect(names.sort()).toEqual(rows.filter((f) => f.price === min).map((f) => f.flightNumber).sort());
      break;
    }
    case 'accommodationUnder':
      for (const n of names) {
        const a = world.accommodations.get(q.city)!.find((x) => x.name === n)!;
        expect(a.price).toBeLessThanOrEqual(q.maxPrice);
        if (q.houseRule) expect(a.houseRules).not.toContain(`No ${q.houseRule}`);
        if (q.roomType === 'entire room') expect(a.roomType).toBe('Entire home/apt');
        if (q.roomType === 'not shared room') expect(a.roomType).not.toBe('Shared room');
      }
      break;
    case 'bestRestaurant': {
      const rows = world.restaurants.get(q.city)!.filter((r) => r.cuisines.join(', ').includes(q.cuisine));
      const best = Math.max(...rows.map((r) => r.rating));
      expect(names.sort()).toEqual(rows.filter((r) => r.rating === best).map((r) => r.name).sort());
      break;
    }
    case 'countAttractions':
      expect(task.accepted).toEqual([{ kind: 'number', value: (world.attractions.get(q.city) ?? []).length }]);
      break;
    case 'driveCost': {
      const d = world.drives.get(`${q.from}|${q.to}`)!;
      expect(task.accepted).toEqual([{ kind: 'number', value: q.mode === 'taxi' ? Math.floor(d.distanceKm) : Math.floor(d.distanceKm * 0.05) }]);
      break;
    }
    case 'countCities':
      expect(task.accepted).toEqual([{ kind: 'number', value: world.citiesByState.get(q.state)!.length }]);
      break;
  }
}

describe('tool-QA suite', () => {
  const world = generateWorld('small', 40);
  const tasks = generateToolQa(world, new Rng(1), 80);

  it('generates distinct, answerable tasks of every kind with correct gold answers', () => {
    expect(tasks.length).toBe(80);
    expect(new Set(tasks.map((t) => JSON.stringify(t.question))).size).toBe(80);
    for (const kind of TOOLQA_KINDS) expect(tasks.some((t) => t.question.kind === kind), kind).toBe(true);
    for (const t of tasks) {
      expect(t.accepted.length).toBeGreaterThan(0);
      expect(t.text.length).toBeGreaterThan(10);
      checkGold(world, t);
    }
  });

  it('the teacher answers every task correctly in one call, and retries through failures', () => {
    for (const [i, t] of tasks.entries()) {
      const ep = teachToolQa(world, t, new Rng(i))!;
      expect(ep.steps.length).toBe(1);
      expect(scoreToolQa(t, ep.answer)).toBe(1);
    }
    let retried = 0;
    for (const [i, t] of tasks.entries()) {
      const ep = teachToolQa(world, t, new Rng(i), { failureRate: 0.4 })!;
      expect(ep).not.toBeNull();
      if (ep.steps.length > 1) retried++;
      expect(ep.steps.slice(0, -1).every((s) => s.observation.kind === 'error' && s.observation.failure)).toBe(true);
      expect(scoreToolQa(t, ep.answer)).toBe(1);
    }
    expect(retried).toBeGreaterThan(10);
  });

  it('scores wrong, mistyped and missing answers 0', () => {
    const nameTask = tasks.find((t) => t.accepted[0].kind === 'name')!;
    const numberTask = tasks.find((t) => t.accepted[0].kind === 'number')!;
    const n = (numberTask.accepted[0] as { value: number }).value;
    const wrong: [ToolQaTask, ToolQaAnswer | null][] = [
      [nameTask, { kind: 'name', name: 'Nowhere Inn' }],
      [nameTask, { kind: 'number', value: 3 }],
      [nameTask, null],
      [numberTask, { kind: 'number', value: n + 1 }],
      [numberTask, { kind: 'name', name: String(n) }],
    ];
    for (const [t, a] of wrong) expect(scoreToolQa(t, a)).toBe(0);
    expect(scoreToolQa(numberTask, { kind: 'number', value: n })).toBe(1);
  });

  it('keeps excluded questions out (OOD test tasks never in SFT data)', () => {
    const held = new Set(tasks.slice(0, 40).map((t) => toolQaKey(t.question)));
    const train = generateToolQa(world, new Rng(1), 60, held);
    expect(train.length).toBe(60);
    expect(train.some((t) => held.has(toolQaKey(t.question)))).toBe(false);
  });

  it('is deterministic and rejects a bad count', () => {
    expect(generateToolQa(world, new Rng(1), 80)).toEqual(tasks);
    expect(() => generateToolQa(world, new Rng(1), -2)).toThrow(/non-negative/);
  });
});
