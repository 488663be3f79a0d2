// A small, dependency-free SVG line chart for committed result curves (results/…/curves.svg): one panel
// per group (e.g. a scale), each with thin lines per seed and a thick mean line per arm, y from 0 to 1.
// A string, not DOM: scripts write it to a file, and a page could inline it. Pure: no tfjs, no DOM, no fs.

export interface SvgSeries {
  label: string;
  color: string;
  /** dashed lines (e.g. the null control) */
  dashed?: boolean;
  /** thin per-seed lines */
  seeds: { step: number; value: number }[][];
  /** the thick mean line (drawn above the seeds) */
  mean: { step: number; value: number }[];
}

export interface SvgPanel {
  title: string;
  series: SvgSeries[];
}

export interface SvgChartOptions {
  title: string;
  yLabel: string;
  xLabel: string;
  /** a line under the title (the command, the evaluation) */
  note?: string;
}

const W = 420; // one panel's width
const MIN_WIDTH = 860; // room for the title and the legend with one panel
const H = 260; // one panel's height
const PAD = { left: 46, right: 12, top: 30, bottom: 40 };

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const f = (x: number) => (Math.round(x * 10) / 10).toString();

/** renders the panels side by side with a shared legend; throws on no panels */
export function curvesSvg(panels: readonly SvgPanel[], opts: SvgChartOptions): string {
  if (panels.length === 0) throw new Error('curvesSvg: no panels');
  const legendItems = new Map<string, SvgSeries>();
  for (const p of panels) for (const s of p.series) if (!legendItems.has(s.label)) legendItems.set(s.label, s);
  const top = opts.note ? 52 : 34;
  const legendH = 22;
  const width = Math.max(W * panels.length, MIN_WIDTH);
  const left = (width - W * panels.length) / 2;
  const height = top + H + legendH;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${width / 2}" y="18" text-anchor="middle" font-size="14" font-weight="bold">${esc(opts.title)}</text>`,
  ];
  if (opts.note) out.push(`<text x="${width / 2}" y="36" text-anchor="middle" fill="#555">${esc(opts.note)}</text>`);
  panels.forEach((panel, i) => out.push(panelSvg(panel, left + i * W, top, opts)));
  let x = 10;
  for (const s of legendItems.values()) {
    const y = top + H + 12;
    out.push(
      `<line x1="${x}" y1="${y}" x2="${x + 22}" y2="${y}" stroke="${s.color}" stroke-width="3"${s.dashed ? ' stroke-dasharray="5 3"' : ''}/>`,
    );
    out.push(`<text x="${x + 27}" y="${y + 4}">${esc(s.label)}</text>`);
    x += 40 + s.label.length * 6;
  }
  out.push('</svg>');
  return out.join('\n') + '\n';
}

function panelSvg(panel: SvgPanel, x0: number, y0: number, opts: SvgChartOptions): string {
  const steps = panel.series.flatMap((s) => [...s.mean, ...s.seeds.flat()].map((p) => p.step));
  const maxStep = Math.max(1, ...steps);
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const px = (step: number) => x0 + PAD.left + (step / maxStep) * plotW;
  const py = (v: number) => y0 + PAD.top + (1 - Math.min(1, Math.max(0, v))) * plotH;
  const out: string[] = [
    `<text x="${x0 + W / 2}" y="${y0 + 16}" text-anchor="middle" font-size="12" font-weight="bold">${esc(panel.title)}</text>`,
  ];
  for (const v of [0, 0.25, 0.5, 0.75, 1]) {
    out.push(`<line x1="${f(px(0))}" y1="${f(py(v))}" x2="${f(px(maxStep))}" y2="${f(py(v))}" stroke="#ddd"/>`);
    out.push(`<text x="${f(px(0) - 6)}" y="${f(py(v) + 4)}" text-anchor="end" fill="#555">${v}</text>`);
  }
  const ticks = [0, maxStep / 4, maxStep / 2, (3 * maxStep) / 4, maxStep].map((t) => Math.round(t));
  for (const t of new Set(ticks))
    out.push(`<text x="${f(px(t))}" y="${f(py(0) + 15)}" text-anchor="middle" fill="#555">${t}</text>`);
  out.push(`<text x="${f(px(maxStep / 2))}" y="${f(py(0) + 31)}" text-anchor="middle">${esc(opts.xLabel)}</text>`);
  out.push(
    `<text transform="translate(${f(x0 + 12)} ${f(py(0.5))}) rotate(-90)" text-anchor="middle">${esc(opts.yLabel)}</text>`,
  );
  const line = (pts: { step: number; value: number }[], s: SvgSeries, width: number, opacity: number) =>
    pts.length === 0
      ? ''
      : `<polyline fill="none" stroke="${s.color}" stroke-width="${width}" stroke-opacity="${opacity}"${s.dashed ? ' stroke-dasharray="5 3"' : ''} points="${pts.map((p) => `${f(px(p.step))},${f(py(p.value))}`).join(' ')}"/>`;
  for (const s of panel.series) for (const seed of s.seeds) out.push(line(seed, s, 1.2, 0.45));
  for (const s of panel.series) {
    out.push(line(s.mean, s, 3, 1));
    for (const p of s.mean) out.push(`<circle cx="${f(px(p.step))}" cy="${f(py(p.value))}" r="3" fill="${s.color}"/>`);
  }
  return out.join('\n');
}
