// A lab experiment config given on the command line: the page's URL hash or a JSON object. Unlike the
// page (which lists bad keys and carries on with defaults), the CLI refuses a config with any notice:
// a sweep that silently ran the default would be a wrong result.
import { defaultConfig, ignoredSettings, SETTING_KEYS, type LabConfig } from '../lab/config.ts';
import { didYouMean } from './nearest.ts';
import { configFromRecord, parseHash, serializeHash, type ParsedHash } from '../lab/urlState.ts';

export function parseLabConfig(text: string): LabConfig {
  const trimmed = text.trim();
  let parsed: ParsedHash;
  if (trimmed.startsWith('{')) {
    let raw: unknown;
    try {
      raw = JSON.parse(trimmed);
    } catch (e) {
      throw new Error(`--config is not valid JSON (${e instanceof Error ? e.message : String(e)})`, { cause: e });
    }
    parsed = configFromRecord(raw);
    const unknown = Object.keys(raw as object).filter((k) => !(k in parsed.config));
    for (const k of unknown) parsed.notices.push({ key: k, message: 'unknown setting' });
  } else {
    const hash = trimmed.includes('#') ? trimmed.slice(trimmed.indexOf('#')) : trimmed;
    parsed = parseHash(hash);
  }
  if (parsed.notices.length > 0) {
    // the page's notices end with what the page does instead ("; using the default (40)", "; ignored"); the CLI runs
    // nothing
    const said = (m: string) => m.replace(/; (using the defaults?( \([^)]*\))?|ignored)$/, '');
    throw new Error(
      `--config has problems, so nothing was run:\n${parsed.notices.map((n) => `  ${n.key || '(fragment)'}: ${said(n.message)}${unknownKey(n) ? didYouMean(n.key, SETTING_KEYS) : ''}`).join('\n')}\n` +
        '(every setting, its range and what it does: npm run cli -- settings)',
    );
  }
  return parsed.config;
}

/** the settings `lab` moves off their defaults that an RL run of it does not read (a knob of another algorithm,
 *  an SFT-only setting), one line each: the CLI names them as ignored, never drops them silently */
export function ignoredSettingLines(lab: LabConfig): string[] {
  return ignoredSettings({ ...lab, stage: 'rl' }).map(
    ({ key, why }) => `--config: ${key}=${JSON.stringify(lab[key])} is ignored (${why})`,
  );
}

const unknownKey = (n: { key: string; message: string }) => n.key !== '' && !(SETTING_KEYS as string[]).includes(n.key);

/** `--config` (absent: every default) with settings given as options on top (`--seed 2 --steps 40`): a setting given
 *  both ways takes the option's value. `given` maps each setting option to its text. */
export function labConfigWithOptions(
  configText: string | undefined,
  given: ReadonlyMap<string, string | true>,
): LabConfig {
  const base = configText === undefined ? defaultConfig() : parseLabConfig(configText);
  const options = [...given].filter(([k]) => (SETTING_KEYS as string[]).includes(k));
  if (options.length === 0) return base;
  for (const [k, v] of options) if (v === true || v === '') throw new Error(`--${k} needs a value (npm run cli -- settings ${k} says which)`);
  const kept = serializeHash(base).replace(/^#/, '').split('&').filter((p) => p && !options.some(([k]) => p.startsWith(`${k}=`)));
  return parseLabConfig(`#${[...kept, ...options.map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)].join('&')}`);
}
