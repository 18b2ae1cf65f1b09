import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { HostPrinter, PrintDocument } from '../../main/platform/printer';

/**
 * The printer a browser host gets from whoever started the Chromium (the end-to-end harness, the
 * bench, main's brief tests): Chromium's own print to PDF (`page.pdf`, the DevTools Protocol's
 * Page.printToPDF) and a screenshot at `dpi / 96` device pixels per CSS pixel for PNG. Each document
 * is loaded in a context of its own with scripts off and every request refused but data: URLs, as
 * Electron's hidden print window loads it.
 */
export function chromiumPrinter(browser: Browser): HostPrinter {
  async function withPage<T>(doc: PrintDocument, scale: number, signal: AbortSignal, run: (ctx: BrowserContext) => Promise<T>): Promise<T> {
    signal.throwIfAborted();
    const viewport = { width: Math.round((doc.widthMm / 25.4) * 96), height: Math.round((doc.heightMm / 25.4) * 96) };
    const context = await browser.newContext({ javaScriptEnabled: false, viewport, deviceScaleFactor: scale, offline: true });
    const close = () => void context.close().catch(() => undefined);
    signal.addEventListener('abort', close, { once: true });
    try {
      await context.route('**/*', (route) => (route.request().url().startsWith('data:') ? route.continue() : route.abort()));
      return await run(context);
    } finally {
      signal.removeEventListener('abort', close);
      await context.close().catch(() => undefined);
    }
  }
  return {
    pdf: (doc, signal) => withPage(doc, 1, signal, async (context) => {
      const page = await context.newPage();
      await page.setContent(doc.html, { waitUntil: 'load' });
      return new Uint8Array(await page.pdf({ width: `${doc.widthMm}mm`, height: `${doc.heightMm}mm`, printBackground: true, preferCSSPageSize: true, margin: { top: '0', right: '0', bottom: '0', left: '0' } }));
    }),
    png: (doc, signal) => withPage(doc, doc.dpi / 96, signal, async (context) => {
      const page = await context.newPage();
      await page.emulateMedia({ media: 'print' });
      await page.setContent(doc.html, { waitUntil: 'load' });
      await firstFrame(context, page);
      return new Uint8Array(await page.screenshot({ type: 'png', clip: { x: 0, y: 0, width: (doc.widthMm / 25.4) * 96, height: (doc.heightMm / 25.4) * 96 } }));
    }),
  };
}

/**
 * Resolves once the page's compositor has drawn a frame. Chromium copies a screenshot from the view's
 * last frame and answers "Unable to capture screenshot" while a new page has none yet (a cold, loaded
 * machine): the first screencast frame is the state that says there is one.
 */
async function firstFrame(context: BrowserContext, page: Page): Promise<void> {
  const cdp = await context.newCDPSession(page);
  try {
    const framed = new Promise<void>((resolve) => {
      cdp.once('Page.screencastFrame', (f) => {
        void cdp.send('Page.screencastFrameAck', { sessionId: f.sessionId }).catch(() => undefined);
        resolve();
      });
    });
    await cdp.send('Page.startScreencast', { format: 'jpeg', quality: 1, maxWidth: 16, maxHeight: 16, everyNthFrame: 1 });
    await framed;
    await cdp.send('Page.stopScreencast');
  } finally {
    await cdp.detach().catch(() => undefined);
  }
}

/** Launches Chromium for {@link chromiumPrinter} (the machine's flags). */
export async function launchPrinterChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
}
