// A small line chart in plain text, for curves in a terminal or a log: each series drawn with its own mark on a
// grid of characters, the y axis labelled at its ends and middle, the x axis at its ends. Where two series
// share a cell, the later one's mark shows.

export interface ChartSeries {
  /** one character */
  mark: string;
  label: string;
  points: readonly { x: number; y: number }[];
}

export function terminalChart(
  series: readonly ChartSeries[],
  o: { width?: number; height?: number; yLabel?: string; xLabel?: string; yMin?: number; yMax?: number } = {},
): string {
  const width = o.width ?? 60;
  const height = o.height ?? 12;
  const all = series.flatMap((s) => s.points).filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  if (all.length === 0) return '(no points to draw)';
  const xMin = Math.min(...all.map((p) => p.x));
  const xMax = Math.max(...all.map((p) => p.x));
  let yMin = o.yMin ?? Math.min(...all.map((p) => p.y));
  let yMax = o.yMax ?? Math.max(...all.map((p) => p.y));
  if (yMax === yMin) [yMin, yMax] = [yMin - 0.5, yMax + 0.5];
  const grid = Array.from({ length: height }, () => Array<string>(width).fill(' '));
  const col = (x: number) => (xMax === xMin ? 0 : Math.round(((x - xMin) / (xMax - xMin)) * (width - 1)));
  const clamp = (y: number) => Math.min(yMax, Math.max(yMin, y));
  const row = (y: number) => height - 1 - Math.round(((clamp(y) - yMin) / (yMax - yMin)) * (height - 1));
  for (const s of series) {
    const pts = s.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y)).sort((a, b) => a.x - b.x);
    // join neighbouring points so a curve reads as a line, not scattered dots
    for (let i = 0; i < pts.length; i++) {
      const [c, r] = [col(pts[i].x), row(pts[i].y)];
      grid[r][c] = s.mark;
      const next = pts[i + 1];
      if (!next) continue;
      const [c2, r2] = [col(next.x), row(next.y)];
      for (let k = c + 1; k < c2; k++) grid[Math.round(r + ((r2 - r) * (k - c)) / (c2 - c))][k] = s.mark;
    }
  }
  const fmt = (y: number) => (Math.abs(yMax - yMin) >= 10 ? y.toFixed(0) : y.toFixed(2));
  const labels = grid.map((_, i) => (i === 0 ? fmt(yMax) : i === height - 1 ? fmt(yMin) : i === Math.floor(height / 2) ? fmt((yMax + yMin) / 2) : ''));
  const lw = Math.max(...labels.map((l) => l.length));
  const lines = grid.map((cells, i) => `${labels[i].padStart(lw)} │${cells.join('')}`);
  lines.push(`${' '.repeat(lw)} └${'─'.repeat(width)}`);
  const xl = String(xMin);
  const xr = String(xMax);
  const label = o.xLabel ?? '';
  const gap = Math.max(0, width - xl.length - xr.length);
  const middle = (' '.repeat(Math.max(0, Math.floor((gap - label.length) / 2))) + label).padEnd(gap).slice(0, gap);
  lines.push(`${' '.repeat(lw + 2)}${xl}${middle}${xr}`);
  if (o.yLabel) lines.unshift(o.yLabel);
  lines.push(series.map((s) => `${s.mark} ${s.label}`).join('   '));
  return lines.join('\n');
}
