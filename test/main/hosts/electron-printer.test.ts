import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it, vi } from 'vitest';

// Electron's print path with a stand-in electron: what the hidden window is made with, what it
// loads, what printToPDF and capturePage are asked, what the print session lets through, and that
// nothing stays behind.

type BeforeRequest = (details: { url: string }, answer: (r: { cancel: boolean }) => void) => void;
const state = vi.hoisted(() => ({
  windows: [] as FakeWindow[],
  beforeRequest: null as null | ((details: { url: string }, answer: (r: { cancel: boolean }) => void) => void),
  permission: null as null | ((c: unknown, p: string, answer: (ok: boolean) => void) => void),
  partitions: [] as string[],
  captureScale: 1,
  /** While set, printToPDF waits for it (the window is open meanwhile). */
  gate: null as null | Promise<void>,
}));

class FakeWindow {
  destroyed = false;
  loaded: { file: string; html: string } | null = null;
  readonly webContents = {
    printToPDF: vi.fn(async (_options: unknown) => {
      await state.gate;
      return Buffer.from('%PDF-1.4 fake');
    }),
    capturePage: vi.fn(async (rect: { width: number; height: number }) => {
      const size = { width: rect.width * state.captureScale, height: rect.height * state.captureScale };
      const image = {
        getSize: () => size,
        resize: vi.fn((to: { width: number; height: number }) => ({ getSize: () => to, toPNG: () => Buffer.from(`png ${to.width}x${to.height}`), resize: image.resize })),
        toPNG: () => Buffer.from(`png ${size.width}x${size.height}`),
      };
      return image;
    }),
  };
  constructor(readonly options: Record<string, unknown>) { state.windows.push(this); }
  async loadFile(file: string): Promise<void> { this.loaded = { file, html: readFileSync(file, 'utf8') }; }
  isDestroyed(): boolean { return this.destroyed; }
  destroy(): void { this.destroyed = true; }
}

vi.mock('electron', () => ({
  BrowserWindow: FakeWindow,
  session: {
    fromPartition: (name: string) => {
      state.partitions.push(name);
      return {
        webRequest: { onBeforeRequest: (fn: BeforeRequest) => { state.beforeRequest = fn; } },
        setPermissionRequestHandler: (fn: typeof state.permission) => { state.permission = fn; },
      };
    },
  },
}));

const { electronPrinter, PRINT_PARTITION } = await import('../../../main/hosts/electron-printer');

const doc = { html: '<!doctype html><p>Brief</p>', widthMm: 210, heightMm: 297 };
const signal = new AbortController().signal;

describe('the Electron printer', () => {
  beforeEach(() => {
    state.windows.length = 0;
    state.captureScale = 1;
  });

  it('prints the document from a private file in a hidden, script-less window on the print session, then removes both', async () => {
    const printer = electronPrinter();
    const pdf = await printer.pdf(doc, signal);
    expect(Buffer.from(pdf).toString('latin1')).toBe('%PDF-1.4 fake');
    const [w] = state.windows;
    expect(w!.options).toMatchObject({ show: false, width: 794, height: 1123 });
    expect(w!.options.webPreferences).toMatchObject({ partition: PRINT_PARTITION, sandbox: true, contextIsolation: true, nodeIntegration: false, javascript: false });
    expect((w!.options.webPreferences as Record<string, unknown>).preload).toBeUndefined();
    expect(w!.loaded!.html).toBe(doc.html);
    expect(w!.webContents.printToPDF).toHaveBeenCalledWith({ pageSize: { width: 210 / 25.4, height: 297 / 25.4 }, printBackground: true, preferCSSPageSize: true, margins: { top: 0, right: 0, bottom: 0, left: 0 } });
    expect(w!.destroyed).toBe(true);
    expect(existsSync(w!.loaded!.file)).toBe(false);
    expect(state.partitions).toEqual([PRINT_PARTITION]);
  });

  it('lets the print session load only the document and data: images, and grants no permission', async () => {
    const printer = electronPrinter();
    let open!: () => void;
    state.gate = new Promise((resolve) => { open = resolve; });
    const pending = printer.pdf(doc, signal);
    await vi.waitFor(() => expect(state.windows[0]?.loaded).toBeTruthy());
    const fileUrl = `file://${state.windows[0]!.loaded!.file}`;
    const ask = (url: string) => new Promise<boolean>((resolve) => state.beforeRequest!({ url }, (r) => resolve(r.cancel)));
    const during = { file: await ask(fileUrl), data: await ask('data:image/png;base64,AAAA'), http: await ask('http://127.0.0.1:9/x.png'), other: await ask('file:///etc/passwd') };
    open();
    state.gate = null;
    await pending;
    expect(during).toEqual({ file: false, data: false, http: true, other: true });
    expect(await ask(fileUrl)).toBe(true);
    expect(fileURLToPath(fileUrl)).toBe(state.windows[0]!.loaded!.file);
    const granted = await new Promise<boolean>((resolve) => state.permission!(null, 'media', resolve));
    expect(granted).toBe(false);
  });

  it('renders a PNG at the dpi: the window is the page in pixels, zoomed by dpi / 96, a scaled display brought back to them', async () => {
    const printer = electronPrinter();
    state.captureScale = 2;
    const png = await printer.png({ ...doc, dpi: 300 }, signal);
    const [w] = state.windows;
    expect(w!.options).toMatchObject({ width: 2480, height: 3508 });
    expect(w!.options.webPreferences).toMatchObject({ zoomFactor: 300 / 96, javascript: false });
    expect(Buffer.from(png).toString()).toBe('png 2480x3508');
  });

  it('stops when the call is cancelled, closing its window', async () => {
    const printer = electronPrinter();
    const aborted = AbortSignal.abort();
    await expect(printer.pdf(doc, aborted)).rejects.toThrow();
    expect(state.windows.every((w) => w.destroyed)).toBe(true);
  });
});
