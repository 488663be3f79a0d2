// The experiment config in the URL hash, TensorFlow-Playground style: `#scale=m&reward=sum&…`.
// Only values that differ from the defaults are written, so a link stays short and keeps meaning
// the same thing when a new setting (with its default) is added. Parsing never throws: unknown
// keys, bad values and undecodable text become notices and the default is used instead.
import {
  SETTINGS,
  SETTING_KEYS,
  crossFieldProblems,
  defaultConfig,
  invalidReason,
  type LabConfig,
  type Setting,
  type SettingKey,
} from './config.ts';

export interface UrlNotice {
  /** the key as written in the URL ('' when the fragment could not be split into a key) */
  key: string;
  message: string;
}

/** The page's views; `view` and `finding` ride in the hash beside the settings but are not settings. */
export const VIEWS = ['lab', 'runs', 'findings', 'lessons', 'sandbox', 'welcome'] as const;
export type View = (typeof VIEWS)[number];

/** The lessons a link can open (`#lesson=seeds`). Their ids are kept here, with the views, because the
 *  address is read below the lessons' room (src/lessons/lessons.ts gives each id its lesson; a test holds
 *  the two lists equal). */
export const LESSON_IDS = ['null-control', 'dense-reward', 'tool-failures', 'hard-only', 'seeds'] as const;
export type LessonId = (typeof LESSON_IDS)[number];

export interface Route {
  view: View;
  /** the finding a link opens (T1…T7), or null */
  finding: string | null;
  /** the lesson a link opens (`#lesson=seeds`), or null (absent: none) */
  lesson?: string | null;
  /** with a lesson: a learner's result code it shows (`&result=<code>`, read by src/lessons/resultCode.ts) */
  result?: string | null;
  /** with a lesson: its class view (`&class`, '' ), or the class's accepted codes (`&class=<code>,<code>`) */
  lessonClass?: string | null;
  /** a shared Lab run's result code (`#run=<code>`, read by src/lessons/runResultCode.ts), shown read-only on the Runs
   * view */
  run?: string | null;
}

export interface ParsedHash {
  config: LabConfig;
  route: Route;
  notices: UrlNotice[];
}

const KNOWN = new Set<string>(SETTING_KEYS);
const FINDING_ID = /^T[1-7]$/;
const MAX_NOTICES = 20;

/** Parses `#a=1&b=2` (the leading '#' is optional). Never throws. */
export function parseHash(hash: string): ParsedHash {
  const config = defaultConfig();
  const route: Route = { view: 'lab', finding: null };
  const notices: UrlNotice[] = [];
  const note = (key: string, message: string) => {
    if (notices.length < MAX_NOTICES) notices.push({ key: shorten(key), message });
  };
  const text = String(hash ?? '').replace(/^#/, '');
  const seen = new Set<string>();

  for (const part of text.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawKey = eq < 0 ? part : part.slice(0, eq);
    const rawValue = eq < 0 ? null : part.slice(eq + 1);
    const key = decode(rawKey);
    if (key === null) {
      note(rawKey, 'could not be decoded (bad percent-encoding); ignored');
      continue;
    }
    if (key === 'lesson') {
      const value = rawValue === null ? null : decode(rawValue);
      if (value !== null && (LESSON_IDS as readonly string[]).includes(value)) {
        route.lesson = value;
        if (!text.includes('view=')) route.view = 'lessons'; // `#lesson=seeds` alone opens that lesson
      } else note(key, `“${shorten(value ?? '')}” is not a lesson (${LESSON_IDS.join(', ')}); ignored`);
      continue;
    }
    if (key === 'lessonSize') {
      // the size is read from the query (a learner's link must not carry a smoke size along): say where it goes
      note(
        key,
        `belongs before the #: open ?lessonSize=${shorten(rawValue ?? 'smoke')}#… — this lesson runs at its full size`,
      );
      continue;
    }
    if (key === 'run') {
      // checked where it is read (the page names a refusal); here only kept
      const value = rawValue === null ? '' : decode(rawValue);
      if (value === null) note(key, 'could not be decoded (bad percent-encoding); ignored');
      else {
        route.run = value;
        if (!text.includes('view=')) route.view = 'runs'; // `#run=<code>` alone opens the shared run
      }
      continue;
    }
    if (key === 'result' || key === 'class') {
      // checked where they are read (the class view names each refusal); here only kept
      const value = rawValue === null ? '' : decode(rawValue);
      if (value === null) note(key, 'could not be decoded (bad percent-encoding); ignored');
      else if (key === 'result') route.result = value;
      else route.lessonClass = value;
      continue;
    }
    if (key === 'view' || key === 'finding') {
      const value = rawValue === null ? null : decode(rawValue);
      if (key === 'view' && VIEWS.includes(value as View)) route.view = value as View;
      else if (key === 'finding' && value !== null && FINDING_ID.test(value.toUpperCase())) {
        route.finding = value.toUpperCase();
        if (!text.includes('view=')) route.view = 'findings'; // `#finding=T7` alone opens that finding
      } else
        note(
          key,
          `“${shorten(value ?? '')}” is not ${key === 'view' ? `a view (${VIEWS.join(', ')})` : 'a finding (T1…T7)'}; ignored`,
        );
      continue;
    }
    if (!KNOWN.has(key)) {
      note(key, 'is not a setting of this lab; ignored');
      continue;
    }
    const k = key as SettingKey;
    if (seen.has(k)) note(k, 'appears more than once; the last value is used');
    seen.add(k);
    if (rawValue === null) {
      note(k, `has no value; using the default (${formatDefault(k)})`);
      resetToDefault(config, k);
      continue;
    }
    const value = decode(rawValue);
    if (value === null) {
      note(k, `value could not be decoded (bad percent-encoding); using the default (${formatDefault(k)})`);
      resetToDefault(config, k);
      continue;
    }
    const parsed = parseValue(SETTINGS[k], value);
    const reason = parsed === undefined ? 'is not readable' : invalidReason(k, parsed);
    if (reason !== null) {
      note(k, `“${shorten(value)}” ${reason}; using the default (${formatDefault(k)})`);
      resetToDefault(config, k);
      continue;
    }
    (config as Record<SettingKey, unknown>)[k] = parsed;
  }

  for (const problem of crossFieldProblems(config)) {
    note(problem.keys.join(', '), `${problem.message}; using the defaults`);
    for (const k of problem.keys) resetToDefault(config, k);
  }
  return { config, route, notices };
}

/** Writes only the settings that differ from their defaults, in table order; a route other than the
 *  Lab view goes first (`#view=findings&finding=T7&scale=m`). */
export function serializeHash(config: LabConfig, route?: Route): string {
  const defaults = defaultConfig();
  const parts: string[] = [];
  // a lesson's link is `#lesson=<id>` alone: it names its view
  if (
    route &&
    route.view !== 'lab' &&
    !(route.view === 'lessons' && route.lesson) &&
    !(route.view === 'runs' && route.run)
  )
    parts.push(`view=${route.view}`);
  if (route?.view === 'runs' && route.run) parts.push(`run=${encodeURIComponent(route.run)}`);
  if (route?.finding) parts.push(`finding=${route.finding}`);
  if (route?.lesson) parts.push(`lesson=${route.lesson}`);
  if (route?.lesson && route.result) parts.push(`result=${encodeURIComponent(route.result)}`);
  if (route?.lesson && typeof route.lessonClass === 'string')
    parts.push(route.lessonClass ? `class=${encodeURIComponent(route.lessonClass).replace(/%2C/g, ',')}` : 'class');
  for (const k of SETTING_KEYS) {
    const text = formatValue(k, config[k]);
    if (text !== formatValue(k, defaults[k])) parts.push(`${k}=${encodeValue(text)}`);
  }
  return parts.length ? `#${parts.join('&')}` : '';
}

/** The link that shares a setup: the page's address without its query — `?backend=` forces this page's
 *  backend and would force the receiver's — nor its hash, then the setup's own hash. */
export function shareUrl(config: LabConfig, pageUrl: string): string {
  const url = new URL(pageUrl);
  return url.origin + url.pathname + serializeHash(config);
}

/** The value as it is written in the URL (and shown on the page). */
export function formatValue(key: SettingKey, value: LabConfig[SettingKey]): string {
  const s: Setting = SETTINGS[key];
  if (s.kind === 'mix') return (value as readonly number[]).join(':');
  return String(value);
}

function formatDefault(key: SettingKey): string {
  return formatValue(key, defaultConfig()[key]);
}

function resetToDefault(config: LabConfig, key: SettingKey): void {
  (config as Record<SettingKey, unknown>)[key] = defaultConfig()[key];
}

/** undefined when the text cannot be read as the setting's kind at all */
function parseValue(s: Setting, text: string): unknown {
  switch (s.kind) {
    case 'choice':
      return text.toLowerCase();
    case 'int':
    case 'float':
      return parseNumber(text);
    case 'mix': {
      const parts = text.split(':');
      if (parts.length !== 3) return undefined;
      const nums = parts.map(parseNumber);
      return nums.some((n) => n === undefined) ? undefined : nums;
    }
  }
}

function parseNumber(text: string): number | undefined {
  const t = text.trim();
  // Number('') is 0 and Number('0x10') is 16: accept plain decimal / exponent notation only.
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t)) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n + 0 : undefined; // `+ 0` turns -0 into 0
}

function decode(text: string): string | null {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/** Keeps the characters our own values use readable (`4:3:3`, `1e-7`); encodes the rest. */
function encodeValue(text: string): string {
  return encodeURIComponent(text).replace(/%3A/gi, ':');
}

function shorten(text: string): string {
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
}

/**
 * Reads a config stored elsewhere (a run record, an imported bundle): every known key is checked
 * against the table, anything missing or invalid takes its default and is listed. Never throws.
 */
export function configFromRecord(raw: unknown): ParsedHash {
  const config = defaultConfig();
  const route: Route = { view: 'lab', finding: null };
  const notices: UrlNotice[] = [];
  const record = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  for (const k of SETTING_KEYS) {
    if (!(k in record)) continue;
    const value = SETTINGS[k].kind === 'mix' && Array.isArray(record[k]) ? [...(record[k] as unknown[])] : record[k];
    const reason = invalidReason(k, value);
    if (reason === null) (config as Record<SettingKey, unknown>)[k] = value;
    else notices.push({ key: k, message: `${reason}; using the default (${formatDefault(k)})` });
  }
  for (const problem of crossFieldProblems(config)) {
    notices.push({ key: problem.keys.join(', '), message: `${problem.message}; using the defaults` });
    for (const k of problem.keys) resetToDefault(config, k);
  }
  return { config, route, notices };
}

/**
 * What is wrong with a config stored elsewhere (an imported bundle's run), named as a link's notices
 * name it: a key that is not a setting, a value the setting refuses, settings that contradict each
 * other. Empty when a link could give the same setup; a setting it lacks takes its default, as in a
 * link. Where the page would carry on with defaults, a bundle with any of these is refused: the run
 * stored must be the run that ran.
 */
export function storedConfigProblems(raw: Readonly<Record<string, unknown>>): UrlNotice[] {
  const problems: UrlNotice[] = [];
  const config = defaultConfig();
  for (const [key, value] of Object.entries(raw)) {
    if (!KNOWN.has(key)) {
      problems.push({ key: shorten(key), message: 'is not a setting of this lab' });
      continue;
    }
    const k = key as SettingKey;
    const reason = invalidReason(k, value);
    if (reason === null) (config as Record<SettingKey, unknown>)[k] = value;
    else problems.push({ key: k, message: `“${shorten(shownValue(value))}” ${reason}` });
  }
  for (const problem of crossFieldProblems(config))
    problems.push({ key: problem.keys.join(', '), message: problem.message });
  return problems;
}

function shownValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'number')) return value.join(':');
  return typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value));
}
