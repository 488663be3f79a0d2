// uPlot gives an axis a fixed width, which clipped long tick labels (the KL chart's "0.0015" read
// ".0015"): this sizes a y axis to its widest label, measured in the font the axis draws with.
import type uPlot from 'uplot';

export const AXIS_FONT = '11px system-ui';
const TICK_AND_GAP = 10 + 5; // uPlot's default tick length and label gap

let measure: CanvasRenderingContext2D | null = null;

/** an `Axis.size` that fits the axis' widest tick label (at least `min` px) */
export function fitToLabels(min = 32): uPlot.Axis.Size {
  return (_u, values) => {
    measure ??= document.createElement('canvas').getContext('2d');
    if (!measure || !values?.length) return min;
    measure.font = AXIS_FONT;
    const widest = Math.max(...values.map((v) => measure!.measureText(String(v)).width));
    return Math.max(min, Math.ceil(widest + TICK_AND_GAP + 3));
  };
}
