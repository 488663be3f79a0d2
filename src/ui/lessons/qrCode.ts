// A QR code as an SVG path, for a lesson's printable sheet: qrcode-generator (the reference JavaScript encoder,
// no dependencies) encodes; the path is drawn by the sheet itself, so the page adds no markup it did not write.
import qrcode from 'qrcode-generator';

/** the code's modules (its side, in modules) and one SVG path of its dark modules, a unit square each */
export function qrPath(text: string): { size: number; path: string } {
  const qr = qrcode(0, 'M'); // the smallest version that holds the text; M: 15 % of it may be smudged
  qr.addData(text, 'Byte');
  qr.make();
  const size = qr.getModuleCount();
  const parts: string[] = [];
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) if (qr.isDark(row, col)) parts.push(`M${col} ${row}h1v1h-1z`);
  }
  return { size, path: parts.join('') };
}
