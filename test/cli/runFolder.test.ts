// Nothing a researcher ran is overwritten: a command that trains refuses a folder holding another
// run, or this run without --resume; --resume on a finished run trains nothing and says so; --resume with
// nothing saved says it starts fresh; --force moves the old run aside in one rename (kept, named), so a
// replacement stopped half-way leaves a resumable new run and nothing of the old one in the folder; --force
// never touches a folder of other files. An --out that is a file is named.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { runRl } from '../../src/cli/rlRun.ts';
import { checkOutDirFree, checkOutFile, makeOutFileParent, prepareRunDir, replaceDir, settingDifference } from '../../src/cli/outDir.ts';
import { SFT_RUN_KIND, sftCommand } from '../../src/cli/commands/sft.ts';
import { queriesCommand } from '../../src/cli/commands/queries.ts';
import { sweepCommand } from '../../src/cli/commands/sweep.ts';
import { defaultConfig, type LabConfig } from '../../src/lab/config.ts';
import { writeResumeState } from '../../src/node/checkpointDir.ts';
import type { Checkpoint } from '../../src/rl/checkpoint.ts';

const tmp = mkdtempSync(join(tmpdir(), 'star-run-folder-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());
// the shipped s checkpoint; 2 steps of one query × 2 rollouts, evaluated at 0 and 2 on 2 queries
const LAB: LabConfig = { ...defaultConfig(), scale: 's', steps: 2, queriesPerStep: 1, groupSize: 2, evalEvery: 2, evalQueries: 2, evalToolQa: 1, trainSize: 10, seed: 3 };
const base = { backend: 'wasm' as const, quiet: true, keepPolicy: false };
const stderrOf = () => {
  const lines: string[] = [];
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => { lines.push(a.join(' ')); });
  return lines;
};

describe('an RL run never overwrites another run', () => {
  it('refuses, resumes as finished, refuses another setting, and replaces with --force', async () => {
    const dir = join(tmp, 'rl');
    const said = stderrOf();
    await runRl({ ...base, lab: LAB, out: dir, resume: true });
    expect(said.join('\n')).toMatch(/--resume: nothing saved in .*; starting the run fresh/);
    // what it loads and will do, before the step-0 evaluation
    expect(said.join('\n')).toMatch(/starting .*rl: GRPO with the \w+ reward from s-tiny \(.*preset s, the tiny world, seed 1\), 2 steps of 1 query × 2 rollouts, wasm; evaluated at step 0, every 2 steps and at the end on 2 validation queries \+ 1 unseen tool-QA tasks/);
    const summary = readFileSync(join(dir, 'summary.json'), 'utf8');
    const metrics = readFileSync(join(dir, 'metrics.jsonl'), 'utf8');

    // the same run again without --resume or --force: refused, the folder as it was
    await expect(runRl({ ...base, lab: LAB, out: dir, resume: false })).rejects.toThrow(/already holds a finished RL run; keep it \(--resume.*--force to replace it/);
    // --resume: finished, nothing trained (the files untouched), exit as a success
    said.length = 0;
    const again = await runRl({ ...base, lab: LAB, out: dir, resume: true });
    expect(said.join('\n')).toMatch(/holds this RL run, finished; nothing to train: 2 steps/);
    expect(JSON.stringify(again)).toBe(JSON.stringify(JSON.parse(summary)));
    // another setting, even with --resume: refused, naming what differs
    await expect(runRl({ ...base, lab: { ...LAB, seed: 4 }, out: dir, resume: true })).rejects.toThrow(/of another setting \(.*seed 4 here, 3 in the folder/);
    expect(readFileSync(join(dir, 'summary.json'), 'utf8')).toBe(summary);
    expect(readFileSync(join(dir, 'metrics.jsonl'), 'utf8')).toBe(metrics);

    // --force: the old run goes in one rename; stopped after its first step, the folder holds the new run only
    said.length = 0;
    const stop = (step: number) => { if (step === 1) throw new Error('stopped here'); };
    await expect(runRl({ ...base, lab: { ...LAB, seed: 4 }, out: dir, resume: false, force: true, resumeEvery: 1, afterStep: stop })).rejects.toThrow('stopped here');
    expect(said.join('\n')).toMatch(/--force: moved .*rl aside to .*rl\.replaced-[0-9T-]+ \(it held a finished RL run\)/);
    expect(existsSync(join(dir, 'summary.json'))).toBe(false);
    const aside = readdirSync(tmp).filter((f) => f.startsWith('rl.replaced-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(tmp, aside[0], 'summary.json'), 'utf8')).toBe(summary); // the old run, kept whole
    expect(readFileSync(join(dir, 'metrics.jsonl'), 'utf8')).not.toContain(metrics.split('\n')[0]);
    // without --resume the unfinished run is refused too; with it, it continues to the end
    await expect(runRl({ ...base, lab: { ...LAB, seed: 4 }, out: dir, resume: false })).rejects.toThrow(/already holds an unfinished RL run \(saved at step 1\); continue it with --resume/);
    const replaced = await runRl({ ...base, lab: { ...LAB, seed: 4 }, out: dir, resume: true });
    expect(replaced.lab.seed).toBe(4);
    expect(replaced.steps).toBe(2);
    expect(await runRl({ ...base, lab: LAB, out: dir, resume: true, force: true }).catch((e: Error) => e.message)).toMatch(/choose one/);
  }, 120_000);

  it('refuses a folder of other files and a --out that is a file, before anything is written', async () => {
    const other = join(tmp, 'other');
    mkdirSync(other);
    writeFileSync(join(other, 'notes.txt'), 'mine');
    await expect(runRl({ ...base, lab: LAB, out: other, resume: true })).rejects.toThrow(/holds files that are not an RL run \(notes\.txt\)/);
    // --force replaces a run, never a user's files: refused, nothing moved or deleted
    await expect(runRl({ ...base, lab: LAB, out: other, resume: false, force: true })).rejects.toThrow(/holds files that are not an RL run \(notes\.txt\); --force replaces only an RL run/);
    expect(readdirSync(other)).toEqual(['notes.txt']);
    expect(readdirSync(tmp).filter((f) => f.startsWith('other.replaced-'))).toEqual([]);
    expect(readFileSync(join(other, 'notes.txt'), 'utf8')).toBe('mine');
    const file = join(tmp, 'a-file');
    writeFileSync(file, 'x');
    await expect(runRl({ ...base, lab: LAB, out: file, resume: false })).rejects.toThrow(/is a file, not a folder/);
    await expect(runRl({ ...base, lab: LAB, out: join(file, 'under'), resume: false })).rejects.toThrow(/a folder on the path .* is a file/);
    expect(() => makeOutFileParent(join(file, 'q.jsonl'))).toThrow(/a-file is a file, not a folder/);
    // the early check of a long command (evaluate --json, bench --json) names the file on the path and makes nothing
    expect(() => checkOutFile(join(file, 'deep', 'e.json'), '--json')).toThrow(/--json .*: .*a-file is a file, not a folder/);
    checkOutFile(join(tmp, 'fresh', 'deep', 'e.json'), '--json');
    expect(existsSync(join(tmp, 'fresh'))).toBe(false);
    await expect(queriesCommand.run(['--out', join(file, 'q.jsonl'), '--count', '1'])).rejects.toThrow(/--out .*q\.jsonl: .*a-file is a file, not a folder/);
  }, 60_000);
});

describe('the folder rule of the SFT and export commands', () => {
  it('sft refuses a finished checkpoint without --resume and leaves it with --resume (before any training)', async () => {
    const dir = join(tmp, 'sft');
    mkdirSync(dir);
    for (const f of ['model.json', 'weights.bin', 'card.json']) writeFileSync(join(dir, f), f);
    await expect(sftCommand.run(['--preset', 's', '--steps', '1', '--out', dir])).rejects.toThrow(/already holds a finished SFT checkpoint/);
    const said = stderrOf();
    expect(await sftCommand.run(['--preset', 's', '--steps', '1', '--out', dir, '--resume'])).toBe(0);
    expect(said.join('\n')).toMatch(/finished \(its setting was not recorded/);
    expect(readFileSync(join(dir, 'card.json'), 'utf8')).toBe('card.json');
    // a repro's pretrain/ stage beside the SFT folder is kept, not taken for another run
    const repro = join(tmp, 'repro');
    mkdirSync(join(repro, 'pretrain'), { recursive: true });
    expect(prepareRunDir(repro, { resume: true, force: false, fingerprint: '{}', kind: SFT_RUN_KIND })).toEqual({ action: 'fresh' });
    expect(existsSync(join(repro, 'pretrain'))).toBe(true);
  });

  it('export-job\'s check and swap: a non-empty folder needs --force, other files are refused, and the swap is whole', () => {
    const out = join(tmp, 'job');
    mkdirSync(out);
    expect(checkOutDirFree(out, false)).toBe(false);
    writeFileSync(join(out, 'old'), 'old');
    expect(() => checkOutDirFree(out, false)).toThrow(/exists and is not empty; pass --force/);
    expect(() => checkOutDirFree(out, true)).toThrow(/not an export job \(old\)/);
    writeFileSync(join(out, 'job.json'), '{}');
    expect(checkOutDirFree(out, true)).toBe(true);
    // a staging folder that cannot be moved in leaves the old folder where it was
    expect(() => replaceDir(join(tmp, 'no-such-staging'), out)).toThrow();
    expect(readFileSync(join(out, 'old'), 'utf8')).toBe('old');
    const staging = join(tmp, 'staging');
    mkdirSync(staging);
    writeFileSync(join(staging, 'new'), 'new');
    const aside = replaceDir(staging, out);
    expect(existsSync(join(out, 'old'))).toBe(false);
    expect(readFileSync(join(aside!, 'old'), 'utf8')).toBe('old'); // moved aside, not deleted
    expect(statSync(join(out, 'new')).isFile()).toBe(true);
  });

  it('names the settings two runs differ in', () => {
    expect(settingDifference('{"a":1,"b":{"c":2}}', '{"a":1,"b":{"c":3}}')).toBe('b.c 3 here, 2 in the folder');
    // two lab hashes name the settings they differ in; two long values are cut where they differ, never to one prefix
    expect(settingDifference('{"hash":"#scale=m&steps=20&seed=3"}', '{"hash":"#scale=m&steps=40"}')).toBe(
      'steps 40 here, 20 in the folder; seed default here, 3 in the folder',
    );
    const long = (end: string) => JSON.stringify({ k: `${'x'.repeat(60)}${end}` });
    const said = settingDifference(long('aaa'), long('bbb'));
    expect(said).toContain('bbb');
    expect(said).toContain('aaa');
    // a trainer config recorded under its first names is described under the settings table's
    const rl = (constrainPlan: boolean) => JSON.stringify({ rl: { constrainPlan, maxGenBatches: 3 } });
    expect(settingDifference(rl(true), rl(false))).toBe('rl.planDecoding "free" here, "constrained" in the folder');
  });
});

describe('a sweep checks its folders first and says nothing of --resume', () => {
  it('an --out that is a file is refused before any run (no runs folder made)', async () => {
    const file = join(tmp, 'sweep-out-file');
    writeFileSync(file, 'x');
    const runs = join(tmp, 'sweep-runs');
    await expect(sweepCommand.run(['--preset', 'T7', '--quick', '--jobs', '1', '--out', file, '--runs', runs])).rejects.toThrow(/--out .*sweep-out-file is a file, not a folder/);
    expect(existsSync(runs)).toBe(false);
  });

  it("a sweep's run starting fresh says nothing of --resume; a user's --resume on an empty folder says so", () => {
    const said = stderrOf();
    expect(prepareRunDir(join(tmp, 'sweep-fresh'), { resume: 'if-saved', force: false, fingerprint: '{}', kind: SFT_RUN_KIND })).toEqual({ action: 'fresh' });
    expect(said).toEqual([]);
    expect(prepareRunDir(join(tmp, 'user-fresh'), { resume: true, force: false, fingerprint: '{}', kind: SFT_RUN_KIND })).toEqual({ action: 'fresh' });
    expect(said.join('\n')).toMatch(/--resume: nothing saved in .*user-fresh; starting the run fresh/);
  });
});

describe('a save cut short by a full disk', () => {
  it('leaves the previous state whole and no shard of its own beside it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'star-save-cut-'));
    try {
      const ckpt = (step: number) => ({ weights: new ArrayBuffer(8), weightSpecs: [], optimizer: new ArrayBuffer(8), optimizerSpecs: [],
        rngState: [1], step, config: {} }) as unknown as Checkpoint;
      writeResumeState(dir, ckpt(2), 'fp');
      // the optimizer shard of step 4 meets a full disk: its temporary file is /dev/full, which refuses every write
      symlinkSync('/dev/full', join(dir, 'resume', `optimizer.4.bin.tmp-${process.pid}`));
      expect(() => writeResumeState(dir, ckpt(4), 'fp')).toThrow(/ENOSPC/);
      expect(readdirSync(join(dir, 'resume')).sort()).toEqual(['optimizer.2.bin', 'state.json', 'weights.2.bin']);
      expect(JSON.parse(readFileSync(join(dir, 'resume', 'state.json'), 'utf8')).step).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
