// The lessons' chart colours, read from theme.css at draw time (canvas strokes need concrete colours), so
// a change to the theme's variables reaches the charts too. Arm i of a lesson is ARM_TONES[i].

/** the theme variable of each arm's colour, in the lesson's arm order */
export const ARM_TONES = ['--accent', '--warn'] as const;

/** a theme variable's value ('' outside a page) */
export function themeColor(name: string): string {
  if (typeof document === 'undefined') return '';
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

/** the colour at opacity `alpha` (hex and rgb() colours; any other colour is returned as it is) */
export function withAlpha(color: string, alpha: number): string {
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color)?.[1];
  if (hex) {
    const full = hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex;
    const [r, g, b] = [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16));
    return `rgba(${r}, ${g}, ${b}, ${alpha})`;
  }
  const rgb = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)/i.exec(color);
  return rgb ? `rgba(${rgb[1]}, ${rgb[2]}, ${rgb[3]}, ${alpha})` : color;
}
