import { describe, expect, it } from 'vitest';
import { generateWorld } from '../../src/env/world.ts';
import { buildDataset } from '../../src/env/queries.ts';
import { TOOL_NAMES, callTool } from '../../src/env/tools.ts';
import { renderObservation } from '../../src/env/render.ts';
import { evaluatePlan } from '../../src/env/evaluate.ts';
import { computeReward } from '../../src/env/rewards.ts';
import { observationTokens } from '../../src/agent/encode.ts';
import { Rng } from '../../src/env/random.ts';
import { argumentFields, blankPlan, defaultArguments, parsePlanText, planToText, runHandCall, scorePlan, teacherPlan } from '../../src/sandbox/handPlay.ts';

const world = generateWorld('tiny', 1);
const queries = buildDataset(world, { size: 0, mix: [4, 3, 3], seed: 1, validationSize: 6, testSize: 0 }).validation;
const query = queries.find((q) => q.level === 'hard') ?? queries[0];
const SWITCH = [1 / 3, 2 / 3] as const;

describe('the tool console', () => {
  it('offers valid values and guesses the arguments from the query', () => {
    for (const tool of TOOL_NAMES) {
      const args = defaultArguments(world, tool, query);
      for (const f of argumentFields(world, tool)) {
        expect(f.choices.length, `${tool}.${f.name}`).toBeGreaterThan(0);
        expect(f.choices).toContain(args[f.name]);
      }
    }
    expect(defaultArguments(world, 'SearchFlight', query)).toMatchObject({ departure: query.org, date: query.date[0] });
  });

  it('answers exactly as the rollout loop does: TravelPlanner text and the policy’s tokens', () => {
    const args = defaultArguments(world, 'SearchAccommodation', query);
    const got = runHandCall(world, 'SearchAccommodation', args);
    const obs = callTool(world, { tool: 'SearchAccommodation', args: { city: args.city } });
    expect(got.error).toBe(false);
    expect(got.text).toBe(renderObservation(obs));
    expect(got.tokens).toBe(observationTokens(obs).join(' '));
    expect(got.call).toBe(`SearchAccommodation(${args.city})`);
    expect(got.tokens).toMatch(/^<obs> #1 /);
  });

  it('a bad call is an error observation with the reason, not a throw', () => {
    const got = runHandCall(world, 'SearchFlight', { departure: 'Atlantis', destination: '', date: '2022-03-01' });
    expect(got.error).toBe(true);
    expect(got.text).toMatch(/missing destination/);
    expect(got.step).toBeNull();
    const unknown = runHandCall(world, 'SearchRestaurant', { city: 'Atlantis' });
    expect(unknown.error).toBe(true);
    expect(unknown.text).toMatch(/Atlantis/);
  });

  it('injects failures at the given rate', () => {
    const got = runHandCall(world, 'SearchCity', { state: [...world.citiesByState.keys()][0] }, { failureRate: 0.999, rng: new Rng(3) });
    expect(got.error).toBe(true);
    expect(got.tokens).toContain('<fail>');
  });
});

describe('the plan', () => {
  it('round-trips through its text, and reads TravelPlanner’s Python-literal gold plans', () => {
    const plan = blankPlan(query);
    expect(plan.length).toBe(query.days);
    expect(parsePlanText(planToText(plan))).toEqual({ ok: true, plan });
    const py = "[{'days': 1, 'current_city': 'A', 'transportation': '-', 'breakfast': '-', 'attraction': '-', 'lunch': '-', 'dinner': '-', 'accommodation': '-'}, {}]";
    const read = parsePlanText(py);
    expect(read.ok && read.plan.length).toBe(1);
  });

  it('says what is wrong with a plan it cannot read', () => {
    expect(parsePlanText('  ')).toMatchObject({ ok: false, error: expect.stringMatching(/empty/) });
    expect(parsePlanText('[{"days": 1}]')).toMatchObject({ ok: false, error: expect.stringMatching(/current_city/) });
    expect(parsePlanText('[{"days": 1,')).toMatchObject({ ok: false, error: expect.stringMatching(/cannot be read/) });
    expect(parsePlanText('[]')).toMatchObject({ ok: false, error: expect.stringMatching(/no days/) });
  });

  it('the teacher’s plan passes; scores match evaluatePlan and computeReward', () => {
    const taught = teacherPlan(world, query, 1);
    expect(taught).not.toBeNull();
    const score = scorePlan(world, query, taught!.plan, 0.9, SWITCH);
    expect(score.verdicts).toEqual(evaluatePlan(world, query, taught!.plan));
    expect(score.verdicts.finalPass).toBe(true);
    expect(score.checks.length).toBe(13);
    expect(score.checks.every((c) => c.verdict === 'pass' || c.verdict === 'n/a')).toBe(true);
    for (const r of score.rewards) expect(r.value, r.kind).toBe(computeReward(r.kind, score.verdicts, 0.9, SWITCH));
    expect(score.rewards.find((r) => r.kind === 'curriculum')?.stage).toBe('success');
  });

  it('a blank plan fails with reasons, hard checks gated, and rewards by stage', () => {
    const score = scorePlan(world, query, blankPlan(query), 0.5, SWITCH);
    expect(score.verdicts.finalPass).toBe(false);
    expect(score.checks.filter((c) => c.verdict === 'fail').length).toBeGreaterThan(0);
    for (const c of score.checks) expect(c.reason.length).toBeGreaterThan(0);
    expect(score.checks.filter((c) => c.kind === 'hard').every((c) => c.verdict === 'not checked')).toBe(true);
    const success = score.rewards.find((r) => r.kind === 'success');
    expect(success?.value).toBe(0);
    const cur = score.rewards.find((r) => r.kind === 'curriculum');
    expect(cur?.stage).toBe('macro');
    expect(cur?.value).toBe(score.rewards.find((r) => r.kind === 'macro')?.value);
  });
});
