// A safe parser for Python literals (the subset `repr()` writes for lists, dicts and scalars).
// TravelPlanner's gold plans are stored as `str(list_of_dicts)`, not JSON (single quotes, None,
// True/False), so they cannot go through JSON.parse, and evaluating them is out of the question.

export type PyValue = null | boolean | number | string | PyValue[] | { [key: string]: PyValue };

export class PythonLiteralError extends Error {}

/** Parse one Python literal (list, tuple, dict, str, int, float, None, True, False). Throws PythonLiteralError. */
export function parsePythonLiteral(text: string): PyValue {
  const p = new LiteralParser(text);
  const value = p.value();
  p.skipSpace();
  if (p.pos !== text.length) p.fail('unexpected trailing text');
  return value;
}

class LiteralParser {
  pos = 0;
  constructor(private readonly s: string) {}

  fail(what: string): never {
    const near = this.s.slice(this.pos, this.pos + 30);
    throw new PythonLiteralError(`${what} at offset ${this.pos} (near ${JSON.stringify(near)})`);
  }

  skipSpace(): void {
    while (this.pos < this.s.length && /\s/.test(this.s[this.pos])) this.pos++;
  }

  value(): PyValue {
    this.skipSpace();
    const c = this.s[this.pos];
    if (c === '[') return this.sequence(']');
    if (c === '(') return this.sequence(')');
    if (c === '{') return this.dict();
    if (c === "'" || c === '"') return this.string();
    if (c !== undefined && /[-+0-9.]/.test(c)) return this.number();
    for (const [word, v] of [['None', null], ['True', true], ['False', false]] as const) {
      if (this.s.startsWith(word, this.pos)) {
        this.pos += word.length;
        return v;
      }
    }
    return this.fail(c === undefined ? 'unexpected end of input' : `unexpected character ${JSON.stringify(c)}`);
  }

  private sequence(close: string): PyValue[] {
    this.pos++; // the opening bracket
    const items: PyValue[] = [];
    for (;;) {
      this.skipSpace();
      if (this.s[this.pos] === close) break;
      items.push(this.value());
      this.skipSpace();
      if (this.s[this.pos] === ',') this.pos++;
      else if (this.s[this.pos] !== close) this.fail(`expected ',' or '${close}'`);
    }
    this.pos++; // close
    return items;
  }

  private dict(): { [key: string]: PyValue } {
    this.pos++; // {
    const out: { [key: string]: PyValue } = {};
    for (;;) {
      this.skipSpace();
      if (this.s[this.pos] === '}') break;
      const key = this.value();
      if (typeof key !== 'string' && typeof key !== 'number') this.fail('dict keys must be strings or numbers');
      this.skipSpace();
      if (this.s[this.pos] !== ':') this.fail("expected ':'");
      this.pos++;
      out[String(key)] = this.value();
      this.skipSpace();
      if (this.s[this.pos] === ',') this.pos++;
      else if (this.s[this.pos] !== '}') this.fail("expected ',' or '}'");
    }
    this.pos++;
    return out;
  }

  private string(): string {
    const quote = this.s[this.pos++];
    let out = '';
    for (;;) {
      const c = this.s[this.pos++];
      if (c === undefined) this.fail('unterminated string');
      if (c === quote) break;
      if (c !== '\\') {
        out += c;
        continue;
      }
      const e = this.s[this.pos++];
      const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0' };
      if (e in simple) out += simple[e];
      else if (e === 'x' || e === 'u' || e === 'U') {
        const len = e === 'x' ? 2 : e === 'u' ? 4 : 8;
        const hex = this.s.slice(this.pos, this.pos + len);
        if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) this.fail(`bad \\${e} escape`);
        out += String.fromCodePoint(parseInt(hex, 16));
        this.pos += len;
      } else if (e === '\n') {
        // line continuation inside a string
      } else out += '\\' + e; // Python keeps unknown escapes verbatim
    }
    // adjacent literals concatenate: 'a' 'b' == 'ab'
    const save = this.pos;
    this.skipSpace();
    if (this.s[this.pos] === "'" || this.s[this.pos] === '"') return out + this.string();
    this.pos = save;
    return out;
  }

  private number(): number {
    const m = /^[-+]?(\d+\.?\d*(e[-+]?\d+)?|\.\d+(e[-+]?\d+)?|inf)/i.exec(this.s.slice(this.pos));
    if (!m) this.fail('bad number');
    this.pos += m[0].length;
    const n = Number(m[0].replace(/inf/i, 'Infinity'));
    if (Number.isNaN(n)) this.fail('bad number');
    return n;
  }
}
