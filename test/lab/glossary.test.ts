import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  GLOSSARY,
  PLAIN_ACRONYMS,
  entryNamed,
  glossSegments,
  glossaryEntry,
  sentenceCount,
  termsIn,
  unexplainedAcronyms,
} from '../../src/lab/glossary.ts';

/** every .svelte file under a folder */
function svelteFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? svelteFiles(join(dir, d.name)) : d.name.endsWith('.svelte') ? [join(dir, d.name)] : [],
  );
}

describe('glossary', () => {
  const entries = Object.values(GLOSSARY);

  it('has a plain entry of one or two sentences for every term the brief of the page names', () => {
    const required = [
      'rollout', 'group', 'reward', 'reward-sum', 'reward-macro', 'reward-success', 'reward-curriculum', 'advantage',
      'grpo', 'dapo', 'arpo', 'kl', 'entropy', 'ood', 'sft', 'checkpoint', 'seed', 'interval', 'welch', 'holm', 'tost',
      'null-control', 'validation-success', 'tool-qa', 'scale', 'clip-fraction', 'step', 'evaluation',
    ];
    for (const id of required) expect(GLOSSARY[id], id).toBeDefined();
    for (const e of entries) {
      expect(e.text.trim().length, e.id).toBeGreaterThan(20);
      expect(sentenceCount(e.text), `${e.id}: ${e.text}`).toBeGreaterThanOrEqual(1);
      expect(sentenceCount(e.text), `${e.id}: ${e.text}`).toBeLessThanOrEqual(2);
      if (!e.id.startsWith('metric:')) expect(e.names.length, e.id).toBeGreaterThan(0);
    }
  });

  it('cites the papers behind GRPO, DAPO and ARPO', () => {
    expect(glossaryEntry('grpo').term).toContain('Group Relative Policy Optimization');
    expect(glossaryEntry('grpo').text).toContain('Shao et al. 2024');
    expect(glossaryEntry('dapo').text).toContain('Yu et al. 2025');
    expect(glossaryEntry('arpo').text).toContain('Dong et al. 2025');
  });

  it('gives each name on the page to one entry only', () => {
    const seen = new Map<string, string>();
    for (const e of entries)
      for (const n of e.names) {
        const k = n.toLowerCase();
        expect(seen.get(k), `"${n}" in ${e.id} and ${seen.get(k)}`).toBeUndefined();
        seen.set(k, e.id);
      }
    // a chart's own entry repeats its metric's label ("Success") by design: it is never found in running text
    const terms = entries.filter((e) => !e.id.startsWith('metric:')).map((e) => e.term.toLowerCase());
    expect(new Set(terms).size).toBe(terms.length);
  });

  it('counts sentences without splitting at "et al." or a decimal', () => {
    expect(sentenceCount('One (Shao et al. 2024) at 0.5 points. Two.')).toBe(2);
    expect(sentenceCount('One. Two. Three.')).toBe(3);
  });

  it('finds the terms and the unexplained acronyms of a text', () => {
    expect(termsIn('GRPO with the KL penalty, 8 rollouts a group')).toEqual(
      expect.arrayContaining(['grpo', 'kl', 'rollout', 'group']),
    );
    expect(termsIn('a holmes novel')).not.toContain('holm');
    expect(entryNamed('OOD')?.id).toBe('ood');
    expect(entryNamed('ood')).toBeNull(); // an acronym matches by its case only
    expect(unexplainedAcronyms('GRPO on the CPU, then XYZ and T7')).toEqual(['XYZ']);
    expect(PLAIN_ACRONYMS).not.toContain('GRPO');
  });

  it('has an entry for every term the page marks up', () => {
    const used = svelteFiles('src/ui').flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/<Term\s+id="([^"]+)"/g)].map((m) => ({ f, id: m[1] })),
    );
    expect(used.length).toBeGreaterThanOrEqual(8);
    for (const { f, id } of used) expect(GLOSSARY[id], `${f}: <Term id="${id}">`).toBeDefined();
    expect(() => glossaryEntry('no-such-term')).toThrow(/no glossary entry/);
  });
});

describe('glossSegments', () => {
  it('marks the first mention of each term, the longest name first, and keeps the text whole', () => {
    const text = 'Validation success of GRPO rose; GRPO and the validation success again.';
    const s = glossSegments(text);
    expect(s.map((x) => x.text).join('')).toBe(text);
    expect(s.filter((x) => x.id)).toEqual([
      { text: 'Validation success', id: 'validation-success' },
      { text: 'GRPO', id: 'grpo' },
    ]);
    expect(glossSegments('seed-to-seed chance').filter((x) => x.id)).toEqual([]);
    expect(glossSegments('GRPO', ['grpo'])).toEqual([{ text: 'GRPO' }]);
  });
});
