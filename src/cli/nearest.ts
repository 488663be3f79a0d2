// "did you mean …": the nearest of some names to a word typed wrong (a setting, an option, a command), by
// edit distance with a swap of two neighbours counting as one edit, so `stpes` finds `steps`.

/** optimal string alignment distance, case-insensitive */
export function editDistance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const d = Array.from({ length: x.length + 1 }, (_, i) =>
    Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= x.length; i++)
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      const swapped = i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1];
      if (swapped) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[x.length][y.length];
}

/** the name nearest `word` within a third of its length (at least 1, at most 3 edits), or null when none is near */
export function nearestName(word: string, names: readonly string[]): string | null {
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const n of names) {
    const distance = editDistance(word, n);
    if (distance < bestDistance) [best, bestDistance] = [n, distance];
  }
  return bestDistance <= limit ? best : null;
}

/** ` (did you mean X?)`, or nothing */
export function didYouMean(word: string, names: readonly string[], show: (n: string) => string = (n) => n): string {
  const n = nearestName(word, names);
  return n !== null ? ` (did you mean ${show(n)}?)` : '';
}
