// Saves text (or bytes) as a file through the browser's download (a Blob URL on a temporary <a download>).
export function downloadText(filename: string, text: string | Uint8Array<ArrayBuffer>, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  // revoke after the click has been handled, or some browsers cancel the download
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** a file name part that is safe everywhere */
export const safeName = (s: string) => s.replace(/[^\w.-]+/g, '_');
