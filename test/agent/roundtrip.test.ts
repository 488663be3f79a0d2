// Every teacher trajectory of a dataset must survive the token language exactly: calls parse back
// to the same calls, the plan decodes back to the teacher's plan, and the loss mask covers exactly
// the calls, the plan and <eos>. Same for the tool-QA teacher's episodes.
import { describe, expect, it } from 'vitest';
import { generateWorld } from '../../src/env/world.ts';
import { buildDataset } from '../../src/env/queries.ts';
import { teachTrajectory } from '../../src/env/teacher.ts';
import { generateToolQa, teachToolQa } from '../../src/env/toolqa.ts';
import { Rng } from '../../src/env/random.ts';
import { encodeTrajectory, parseCallTokens } from '../../src/agent/encode.ts';
import { decodePlan, unresolvableNext } from '../../src/agent/plan.ts';
import { decodeToolQaAnswer, encodeToolQaEpisode, toolQaBaseDate } from '../../src/agent/toolqaCodec.ts';
import { VOCAB } from '../../src/agent/vocab.ts';

const id = (t: string) => VOCAB.id(t);

/** [start, end) spans of `<open> … <close>` in tokens */
function spans(tokens: number[], open: string, close: string): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < tokens.length; i++) if (tokens[i] === id(open)) {
    const j = tokens.indexOf(id(close), i);
    out.push([i, j + 1]);
    i = j;
  }
  return out;
}

describe('round trip on every teacher trajectory', () => {
  const world = generateWorld('tiny', 3);
  const ds = buildDataset(world, { size: 60, mix: [4, 3, 3], seed: 3, validationSize: 20, testSize: 0 });

  it.each([0, 0.3])('travel plans (teacher failure rate %s)', (failureRate) => {
    const rng = new Rng(11);
    let n = 0;
    for (const q of [...ds.train, ...ds.validation]) {
      const traj = teachTrajectory(world, q, { rng, failureRate });
      if (!traj) continue;
      n++;
      const enc = encodeTrajectory(traj);
      const calls = spans(enc.tokens, '<call>', '</call>');
      expect(calls.map(([a, b]) => parseCallTokens(enc.tokens.slice(a, b), q.date[0]))).toEqual(traj.steps.map((s) => ({ ok: true, value: s.call })));
      const [planStart, planEnd] = spans(enc.tokens, '<plan>', '</plan>')[0];
      expect(decodePlan(enc.tokens.slice(planStart, planEnd), { query: q, steps: traj.steps })).toEqual({ ok: true, value: traj.plan });
      // the loss mask is exactly: calls, plan, final <eos>
      const want = enc.tokens.map(() => 0);
      for (const [a, b] of [...calls, [planStart, enc.tokens.length]]) for (let i = a; i < b; i++) want[i] = 1;
      expect(enc.lossMask).toEqual(want);
      expect(enc.tokens[enc.tokens.length - 1]).toBe(id('<eos>'));
    }
    expect(n).toBeGreaterThan(60);
  });

  it('constrained decoding never bans a teacher token, and every banned ref breaks the plan', () => {
    const rng = new Rng(12);
    let refs = 0;
    for (const q of ds.train) {
      const traj = teachTrajectory(world, q, { rng, failureRate: 0.2 });
      if (!traj) continue;
      const enc = encodeTrajectory(traj);
      const [s, e] = spans(enc.tokens, '<plan>', '</plan>')[0];
      const plan = enc.tokens.slice(s, e);
      const ctx = { query: q, steps: traj.steps };
      for (let i = 1; i < plan.length; i++) {
        const banned = unresolvableNext(plan.slice(0, i), ctx);
        expect(banned).not.toContain(plan[i]);
        // swap the teacher's ref for the first banned one: the plan must no longer decode
        const ref = banned.find((b) => VOCAB.tokens[b].startsWith('#'));
        if (ref === undefined || !VOCAB.tokens[plan[i]].startsWith('#')) continue;
        refs++;
        expect(decodePlan([...plan.slice(0, i), ref, ...plan.slice(i + 1)], ctx).ok).toBe(false);
      }
    }
    expect(refs).toBeGreaterThan(200);
  });

  it('tool-QA episodes', () => {
    const rng = new Rng(5);
    const tasks = generateToolQa(world, rng, 40);
    let n = 0;
    for (const task of tasks) {
      const ep = teachToolQa(world, task, rng, { failureRate: 0.2 });
      if (!ep) continue;
      n++;
      const enc = encodeToolQaEpisode(ep);
      const calls = spans(enc.tokens, '<call>', '</call>');
      expect(calls.map(([a, b]) => parseCallTokens(enc.tokens.slice(a, b), toolQaBaseDate(task)))).toEqual(ep.steps.map((s) => ({ ok: true, value: s.call })));
      const ans = enc.tokens.indexOf(id('<ans>'));
      expect(decodeToolQaAnswer(task, enc.tokens.slice(ans), ep.steps)).toEqual({ ok: true, value: ep.answer });
      expect(enc.lossMask.slice(ans).every((m) => m === 1)).toBe(true);
    }
    expect(n).toBeGreaterThan(30);
  });
});
