import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  fewCoresReason,
  threadsRefusedBy,
  alreadySlower, backendNotice, badgeHeadline, badgeText, CALIBRATION, CALIBRATION_CONTEXT, chooseByFigures, comparison, describeCalibration, figureText, forcedNotice, measurementOrder,
  runCalibration, sameDevice, stepEstimateMs, stepSamplesFor, TIE_ORDER, type BackendFigure, type BackendName, type Calibration, type DeviceKey,
} from '../../src/lab/backendChoice.ts';
import { estimateStepMs } from '../../src/lab/runEstimate.ts';
import { defaultConfig } from '../../src/lab/config.ts';

const measured = (backend: BackendName, stepMs: number, label: string = backend): BackendFigure => ({
  backend, label, status: 'measured', decodeStepMs: 1, trainMicroBatchMs: 1, stepMs, atLeastMs: null, costMs: 1000,
});
const dropped = (backend: BackendName, atLeastMs: number, label: string = backend): BackendFigure => ({
  backend, label, status: 'dropped', decodeStepMs: 1, trainMicroBatchMs: null, stepMs: null, atLeastMs, costMs: 1000, note: 'already slower after 1 decode step',
});
const capped = (backend: BackendName): BackendFigure => ({
  backend, label: backend, status: 'capped', decodeStepMs: null, trainMicroBatchMs: null, stepMs: null, atLeastMs: null, costMs: CALIBRATION.capMs, note: 'no figure after 30 s',
});
const failed = (backend: BackendName, note = 'no WebGPU adapter was found'): BackendFigure => ({
  backend, label: backend, status: 'failed', decodeStepMs: null, trainMicroBatchMs: null, stepMs: null, atLeastMs: null, costMs: 5, note,
});
const device: DeviceKey = { adapter: 'google · swiftshader', userAgent: 'Chrome/140', labVersion: 'calibration 1 · /assets/trainingWorker-a.js', cores: 2, isolated: true };
const calibration = (figures: BackendFigure[], scale: Calibration['scale'] = 's'): Calibration => ({
  scale, device, figures, choice: chooseByFigures(figures) ?? 'cpu', measuredAt: 1, costMs: 12_000,
});

describe('chooseByFigures', () => {
  it('takes the faster measured backend', () => {
    expect(chooseByFigures([measured('webgpu', 20_000), measured('wasm', 1_900)])).toBe('wasm');
    expect(chooseByFigures([measured('webgpu', 900), measured('wasm', 1_900)])).toBe('webgpu');
  });

  it('settles a tie (figures within 10 %) by TIE_ORDER: wasm before webgpu, whichever was faster', () => {
    expect(TIE_ORDER[0]).toBe('wasm');
    expect(chooseByFigures([measured('webgpu', 1_000), measured('wasm', 1_090)])).toBe('wasm');
    expect(chooseByFigures([measured('webgpu', 1_090), measured('wasm', 1_000)])).toBe('wasm');
    expect(chooseByFigures([measured('wasm', 1_000), measured('webgpu', 1_000)])).toBe('wasm');
    // just past the tie, the faster wins
    expect(chooseByFigures([measured('webgpu', 1_000), measured('wasm', 1_101)])).toBe('webgpu');
  });

  it('leaves out a failed backend, and falls back to none when all failed', () => {
    expect(chooseByFigures([failed('webgpu'), measured('wasm', 5_000)])).toBe('wasm');
    expect(chooseByFigures([measured('webgpu', 5_000), failed('wasm', 'the tfjs wasm backend failed to start')])).toBe('webgpu');
    expect(chooseByFigures([failed('webgpu'), failed('wasm')])).toBeNull();
    expect(chooseByFigures([])).toBeNull();
  });

  it('lets a capped backend (no figure) lose to any measured one, however slow that is', () => {
    expect(chooseByFigures([measured('wasm', 600_000), capped('webgpu')])).toBe('wasm');
    expect(chooseByFigures([capped('wasm'), measured('webgpu', 600_000)])).toBe('webgpu');
    // with no figure at all, TIE_ORDER among those that did not fail
    expect(chooseByFigures([capped('webgpu'), capped('wasm')])).toBe('wasm');
    expect(chooseByFigures([capped('webgpu'), failed('wasm')])).toBe('webgpu');
  });

  it('never picks a dropped backend over the one that beat it', () => {
    expect(chooseByFigures([measured('wasm', 1_900), dropped('webgpu', 23_000)])).toBe('wasm');
  });

  it('ignores a measured figure that is not a positive finite number', () => {
    expect(chooseByFigures([{ ...measured('webgpu', 0) }, measured('wasm', 2_000)])).toBe('wasm');
    expect(chooseByFigures([{ ...measured('webgpu', Number.NaN) }, measured('wasm', 2_000)])).toBe('wasm');
  });

  it('always answers the fastest measured backend up to a tie (property)', () => {
    const names: BackendName[] = ['webgpu', 'wasm', 'cpu'];
    fc.assert(fc.property(fc.array(fc.double({ min: 1, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 3 }), (times) => {
      const figures = times.map((t, i) => measured(names[i], t));
      const choice = chooseByFigures(figures)!;
      const best = Math.min(...times);
      expect(figures.find((f) => f.backend === choice)!.stepMs!).toBeLessThanOrEqual(best * (1 + CALIBRATION.tie));
    }));
  });
});

describe('measuring', () => {
  it('measures a software adapter (a hint, not the decision) after wasm, a real GPU before it', () => {
    expect(measurementOrder(['webgpu', 'wasm'], 'google · swiftshader')).toEqual(['wasm', 'webgpu']);
    expect(measurementOrder(['webgpu', 'wasm'], 'mesa · llvmpipe')).toEqual(['wasm', 'webgpu']);
    expect(measurementOrder(['webgpu', 'wasm'], 'intel · gen-12lp · (fallback)')).toEqual(['wasm', 'webgpu']);
    expect(measurementOrder(['webgpu', 'wasm'], 'nvidia · ampere')).toEqual(['webgpu', 'wasm']);
    expect(measurementOrder(['wasm'], '')).toEqual(['wasm']);
  });

  it('drops a backend once its fastest decode step alone is slower than the finished figure, not on a tie', () => {
    const best = stepEstimateMs(5, 400);
    // as fast per decode step: not behind yet
    expect(alreadySlower([5], null, best).slower).toBe(false);
    // a decode step whose share alone passes the best figure by more than a tie
    const slowStep = (best * (1 + CALIBRATION.tie)) / CALIBRATION.decodeStepsPerRlStep + 1;
    expect(alreadySlower([slowStep], null, best)).toEqual({ atLeastMs: slowStep * CALIBRATION.decodeStepsPerRlStep, slower: true });
    // the fastest step counts: one slow step among fast ones is not enough
    expect(alreadySlower([slowStep, 5], null, best).slower).toBe(false);
    // nothing finished before: never behind
    expect(alreadySlower([1e6], 1e6, null).slower).toBe(false);
  });

  it('adds the training micro-batch to the figure', () => {
    expect(stepEstimateMs(2, 100)).toBe(2 * CALIBRATION.decodeStepsPerRlStep + 100 * CALIBRATION.microBatchesPerRlStep);
    expect(alreadySlower([2], 100, null).atLeastMs).toBe(stepEstimateMs(2, 100));
  });

  it('decodes a batch of the default RL step (groupSize × queriesPerStep rollouts) and trains half its micro-batch budget', () => {
    const d = defaultConfig();
    expect(CALIBRATION.decodeBatch).toBe(d.groupSize * d.queriesPerStep);
    expect(CALIBRATION.trainRows * CALIBRATION.trainTokens).toBe(d.microBatchTokens / 2);
  });

  it("builds the shipped checkpoints' model: their context length", () => {
    for (const scale of ['s', 'm', 'l']) {
      const card = JSON.parse(readFileSync(new URL(`../../public/checkpoints/${scale}-tiny/card.json`, import.meta.url), 'utf8'));
      expect(card.modelConfig.contextLength).toBe(CALIBRATION_CONTEXT);
    }
  });

  it('counts stored figures only on the same adapter, browser, build, cores and isolation', () => {
    expect(sameDevice(device, { ...device })).toBe(true);
    for (const change of [{ adapter: 'nvidia · ampere' }, { userAgent: 'Chrome/141' }, { labVersion: 'calibration 1 · /assets/trainingWorker-b.js' }, { cores: 8 }, { isolated: false }]) {
      expect(sameDevice(device, { ...device, ...change })).toBe(false);
    }
  });
});

describe('what the page says', () => {
  const swiftshader = calibration([measured('wasm', 1_900, 'wasm · simd · 1 thread'), dropped('webgpu', 23_000, 'webgpu · swiftshader')]);

  it('names the choice and compares it with the other backend', () => {
    expect(comparison(swiftshader.figures[0], swiftshader.figures[1])).toBe('at least 12× faster here than webgpu · swiftshader');
    expect(comparison(measured('webgpu', 1_000, 'webgpu · ampere'), measured('wasm', 4_500))).toBe('4.5× faster here than wasm');
    expect(comparison(measured('wasm', 1_000), measured('webgpu', 1_050))).toMatch(/^as fast as webgpu here \(a tie/);
    expect(comparison(measured('wasm', 1_000), capped('webgpu'))).toMatch(/^webgpu had no figure after 30 s/);
    expect(comparison(measured('wasm', 1_000), failed('webgpu', 'no adapter'))).toBe('webgpu failed (no adapter)');
    expect(describeCalibration(swiftshader)).toBe('wasm · simd · 1 thread (1.9 s/step at s) — at least 12× faster here than webgpu · swiftshader');
    expect(figureText(capped('webgpu'))).toMatch(/^no figure/);
  });

  it('the badge: both figures, and whether it measured now or on an earlier visit', () => {
    const info = { name: 'wasm' as const, label: 'wasm · simd · 1 thread' };
    const now = badgeText({ ...info, choice: { mode: 'measured', scale: 's', calibration: swiftshader, stored: false } }, null)!;
    expect([now.label, now.note]).toEqual(['wasm · simd · 1 thread', 'at least 12× faster here than webgpu · swiftshader']);
    // the figure is an estimate of a default step, not a run's measured step time, and says so
    expect(now.detail).toBe('a default RL step (4 queries × 8 rollouts) at s, estimated from a short timing: wasm 1.9 s · webgpu ≥ 23.0 s (measured just now in 12 s)');
    const later = badgeText({ ...info, choice: { mode: 'measured', scale: 's', calibration: swiftshader, stored: true } }, null)!;
    expect(later.detail).toMatch(/measured on an earlier visit\)$/);
    const during = badgeText(null, { scale: 's', figures: [swiftshader.figures[0]], current: { backend: 'webgpu', label: 'webgpu · swiftshader', phase: 'warming up decoding' }, elapsedMs: 4_200 })!;
    expect(during).toEqual({ label: '', note: 'Measuring the backends at s… (4 s)', detail: 'wasm 1.9 s · webgpu · swiftshader: warming up decoding…' });
  });

  it('a forced backend says it was forced, and how it compares with the measured choice — never "only slower"', () => {
    const wasm = { name: 'wasm' as const, label: 'wasm · simd · 1 thread' };
    const webgpu = { name: 'webgpu' as const, label: 'webgpu · swiftshader' };
    const slower = forcedNotice(webgpu, 's', swiftshader);
    expect(slower).toBe('The backend was forced with ?backend=webgpu in the address: training runs on webgpu · swiftshader. The lab\'s own measurement at s ' +
      'chose wasm · simd · 1 thread here (1.9 s/step; webgpu measured ≥ 23.0 s/step); remove ?backend= to train on it.');
    expect(forcedNotice(wasm, 's', swiftshader)).toMatch(/It is also what the lab's own measurement at s chose here/);
    expect(forcedNotice(wasm, 'm', null)).toMatch(/has not measured them at m here yet\.$/);
    for (const text of [slower, forcedNotice(wasm, 's', swiftshader), forcedNotice(wasm, 'm', null)]) expect(text).not.toMatch(/only slower|the same/);
    expect(backendNotice({ ...wasm, choice: { mode: 'forced', scale: 's', measured: null } })).toMatch(/^The backend was forced with \?backend=wasm/);
    expect(backendNotice({ ...wasm, choice: { mode: 'measured', scale: 's', calibration: swiftshader, stored: true } })).toBeNull();
    expect(backendNotice({ name: 'cpu', label: 'cpu', fallbackReason: 'wasm: no binary', choice: { mode: 'only', scale: 's' } })).toMatch(/^Training runs on cpu.*wasm: no binary\.$/);
  });

  it('no WebGPU adapter is the lab running as designed: no notice, and the badge is one plain line', () => {
    const noAdapter = { name: 'wasm' as const, label: 'wasm · simd · 1 thread (this machine has 2 cores; …)', threads: 1,
      fallbackReason: 'webgpu: no WebGPU adapter was found', choice: { mode: 'only' as const, scale: 'm' as const } };
    expect(backendNotice(noAdapter)).toBeNull();
    expect(badgeHeadline(noAdapter, null)).toBe('CPU (WebAssembly), 1 thread');
    expect(badgeHeadline({ ...noAdapter, threads: 4 }, null)).toBe('CPU (WebAssembly), 4 threads');
    expect(badgeHeadline({ name: 'webgpu', label: 'webgpu · swiftshader', choice: { mode: 'forced', scale: 's', measured: null } }, null))
      .toBe('GPU (WebGPU), forced');
    expect(badgeHeadline(null, { scale: 's', figures: [], current: null, elapsedMs: 4_200 })).toBe('Measuring the backends at s… (4 s)');
  });

  it("a run records its choice: the measurement behind it, or that it was forced", () => {
    const info = { name: 'wasm' as const, label: 'wasm · simd · 1 thread' };
    const run = runCalibration(info, { mode: 'measured', scale: 's', calibration: swiftshader, stored: true });
    expect(run).toEqual({ mode: 'measured', scale: 's', figures: swiftshader.figures, choice: 'wasm', measuredAt: 1, summary: `measured: ${describeCalibration(swiftshader)}` });
    const forced = runCalibration({ name: 'webgpu', label: 'webgpu · swiftshader' }, { mode: 'forced', scale: 's', measured: swiftshader });
    expect(forced.summary).toMatch(/^forced with \?backend=webgpu; measured here at s: wasm/);
    expect(forced.choice).toBe('wasm');
    expect(runCalibration(info, { mode: 'only', scale: 'm' })).toMatchObject({ mode: 'only', figures: [], choice: null, measuredAt: null });
  });
});

describe('estimates from the measured figures', () => {
  const run = (backend: string, scale: string, meanStepMs: number) => ({ kind: 'rl', backend, config: { scale }, summary: { meanStepMs } });
  const swiftshader = calibration([measured('wasm', 2_000), dropped('webgpu', 23_000)]);

  it("uses only this backend's runs, and the calibration figure at a scale none of them ran at", () => {
    const runs = [run('webgpu · swiftshader', 's', 300_000), run('wasm · simd · 1 thread', 'm', 9_000)];
    const samples = stepSamplesFor(runs, 'wasm', [swiftshader]);
    expect(samples.map((s) => [s.config.scale, s.meanStepMs])).toEqual([['m', 9_000], ['s', 2_000]]);
    // the queue's estimate of a default run at s comes from the calibration, not the slow webgpu run
    expect(estimateStepMs({ ...defaultConfig(), scale: 's' }, samples)).toBe(2_000);
    // a dropped backend has no figure to estimate from
    expect(stepSamplesFor([], 'webgpu', [swiftshader])).toEqual([]);
    expect(stepSamplesFor(runs, null, [swiftshader])).toEqual([]);
  });

  it("prefers a stored run's own step time to the calibration at the same scale", () => {
    const samples = stepSamplesFor([run('wasm · simd · 1 thread', 's', 2_500)], 'wasm', [swiftshader]);
    expect(samples.map((s) => s.meanStepMs)).toEqual([2_500]);
  });
});

describe('why wasm runs on one thread (plain words, not "threads pay from 4")', () => {
  it('says how many cores, what splitting the work would need, and what it does instead', () => {
    expect(fewCoresReason(2)).toBe('this machine has 2 cores; splitting the work across cores only speeds it up from 4 cores on, so it runs on one');
    expect(fewCoresReason(3)).toMatch(/^this machine has 3 cores;/);
    expect(fewCoresReason(1)).toBe('this machine has 1 core, so the work runs on one');
    for (const n of [1, 2, 3]) expect(fewCoresReason(n)).not.toMatch(/threads? pay/);
  });
});

describe('browsers whose threaded wasm build hangs', () => {
  it('Firefox (and its forks, which name it) keeps wasm to one thread, and says why; Chromium and Safari do not', () => {
    expect(threadsRefusedBy('Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0')).toMatch(/^in Firefox the threaded build hangs/);
    expect(threadsRefusedBy('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36')).toBeNull();
    expect(threadsRefusedBy('Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15')).toBeNull();
    expect(threadsRefusedBy('')).toBeNull();
  });
});
