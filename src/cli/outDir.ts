// What a command may do with its --out folder: nothing a researcher made is lost by a command
// that writes. One folder holds one run: a command that trains (run, sft, pretrain, sweep's runs) refuses
// a folder holding another run, or the same run with another setting, unless --resume (the same setting,
// continued) or --force (replaced, and said so); export-job refuses any non-empty folder unless --force.
// Nothing is deleted that the lab did not write: --force refuses a folder holding anything but a run (or an
// export job), and a run it replaces is renamed aside to <out>.replaced-<time>/, kept, and named. Renaming is
// one step, so an interruption leaves the old run or the new one, never a mix of both.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { writeAtomic } from '../node/atomicWrite.ts';
import { dirname, join } from 'node:path';
import { rlConfigFromRecord } from '../rl/rlConfig.ts';

/** `dir` made (with its parents); a path that is a file, or under one, is named, not Node's raw EEXIST / ENOTDIR.
 *  `what` is the flag that named it, for the message (e.g. "--out results/x") */
export function makeOutDir(dir: string, what = `--out ${dir}`): void {
  if (existsSync(dir) && !statSync(dir).isDirectory())
    throw new Error(`${what}: ${dir} is a file, not a folder; choose another path (nothing was written)`);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR')
      throw new Error(`${what}: a folder on the path ${dir} is a file; choose another path (nothing was written)`, {
        cause: e,
      });
    throw e;
  }
}

/** checks, writing nothing, that FILE can be written: not a folder, and no folder on its path is a file */
export function checkOutFile(file: string, flag = '--out'): void {
  if (existsSync(file) && statSync(file).isDirectory())
    throw new Error(`${flag} ${file} is a folder, not a file; name a file (nothing was written)`);
  let dir = dirname(file);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  if (existsSync(dir) && !statSync(dir).isDirectory())
    throw new Error(`${flag} ${file}: ${dir} is a file, not a folder; choose another path (nothing was written)`);
}

/** the parent folder of a file that --out / --json FILE names, made with the same clear errors; FILE itself must not be
 * a folder */
export function makeOutFileParent(file: string, flag = '--out'): void {
  if (existsSync(file) && statSync(file).isDirectory())
    throw new Error(`${flag} ${file} is a folder, not a file; name a file (nothing was written)`);
  makeOutDir(dirname(file), `${flag} ${file}`);
}

/** the file every export job writes (its manifest): a folder holding it is an export job --force may replace */
export const EXPORT_JOB_FILE = 'job.json';

/**
 * export-job's rule: `dir` must be absent or empty, or --force given and `dir` an earlier export job (nothing
 * else is replaced); a file is refused whatever the flags. Returns whether it holds something (which
 * replaceDir will move aside).
 */
export function checkOutDirFree(dir: string, force: boolean): boolean {
  if (!existsSync(dir)) return false;
  if (!statSync(dir).isDirectory())
    throw new Error(`--out ${dir}: ${dir} is a file, not a folder; choose another path (nothing was written)`);
  const held = readdirSync(dir);
  if (held.length > 0 && !force)
    throw new Error(
      `--out ${dir} exists and is not empty; pass --force to replace it, or choose another folder (nothing was written)`,
    );
  if (held.length > 0 && !held.includes(EXPORT_JOB_FILE)) {
    throw new Error(
      `--out ${dir} holds files that are not an export job (${held.slice(0, 3).join(', ')}); --force replaces only an earlier job: choose another folder (nothing was written or moved)`,
    );
  }
  return held.length > 0;
}

/** where a replaced folder is kept: `<dir>.replaced-<UTC time>` (a second one within the second gets -2, -3, …) */
function asidePath(dir: string): string {
  const stamp = new Date().toISOString().slice(0, 19).replace(/:/g, '-');
  let aside = `${dir}.replaced-${stamp}`;
  for (let k = 2; existsSync(aside); k++) aside = `${dir}.replaced-${stamp}-${k}`;
  return aside;
}

/** moves `dir` aside in one rename (kept whole, never deleted) and says where on stderr; returns the new path */
export function moveAside(dir: string, why: string, who = '--force'): string {
  const aside = asidePath(dir);
  renameSync(dir, aside);
  console.error(`${who}: moved ${dir} aside to ${aside} (${why}); delete it yourself once it is not needed`);
  return aside;
}

/** `staging` becomes `dir`; an existing `dir` is renamed aside first and kept there (returned): readers see the
 *  old folder or the new, whole */
export function replaceDir(staging: string, dir: string): string | null {
  const aside = existsSync(dir) ? asidePath(dir) : null;
  if (aside) renameSync(dir, aside);
  try {
    renameSync(staging, dir);
  } catch (e) {
    if (aside) renameSync(aside, dir); // put the old one back
    throw e;
  }
  return aside;
}

/** the setting a training run was started with, written into its folder before anything else */
export const RUN_FILE = 'run.json';
const RUN_FORMAT = 'star-lab-run/1';

export interface RunKind {
  /** what the folder holds once finished, e.g. "RL run" or "SFT checkpoint" */
  noun: string;
  /** the file whose presence makes the run finished (written last) */
  finishedFile: string;
  /** the files and folders a run of this kind writes: anything else in the folder is not ours to replace silently */
  files: readonly string[];
  /** what belongs beside a run without being written by it (a sweep's run.log, which its parent holds open; repro's
   *  pretrain/ stage): it neither makes the folder a run nor is deleted when a run starts again fresh */
  kept?: readonly string[];
  /** the fingerprint of a finished run written before run.json existed (null: not recorded) */
  legacyFingerprint?: (dir: string) => string | null;
  /** a line about a finished run (e.g. its figures), for the "nothing to do" message */
  describeFinished?: (dir: string) => string;
  /** a fingerprint's step count and the rest of its setting (absent: runs of this kind are never extended) */
  stepsOf?: (fingerprint: string) => { steps: number; rest: string } | null;
}

export type RunStart =
  | { action: 'fresh' }
  | { action: 'resume' }
  /** --resume on the same setting, finished: nothing to train */
  | { action: 'finished' }
  /** --resume with more steps than the folder's run, the rest of the setting the same: it goes on to `to`
   *  (finished or not; the caller checks that it kept its training state, and records the extension) */
  | { action: 'extend'; from: number; to: number; finished: boolean; fingerprint: string };

export interface RunDirOptions {
  /** the command line's flag names, for messages ('if-saved': resume without a word of --resume, a sweep's runs) */
  resume: boolean | 'if-saved';
  force: boolean;
  /** what a resumed run must share with the one that saved (the resume state's fingerprint) */
  fingerprint: string;
  kind: RunKind;
}

/**
 * What a training command does with `dir` (checked before anything is written): start fresh, resume, or
 * nothing (finished). Refuses, with what to do instead, a file, a folder of other things, a run of another
 * setting, and an existing run of this setting without --resume; --force replaces any of them (atomically,
 * saying so). On `fresh` the folder exists, empty but for run.json.
 */
export function prepareRunDir(dir: string, o: RunDirOptions): RunStart {
  if (o.resume && o.force)
    throw new Error('--resume and --force: choose one (--resume continues the run in the folder, --force replaces it)');
  if (existsSync(dir) && !statSync(dir).isDirectory())
    throw new Error(`--out ${dir}: ${dir} is a file, not a folder; choose another path (nothing was written)`);
  const held = existsSync(dir) ? readdirSync(dir).filter((f) => !(o.kind.kept ?? []).includes(f)) : [];
  const fresh = (): RunStart => {
    makeOutDir(dir);
    writeRunFile(dir, o.fingerprint);
    return { action: 'fresh' };
  };
  if (held.length === 0) {
    if (o.resume === true) console.error(`--resume: nothing saved in ${dir}; starting the run fresh`);
    return fresh();
  }
  const state = runDirState(dir, held, o.kind);
  const holds =
    state.kind === 'foreign'
      ? `files that are not ${aOr(o.kind.noun)} (${state.examples.join(', ')})`
      : `${state.kind === 'finished' ? 'a finished' : 'an unfinished'} ${o.kind.noun}${state.savedStep !== null ? ` (saved at step ${state.savedStep})` : ''}`;
  if (state.kind === 'foreign') {
    throw new Error(
      `--out ${dir} holds ${holds}; ${o.force ? `--force replaces only ${aOr(o.kind.noun)}, never other files: ` : ''}choose another folder (nothing was written or moved)`,
    );
  }
  if (o.force) {
    moveAside(dir, `it held ${holds}`);
    return fresh();
  }
  // the same setting but for more steps: --resume extends it (from its saved state), a plain command says so
  const longer =
    state.fingerprint !== null && (state.kind === 'finished' || state.savedStep !== null)
      ? extension(state.fingerprint, o.fingerprint, o.kind)
      : null;
  if (longer && o.resume === true)
    return { action: 'extend', ...longer, finished: state.kind === 'finished', fingerprint: state.fingerprint! };
  if (longer && !o.resume) {
    throw new Error(
      `--out ${dir} already holds ${holds} of ${longer.from} steps; --resume extends it to ${longer.to}, choose another folder, or pass --force to replace it (nothing was written)`,
    );
  }
  const other =
    state.fingerprint !== null && state.fingerprint !== o.fingerprint
      ? settingDifference(state.fingerprint, o.fingerprint)
      : null;
  if (other !== null) {
    throw new Error(
      `--out ${dir} already holds ${holds} of another setting (${other}); choose another folder, or pass --force to replace it (nothing was written)`,
    );
  }
  if (!o.resume) {
    const next =
      state.kind === 'finished'
        ? 'keep it (--resume says it is finished and trains nothing)'
        : 'continue it with --resume';
    throw new Error(
      `--out ${dir} already holds ${holds}; ${next}, choose another folder, or pass --force to replace it (nothing was written)`,
    );
  }
  if (state.kind === 'finished') {
    const said =
      state.fingerprint === null ? ' (its setting was not recorded, so it is not checked against this one)' : '';
    console.error(
      `--resume: ${dir} holds this ${o.kind.noun}, finished${said}; nothing to train${o.kind.describeFinished ? `: ${o.kind.describeFinished(dir)}` : ''}`,
    );
    return { action: 'finished' };
  }
  if (state.savedStep === null) {
    if (o.resume === true)
      console.error(`--resume: nothing saved in ${dir} yet (stopped before its first save); starting the run fresh`);
    for (const f of held) rmSync(join(dir, f), { recursive: true, force: true }); // `held` leaves out what is kept
    writeRunFile(dir, o.fingerprint);
    return { action: 'fresh' };
  }
  return { action: 'resume' };
}

/** the steps of a run `here` that goes on from the folder's: the same setting but for more steps (null: not that) */
function extension(inFolder: string, here: string, kind: RunKind): { from: number; to: number } | null {
  const [a, b] = [kind.stepsOf?.(inFolder), kind.stepsOf?.(here)];
  return a && b && a.rest === b.rest && b.steps > a.steps ? { from: a.steps, to: b.steps } : null;
}

type DirState =
  | { kind: 'foreign'; examples: string[] }
  | { kind: 'finished' | 'unfinished'; fingerprint: string | null; savedStep: number | null };

function runDirState(dir: string, held: string[], kind: RunKind): DirState {
  const foreign = held.filter(
    (f) => f !== RUN_FILE && f !== 'resume' && !kind.files.includes(f) && !f.includes('.tmp-'),
  );
  if (foreign.length > 0) return { kind: 'foreign', examples: foreign.slice(0, 3) };
  const recorded = readRunFile(dir);
  const saved = readJsonOrNull(join(dir, 'resume', 'state.json')) as { fingerprint?: string; step?: number } | null;
  const savedStep = typeof saved?.step === 'number' ? saved.step : null;
  if (existsSync(join(dir, kind.finishedFile))) {
    return { kind: 'finished', fingerprint: recorded ?? kind.legacyFingerprint?.(dir) ?? null, savedStep: null };
  }
  return {
    kind: 'unfinished',
    fingerprint: recorded ?? (typeof saved?.fingerprint === 'string' ? saved.fingerprint : null),
    savedStep,
  };
}

/** run.json: the setting the run in `dir` trains (an extension writes its longer one) */
export function writeRunFile(dir: string, fingerprint: string): void {
  writeAtomic(
    join(dir, RUN_FILE),
    JSON.stringify({ format: RUN_FORMAT, fingerprint, startedAt: new Date().toISOString() }) + '\n',
  );
}

function readRunFile(dir: string): string | null {
  const r = readJsonOrNull(join(dir, RUN_FILE)) as { format?: string; fingerprint?: string } | null;
  return r?.format === RUN_FORMAT && typeof r.fingerprint === 'string' ? r.fingerprint : null;
}

function readJsonOrNull(path: string): unknown {
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

/** "an RL run", "a sweep": the article as the noun is said (RL and SFT start with a vowel sound) */
export function aOr(noun: string): string {
  return `${/^([aeiou]|RL\b|SFT\b)/i.test(noun) ? 'an' : 'a'} ${noun}`;
}

/** which settings two fingerprints (JSON objects) differ in, e.g. "steps 40 here, 20 in the folder" */
export function settingDifference(inFolder: string, here: string): string {
  let a: unknown, b: unknown;
  try {
    a = JSON.parse(inFolder);
    b = JSON.parse(here);
  } catch {
    return 'its recorded setting differs';
  }
  const diffs: string[] = [];
  const walk = (x: unknown, y: unknown, path: string) => {
    if (JSON.stringify(x) === JSON.stringify(y)) return;
    // a trainer config is fingerprinted in the form runs first recorded it: named as the settings table names it
    const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
    if (path === 'rl' && isRecord(x) && isRecord(y)) [x, y] = [rlConfigFromRecord(x), rlConfigFromRecord(y)];
    if (
      x &&
      y &&
      typeof x === 'object' &&
      typeof y === 'object' &&
      !Array.isArray(x) &&
      !Array.isArray(y) &&
      path.split('.').length < 3
    ) {
      for (const k of new Set([...Object.keys(x), ...Object.keys(y)]))
        walk((x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k], path ? `${path}.${k}` : k);
      return;
    }
    const isHash = (h: unknown): h is string => typeof h === 'string' && (h === '' || h.startsWith('#'));
    if (isHash(x) && isHash(y)) {
      // two lab hashes: the settings they differ in, not two cuts of one long shared prefix
      const params = (h: string) => new Map(h.slice(1).split('&').filter(Boolean).map((p) => p.split('=') as [string, string]));
      const [px, py] = [params(x), params(y)];
      for (const k of new Set([...px.keys(), ...py.keys()]))
        if (px.get(k) !== py.get(k)) diffs.push(`${k} ${py.get(k) ?? 'default'} here, ${px.get(k) ?? 'default'} in the folder`);
      return;
    }
    // long values cut where they start to differ, so the two shown parts are never the same text
    const from = Math.max(0, [...(JSON.stringify(x) ?? '')].findIndex((c, i) => c !== (JSON.stringify(y) ?? '')[i]) - 12);
    const show = (v: unknown) => {
      const s = JSON.stringify(v) ?? 'none';
      const cut = from > 0 ? `…${s.slice(from)}` : s;
      return cut.length > 40 ? `${cut.slice(0, 37)}…` : cut;
    };
    diffs.push(`${path || 'setting'} ${show(y)} here, ${show(x)} in the folder`);
  };
  walk(a, b, '');
  return diffs.length === 0
    ? 'its recorded setting differs'
    : diffs.slice(0, 4).join('; ') + (diffs.length > 4 ? `; and ${diffs.length - 4} more` : '');
}
