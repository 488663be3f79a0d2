// A CLI RL run stopped mid-way and resumed ends with the figures of the run that was never stopped (the
// findings' runs evaluate only at their end, so they save their state every `resumeEvery` steps: a session
// that ends mid-run loses at most those steps). The resumed run's metrics.jsonl keeps every step once — the
// saved step's own line included — and a save cut short (shards written, state.json not) leaves the
// previous state whole. A disk that fills mid-run stops it with a message that says so, the last saved state
// kept; once there is room, --resume ends as the straight run did.
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runRl, type RlSummary } from '../../src/cli/rlRun.ts';
import { defaultConfig, type LabConfig } from '../../src/lab/config.ts';
import { TENSORBOARD_FILE } from '../../src/store/tensorboardEvents.ts';
import { readEventFile } from '../store/tfeventsReader.ts';

const tmp = mkdtempSync(join(tmpdir(), 'star-rl-resume-'));
// the shipped s checkpoint; 4 steps of one query × 2 rollouts, evaluated at 0 and 4 on 3 queries
const LAB: LabConfig = { ...defaultConfig(), scale: 's', steps: 4, queriesPerStep: 1, groupSize: 2, evalEvery: 4, evalQueries: 3, evalToolQa: 1, trainSize: 10, seed: 5 };
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** a metrics line without its timings (wall-clock, not training) */
const lines = (dir: string) => readFileSync(join(dir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => {
  const m = JSON.parse(l) as Record<string, unknown>;
  for (const k of Object.keys(m)) if (k.startsWith('time/') || k === 'eval/seconds') delete m[k];
  return m;
});

describe('a CLI RL run resumes where it saved (wasm)', () => {
  it('stopped after step 3 with a save every 2 steps, it redoes step 3 and ends as the straight run did', async () => {
    const straight = join(tmp, 'straight');
    const a = await runRl({ lab: LAB, out: straight, resume: false, backend: 'wasm', quiet: true, keepPolicy: false, resumeEvery: 2 });
    expect(existsSync(join(straight, 'resume'))).toBe(false); // a finished run keeps no state
    // its TensorBoard events, read by a reader independent of the writer, hold every metric of every line
    const events = readEventFile(readFileSync(join(straight, TENSORBOARD_FILE)));
    const points = new Set(events.flatMap((e) => e.values.filter((v) => v.simpleValue !== undefined).map((v) => `${v.tag}@${e.step}`)));
    const metrics = readFileSync(join(straight, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const wanted = metrics.flatMap((m) => Object.entries(m).filter(([k, v]) => k !== 'step' && typeof v === 'number' && Number.isFinite(v)).map(([k]) => `${k}@${String(m.step)}`));
    expect(wanted.length).toBeGreaterThan(40);
    expect(wanted.filter((w) => !points.has(w))).toEqual([]);
    expect(events.flatMap((e) => e.values).find((v) => v.tag === 'config')?.text).toContain(a.hash);

    const stopped = join(tmp, 'stopped');
    const stop = (step: number) => { if (step === 3) throw new Error('stopped here'); };
    await expect(runRl({ lab: LAB, out: stopped, resume: false, backend: 'wasm', quiet: true, keepPolicy: false, resumeEvery: 2, afterStep: stop }))
      .rejects.toThrow('stopped here');
    // the state of step 2 (not 3: off the cadence), its shards alone; a save of step 4 cut short before its state.json
    expect(JSON.parse(readFileSync(join(stopped, 'resume', 'state.json'), 'utf8')).step).toBe(2);
    expect(readdirSync(join(stopped, 'resume')).sort()).toEqual(['optimizer.2.bin', 'state.json', 'weights.2.bin']);
    writeFileSync(join(stopped, 'resume', 'weights.4.bin'), new Uint8Array(16));
    expect(lines(stopped).filter((m) => m.kind === 'train').map((m) => m.step)).toEqual([1, 2, 3]);

    const b: RlSummary = await runRl({ lab: LAB, out: stopped, resume: true, backend: 'wasm', quiet: true, keepPolicy: false, resumeEvery: 2 });
    expect(lines(stopped)).toEqual(lines(straight)); // eval 0, train 1…4, eval 4: each once, the same numbers
    // summary.json as written (JSON: a NaN reads back as null), less when and how long it ran
    const figures = (dir: string) => { const { wallSeconds: _w, cpuSeconds: _c, finishedAt: _f, ...s } = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as RlSummary; return s; };
    expect(figures(stopped)).toEqual(figures(straight));
    expect(b.final.success).toBe(a.final.success);
    expect(b.cpuSeconds).toBeGreaterThan(0);
    expect(existsSync(join(stopped, 'resume'))).toBe(false);
  }, 300_000);

  it('a full disk mid-run: a clear error, a failing exit, the last saved state kept and resumable', async () => {
    const straight = join(tmp, 'straight'); // the run above, never stopped
    const full = join(tmp, 'full');
    const kept = join(tmp, 'metrics.kept');
    // after step 2 (saved), every line the run appends meets a full disk: /dev/full answers each write with ENOSPC
    const fillDisk = (step: number) => {
      if (step !== 2) return;
      renameSync(join(full, 'metrics.jsonl'), kept);
      symlinkSync('/dev/full', join(full, 'metrics.jsonl'));
    };
    await expect(runRl({ lab: LAB, out: full, resume: false, backend: 'wasm', quiet: true, keepPolicy: false, resumeEvery: 2, afterStep: fillDisk }))
      .rejects.toThrow(/could not write to .*full: the disk is full \(ENOSPC\).*; the last saved state, step 2 of 4, is kept/);
    expect(JSON.parse(readFileSync(join(full, 'resume', 'state.json'), 'utf8')).step).toBe(2);
    expect(readdirSync(join(full, 'resume')).filter((f) => f.includes('.tmp-'))).toEqual([]);
    // room again: the run continues from its save and ends as the straight one
    rmSync(join(full, 'metrics.jsonl'));
    renameSync(kept, join(full, 'metrics.jsonl'));
    await runRl({ lab: LAB, out: full, resume: true, backend: 'wasm', quiet: true, keepPolicy: false, resumeEvery: 2 });
    expect(lines(full)).toEqual(lines(straight));
  }, 300_000);
});
