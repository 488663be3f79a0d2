// The page and the CLI give the same metrics for the same link: the committed CLI run
// results/reference/arpo-s-3steps (test/cli/referenceRun.test.ts reruns it through the CLI) is run again the
// page's way — the worker's loop (ActiveRun) around the RL job, from the shipped checkpoint served over
// fetch, storing into IndexedDB — and every point it sends the page must hold the CLI's numbers to the bit
// (wall-clock timings aside). Both drive src/rl/rlRunLoop.ts; this holds them to it. It also checks the
// page's side of the loop's schedule: samples stored at each evaluation, a checkpoint at the evaluation
// before the last step and at the end.
import 'fake-indexeddb/auto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { useNodeBackend } from '../../src/node/nodeBackend.ts';
import { parseHash } from '../../src/lab/urlState.ts';
import { withMetricNames } from '../../src/lab/metrics.ts';
import { LabStore } from '../../src/store/labStore.ts';
import type { RunRecord } from '../../src/store/records.ts';
import { ActiveRun } from '../../src/worker/activeRun.ts';
import type { WorkerEvent } from '../../src/worker/api.ts';
import { RlJob } from '../../src/worker/rlJob.ts';
import { withoutAdded } from '../cli/referenceAdditions.ts';

const REF = 'results/reference/arpo-s-3steps';
const BASE = 'http://lab.test/';

/** serves public/checkpoints/<name>/ at BASE, as the lab's static server does */
function serveCheckpoints(): void {
  vi.stubGlobal('fetch', async (input: URL | string) => {
    const m = /^\/checkpoints\/([a-z]-tiny)\/(model\.json|weights\.bin|card\.json)$/.exec(new URL(String(input)).pathname);
    const file = m && join('public', 'checkpoints', m[1], m[2]);
    if (!file || !existsSync(file)) return new Response('not found', { status: 404 });
    return new Response(readFileSync(file));
  });
}

/** a metrics record without its wall-clock timings */
function numbers(m: Record<string, unknown>): Record<string, unknown> {
  const out = { ...m };
  for (const k of Object.keys(out)) if (k.startsWith('time/') || k === 'eval/seconds' || k === 'stepMs' || k === 'kind' || k === 'step') delete out[k];
  return out;
}

beforeAll(async () => {
  await useNodeBackend('wasm');
});
afterEach(() => vi.unstubAllGlobals());

describe.skipIf(!existsSync('public/checkpoints/s-tiny/card.json'))('the page runs a CLI run\'s link to the same metrics', () => {
  it(`${REF}: every point the worker sends is the CLI's step, to the bit`, async () => {
    const summary = JSON.parse(readFileSync(join(REF, 'summary.json'), 'utf8')) as { hash: string; backend: string };
    expect(summary.backend).toBe('wasm');
    // the reference predates the rollout metrics' `charts/` names: read it as old records are read
    const cli = readFileSync(join(REF, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => withMetricNames(JSON.parse(l) as Record<string, unknown>));
    // the CLI writes a step's training line and its evaluation's apart; the page keeps one point per step
    const want = new Map<number, Record<string, unknown>>();
    for (const line of cli) want.set(Number(line.step), { ...want.get(Number(line.step)), ...numbers(line) });

    serveCheckpoints();
    const job = new RlJob({ lab: parseHash(summary.hash).config, baseUrl: BASE });
    await job.init();
    const store = await LabStore.open('page-runs-cli-link');
    const run: RunRecord = { id: 'ref', kind: 'rl', config: {}, status: 'running', createdAt: 1, updatedAt: 1, backend: 'wasm',
      summary: { steps: 0, totalSteps: job.totalSteps, last: {} } };
    await store.putRun(run);
    const events: WorkerEvent[] = [];
    const active = new ActiveRun(run, job, store, (batch) => void events.push(...batch));
    await active.loop(null);
    expect(active.error).toBeUndefined();
    expect(active.status).toBe('completed');

    const points = events.flatMap((e) => (e.type === 'points' ? e.points : []));
    expect(points.map((p) => p.step)).toEqual([...want.keys()]);
    // the metrics added since the reference was made: on every training point, beside the reference's own
    for (const p of points)
      expect(withoutAdded(numbers(p.values), p.values['reward/mean'] !== undefined), `the point of step ${p.step}`).toEqual(want.get(p.step));
    // the loop's schedule on the page's side: samples at each evaluation (2 and 3), a checkpoint at 2 and at the end
    expect(await store.episodeSteps('ref')).toEqual([2, 3]);
    expect(await store.checkpointSteps('ref')).toEqual([2, 3]);
  }, 180_000);
});
