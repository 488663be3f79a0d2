// A run's result link opened (`#run=<code>`): what the read-only page shows — the setting (described, with
// the link that opens it in the Lab), the run's facts, its validation curve point by point with n and the 95 %
// interval, and its place against the committed band of its setting where the page carries one (the lessons'
// settings, results/lessons/reference.json, from the findings' standard runs) — or why the link is refused.
// Pure: no DOM, no tfjs.
import { describeAxes, defaultConfig } from '../lab/config.ts';
import { formatPercent } from '../lab/metrics.ts';
import { parseHash, serializeHash } from '../lab/urlState.ts';
import { wilson } from '../stats/intervals.ts';
import { predictionBand, settingKey, type SettingReference } from './lessonReference.ts';
import { settingHash, type RefusalReason } from './resultCode.ts';
import { decodeRun, type RunResult } from './runResultCode.ts';

export type RunVerdict = 'inside' | 'above' | 'below' | 'unfinished' | 'no-band';

export type SharedRun =
  | { ok: false; reason: RefusalReason; message: string }
  | {
      ok: true;
      run: RunResult;
      /** the setting in words (describeAxes) and its hash */
      setup: string;
      hash: string;
      /** the address fragment that opens this setup, seed included, in the Lab */
      labHash: string;
      facts: [string, string][];
      /** per evaluation: step, validation success with n and its 95 % (Wilson) interval, OOD */
      rows: { step: number; success: string; ood: string }[];
      verdict: RunVerdict;
      verdictText: string;
    };

const pts = (x: number) => formatPercent(x, ' ');

/** the committed reference of exactly this setting (seed aside), or null */
export function bandFor(
  setting: string,
  settings: Readonly<Record<string, SettingReference>> | null,
): SettingReference | null {
  if (!settings) return null;
  // keyed by the normalised link: a code's setting is read and written again so `a=1&b=2` and `b=2&a=1` meet; the
  // World size left out, as the reference's keys leave it: an RL run records its start's world, which the link
  // that asked for it need not name
  const key = settingKey({ ...parseHash(setting).config, worldSize: defaultConfig().worldSize });
  return settings[key] ?? null;
}

/** Reads `code` and places the run against `settings` (the lesson reference's, keyed by settingKey). */
export function readSharedRun(code: string, settings: Readonly<Record<string, SettingReference>> | null): SharedRun {
  const decoded = decodeRun(code);
  if (!decoded.ok) return decoded;
  const r = decoded.run;
  const config = parseHash(r.setting).config;
  const setup = describeAxes(config);
  const hash = settingHash(settingKey(config));
  const labHash = serializeHash({ ...config, seed: r.seed }) || `#seed=${defaultConfig().seed}`;
  const first = r.evals[0];
  const last = r.evals[r.evals.length - 1];
  const facts: [string, string][] = [
    [
      'Run',
      `${r.kind === 'rl' ? 'RL' : r.kind === 'sft' ? 'SFT' : r.kind} · ${r.status} · ${r.steps}/${r.totalSteps} steps`,
    ],
    ['Setup', setup],
    ['Setting hash', hash],
    ['Seed', String(r.seed)],
    ['Backend · build', `${r.backend} · ${r.build}`],
  ];
  if (first && last)
    facts.push([
      'Validation success',
      `${pts(first.success)} at step ${first.step} → ${pts(last.success)} at step ${last.step} (${last.queries === null ? 'n not recorded by this run' : `n = ${last.queries} queries`})`,
    ]);
  if (r.reward !== null) facts.push(['Last mean reward', r.reward.toFixed(3)]);
  if (r.loss !== null) facts.push(['Last training loss', r.loss.toFixed(3)]);
  const rows = r.evals.map((e) => {
    const ood = e.ood === null ? '–' : pts(e.ood);
    if (e.successes === null || e.queries === null)
      return { step: e.step, success: `${pts(e.success)} (n not recorded)`, ood };
    const w = wilson(e.successes, e.queries);
    return {
      step: e.step,
      success: `${pts(e.success)} (${e.successes}/${e.queries}; 95 % ${pts(w.lo)}–${pts(w.hi)})`,
      ood,
    };
  });
  const base = { ok: true as const, run: r, setup, hash, labHash, facts, rows };

  const ref = bandFor(r.setting, settings);
  const b = ref && ref.seeds.length >= 2 ? predictionBand(ref.eval.end) : null;
  if (!ref || !b || b.lo === null || b.hi === null) {
    return {
      ...base,
      verdict: 'no-band',
      verdictText: ref
        ? `The committed runs of this setting have fewer than two seeds: no band to place it against.`
        : 'There is no committed band for this setting: the page carries bands only for the lessons’ settings (the findings’ standard runs of those), so it is not placed against any.',
    };
  }
  if (r.status !== 'completed' || !last || last.step !== ref.eval.steps[1]) {
    return {
      ...base,
      verdict: 'unfinished',
      verdictText: `The committed runs of this setting end at step ${ref.eval.steps[1]}; this run's last evaluation is at step ${last?.step ?? '–'} (${r.status}), so it is not placed against their band.`,
    };
  }
  const band = { lo: Math.max(0, b.lo), hi: Math.min(1, b.hi) };
  const end = last.success;
  const verdict: RunVerdict = end < band.lo ? 'below' : end > band.hi ? 'above' : 'inside';
  return {
    ...base,
    verdict,
    verdictText: `It ended at ${pts(end)}, ${verdict} the band where one run of this setting is expected, [${pts(band.lo)}, ${pts(band.hi)}] (the ${ref.seeds.length} committed seeds, ${ref.eval.queries} queries each; mean ${pts(b.mean ?? 0)}).`,
  };
}
