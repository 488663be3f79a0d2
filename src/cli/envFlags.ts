// Flag checks shared by the sandbox commands (world, queries, export, eval): unknown flags and
// bad values are errors that say what is expected, never silently ignored.
import type { WorldSource } from '../env/types.ts';
import { SETTING_KEYS } from '../lab/config.ts';
import { didYouMean } from './nearest.ts';

export type Flags = Map<string, string | true>;

/** unknown flags, stray arguments and a value given to a switch (`switches`: flags that take none, e.g.
 *  `--resume yes`) are errors; nothing runs. Each command calls it once, with all its flags. */
export function rejectUnknownFlags(
  flags: Flags,
  positional: string[],
  known: readonly string[],
  switches: readonly string[] = [],
): void {
  const unknown = [...flags.keys()].filter((k) => !known.includes(k));
  if (unknown.length > 0) {
    // a setting typed as an option (`--seed 2`) is pointed to --config, where settings go
    const hint = (k: string) =>
      (SETTING_KEYS as string[]).includes(k)
        ? ` (${k} is a setting: pass it in --config, e.g. --config '#${k}=…' or '{"${k}": …}'; npm run cli -- settings lists them)`
        : didYouMean(k, known, (n) => `--${n}`);
    throw new Error(
      `unknown option ${unknown.map((k) => `--${k}${hint(k)}`).join(', ')} (options: ${known.map((k) => `--${k}`).join(' ')}); nothing was run`,
    );
  }
  for (const k of switches) {
    const v = flags.get(k);
    if (v !== undefined && v !== true) throw new Error(`--${k} takes no value, got "${v}"; nothing was run`);
  }
  if (positional.length > 0) throw new Error(`unexpected argument "${positional[0]}"; nothing was run`);
}

export function flagInt(flags: Flags, key: string, fallback: number, min = 0): number {
  const v = flags.get(key);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (v === true || !Number.isInteger(n) || n < min)
    throw new Error(`--${key} needs an integer ≥ ${min}, got "${v === true ? '' : v}"`);
  return n;
}

export function flagText(flags: Flags, key: string, fallback?: string): string {
  const v = flags.get(key);
  if (v === undefined && fallback !== undefined) return fallback;
  if (v === undefined || v === true || v === '') throw new Error(`--${key} needs a value`);
  return v;
}

export function flagOptionalText(flags: Flags, key: string): string | undefined {
  return flags.has(key) ? flagText(flags, key) : undefined;
}

export function flagChoice<T extends string>(flags: Flags, key: string, choices: readonly T[], fallback: T): T {
  const v = flags.get(key);
  if (v === undefined) return fallback;
  if (v === true || !choices.includes(v as T))
    throw new Error(`--${key} must be one of ${choices.join('|')}, got "${v === true ? '' : v}"`);
  return v as T;
}

export const WORLD_SOURCES: readonly WorldSource[] = ['tiny', 'small', 'standard', 'real'];

/** "4:3:3" -> [4, 3, 3] (easy : medium : hard) */
export function parseMix(text: string): [number, number, number] {
  const parts = text.split(':').map(Number);
  if (parts.length !== 3 || parts.some((p) => !Number.isFinite(p) || p < 0) || parts.every((p) => p === 0)) {
    throw new Error(`--mix needs three non-negative weights easy:medium:hard such as 4:3:3, got "${text}"`);
  }
  return parts as [number, number, number];
}
