// The docs hold together: every relative link and image in README.md, CONTRIBUTING.md and docs/*.md
// points to a file or folder of the repository, every `#anchor` into a Markdown file names one of its
// headings (GitHub's slugs), and the README stays a front door of at most 200 lines. Links
// inside code (fenced blocks, `inline`) are not links; http(s) and mailto links are not checked here.
// Node's standard library only, so it runs in well under a second.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const README_MAX_LINES = 200;

/** the Markdown files whose links are checked, relative to the root */
function docFiles(): string[] {
  const docs = existsSync(join(root, 'docs'))
    ? readdirSync(join(root, 'docs')).filter((n) => n.endsWith('.md')).map((n) => `docs/${n}`)
    : [];
  return ['README.md', 'CONTRIBUTING.md', ...docs.sort()];
}

/** the text without fenced code blocks and inline code spans (kept line for line) */
export function stripCode(markdown: string): string {
  const lines = markdown.split('\n');
  let fence: string | null = null;
  const out = lines.map((line) => {
    const m = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length) fence = null;
      return '';
    }
    if (m) {
      fence = m[1];
      return '';
    }
    return line;
  });
  // inline code: a run of backticks up to the same run (may not span a blank line)
  return out.join('\n').replace(/(`+)(?:(?!\1)[\s\S])*?\1/g, (span) => span.replace(/[^\n]/g, ' '));
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered */
export function headingSlugs(markdown: string): Set<string> {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  const lines = markdown.split('\n');
  let fence: string | null = null;
  for (const line of lines) {
    const f = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (f && f[1][0] === fence[0] && f[1].length >= fence.length) fence = null;
      continue;
    }
    if (f) {
      fence = f[1];
      continue;
    }
    const h = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const text = h[1]
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link in a heading keeps its text
      .replace(/<[^>]+>/g, '')
      .toLowerCase();
    const base = text.replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    slugs.add(n === 0 ? base : `${base}-${n}`);
  }
  return slugs;
}

export interface LinkProblem {
  file: string;
  line: number;
  target: string;
  problem: string;
}

/**
 * The broken relative links and images of one Markdown text. `file` is its path relative to `base`;
 * `exists` and `read` look paths up (the repository on disk by default; a test can pass a fake).
 */
export function brokenLinks(
  file: string,
  markdown: string,
  base: string,
  exists: (abs: string) => boolean = existsSync,
  read: (abs: string) => string = (p) => readFileSync(p, 'utf8'),
): LinkProblem[] {
  const problems: LinkProblem[] = [];
  const text = stripCode(markdown);
  const from = dirname(join(base, file));
  // [text](target) and ![alt](target), an optional "title"; the text may span lines
  const link = /!?\[((?:[^\][]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
  for (const m of text.matchAll(link)) {
    const target = m[2];
    const line = text.slice(0, m.index).split('\n').length;
    const report = (problem: string) => problems.push({ file, line, target, problem });
    if (target === '') {
      report('empty link target');
      continue;
    }
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // http:, https:, mailto:
    const hashAt = target.indexOf('#');
    const pathPart = decodeURIComponent(hashAt < 0 ? target : target.slice(0, hashAt));
    const anchor = hashAt < 0 ? null : decodeURIComponent(target.slice(hashAt + 1));
    const abs = pathPart === '' ? join(base, file) : pathPart.startsWith('/') ? join(base, pathPart) : resolve(from, pathPart);
    const rel = relative(base, abs);
    if (rel.startsWith('..') || rel.split(sep)[0] === '..') {
      report('points outside the repository');
      continue;
    }
    if (pathPart !== '' && !exists(abs)) {
      report(`no such file: ${rel}`);
      continue;
    }
    if (anchor !== null && anchor !== '' && abs.endsWith('.md')) {
      const slugs = headingSlugs(abs === join(base, file) ? markdown : read(abs));
      if (!slugs.has(anchor)) report(`no heading #${anchor} in ${rel}`);
    }
  }
  return problems;
}

describe('the docs hold together', () => {
  it('every relative link and image in README.md, CONTRIBUTING.md and docs/*.md resolves', () => {
    const files = docFiles();
    expect(files).toContain('docs/architecture.md');
    const problems: string[] = [];
    let links = 0;
    for (const file of files) {
      const abs = join(root, file);
      expect(existsSync(abs), file).toBe(true);
      const markdown = readFileSync(abs, 'utf8');
      links += [...stripCode(markdown).matchAll(/\]\(/g)].length;
      for (const p of brokenLinks(file, markdown, root)) problems.push(`${p.file}:${p.line}: ${p.target} — ${p.problem}`);
    }
    expect(problems).toEqual([]);
    expect(links).toBeGreaterThan(30); // the check saw the links (a parser that finds none passes nothing)
  });

  it('the README is a front door: at most 200 lines, and its screenshot is committed', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const lines = readme.endsWith('\n') ? readme.split('\n').length - 1 : readme.split('\n').length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
    expect(readme).toContain('](docs/img/lab.png)');
    expect(statSync(join(root, 'docs/img/lab.png')).size).toBeGreaterThan(10_000);
  });

  it('the checker itself finds a broken file, a broken anchor and an escape, and skips code and URLs', () => {
    const files = new Map<string, string>([
      ['/r/docs/a.md', '# Title\n\n## Every core on `wasm`\n\n## Notes\n\n## Notes\n'],
      ['/r/docs/img/x.png', ''],
      ['/r/README.md', ''],
    ]);
    const exists = (p: string) => files.has(p) || [...files.keys()].some((k) => k.startsWith(p + '/'));
    const read = (p: string) => files.get(p) ?? '';
    const md = [
      'ok: [a](a.md), [anchor](a.md#every-core-on-wasm), [repeat](a.md#notes-1), [dir](img/), ![img](img/x.png)',
      'ok: [up](../README.md), [web](https://example.com/nope.md), [self](#title)',
      '`[in code](missing.md)`',
      '```',
      '[in a fence](missing.md)',
      '```',
      'bad: [file](missing.md), ![image](img/y.png), [anchor](a.md#nowhere), [out](../../etc/passwd), [self](#nope)',
      '![alt that',
      'spans lines](img/z.png)',
    ].join('\n');
    const found = brokenLinks('docs/b.md', '# Title\n' + md, '/r', exists, read).map((p) => `${p.line}:${p.target}`);
    expect(found).toEqual(['8:missing.md', '8:img/y.png', '8:a.md#nowhere', '8:../../etc/passwd', '8:#nope', '9:img/z.png']);
  });
});
