// Commands the project writes for a reader to paste (a table's or a card's reproduction command) are
// quoted for a POSIX shell: `--config #evalQueries=8&evalToolQa=4` unquoted loses everything
// after `#` and runs the rest in the background. A small function rather than the npm package
// shell-quote: its quote() backslash-escapes `=`, `,`, `:` and `#` (`--seeds 1\,2\,3`, unreadable in a
// table) and escapes inside single quotes, which POSIX shells do not honour. Single quotes are the one
// quoting with no special characters inside, so an argument is bare when it is safe and single-quoted
// otherwise ('it'\''s' for a quote). splitShellWords reads such a command back (repro reads a card's).

/** one argument as a POSIX shell reads it back unchanged */
export function shellQuote(arg: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** `prefix` (e.g. "npm run cli -- sweep") and the arguments, each quoted */
export function shellCommand(prefix: string, args: readonly string[]): string {
  return [prefix, ...args.map(shellQuote)].join(' ');
}

/**
 * The words of a command line as a POSIX shell splits them (single and double quotes, backslashes; no
 * expansion, which the commands written here never use): the inverse of shellCommand. Throws on an
 * unterminated quote.
 */
export function splitShellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated ' in: ${line}`);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      let text = '';
      for (; j < line.length && line[j] !== '"'; j++) {
        // inside double quotes a backslash escapes only $ ` " \ and a newline
        if (line[j] === '\\' && j + 1 < line.length && '$`"\\\n'.includes(line[j + 1])) text += line[++j];
        else text += line[j];
      }
      if (j >= line.length) throw new Error(`unterminated " in: ${line}`);
      word = (word ?? '') + text;
      i = j;
    } else if (c === '\\') {
      if (i + 1 < line.length) word = (word ?? '') + line[++i];
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else word = (word ?? '') + c;
  }
  if (word !== null) words.push(word);
  return words;
}
