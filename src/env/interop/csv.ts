// A small RFC 4180 CSV reader/writer for TravelPlanner's tables. Hand-written because it is the
// hot path of loading a database (the real flights table has millions of rows): a record without
// a quote is a plain split, only quoted records take the slow path.

/** Quote a cell holding a comma, quote, line break or edge space; double its quotes. */
export function csvCell(s: string): string {
  return /[",\r\n]|^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvLine(cells: readonly string[]): string {
  return cells.map(csvCell).join(',');
}

export class CsvError extends Error {}

/**
 * Call `onRecord` with the cells of every record in `text`, which must end at a record boundary
 * (a quoted field may span lines). Blank lines are skipped; `\r\n` and `\n` both end a record.
 */
export function parseCsvRecords(text: string, onRecord: (cells: string[]) => void): void {
  let pos = 0;
  const n = text.length;
  while (pos < n) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = n;
    let line = text.slice(pos, end);
    if (line.indexOf('"') < 0) {
      pos = end + 1;
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line !== '') onRecord(line.split(','));
      continue;
    }
    pos = parseQuotedRecord(text, pos, onRecord);
  }
}

/** Parse one record starting at `pos` that contains quotes; returns the position after its line break. */
function parseQuotedRecord(text: string, pos: number, onRecord: (cells: string[]) => void): number {
  const cells: string[] = [];
  let i = pos;
  for (;;) {
    if (text[i] === '"') {
      let value = '';
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0)
          throw new CsvError(`unterminated quoted field starting near ${JSON.stringify(text.slice(pos, pos + 40))}`);
        value += text.slice(i, q);
        if (text[q + 1] === '"') {
          value += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      cells.push(value);
    } else {
      let j = i;
      while (j < text.length && text[j] !== ',' && text[j] !== '\n' && text[j] !== '\r') j++;
      cells.push(text.slice(i, j));
      i = j;
    }
    if (text[i] === ',') {
      i++;
      continue;
    }
    if (text[i] === '\r') i++;
    if (i < text.length && text[i] !== '\n')
      throw new CsvError(`unexpected text after a quoted field near ${JSON.stringify(text.slice(i, i + 40))}`);
    onRecord(cells);
    return i + 1;
  }
}

/** `parseCsvRecords` with the first record as the header: one object per row, keyed by column name. */
export function parseCsvRows(text: string, onRow: (row: Record<string, string>) => void): void {
  let header: string[] | null = null;
  parseCsvRecords(text, (cells) => {
    if (header === null) {
      header = cells.map((h, i) => (i === 0 ? h.replace(/^\uFEFF/, '') : h));
      return;
    }
    const row: Record<string, string> = {};
    for (let i = 0; i < header.length; i++) row[header[i]] = cells[i];
    onRow(row);
  });
}
