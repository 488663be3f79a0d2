// A finished CLI RL run goes on to more steps with `--resume` and a larger `steps`: from the final training state
// it kept beside its policy, its step 3 is that of a run set to 3 steps from the start, to the bit. The
// learning rate (a warm-up, then constant) does not depend on the total; the evaluation at the old end stays in
// the curves as one extra point when evalEvery does not fall there (evaluation draws nothing from the training's
// random stream, so it changes no step). The summary records the extension; a stopped extension resumes; a run
// that kept no state is refused.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resumeFingerprint, runRl, type RlSummary } from '../../src/cli/rlRun.ts';
import { RUN_FILE, writeRunFile } from '../../src/cli/outDir.ts';
import { defaultConfig, type LabConfig } from '../../src/lab/config.ts';
import { rlConfigFromLab } from '../../src/rl/rlConfig.ts';
import { configAsTrained } from '../../src/rl/startConfig.ts';

const tmp = mkdtempSync(join(tmpdir(), 'star-rl-extend-'));
// the shipped s checkpoint; one query × 2 rollouts a step, evaluated every 3 steps on 1 query: a 2-step run
// evaluates at 0 and 2 (its end), a 3-step one at 0 and 3
const LAB: LabConfig = { ...defaultConfig(), scale: 's', steps: 2, queriesPerStep: 1, groupSize: 2, evalEvery: 3, evalQueries: 1, evalToolQa: 0, trainSize: 10, seed: 5 };
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

type Line = Record<string, unknown> & { kind: string; step: number };
/** a metrics line without its timings (wall-clock, not training) */
const lines = (dir: string): Line[] => readFileSync(join(dir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => {
  const m = JSON.parse(l) as Line;
  for (const k of Object.keys(m)) if (k.startsWith('time/') || k === 'eval/seconds') delete m[k];
  return m;
});
const samples = (dir: string) => readFileSync(join(dir, 'samples.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Line);
/** summary.json as written, less when and how long it ran */
const figures = (dir: string) => { const { wallSeconds: _w, cpuSeconds: _c, finishedAt: _f, ...s } = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as RlSummary; return s; };
const run = (out: string, steps: number, resume: boolean) => runRl({ lab: { ...LAB, steps }, out, resume, backend: 'wasm', quiet: true, startCache: join(tmp, 'starts') });

describe('a finished CLI RL run extended to more steps (wasm)', () => {
  it('2 steps extended to 3 train the steps of a 3-step run, bit for bit, with the old end evaluated once more', async () => {
    const extended = join(tmp, 'extended');
    await run(extended, 2, false);
    // kept beside the policy: the final state, of step 2
    expect(JSON.parse(readFileSync(join(extended, 'resume', 'state.json'), 'utf8')).step).toBe(2);
    const noState = join(tmp, 'no-state');
    cpSync(extended, noState, { recursive: true });
    rmSync(join(noState, 'resume'), { recursive: true });

    // without --resume the longer setting is refused with the way to extend; nothing is written
    await expect(run(extended, 3, false)).rejects.toThrow(/holds a finished RL run of 2 steps; --resume extends it to 3/);
    // fewer steps are another setting
    await expect(run(extended, 1, true)).rejects.toThrow(/another setting \(steps 1 here, 2 in the folder/);
    // a run that kept no state (--no-policy) cannot be extended: said, and its folder left as it was
    await expect(run(noState, 3, true)).rejects.toThrow(/cannot be extended: it kept no final training state/);
    expect(figures(noState).steps).toBe(2);

    // an extension stopped (a crash after its step 3) is an unfinished run of 3 steps, which --resume continues
    const crash = (step: number) => { if (step === 3) throw new Error('crashed here'); };
    await expect(runRl({ lab: { ...LAB, steps: 3 }, out: extended, resume: true, backend: 'wasm', quiet: true, afterStep: crash }))
      .rejects.toThrow('crashed here');
    expect(existsSync(join(extended, 'summary.json'))).toBe(false);
    const e = await run(extended, 3, true);
    const fresh = join(tmp, 'fresh');
    const f = await run(fresh, 3, false);
    expect(e.steps).toBe(3);
    expect(e.extended).toEqual([{ from: 2, to: 3 }]);
    expect(f.extended).toBeUndefined();
    // every training line, and every evaluation of the fresh run, the same numbers
    const old = (m: Line) => m.kind === 'eval' && m.step === 2;
    expect(lines(extended).filter((m) => !old(m))).toEqual(lines(fresh));
    expect(lines(extended).filter(old)).toHaveLength(1);
    expect(samples(extended).filter((m) => m.step !== 2)).toEqual(samples(fresh));
    const { extended: _e, ...asFresh } = figures(extended);
    expect(asFresh).toEqual(figures(fresh));
    expect(e.final).toEqual(f.final);
    // the same final weights, and the same final state to extend from again
    for (const file of ['policy/weights.bin', 'resume/weights.3.bin', 'resume/optimizer.3.bin'])
      expect(readFileSync(join(extended, file)).equals(readFileSync(join(fresh, file))), file).toBe(true);
    // --resume at 3 again: finished, nothing trained
    expect((await run(extended, 3, true)).finishedAt).toBe(e.finishedAt);
    expect(existsSync(join(extended, 'resume', 'state.json'))).toBe(true);
  }, 300_000);

  it('a Curriculum with fixed switches is refused: its stages so far followed the shorter total', async () => {
    // a finished 2-step Curriculum run's record (nothing trains before the refusal)
    const lab: LabConfig = { ...LAB, reward: 'curriculum' };
    const card = JSON.parse(readFileSync('public/checkpoints/s-tiny/card.json', 'utf8')) as { world: { size: LabConfig['worldSize'] }; weights: { sha256: string } };
    const dir = join(tmp, 'curriculum');
    mkdirSync(dir);
    writeRunFile(dir, resumeFingerprint(configAsTrained(lab, card.world), rlConfigFromLab(lab), card.weights.sha256, 'wasm'));
    writeFileSync(join(dir, 'summary.json'), '{}\n');
    const before = readFileSync(join(dir, RUN_FILE), 'utf8');
    await expect(runRl({ lab: { ...lab, steps: 3 }, out: dir, resume: true, backend: 'wasm', quiet: true }))
      .rejects.toThrow(/holds a run of 2 steps that cannot be extended: a Curriculum with fixed switches/);
    expect(readFileSync(join(dir, RUN_FILE), 'utf8')).toBe(before);
    expect(existsSync(join(dir, 'summary.json'))).toBe(true);
  });
});
