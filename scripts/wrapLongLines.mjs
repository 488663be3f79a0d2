// Wraps the code lines over 120 characters that lint refuses, and nothing else: in a .ts or .mjs file,
// Prettier formats only the statement that holds each long line (range formatting), so a file keeps its
// hand-laid layout elsewhere (aligned tables, one wasm instruction group a line); a .svelte file is formatted
// whole (the Svelte plugin cannot format a range). A whole-line comment (`//` or a doc comment's ` * `) over the
// limit is broken at its last space that fits, the rest on a line of its own; strings are left as written.
//   node scripts/wrapLongLines.mjs FILE...        (npm run wrap -- FILE...)
// Why Prettier: the one formatter the TypeScript and Svelte communities share, so a contributor's editor
// formats the same way; run whole-file it would re-lay every file, which is why only long statements go through it.
import { readFileSync, writeFileSync } from 'node:fs';
import * as prettier from 'prettier';

const MAX = 120;
const comment = /^\s*(\/\/|\*|\/\*)/;
const files = process.argv.slice(2);
if (!files.length) {
  console.error('usage: node scripts/wrapLongLines.mjs FILE...');
  process.exit(2);
}
let statements = 0;
const left = [];
for (const file of files) {
  const before = readFileSync(file, 'utf8');
  const options = { ...(await prettier.resolveConfig(file)), filepath: file };
  let text = before;
  if (file.endsWith('.svelte')) text = keepStyle(before, await prettier.format(text, options));
  else {
    const tried = new Set(); // long lines Prettier cannot shorten (a long string, a URL): leave them
    for (;;) {
      const lines = text.split('\n');
      const i = lines.findLastIndex((l) => l.length > MAX && !comment.test(l) && !tried.has(l));
      if (i < 0) break;
      const start = lines.slice(0, i).reduce((sum, l) => sum + l.length + 1, 0);
      const out = await prettier.format(text, { ...options, rangeStart: start, rangeEnd: start + lines[i].length });
      if (out === text) tried.add(lines[i]);
      else statements++;
      text = out;
    }
  }
  text = reflowComments(text.split('\n')).join('\n');
  text.split('\n').forEach((l, i) => l.length > MAX && left.push(`${file}:${i + 1}`));
  if (text !== before) writeFileSync(file, text);
}
console.log(`${statements} statements wrapped in ${files.length} files`);
if (left.length) console.log(`still over ${MAX} (comments, strings: by hand):\n  ${left.join('\n  ')}`);

/** the component's <style> block as it was written when none of its lines is too long: Prettier's one declaration
 * a line would make a component's CSS three times as tall for nothing */
function keepStyle(before, after) {
  const style = /<style[^>]*>[\s\S]*?<\/style>/;
  const kept = style.exec(before)?.[0];
  if (!kept || !style.test(after)) return after;
  const lines = kept.split('\n').flatMap(wrapCssRule);
  return lines.some((l) => l.length > MAX) ? after : after.replace(style, () => lines.join('\n'));
}

/** a one-line CSS rule over MAX as a rule of one declaration a line */
function wrapCssRule(line) {
  const m = /^(\s*)([^{}]+?)\s*\{\s*([^{}]*?)\s*\}\s*$/.exec(line);
  if (line.length <= MAX || !m) return [line];
  const declarations = m[3].split(';').map((d) => d.trim()).filter(Boolean);
  return [`${m[1]}${m[2]} {`, ...declarations.map((d) => `${m[1]}  ${d};`), `${m[1]}}`];
}

/** wraps each long comment line; what a wrap pushes out goes to the front of the comment's next line when it fits */
function reflowComments(lines) {
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const wrapped = wrapComment(lines[i]);
    const next = lines[i + 1];
    const tail = wrapped.length > 1 && wrapped[wrapped.length - 1];
    const cont = tail && next !== undefined && /^(\s*(?:\/\/|\*) ) *(\S.*)$/.exec(next);
    const lead = tail && /^(\s*(?:\/\/|\*) )(.*)$/.exec(tail);
    if (cont && lead && lead[1] === cont[1] && !lead[2].endsWith('*/') && lead[0].length + 1 + cont[2].length <= MAX) {
      out.push(...wrapped.slice(0, -1));
      lines[i + 1] = `${lead[0]} ${cont[2]}`;
    } else out.push(...wrapped);
  }
  return out;
}

/** a whole-line comment over MAX as several lines, each with the same indent and marker */
function wrapComment(line) {
  if (line.length <= MAX || /^\s*\/\/ *eslint|https?:\/\//.test(line)) return [line];
  const doc = /^(\s*)\/\*\* (.*) \*\/$/.exec(line); // a one-line doc comment: continued on ` * ` lines
  if (doc) {
    const [first, rest] = breakAt(`${doc[1]}/** `, doc[2]);
    if (rest === undefined) return [line];
    const more = wrapComment(`${doc[1]} * ${rest}`);
    const last = more.pop();
    return [first, ...more, ...(last.length + 3 <= MAX ? [`${last} */`] : [last, `${doc[1]} */`])];
  }
  const m = /^(\s*)(\/\/ |\* |\/\*\* )(.*)$/.exec(line); // a `//` line, a doc comment's first or inner line
  if (!m) return [line];
  const [first, rest] = breakAt(m[1] + m[2], m[3]);
  const marker = m[2] === '// ' ? '// ' : ' * ';
  return rest === undefined ? [line] : [first, ...wrapComment(m[1] + (m[2] === '* ' ? '* ' : marker) + rest)];
}

/** `lead + text` broken at the last space that keeps the first line within MAX: [first line, the rest] */
function breakAt(lead, text) {
  const cut = text.lastIndexOf(' ', MAX - lead.length);
  return cut <= 0 ? [lead + text] : [lead + text.slice(0, cut), text.slice(cut + 1)];
}
