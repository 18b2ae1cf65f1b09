import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BrowserWindow, session } from 'electron';
import type { HostPrinter, PrintDocument } from '../platform/printer';
import { privateTempDir } from '../shared/private-temp';

/**
 * The Electron host's printer: each document in a hidden window of its own, on an in-memory session
 * that refuses every request but the document's own file and its data: images, with scripts off and
 * no preload. PDF through `webContents.printToPDF` (the paper from the document's @page); PNG
 * through `capturePage` of a window the size of the page at the dpi, zoomed by dpi / 96.
 */

/** The session every print window uses (no `persist:`: in memory, nothing kept). */
export const PRINT_PARTITION = 'swath-print';

/** The print windows' preferences: a sandboxed page without scripts, preload or Node. */
export function printWebPreferences(zoomFactor: number): Electron.WebPreferences {
  return {
    partition: PRINT_PARTITION,
    sandbox: true,
    contextIsolation: true,
    nodeIntegration: false,
    javascript: false,
    webSecurity: true,
    images: true,
    spellcheck: false,
    zoomFactor,
  };
}

/** The Electron printer; its session is set up by the first print (the app is ready by then). */
export function electronPrinter(): HostPrinter {
  const allowed = new Set<string>();
  let hardened = false;
  const harden = (): void => {
    if (hardened) return;
    const printSession = session.fromPartition(PRINT_PARTITION);
    printSession.webRequest.onBeforeRequest((details, answer) => answer({ cancel: !(details.url.startsWith('data:') || allowed.has(details.url)) }));
    printSession.setPermissionRequestHandler((_contents, _permission, answer) => answer(false));
    hardened = true;
  };

  async function withWindow<T>(doc: PrintDocument, size: { width: number; height: number }, zoom: number, signal: AbortSignal, run: (window: BrowserWindow) => Promise<T>): Promise<T> {
    signal.throwIfAborted();
    harden();
    const dir = await privateTempDir('swath-print-');
    const file = path.join(dir.path, 'brief.html');
    const url = pathToFileURL(file).href;
    const window = new BrowserWindow({ show: false, useContentSize: true, enableLargerThanScreen: true, ...size, webPreferences: printWebPreferences(zoom) });
    const close = (): void => { if (!window.isDestroyed()) window.destroy(); };
    signal.addEventListener('abort', close, { once: true });
    allowed.add(url);
    try {
      await writeFile(file, doc.html, { mode: 0o600 });
      await window.loadFile(file);
      signal.throwIfAborted();
      return await run(window);
    } finally {
      signal.removeEventListener('abort', close);
      allowed.delete(url);
      close();
      await dir.remove();
    }
  }

  const cssPixels = (mm: number): number => Math.round((mm / 25.4) * 96);
  return {
    pdf: (doc, signal) => withWindow(doc, { width: cssPixels(doc.widthMm), height: cssPixels(doc.heightMm) }, 1, signal, async (window) => new Uint8Array(await window.webContents.printToPDF({
      pageSize: { width: doc.widthMm / 25.4, height: doc.heightMm / 25.4 },
      printBackground: true,
      preferCSSPageSize: true,
      margins: { top: 0, right: 0, bottom: 0, left: 0 },
    }))),
    png: (doc, signal) => {
      const size = { width: Math.round((doc.widthMm / 25.4) * doc.dpi), height: Math.round((doc.heightMm / 25.4) * doc.dpi) };
      return withWindow(doc, size, doc.dpi / 96, signal, async (window) => {
        const image = await window.webContents.capturePage({ x: 0, y: 0, ...size });
        // A display scaled past 1 captures more pixels than asked: brought back to the page's.
        const shot = image.getSize().width === size.width ? image : image.resize({ ...size, quality: 'best' });
        return new Uint8Array(shot.toPNG());
      });
    },
  };
}
