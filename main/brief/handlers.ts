import path from 'node:path';
import { AppError } from '../../common/errors.js';
import { briefSheetMm, type RequestOf } from '../../preload/contract';
import type { HandlerTable } from '../ipc';
import type { HostPrinter, PrintDocument } from '../platform/printer';
import type { SettingsPort } from '../platform/settings';
import { writeNewFile } from '../shared/files.js';

/** What the brief channel needs. */
export interface BriefDeps {
  /** The effective settings: briefs go to `<download folder>/exports/`. */
  settings: SettingsPort;
  /** The host's printer; absent (a browser host started without one): a brief is refused, saying so. */
  printer?: HostPrinter;
}

/**
 * What every print page gets first, before anything the renderer wrote: no script, no network, no
 * frame; images, fonts and styles only inline.
 */
export const PRINT_CSP = "default-src 'none'; img-src data:; font-src data:; style-src 'unsafe-inline'; frame-src 'none'; form-action 'none'; base-uri 'none'";

type BriefRequest = RequestOf<'brief:export'>;

/**
 * The print document of a request: main's CSP and paper (@page, one page exactly: the page box is
 * the body, nothing overflows it), then the renderer's style and body. A style that could end its
 * element or set the paper itself is refused, naming the field.
 */
export function printDocument(request: Pick<BriefRequest, 'paper' | 'orientation' | 'body' | 'style'>): PrintDocument {
  const { widthMm, heightMm } = briefSheetMm(request.paper, request.orientation);
  if (/<\//.test(request.style)) throw new AppError('validation', 'style: a style sheet holds no markup.', { fields: { style: ['A style sheet holds no markup ("</").'] } });
  if (/@page/i.test(request.style)) throw new AppError('validation', 'style: main sets the paper; leave @page out.', { fields: { style: ['Main sets the paper: leave @page out.'] } });
  const size = `${widthMm}mm ${heightMm}mm`;
  const html = '<!doctype html><html><head><meta charset="utf-8">'
    + `<meta http-equiv="Content-Security-Policy" content="${PRINT_CSP}">`
    + `<style>@page { size: ${size}; margin: 0 } html, body { margin: 0; padding: 0; width: ${widthMm}mm; height: ${heightMm}mm; overflow: hidden; }</style>`
    + `<style>${request.style}</style></head><body>${request.body}</body></html>`;
  return { html, widthMm, heightMm };
}

/** Pages of a PDF (its page objects). */
export function pdfPageCount(pdf: Uint8Array): number {
  const text = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).toString('latin1');
  return (text.match(/\/Type\s*\/Page(?![s\w])/g) ?? []).length;
}

/** Width and height of a PNG (its IHDR), or null when it is not one. */
export function pngSize(png: Uint8Array): { width: number; height: number } | null {
  const b = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  if (b.length < 24 || b.readUInt32BE(0) !== 0x89504e47 || b.toString('latin1', 12, 16) !== 'IHDR') return null;
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

/** Pixels of `mm` at `dpi`. */
const pixels = (mm: number, dpi: number): number => Math.round((mm / 25.4) * dpi);
/** PostScript points of `mm`. */
const points = (mm: number): number => (mm / 25.4) * 72;

/** The brief channel, as main serves it: `brief:export`. */
export function briefHandlers(deps: BriefDeps): Pick<HandlerTable, 'brief:export'> {
  return {
    'brief:export': async (request, { signal }) => {
      if (request.format === 'png' && request.dpi === undefined) throw new AppError('validation', 'dpi: a PNG brief is 150 or 300 dpi.', { fields: { dpi: ['Choose 150 or 300 dpi.'] } });
      if (request.format === 'pdf' && request.dpi !== undefined) throw new AppError('validation', 'dpi: a PDF has no dpi (its rasters keep theirs).', { fields: { dpi: ['Leave dpi out of a PDF.'] } });
      const printer = deps.printer;
      if (!printer) throw new AppError('validation', 'This host cannot print: run Swath as the desktop app to export a brief.');
      const doc = printDocument(request);
      const exportsDir = path.join(deps.settings.get().downloadDir, 'exports');
      if (request.format === 'pdf') {
        const pdf = await printer.pdf(doc, signal);
        if (Buffer.from(pdf.subarray(0, 5)).toString('latin1') !== '%PDF-') throw new AppError('io', 'The printer did not answer a PDF.');
        const pages = pdfPageCount(pdf);
        if (pages !== 1) throw new AppError('validation', `The brief printed on ${pages} pages: shorten the text or leave the chart out.`);
        signal.throwIfAborted();
        const file = await writeNewFile(path.join(exportsDir, `${request.name}.pdf`), pdf);
        return { file, bytes: pdf.byteLength, width: points(doc.widthMm), height: points(doc.heightMm) };
      }
      const dpi = request.dpi!;
      const png = await printer.png({ ...doc, dpi }, signal);
      const size = pngSize(png);
      if (!size) throw new AppError('io', 'The printer did not answer a PNG.');
      const want = { width: pixels(doc.widthMm, dpi), height: pixels(doc.heightMm, dpi) };
      if (Math.abs(size.width - want.width) > 1 || Math.abs(size.height - want.height) > 1) {
        throw new AppError('io', `The printer rendered ${size.width} × ${size.height} px, not the page's ${want.width} × ${want.height} px at ${dpi} dpi.`);
      }
      signal.throwIfAborted();
      const file = await writeNewFile(path.join(exportsDir, `${request.name}-${dpi}dpi.png`), png);
      return { file, bytes: png.byteLength, ...size };
    },
  };
}
