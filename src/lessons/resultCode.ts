// A lesson arm's result as a link a learner pastes into the class's chat: `#lesson=<id>&result=<code>`.
// The code is `v1.<payload>.<crc>`: the payload a positional JSON array in base64url (what a class needs:
// lesson and arm, the setting, seed, backend, build, start and end success and OOD, the mechanism's
// last-ten-steps figures), the CRC-32 of `v1.<payload>` in hex. The checksum guards against accidents — a
// truncated paste, a mistyped character, a number edited by hand — not against a forger, who can recompute
// it: the class view says so. CRC-32 from the `crc-32` package (SheetJS; typed, no dependencies, the
// de-facto JS CRC). Pure: no DOM, no tfjs.
import CRC32 from 'crc-32';
import { LESSON_IDS, type LessonId } from '../lab/urlState.ts';
import { lessonById, runWindows, type Lesson } from './lessons.ts';
import { meanOver, type LearnerRun } from './lessonTakeaway.ts';

export const RESULT_CODE_VERSION = 1;

/** one learner's finished arm, as a class reads it */
export interface LessonResult {
  lesson: LessonId;
  /** the arm's key (LessonArm.key) */
  arm: string;
  /** the run's setting without its seed, as a short hash (settingHash): runs of one setting share it */
  setting: string;
  seed: number;
  /** the backend the run trained on (wasm, webgl, webgpu, cpu) */
  backend: string;
  /** the page's build: results of two builds may differ by the code, not the dice */
  build: string;
  /** held-out validation: queries evaluated, successes at the start and at the end */
  queries: number;
  startSuccesses: number;
  endSuccesses: number;
  /** OOD accuracy (unseen tool-QA) at the start and the end, shares; null when not evaluated */
  startOod: number | null;
  endOod: number | null;
  /** per mechanism chart of the lesson, in its order: the mean over the run's last quarter of steps (null: not
   * reported) */
  mechanism: (number | null)[];
}

export type RefusalReason = 'malformed' | 'tampered' | 'version' | 'lesson';
/** a shared link the page will not read, and why in words */
export type RefusedLink = { ok: false; reason: RefusalReason; message: string };
/** what the page shows of any shared link it reads: its facts in reading order and its verdict in a sentence */
export interface ShownLink<Verdict extends string> {
  ok: true;
  /** label → value, in reading order */
  facts: [string, string][];
  verdict: Verdict;
  /** the verdict in a sentence, its numbers in it */
  verdictText: string;
}
export type DecodedResult =
  { ok: true; result: LessonResult; code: string } | { ok: false; reason: RefusalReason; message: string };

/** a short stable hash of a setting's text (CRC-32, hex): the code carries it instead of the whole link */
export function settingHash(settingKey: string): string {
  return hex(crc32(settingKey));
}

const crc32 = (text: string): number => CRC32.str(text);
const hex = (signed: number) => (signed >>> 0).toString(16).padStart(8, '0');
const round = (x: number | null, digits = 4) => (x === null || !Number.isFinite(x) ? null : Number(x.toFixed(digits)));

function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(code: string): string {
  const bin = atob(code.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (code.length % 4)) % 4));
  return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

/** the result's code; throws on a result no class could read back (so nothing unreadable is ever offered) */
export function encodeResult(r: LessonResult): string {
  const payload = [
    RESULT_CODE_VERSION,
    r.lesson,
    r.arm,
    r.setting,
    r.seed,
    r.backend,
    r.build,
    r.queries,
    r.startSuccesses,
    r.endSuccesses,
    round(r.startOod),
    round(r.endOod),
    r.mechanism.map((m) => round(m)),
  ];
  const code = sealCode('v', payload);
  const back = decodeResult(code);
  if (!back.ok) throw new Error(`encodeResult: ${back.message}`);
  return code;
}

/** the link a learner shares: the page's address without query or hash, then `#lesson=<id>&result=<code>` */
export function resultLink(base: string, r: LessonResult): string {
  return `${base}#lesson=${r.lesson}&result=${encodeResult(r)}`;
}

const refuse = (reason: RefusalReason, message: string): { ok: false; reason: RefusalReason; message: string } => ({
  ok: false,
  reason,
  message,
});

/**
 * A payload as a checksummed code, `<prefix><version>.<base64url JSON>.<crc32 hex>`: the envelope of every
 * shared result (a lesson's arm `v`, a Lab run `r`), so each reads its fields from one checked opening.
 * The payload's first element is its version.
 */
export function sealCode(prefix: string, payload: readonly unknown[]): string {
  const body = `${prefix}${String(payload[0])}.${toBase64Url(JSON.stringify(payload))}`;
  return `${body}.${hex(crc32(body))}`;
}

/** Opens a code sealed with `prefix`: its shape, its version, its checksum, its JSON; never throws. */
export function openCode(
  prefix: string,
  version: number,
  code: string,
): { ok: true; fields: unknown } | { ok: false; reason: RefusalReason; message: string } {
  const m = new RegExp(`^${prefix}(\\d+)\\.([A-Za-z0-9_-]+)\\.([0-9a-f]{8})$`).exec(code.trim());
  if (!m)
    return refuse(
      'malformed',
      `not a result code (expected ${prefix}<version>.<payload>.<checksum>): cut short or mistyped?`,
    );
  if (Number(m[1]) !== version)
    return refuse(
      'version',
      `result code version ${m[1]}: this page reads version ${version} — the sharer's page is another build`,
    );
  const body = `${prefix}${m[1]}.${m[2]}`;
  if (hex(crc32(body)) !== m[3])
    return refuse('tampered', 'its checksum does not match: the link was changed or mistyped after it was made');
  try {
    return { ok: true, fields: JSON.parse(fromBase64Url(m[2])) as unknown };
  } catch {
    return refuse('malformed', 'its payload does not decode');
  }
}
const isShare = (x: unknown) => typeof x === 'number' && x >= 0 && x <= 1;
const isCount = (x: unknown) => typeof x === 'number' && Number.isInteger(x) && x >= 0;
const isText = (x: unknown) => typeof x === 'string' && x.length > 0 && x.length <= 64 && /^[\w.:+-]+$/.test(x);

/** reads a code back, checking its version, its checksum and every field; never throws */
export function decodeResult(code: string): DecodedResult {
  const opened = openCode('v', RESULT_CODE_VERSION, code);
  if (!opened.ok) return opened;
  const fields = opened.fields;
  if (!Array.isArray(fields) || fields.length !== 13) return refuse('malformed', 'its payload has the wrong shape');
  const [
    version,
    lesson,
    arm,
    setting,
    seed,
    backend,
    build,
    queries,
    startSuccesses,
    endSuccesses,
    startOod,
    endOod,
    mechanism,
  ] = fields as unknown[];
  if (version !== RESULT_CODE_VERSION) return refuse('malformed', 'its payload names another version than its prefix');
  if (typeof lesson !== 'string' || !(LESSON_IDS as readonly string[]).includes(lesson))
    return refuse('malformed', `names no lesson this page has (${String(lesson)})`);
  const def = lessonById(lesson)!;
  if (!def.arms.some((a) => a.key === arm)) return refuse('malformed', `names no arm of ${lesson} (${String(arm)})`);
  if (typeof setting !== 'string' || !/^[0-9a-f]{8}$/.test(setting))
    return refuse('malformed', 'its setting is not a setting hash');
  if (!isCount(seed) || !isText(backend) || !isText(build))
    return refuse('malformed', 'its seed, backend or build is not readable');
  if (
    !isCount(queries) ||
    (queries as number) < 1 ||
    !isCount(startSuccesses) ||
    !isCount(endSuccesses) ||
    (startSuccesses as number) > (queries as number) ||
    (endSuccesses as number) > (queries as number)
  ) {
    return refuse('malformed', 'its validation counts are impossible (successes above the queries)');
  }
  if (!(startOod === null || isShare(startOod)) || !(endOod === null || isShare(endOod)))
    return refuse('malformed', 'its OOD accuracy is not a share');
  const mechanisms = def.charts.filter((c) => c.role === 'mechanism').length;
  if (
    !Array.isArray(mechanism) ||
    mechanism.length !== mechanisms ||
    !mechanism.every((x) => x === null || (typeof x === 'number' && Number.isFinite(x)))
  ) {
    return refuse('malformed', `its mechanism figures are not the lesson's ${mechanisms}`);
  }
  return {
    ok: true,
    code: code.trim(),
    result: {
      lesson: lesson as LessonId,
      arm: arm as string,
      setting,
      seed: seed as number,
      backend: backend as string,
      build: build as string,
      queries: queries as number,
      startSuccesses: startSuccesses as number,
      endSuccesses: endSuccesses as number,
      startOod: startOod as number | null,
      endOod: endOod as number | null,
      mechanism: mechanism as (number | null)[],
    },
  };
}

/**
 * What a code's payload says of its seed and arm, unchecked (a tampered or cut code may still carry them): only to
 * name a refused line for the teacher, never to pool it. null when nothing readable is there.
 */
export function peekResult(text: string): { seed: number; arm: string } | null {
  const m = /v\d+\.([A-Za-z0-9_-]+)/.exec(text);
  if (!m) return null;
  try {
    const f: unknown = JSON.parse(fromBase64Url(m[1]));
    if (!Array.isArray(f) || !isCount(f[4]) || typeof f[2] !== 'string') return null;
    return { seed: f[4] as number, arm: f[2].slice(0, 40) };
  } catch {
    return null;
  }
}

/**
 * Reads a pasted result link (a whole address, or just its `#lesson=…&result=…`, or a bare code with
 * `lesson` given): the link's lesson must be the code's, and `lesson`, when given, the class's.
 */
export function decodeResultLink(text: string, lesson?: LessonId): DecodedResult {
  const s = text.trim();
  const hash = s.includes('#') ? s.slice(s.indexOf('#') + 1) : s.includes('result=') ? s : null;
  let code = s;
  let labelled: string | null = null;
  if (hash !== null) {
    const params = new URLSearchParams(hash);
    const c = params.get('result');
    if (!c) return refuse('malformed', 'the link holds no result= code');
    code = c;
    labelled = params.get('lesson');
  }
  const decoded = decodeResult(code);
  if (!decoded.ok) return decoded;
  const own = decoded.result.lesson;
  if (labelled !== null && labelled !== own)
    return refuse('lesson', `the link says lesson ${labelled} but its result is of ${own}: relabelled`);
  if (lesson && own !== lesson) return refuse('lesson', `a result of another lesson (${own}), not of ${lesson}`);
  return decoded;
}

/**
 * A finished arm's result from its run (the page's points): validation at the first evaluation (step 0)
 * and the last, OOD beside them, the mechanism charts' means over the last quarter of steps. null until
 * the run has completed with both evaluations. `backend` is the run's backend name (its first word).
 */
export function resultOfRun(o: {
  lesson: Lesson;
  arm: string;
  setting: string;
  run: LearnerRun;
  backend: string;
  build: string;
}): LessonResult | null {
  const { run } = o;
  if (run.status !== 'completed') return null;
  const evals = run.points.filter(
    (p) => Number.isFinite(p.values['eval/success']) && Number.isFinite(p.values['eval/queries']),
  );
  const first = evals[0];
  const last = evals.at(-1);
  if (!first || !last || first.step !== 0 || last.step !== run.totalSteps) return null;
  const queries = last.values['eval/queries'];
  const ood = (p: typeof first) =>
    Number.isFinite(p.values['eval/ood_accuracy']) ? p.values['eval/ood_accuracy'] : null;
  const { late } = runWindows(run.totalSteps);
  return {
    lesson: o.lesson.id,
    arm: o.arm,
    setting: settingHash(o.setting),
    seed: run.seed,
    backend: o.backend.split(/\s/)[0] || 'unknown',
    build: o.build,
    queries,
    startSuccesses: Math.round(first.values['eval/success'] * first.values['eval/queries']),
    endSuccesses: Math.round(last.values['eval/success'] * queries),
    startOod: ood(first),
    endOod: ood(last),
    mechanism: o.lesson.charts.filter((c) => c.role === 'mechanism').map((c) => meanOver(run.points, c.metric, late)),
  };
}
