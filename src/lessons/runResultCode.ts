// Any Lab run as a result link: `#run=<code>`, the code `r2.<payload>.<crc>` sealed like a lesson's result
// (resultCode.ts sealCode: the checksum catches a link cut short or mistyped, not a forger). The payload is what a
// reader needs to see the run without its browser: the setting (its link without the seed, so the reader can open
// it in the Lab), the seed, kind, status, backend and build, the steps, every evaluation point (step, validation
// successes of n queries, OOD accuracy), the last reward / loss and — from version 2 — the training curves
// (runSeries.ts: reward, success, KL, response length, SFT loss, 6 bits a point). A version-1 code still reads,
// with no curves. Pure: no DOM, no tfjs.
import { parseHash } from '../lab/urlState.ts';
import { openCode, sealCode, type RefusalReason } from './resultCode.ts';
import { decodeSeries, encodeSeries, seriesOf, type RunSeries } from './runSeries.ts';

/** the version this page writes; it reads this one and every one in RUN_CODE_VERSIONS */
export const RUN_CODE_VERSION = 2;
/** version 1: no curves (links made before the curves rode along) */
export const RUN_CODE_VERSIONS = [1, 2] as const;
/** at most this many evaluation points ride in a code (a link stays pasteable); a longer run keeps its first,
 *  its last and evenly spaced ones between */
export const MAX_RUN_EVALS = 40;

/** one evaluation of a shared run */
export interface RunEval {
  step: number;
  /** validation success, a share */
  success: number;
  /** the successes and the queries behind it; null where the run did not record its n (an SFT run's evaluations) */
  successes: number | null;
  queries: number | null;
  /** OOD accuracy (unseen tool-QA), a share; null when not evaluated */
  ood: number | null;
}

export interface RunResult {
  /** the run's setting without its seed (settingKey: `reward=sum&evalEvery=40&…`, '' at the defaults) */
  setting: string;
  seed: number;
  /** 'rl' or 'sft' */
  kind: string;
  status: string;
  backend: string;
  build: string;
  steps: number;
  totalSteps: number;
  evals: RunEval[];
  /** the last step's mean reward (RL) and training loss (SFT); null when the run has none */
  reward: number | null;
  loss: number | null;
  /** the training curves, quantised (runSeries.ts); null for a version-1 link, which carried none */
  series: RunSeries | null;
}

export type DecodedRun =
  { ok: true; run: RunResult; code: string } | { ok: false; reason: RefusalReason; message: string };

const round = (x: number | null, digits = 4) => (x === null || !Number.isFinite(x) ? null : Number(x.toFixed(digits)));
const refuse = (reason: RefusalReason, message: string): DecodedRun => ({ ok: false, reason, message });
const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x) && x >= 0;
const isText = (x: unknown): x is string =>
  typeof x === 'string' && x.length > 0 && x.length <= 64 && /^[\w.:+-]+$/.test(x);
const isShareOrNull = (x: unknown) => x === null || (typeof x === 'number' && x >= 0 && x <= 1);
const isNumberOrNull = (x: unknown) => x === null || (typeof x === 'number' && Number.isFinite(x));

/** the code of a run (version 2; a run without curves still carries an empty set); throws on one no reader could
 *  read back (so nothing unreadable is offered) */
export function encodeRun(r: RunResult): string {
  // with its n, a point is its counts; without, its share alone
  const evals = r.evals.map((e) =>
    e.queries === null
      ? [e.step, round(e.success), null, round(e.ood)]
      : [e.step, e.successes, e.queries, round(e.ood)],
  );
  const code = sealCode('r', [
    RUN_CODE_VERSION,
    r.setting,
    r.seed,
    r.kind,
    r.status,
    r.backend,
    r.build,
    r.steps,
    r.totalSteps,
    evals,
    round(r.reward),
    round(r.loss),
    encodeSeries(r.series ?? { steps: [], values: {} }),
  ]);
  const back = decodeRun(code);
  if (!back.ok) throw new Error(`encodeRun: ${back.message}`);
  return code;
}

/** the link that shares a run: the page's address without query or hash, then `#run=<code>` */
export function runLink(base: string, r: RunResult): string {
  return `${base}#run=${encodeRun(r)}`;
}

/** reads a code back, checking its version, checksum and every field; never throws */
export function decodeRun(code: string): DecodedRun {
  // the version is read off the prefix first, so an older code opens under its own layout
  const written = Number(/^r(\d+)\./.exec(code.trim())?.[1]);
  const known = (RUN_CODE_VERSIONS as readonly number[]).includes(written);
  const opened = openCode('r', known ? written : RUN_CODE_VERSION, code);
  if (!opened.ok) return opened;
  const f = opened.fields;
  if (!Array.isArray(f) || f.length !== (written === 1 ? 12 : 13))
    return refuse('malformed', 'its payload has the wrong shape');
  const [version, setting, seed, kind, status, backend, build, steps, totalSteps, evals, reward, loss, curves] =
    f as unknown[];
  if (version !== written) return refuse('malformed', 'its payload names another version than its prefix');
  if (typeof setting !== 'string' || setting.length > 2000)
    return refuse('malformed', 'its setting is not a setting link');
  const parsed = parseHash(setting);
  if (parsed.notices.length)
    return refuse(
      'malformed',
      `its setting is not one this page has (${parsed.notices[0].key} ${parsed.notices[0].message})`,
    );
  if (!isCount(seed) || !isText(kind) || !isText(status) || !isText(backend) || !isText(build))
    return refuse('malformed', 'its seed, kind, status, backend or build is not readable');
  if (!isCount(steps) || !isCount(totalSteps) || totalSteps < 1 || steps > totalSteps)
    return refuse('malformed', 'its steps are impossible (more done than planned)');
  if (!Array.isArray(evals) || evals.length > MAX_RUN_EVALS)
    return refuse('malformed', 'its evaluations are not a list');
  const points: RunEval[] = [];
  for (const e of evals as unknown[]) {
    if (!Array.isArray(e) || e.length !== 4) return refuse('malformed', 'an evaluation has the wrong shape');
    const [step, successes, queries, ood] = e as unknown[];
    const counted = isCount(queries) && queries >= 1 && isCount(successes) && successes <= queries;
    const shared = queries === null && successes !== null && isShareOrNull(successes);
    if (!isCount(step) || step > totalSteps || !(counted || shared) || !isShareOrNull(ood)) {
      return refuse('malformed', 'an evaluation is impossible (successes above the queries, a step past the run)');
    }
    if (points.length && step <= points[points.length - 1].step)
      return refuse('malformed', 'its evaluations are out of step order');
    points.push(
      counted
        ? {
            step,
            success: (successes as number) / (queries as number),
            successes: successes as number,
            queries: queries as number,
            ood: ood as number | null,
          }
        : { step, success: successes as number, successes: null, queries: null, ood: ood as number | null },
    );
  }
  if (!isNumberOrNull(reward) || !isNumberOrNull(loss))
    return refuse('malformed', 'its last reward or loss is not a number');
  let series: RunSeries | null = null;
  if (written !== 1) {
    const read = decodeSeries(curves, totalSteps);
    if (typeof read === 'string') return refuse('malformed', read);
    series = read;
  }
  return {
    ok: true,
    code: code.trim(),
    run: {
      setting,
      seed,
      kind,
      status,
      backend,
      build,
      steps,
      totalSteps,
      evals: points,
      reward: reward as number | null,
      loss: loss as number | null,
      series,
    },
  };
}

/** at most `max` of `items`: the first, the last and evenly spaced ones between */
export function thin<T>(items: readonly T[], max = MAX_RUN_EVALS): T[] {
  if (items.length <= max) return [...items];
  const picked = new Set<number>();
  for (let i = 0; i < max; i++) picked.add(Math.round((i * (items.length - 1)) / (max - 1)));
  return [...picked].sort((a, b) => a - b).map((i) => items[i]);
}

/**
 * A stored run as a shareable result: its evaluation points (eval/success × eval/queries, or the share alone
 * where the run recorded no eval/queries, eval/ood_accuracy),
 * the last reward / loss. null for a run with no evaluation yet (nothing to show a reader).
 */
export function runResultOf(o: {
  setting: string; seed: number; kind: string; status: string; backend: string; build: string;
  steps: number; totalSteps: number; last: Readonly<Record<string, number>>;
  points: readonly { step: number; values: Readonly<Record<string, number>> }[];
}): RunResult | null {
  const evals: RunEval[] = [];
  for (const p of o.points) {
    const s = p.values['eval/success'];
    const q = p.values['eval/queries'];
    if (!Number.isFinite(s)) continue;
    if (evals.length && p.step <= evals[evals.length - 1].step) continue; // a resumed run may repeat a point
    const ood = Number.isFinite(p.values['eval/ood_accuracy']) ? p.values['eval/ood_accuracy'] : null;
    evals.push(
      Number.isFinite(q) && q >= 1
        ? {
            step: p.step,
            success: Math.round(s * q) / Math.round(q),
            successes: Math.round(s * q),
            queries: Math.round(q),
            ood,
          }
        : { step: p.step, success: s, successes: null, queries: null, ood },
    );
  }
  if (!evals.length || o.totalSteps < 1) return null;
  const num = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? x : null);
  return {
    setting: o.setting, seed: o.seed, kind: o.kind, status: o.status,
    backend: o.backend.split(/\s/)[0] || 'unknown', build: o.build,
    steps: Math.min(o.steps, o.totalSteps), totalSteps: o.totalSteps, evals: thin(evals),
    reward: num(o.last['reward/mean']), loss: num(o.last['losses/sft'] ?? o.last.loss),
    series: seriesOf(o.points, o.totalSteps),
  };
}
