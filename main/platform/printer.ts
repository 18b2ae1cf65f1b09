/**
 * The host's printer: prints a one-page print document (HTML, its images inline) to a PDF, or
 * renders it to a PNG, in the host's Chromium. Electron prints it with `webContents.printToPDF` in a
 * hidden window (main/hosts/electron-printer.ts); the browser host has no Chromium of its own (the
 * browser that opened it is not main's to drive), so whoever starts it hands one in (the end-to-end
 * harness prints through the Chromium it launched), and without one a brief is refused.
 *
 * The document is untrusted (the renderer laid it out): a printer loads it with scripts off and no
 * network, and main has already put its Content-Security-Policy first in it.
 */

/** A document to print: one page of `widthMm` × `heightMm` (its @page says so too). */
export interface PrintDocument {
  html: string;
  widthMm: number;
  heightMm: number;
}

/** Prints documents in the host's Chromium. */
export interface HostPrinter {
  /** The PDF of the document (vector text and lines, fonts embedded, images as they are). */
  pdf(doc: PrintDocument, signal: AbortSignal): Promise<Uint8Array>;
  /** The document rendered to a PNG at `dpi` (CSS pixels are 96 to the inch). */
  png(doc: PrintDocument & { dpi: number }, signal: AbortSignal): Promise<Uint8Array>;
}
