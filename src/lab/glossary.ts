// The page's plain words: one entry per term the page shows in a heading, a control, a chart title or a takeaway,
// each one or two sentences a newcomer can read without knowing RL or statistics. The page's term markup
// (src/ui/Term.svelte) shows them on hover, tap and focus; the browser check fails when a view shows a term with no
// entry. A knob's own line stays in the settings table (config.ts) and a metric's in the metrics catalogue
// (metrics.ts): an entry for one of those names it instead of repeating it (glossaryEntries.ts holds the entries).
// Pure: no tfjs, no DOM.
import { SETTINGS } from './config.ts';
import { DECLARED, PLAIN_ACRONYMS, type Declared } from './glossaryEntries.ts';

export { PLAIN_ACRONYMS };
import { metricInfo, RL_METRICS } from './metrics.ts';

export interface GlossaryEntry {
  id: string;
  /** the term as a heading would name it */
  term: string;
  /** the words on the page that name it; an all-capitals name matches case-sensitively, the others in any case */
  names: readonly string[];
  /** one or two plain sentences */
  text: string;
}

function resolve(id: string, d: Declared): GlossaryEntry {
  const from = d.from;
  const text = 'text' in from ? from.text : 'setting' in from ? SETTINGS[from.setting].doc : metricInfo(from.metric).doc;
  return { id, term: d.term, names: d.names ?? [d.term], text };
}

/** the id of a chart's own entry: its metric's line in the metrics catalogue (a chart title the concepts above do not
 * name) */
export const metricTermId = (key: string) => `metric:${key}`;

export const GLOSSARY: Readonly<Record<string, GlossaryEntry>> = Object.fromEntries([
  ...Object.entries(DECLARED).map(([id, d]) => [id, resolve(id, d)]),
  // named by their chart, never found in running text: their labels ("Success", "Reward") are the concepts' words
  ...RL_METRICS.map((m) => [metricTermId(m.key), { id: metricTermId(m.key), term: m.label, names: [], text: m.doc }]),
]);

/** the entry a chart of a metric explains its title with: the concept its label names, else the metric's own line */
export function chartTermId(metric: { key: string; label: string }): string {
  return entryNamed(metric.label)?.id ?? metricTermId(metric.key);
}

/** the entry of a term id; throws on an id with none (a typo in the page's markup fails loudly) */
export function glossaryEntry(id: string): GlossaryEntry {
  const e = GLOSSARY[id];
  if (!e) throw new Error(`no glossary entry "${id}"`);
  return e;
}

const isAcronym = (name: string) => name === name.toUpperCase() && /[A-Z]/.test(name);
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** the entry a word or phrase on the page names (null: none) — an acronym by its exact case, other words in any */
export function entryNamed(name: string): GlossaryEntry | null {
  const n = name.trim();
  for (const e of Object.values(GLOSSARY)) {
    if (e.names.some((x) => (isAcronym(x) ? x === n : x.toLowerCase() === n.toLowerCase()))) return e;
  }
  return null;
}

/** the ids of the entries whose names occur in a text as whole words */
export function termsIn(text: string): string[] {
  const found = new Set<string>();
  for (const e of Object.values(GLOSSARY)) {
    for (const name of e.names) {
      const re = new RegExp(`(?<![\\w-])${escape(name)}(?![\\w-])`, isAcronym(name) ? 'u' : 'iu');
      if (re.test(text)) found.add(e.id);
    }
  }
  return [...found];
}

/** acronym-like tokens of a text (two or more capitals, maybe with digits: GRPO, KL, OOD, TOST) */
export function acronymsIn(text: string): string[] {
  // two capitals or more, maybe a digit or two after (T7, CRC32); not a code of letters and many digits (F7051796)
  return [...new Set(text.match(/(?<![\w-])[A-Z]{2,}\d{0,2}(?![\w-])/gu) ?? [])];
}

/** the acronyms of a text that neither an entry names nor PLAIN_ACRONYMS lists: jargon the page does not explain */
export function unexplainedAcronyms(text: string): string[] {
  return acronymsIn(text).filter((a) => !PLAIN_ACRONYMS.includes(a) && !/^\d/.test(a) && !entryNamed(a));
}

/** the sentences of an entry's text ("et al." and decimals do not end one) */
export function sentenceCount(text: string): number {
  return text
    .replace(/\bet al\./g, 'et al')
    .split(/(?<=[.!?])\s+(?=[A-Z"“])/u)
    .filter((s) => s.trim()).length;
}

/** a text cut into its plain runs and its terms: the first place each entry is named, longest names first (so
 * "validation success" is one term, not "validation" and "success"); `skip`: entries not to mark (already
 * explained nearby) */
export function glossSegments(text: string, skip: readonly string[] = []): { text: string; id?: string }[] {
  const names = Object.values(GLOSSARY)
    .filter((e) => !skip.includes(e.id))
    .flatMap((e) => e.names.map((name) => ({ name, id: e.id })))
    .sort((a, b) => b.name.length - a.name.length);
  // every mention of a longer name claims its words, marked or not: "validation success" said twice is never
  // "validation" and "success" the second time
  const claimed: { start: number; end: number }[] = [];
  const hits: { start: number; end: number; id: string }[] = [];
  const taken = new Set<string>();
  for (const { name, id } of names) {
    const re = new RegExp(`(?<![\\w-])${escape(name)}(?![\\w-])`, isAcronym(name) ? 'gu' : 'giu');
    for (const m of text.matchAll(re)) {
      const start = m.index;
      const end = start + m[0].length;
      if (claimed.some((h) => start < h.end && h.start < end)) continue;
      claimed.push({ start, end });
      if (taken.has(id)) continue;
      hits.push({ start, end, id });
      taken.add(id);
    }
  }
  hits.sort((a, b) => a.start - b.start);
  const out: { text: string; id?: string }[] = [];
  let at = 0;
  for (const h of hits) {
    if (h.start > at) out.push({ text: text.slice(at, h.start) });
    out.push({ text: text.slice(h.start, h.end), id: h.id });
    at = h.end;
  }
  if (at < text.length) out.push({ text: text.slice(at) });
  return out;
}
