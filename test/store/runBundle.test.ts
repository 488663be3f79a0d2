import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LabStore } from '../../src/store/labStore.ts';
import { BUNDLE_FORMAT, BundleError, decodeRunBundle, encodeRunBundle, type RunBundle } from '../../src/store/runBundle.ts';
import type { EpisodeRecord, MetricPoint, RunRecord } from '../../src/store/records.ts';

let dbCount = 0;
const freshStore = () => LabStore.open(`run-bundle-test-${++dbCount}`);

function sampleBundle(id = 'run-a', weights = new Float32Array([1, 2, 3, 4, 5, 6])): RunBundle {
  const run: RunRecord = {
    id,
    kind: 'rl',
    config: { stage: 'rl', scale: 's', reward: 'sum', steps: 2 },
    status: 'completed',
    createdAt: 1000,
    updatedAt: 5000,
    backend: 'wasm · simd · 1 thread',
    // how the backend was chosen travels with the run
    calibration: {
      mode: 'measured', scale: 's', choice: 'wasm', measuredAt: 900, summary: 'measured: wasm · simd · 1 thread (1.9 s/step at s) — at least 12× faster here than webgpu · swiftshader',
      figures: [
        { backend: 'wasm', label: 'wasm · simd · 1 thread', status: 'measured', decodeStepMs: 5, trainMicroBatchMs: 60, stepMs: 1900, atLeastMs: null, costMs: 3000 },
        { backend: 'webgpu', label: 'webgpu · swiftshader', status: 'dropped', decodeStepMs: 120, trainMicroBatchMs: null, stepMs: null, atLeastMs: 24000, costMs: 21000, note: 'already slower after 1 decode step' },
      ],
    },
    summary: { steps: 2, totalSteps: 2, last: { 'reward/mean': 0.5, 'eval/success': 0.25 }, meanStepMs: 120 },
  };
  const metrics: MetricPoint[] = [
    { runId: id, step: 0, t: 10, values: { 'eval/success': 0.1, 'eval/ood_accuracy': 0.5 } },
    { runId: id, step: 1, t: 200, values: { 'reward/mean': 0.3 } },
    { runId: id, step: 2, t: 400, values: { 'reward/mean': 0.5, 'eval/success': 0.25, 'eval/ood_accuracy': 0.4 } },
  ];
  const episodes: EpisodeRecord[] = [
    { runId: id, step: 2, index: 0, createdAt: 450, reward: 0.5, trajectory: { kind: 'travel', prompt: 'a trip', calls: [], checks: [], plan: null } },
    { runId: id, step: 2, index: 1, createdAt: 450, reward: 0.1, trajectory: { kind: 'toolqa', prompt: 'a question', calls: [] } },
  ];
  return {
    run,
    metrics,
    episodes,
    checkpoint: {
      runId: id,
      step: 2,
      createdAt: 420,
      weights: weights.buffer as ArrayBuffer,
      weightSpecs: [{ name: 'w', shape: [weights.length], dtype: 'float32' }],
      optimizer: new Float32Array([7, 8]).buffer,
      optimizerSpecs: [{ name: 'm', shape: [1], dtype: 'float32' }, { name: 'iter', shape: [], dtype: 'float32' }],
      rngState: [1, 2, 3, 4],
    },
  };
}

const bytes = (b: ArrayBuffer) => [...new Uint8Array(b)];
const counts = async (store: LabStore) => ({
  runs: await store.db.count('runs'),
  metrics: await store.db.count('metrics'),
  checkpoints: await store.db.count('checkpoints'),
  episodes: await store.db.count('episodes'),
});
/** what the page does with a file: check it, then store it */
const importText = async (store: LabStore, text: string) => (await store.importRunBundle(await decodeRunBundle(text))).id;

/** the sample bundle's JSON, edited */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test edits the file's JSON freely
async function edited(change: (file: any) => void): Promise<string> {
  const file = JSON.parse(await encodeRunBundle(sampleBundle()));
  change(file);
  return JSON.stringify(file);
}
const base64Of = (a: Uint8Array) => btoa(String.fromCharCode(...a));

describe('run bundles', () => {
  it('round-trip a run with its points, episodes and checkpoint through the file and the store', async () => {
    const original = sampleBundle();
    const text = await encodeRunBundle(original, 123);
    const file = JSON.parse(text);
    expect(file.format).toBe(BUNDLE_FORMAT);
    expect(file.checkpoint.weights.bytes).toBe(24);
    expect(file.checkpoint.weights.sha256).toMatch(/^[0-9a-f]{64}$/);

    const decoded = await decodeRunBundle(text);
    expect(decoded.run).toEqual(original.run);
    expect(decoded.metrics).toEqual(original.metrics);
    expect(decoded.episodes).toEqual(original.episodes);
    expect(bytes(decoded.checkpoint!.weights)).toEqual(bytes(original.checkpoint!.weights));
    expect(bytes(decoded.checkpoint!.optimizer)).toEqual(bytes(original.checkpoint!.optimizer));

    const store = await freshStore();
    expect(await store.importRunBundle(decoded)).toEqual({ id: 'run-a', already: false });
    const read = await store.readRunBundle('run-a');
    expect(read?.run).toEqual(original.run);
    expect(read?.metrics).toEqual(original.metrics);
    expect(read?.episodes).toEqual(original.episodes);
    expect(bytes(read!.checkpoint!.weights)).toEqual(bytes(original.checkpoint!.weights));
    // and out again: the same file
    expect(JSON.parse(await encodeRunBundle(read!, 123))).toEqual(file);
    store.close();
  });

  it('round-trips any finite metric values and any float32 weights', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { minLength: 1, maxLength: 5 }),
        fc.float32Array({ minLength: 0, maxLength: 64 }),
        async (values, weights) => {
          const b = sampleBundle('run-p', weights);
          b.metrics = values.map((x, step) => ({ runId: 'run-p', step, t: step, values: { m: x } }));
          b.run = { ...b.run, config: { ...b.run.config, steps: 5 }, summary: { ...b.run.summary, totalSteps: 5 } }; // room for the points
          const back = await decodeRunBundle(await encodeRunBundle(b));
          expect(back.metrics.map((p) => p.values.m)).toEqual(values.map((x) => (Object.is(x, -0) ? 0 : x)));
          expect(bytes(back.checkpoint!.weights)).toEqual(bytes(b.checkpoint!.weights));
        },
      ),
      { numRuns: 30 },
    );
  });

  // the bug: the same bundle imported twice was stored twice (`run-a-import`), doubling its curves
  it('recognises a bundle imported again and keeps the run once', async () => {
    const store = await freshStore();
    const text = await encodeRunBundle(sampleBundle());
    expect(await store.importRunBundle(await decodeRunBundle(text))).toEqual({ id: 'run-a', already: false });
    const after = await counts(store);
    expect(await store.importRunBundle(await decodeRunBundle(text))).toEqual({ id: 'run-a', already: true });
    // exported again from the store (another exportedAt, the records read back from IndexedDB): still the same run
    const exported = await encodeRunBundle((await store.readRunBundle('run-a'))!, 999);
    expect(await store.importRunBundle(await decodeRunBundle(exported))).toEqual({ id: 'run-a', already: true });
    expect(await counts(store)).toEqual(after);
    store.close();
  });

  it('gives a different run whose id is taken a new id, never overwrites, and recognises that copy too', async () => {
    const store = await freshStore();
    expect(await importText(store, await encodeRunBundle(sampleBundle()))).toBe('run-a');
    // the same id, other weights: another run (say, trained on after it was exported)
    const other = await encodeRunBundle(sampleBundle('run-a', new Float32Array([1, 2, 3, 4, 5, 7])));
    expect(await importText(store, other)).toBe('run-a-import');
    expect(await importText(store, other)).toBe('run-a-import'); // found again, not stored a third time
    const third = sampleBundle();
    third.metrics[1] = { ...third.metrics[1], values: { 'reward/mean': 0.31 } };
    expect(await importText(store, await encodeRunBundle(third))).toBe('run-a-import-2');
    expect((await store.listRuns()).items.map((r) => r.id).sort()).toEqual(['run-a', 'run-a-import', 'run-a-import-2']);
    const copy = await store.readRunBundle('run-a-import');
    expect(copy?.metrics.every((p) => p.runId === 'run-a-import')).toBe(true);
    expect(copy?.episodes).toHaveLength(2);
    expect(copy?.checkpoint?.runId).toBe('run-a-import');
    expect(await counts(store)).toEqual({ runs: 3, metrics: 9, checkpoints: 3, episodes: 6 });
    store.close();
  });

  it('brings a running run in as interrupted (no worker runs it here)', async () => {
    const b = sampleBundle();
    b.run.status = 'running';
    const store = await freshStore();
    await importText(store, await encodeRunBundle(b));
    expect((await store.getRun('run-a'))?.status).toBe('interrupted');
    store.close();
  });

  const corrupt: [string, () => Promise<string>, RegExp][] = [
    ['bad JSON', async () => '{"format": "star-lab-run-bundle/1", ', /not valid JSON.*cut short/],
    ['a file cut in half', async () => (await encodeRunBundle(sampleBundle())).slice(0, 300), /not valid JSON/],
    ['a wrong format tag', () => edited((f) => (f.format = 'star-lab-run-bundle/9')), /not a STAR Lab run bundle \(format "star-lab-run-bundle\/9"/],
    ['no format at all', async () => JSON.stringify([1, 2]), /not a STAR Lab run bundle \(format missing/],
    ['a schema violation', () => edited((f) => (f.run.status = 'exploded')), /does not match its format: run\.status/],
    ['weights that do not match their hash', () => edited((f) => (f.checkpoint.weights.base64 = base64Of(new Uint8Array(new Float32Array([1, 2, 3, 4, 5, 7]).buffer)))),
      /weights do not match their SHA-256/],
    ['a hash that was edited', () => edited((f) => (f.checkpoint.weights.sha256 = '0'.repeat(64))), /weights do not match their SHA-256/],
    ['truncated weights', () => edited((f) => (f.checkpoint.weights.base64 = f.checkpoint.weights.base64.slice(0, 12))), /weights are 9 bytes, the bundle says 24 \(truncated\?\)/],
    ['weights shorter than their tensor list', () => edited((f) => {
      f.checkpoint.weights.base64 = base64Of(new Uint8Array(new Float32Array([1, 2, 3]).buffer));
      f.checkpoint.weights.bytes = 12;
    }), /weights are 12 bytes, their tensor list describes 24/],
    ['weights that are not base64', () => edited((f) => (f.checkpoint.weights.base64 = '!!!!')), /weights are not valid base64/],
    ['metrics of another run', () => edited((f) => (f.metrics[1].runId = 'run-b')), /metric point at step 1 belongs to run "run-b", not to the bundle's run "run-a"/],
    ['an episode of another run', () => edited((f) => (f.episodes[0].runId = 'run-b')), /episode at step 2 belongs to run "run-b"/],
    ['a checkpoint of another run', () => edited((f) => (f.checkpoint.runId = 'run-b')), /checkpoint belongs to run "run-b"/],
    ['two points at one step', () => edited((f) => (f.metrics[1].step = 2)), /two metric points at step 2/],
    // the bug: a setup no link could give was imported and shown with defaults in its place
    ['a scale no link could give', () => edited((f) => (f.run.config.scale = 'xl')), /setup is not one a link could give: run\.config\.scale: “xl” must be one of s, m, l$/],
    ['negative steps', () => edited((f) => (f.run.config.steps = -5)), /run\.config\.steps: “-5” must be between 1 and \d+$/],
    // every fault is named, not the first with a count of the rest
    ['two bad settings', () => edited((f) => Object.assign(f.run.config, { scale: 'xl', steps: -5 })),
      /^the bundle has 2 faults: \(1\) .*run\.config\.scale: “xl” must be one of s, m, l; \(2\) .*run\.config\.steps: “-5” must be between 1 and \d+$/],
    ['two schema violations', () => edited((f) => Object.assign(f.run, { status: 'exploded', createdAt: 'yesterday' })),
      /^the bundle has 2 faults: \(1\) .*run\.(status|createdAt).*; \(2\) .*run\.(status|createdAt)/],
    ['a bad setting, a stray point and a corrupt checkpoint', () => edited((f) => {
      f.run.config.scale = 'xl';
      f.metrics[1].runId = 'run-b';
      f.checkpoint.weights.sha256 = '0'.repeat(64);
    }), /^the bundle has 3 faults: \(1\) the metric point at step 1 belongs to run "run-b".*; \(2\) .*run\.config\.scale.*; \(3\) the checkpoint's weights do not match their SHA-256/],
    ['a setting this lab does not have', () => edited((f) => (f.run.config.foo = 'bar')), /run\.config\.foo is not a setting of this lab$/],
    ['a mix that is not three parts', () => edited((f) => (f.run.config.mix = [1, 2])), /run\.config\.mix: “1:2” must be three parts/],
    ['contradicting curriculum switches', () => edited((f) => Object.assign(f.run.config, { curriculumSwitch1: 0.8, curriculumSwitch2: 0.2 })),
      /run\.config \(curriculumSwitch1, curriculumSwitch2\): the curriculum must switch to Macro before it switches to Success/],
    ['a stage other than the run', () => edited((f) => (f.run.config.stage = 'sft')), /an RL run, but its setup says stage sft/],
    ['steps other than the run', () => edited((f) => (f.run.config.steps = 40)), /setup says 40 steps, its summary 2/],
    ['a point past the last step', () => edited((f) => (f.metrics[2].step = 3)), /a metric point at step 3, past the run's 2 steps/],
    ['a checkpoint past the last step', () => edited((f) => (f.checkpoint.step = 9)), /the checkpoint at step 9, past the run's 2 steps/],
  ];
  for (const [name, make, reason] of corrupt) {
    it(`refuses ${name} with its reason, and stores nothing`, async () => {
      const store = await freshStore();
      await importText(store, await encodeRunBundle(sampleBundle('run-other')));
      const before = await counts(store);
      const error = await importText(store, await make()).then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(BundleError);
      expect((error as Error).message).toMatch(reason);
      expect(await counts(store)).toEqual(before);
      store.close();
    });
  }

  it('takes a setup a link could give, its missing settings at their defaults (a bundle of an older build)', async () => {
    const b = sampleBundle();
    b.run = { ...b.run, config: { scale: 's', steps: 2 } };
    expect((await decodeRunBundle(await encodeRunBundle(b))).run.config).toEqual({ scale: 's', steps: 2 });
    const demo = sampleBundle();
    demo.run = { ...demo.run, kind: 'demo-sort', config: {}, summary: { ...demo.run.summary, totalSteps: 40 } };
    expect((await decodeRunBundle(await encodeRunBundle(demo))).run.kind).toBe('demo-sort');
  });

  it('writes nothing when a write fails halfway through the import', async () => {
    const store = await freshStore();
    const b = sampleBundle();
    // a function cannot be stored: the episode's write fails after the run's and the points' were queued
    b.episodes[1] = { ...b.episodes[1], trajectory: { kind: 'toolqa', fn: () => 1 } };
    await expect(store.importRunBundle(b)).rejects.toThrow();
    expect(await counts(store)).toEqual({ runs: 0, metrics: 0, checkpoints: 0, episodes: 0 });
    store.close();
  });

  it('lists the steps that have episodes and reads one step', async () => {
    const store = await freshStore();
    const b = sampleBundle();
    b.episodes.push({ runId: 'run-a', step: 0, index: 0, createdAt: 1, trajectory: { kind: 'travel' } });
    await store.importRunBundle(b);
    await store.importRunBundle(sampleBundle('run-b'));
    expect(await store.episodeSteps('run-a')).toEqual([0, 2]);
    expect((await store.readEpisodesAt('run-a', 2)).items.map((e) => e.index)).toEqual([0, 1]);
    expect((await store.readEpisodesAt('run-a', 0)).items).toHaveLength(1);
    expect(await store.episodeSteps('run-missing')).toEqual([]);
    store.close();
  });

  it('reads nothing for a run that is not stored', async () => {
    const store = await freshStore();
    expect(await store.readRunBundle('nope')).toBeNull();
    store.close();
  });
});
