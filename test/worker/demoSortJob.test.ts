import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { DEMO_DEFAULTS, DemoSortJob } from '../../src/worker/demoSortJob.ts';

const options = { ...DEMO_DEFAULTS, width: 32, batch: 16, steps: 40, seed: 7 };

describe('DemoSortJob (tfjs cpu)', () => {
  it('learns: the loss falls well below chance', async () => {
    await tf.setBackend('cpu');
    const tensorsBefore = tf.memory().numTensors;
    const job = new DemoSortJob(options);
    await job.init();
    const losses: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < options.steps; i++) losses.push((await job.step()).loss);
    const msPerStep = (performance.now() - t0) / options.steps;
    console.log(`demo-sort cpu: ${msPerStep.toFixed(1)} ms/step, loss ${losses[0].toFixed(3)} → ${losses.at(-1)!.toFixed(3)}`);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(losses[0]).toBeGreaterThan(Math.log(11) * 0.9); // starts near chance
    expect(mean(losses.slice(-5))).toBeLessThan(0.7 * mean(losses.slice(0, 5)));
    expect(job.stepsDone).toBe(options.steps);
    const episodes = await job.sampleEpisodes();
    expect(episodes).toHaveLength(3);
    const t = episodes[0].trajectory as { input: number[]; output: number[]; target: number[] };
    expect(t.output).toHaveLength(6);
    expect(t.target).toEqual([...t.input].sort((a, b) => a - b));
    job.dispose();
    expect(tf.memory().numTensors).toBe(tensorsBefore); // nothing leaks
  });

  it('a checkpoint restores weights, optimiser and data stream exactly', async () => {
    await tf.setBackend('cpu');
    const a = new DemoSortJob({ ...options, steps: 6 });
    await a.init();
    for (let i = 0; i < 3; i++) await a.step();
    const state = await a.saveState();
    const expected = [await a.step(), await a.step()];
    a.dispose();

    const b = new DemoSortJob({ ...options, steps: 6 });
    await b.init();
    await b.loadState(state);
    expect(b.stepsDone).toBe(3);
    const got = [await b.step(), await b.step()];
    expect(got).toEqual(expected);
    // a checkpoint of another width is refused with a clear error
    b.dispose();
    const c = new DemoSortJob({ ...options, width: 48, steps: 6 });
    await c.init();
    await expect(c.loadState(state)).rejects.toThrow(/does not fit this model/);
    c.dispose();
  });
});
