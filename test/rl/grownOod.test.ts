// The OOD suite grown to GROWN_OOD unseen tool-QA tasks: the
// SFT card's own tasks stay first, in order, so its figures and every run that read fewer tasks still hold.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildSftData, heldOutToolQa } from '../../src/agent/sftData.ts';
import { toolQaKey } from '../../src/env/toolqa.ts';
import { generateWorld } from '../../src/env/world.ts';
import { sftOriginFromCard } from '../../src/rl/loadPolicy.ts';
import { cardToolQa, GROWN_OOD, originDataset, originEvaluationTasks } from '../../src/rl/rlEnvironment.ts';

describe('the grown OOD suite', () => {
  it("holds 100 tasks with the s card's 63 first, none of them an SFT task", () => {
    const origin = sftOriginFromCard(JSON.parse(readFileSync('public/checkpoints/s-tiny/card.json', 'utf8')));
    const { heldOutQa } = originEvaluationTasks(origin);
    expect(heldOutQa).toHaveLength(GROWN_OOD);
    expect(cardToolQa(origin)).toBe(63);
    const world = generateWorld(origin.world.size, origin.world.seed);
    const sft = buildSftData(world, originDataset(world, origin).train, { seed: origin.world.seed + 1, toolQa: origin.data.toolQa, maxLength: origin.contextLength });
    const card = heldOutToolQa(world, sft, origin.world.seed + 2, 63).map((t) => toolQaKey(t.question));
    expect(heldOutQa.slice(0, 63).map((t) => toolQaKey(t.question))).toEqual(card);
    const seen = new Set(sft.toolQaTasks.map((t) => toolQaKey(t.question)));
    expect(heldOutQa.some((t) => seen.has(toolQaKey(t.question)))).toBe(false);
    expect(new Set(heldOutQa.map((t) => toolQaKey(t.question))).size).toBe(GROWN_OOD);
  });

  it('built once per origin in a process, each caller gets its own copy: what one run changes never reaches the next', () => {
    const origin = sftOriginFromCard(JSON.parse(readFileSync('public/checkpoints/s-tiny/card.json', 'utf8')));
    const first = originEvaluationTasks(origin);
    const fresh = JSON.stringify([first.sft, first.heldOutQa, [...first.world.flights]]);
    first.sft.validation[0].budget = -1;
    first.sft.train.length = 0;
    first.heldOutQa.reverse();
    first.world.flights.clear();
    const again = originEvaluationTasks(origin);
    expect(again.world).not.toBe(first.world);
    expect(JSON.stringify([again.sft, again.heldOutQa, [...again.world.flights]])).toBe(fresh);
  });
});
