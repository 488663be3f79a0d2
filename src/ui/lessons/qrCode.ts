// A QR code as one SVG path, for a result link (ResultLinks.svelte) and a lesson's printable sheet
// (LessonSheet.svelte).
// Encoded by uqr (unjs; typed, no dependencies, made for SVG output without a canvas — qrcode needs canvas in the
// browser, qr/lean-qr are younger and less used); its modules are drawn by the page as one path, so no markup
// string is injected, and it prints crisp at any size.
import { encode } from 'uqr';

/** the code's side in modules (its `border` of light modules included) and its dark modules as one path, one unit a
 * module */
export function qrPath(text: string, border = 2): { size: number; d: string } {
  const qr = encode(text, { border });
  let d = '';
  qr.data.forEach((row, y) => row.forEach((dark, x) => { if (dark) d += `M${x},${y}h1v1h-1z`; }));
  return { size: qr.size, d };
}
