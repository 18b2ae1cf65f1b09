import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { startBrowserHost, type BrowserHost } from '../../main/hosts/browser-host';
import { MemoryKeychainBackend } from '../../main/profiles';
import { createApp, type SwathApp } from '../../main/app/app';
import { styledChildSimulator } from '../simulator/helpers';
import { CHROMIUM, launchChromium } from './chromium';
import { chromiumPrinter } from '../support/chromium-printer';
import type { HostPrinter } from '../../main/platform/printer';

// The flags launchChromium uses, for launches that add their own.
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * A running workspace for end-to-end tests and benchmarks: the real main
 * services (embedded demo simulator, in-memory keychain, temp user data and
 * download folder) behind the browser host, and headless Chromium on it.
 */
export interface Workspace {
  app: SwathApp;
  host: BrowserHost;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  dir: string;
  downloadsDir: string;
  /** Uncaught page errors seen so far. */
  pageErrors: string[];
  /** Every line the main services logged. */
  logs: string[];
  /** The API keys the embedded demo service was started to accept (its per-run random key): secrets the page must never see. */
  serviceKeys: string[];
  /** Opens another page (fresh context) on the same host. */
  newPage(options?: { initScript?: string; colorScheme?: 'light' | 'dark' }): Promise<Page>;
  close(): Promise<void>;
}

/** Options of {@link openWorkspace}. */
export interface WorkspaceOptions {
  /** The built app (defaults to SWATH_E2E_BUILD, set by the e2e global setup). */
  buildDir?: string;
  viewport?: { width: number; height: number };
  colorScheme?: 'light' | 'dark';
  /** Script run in the page before the app (e.g. to install the perf hook). */
  initScript?: string;
  /** Don't open a first page. */
  noPage?: boolean;
  /** Extra Chromium flags (the renderer bench uncaps the frame rate). */
  chromiumArgs?: string[];
  /** The demo service's answer style ('production' or 'variant'; default SWATH_SIM_SHAPES's). */
  shapes?: string;
  /** Starts the demo service instead of the styled simulator (e.g. on a clock the test moves). */
  startSimulator?: Parameters<typeof createApp>[0]['startSimulator'];
  /** More of the app core's options (an admin policy, the real keychain under a service name of its own). */
  app?: Partial<Pick<Parameters<typeof createApp>[0], 'distribution' | 'keychainBackend' | 'keychainService' | 'confirm'>>;
}

/** Starts the app core, the browser host and Chromium, and opens the workspace. */
export async function openWorkspace(options: WorkspaceOptions = {}): Promise<Workspace> {
  const buildDir = options.buildDir ?? process.env.SWATH_E2E_BUILD;
  if (!buildDir) throw new Error('No build: run under the e2e global setup or pass buildDir.');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'swath-ws-'));
  const downloadsDir = path.join(dir, 'Downloads');
  let host: BrowserHost | null = null;
  const logs: string[] = [];
  const serviceKeys: string[] = [];
  const start = options.startSimulator ?? styledChildSimulator(options.shapes);
  // The browser host has no Chromium of its own: the harness hands main the one it launches as the printer of briefs.
  let browser: Browser | null = null;
  const printer: HostPrinter = {
    pdf: (doc, signal) => chromiumPrinter(browser!).pdf(doc, signal),
    png: (doc, signal) => chromiumPrinter(browser!).png(doc, signal),
  };
  const app = await createApp({
    userDataDir: dir,
    downloadsDir,
    keychainBackend: new MemoryKeychainBackend(),
    printer,
    ...options.app,
    version: '0.0.0-e2e',
    platform: process.platform,
    // In the answer style asked for (default: SWATH_SIM_SHAPES's), so every flow runs against either style;
    // in its own child process, as the browser host runs it.
    startSimulator: (opts) => {
      serviceKeys.push(...Object.keys(opts.apiKeys ?? {}));
      return start(opts);
    },
    emit: (e, p) => host?.emit(e, p),
    log: (line) => logs.push(line),
  });
  host = await startBrowserHost({
    rendererDir: path.join(buildDir, 'renderer'),
    handlers: app.handlers, secrets: app.secrets,
    rasters: app.rasters,
    greeting: () => [{ event: 'connection:state', payload: app.connection() }],
  });
  const launched = options.chromiumArgs
    ? await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_FLAGS, ...options.chromiumArgs] })
    : await launchChromium();
  browser = launched;
  const viewport = options.viewport ?? { width: 1440, height: 900 };
  const pageErrors: string[] = [];
  const contexts: BrowserContext[] = [];

  async function newPage(o: { initScript?: string; colorScheme?: 'light' | 'dark' } = {}): Promise<Page> {
    const context = await launched.newContext({ viewport, colorScheme: o.colorScheme ?? options.colorScheme ?? 'light', acceptDownloads: false });
    contexts.push(context);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: host!.origin }).catch(() => undefined);
    // The map's test hook (window.__SWATH_PERF__.map) on every page, for waitForMapStill.
    await context.addInitScript(MAP_HOOK);
    if (o.initScript ?? options.initScript) await context.addInitScript(o.initScript ?? options.initScript!);
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(host!.url);
    return page;
  }

  const page = options.noPage ? (null as unknown as Page) : await newPage();
  return {
    app,
    host,
    browser: launched,
    context: contexts[0] ?? (null as unknown as BrowserContext),
    page,
    dir,
    downloadsDir,
    pageErrors,
    logs,
    serviceKeys,
    newPage,
    async close() {
      for (const c of contexts) await c.close().catch(() => undefined);
      await launched.close().catch(() => undefined);
      await host!.close();
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The demo account's seeded historical order area (Berlin). */
export const BERLIN_WKT = 'POLYGON((13.30 52.45, 13.50 52.45, 13.50 52.55, 13.30 52.55, 13.30 52.45))';

/** Waits until the map has drawn its first frame. */
export async function waitForMap(page: Page): Promise<void> {
  try {
    await page.waitForFunction(() => performance.getEntriesByName('swath:map-interactive').length > 0, undefined, { timeout: 20_000 });
  } catch (e) {
    const body = await page.locator('body').innerText().catch(() => '(no body)');
    throw new Error(`The map did not become interactive: ${(e as Error).message}\nPage text: ${body.slice(0, 600)}`);
  }
}

/** Defines the map's test hook before the page loads (MapView puts the map on it); keeps one a test set. */
export const MAP_HOOK = 'window.__SWATH_PERF__ = window.__SWATH_PERF__ || {};';

/**
 * Waits until the map's view is still (no animation, no interaction) and a frame was drawn after
 * that: where a click lands then is where the test computed it. A fit the app starts with a list
 * (tile search, search geographies) is under way by the time that list is in the DOM, so waiting
 * for the list and then for this sees the fit's end, on a fast machine and a loaded one alike.
 */
export async function waitForMapStill(page: Page): Promise<void> {
  type Hooked = { __SWATH_PERF__?: { map?: import('ol/Map').default } };
  await page.waitForFunction(() => {
    const view = (window as unknown as Hooked).__SWATH_PERF__?.map?.getView();
    return !!view && !view.getAnimating() && !view.getInteracting();
  }, undefined, { timeout: 20_000 });
  await page.evaluate(() => new Promise<void>((resolve) => {
    const map = (window as unknown as Hooked).__SWATH_PERF__!.map!;
    map.once('rendercomplete', () => resolve());
    map.render();
  }));
}

/**
 * Waits until what the start defers (the finer coastline, water, place names: the mark
 * `swath:start-settled` of MapView) is in, then for the window to be idle: the steady state that
 * benchmarks measure from.
 */
export async function waitForStartSettled(page: Page): Promise<void> {
  await page.waitForFunction(() => performance.getEntriesByName('swath:start-settled').length > 0, undefined, { timeout: 60_000 });
  await page.evaluate(() => new Promise((resolve) => requestIdleCallback(resolve, { timeout: 10_000 })));
}

/** Imports an AOI through the import dialog (the paste path). */
export async function importAoi(page: Page, text: string): Promise<void> {
  await page.getByTestId('import-aoi').click();
  await page.getByTestId('import-text').fill(text);
  await page.getByTestId('import-submit').click();
}

/**
 * The Imagery steps to a downloaded composite over the AOI already set (the Imagery panel open):
 * search dates, check, estimate, download; the tray opened. Returns the job's row once done.
 */
export async function downloadComposite(page: Page): Promise<Locator> {
  await page.getByTestId('search-dates').click();
  await page.getByTestId('date-calendar').waitFor({ timeout: 20_000 });
  await page.getByTestId('check').click();
  await page.getByTestId('availability-checks').getByText('can be fulfilled').first().waitFor({ timeout: 20_000 });
  await page.getByTestId('estimate').click();
  await page.getByTestId('estimate-result').waitFor({ timeout: 20_000 });
  await page.getByTestId('download').click();
  if ((await page.getByTestId('tray-toggle').getAttribute('aria-expanded')) !== 'true') await page.getByTestId('tray-toggle').click();
  const job = page.getByTestId('download-job').first();
  await job.getByTestId('job-state').getByText('done', { exact: true }).waitFor({ timeout: 60_000 });
  return job;
}

/** Opens a rail panel by id. */
export async function openPanel(page: Page, id: string): Promise<void> {
  const button = page.locator(`nav[aria-label="Panels"] [data-panel="${id}"]`);
  if ((await button.getAttribute('aria-current')) !== 'page' || !(await page.locator('main.side').isVisible())) await button.click();
  await page.locator(`[data-testid="${id}-panel"], main.side`).first().waitFor();
}

/** Creates a service profile through Settings (the panel is opened) and returns its entry in the list. */
export async function createProfile(page: Page, profile: { name: string; baseUrl: string; key: string }): Promise<Locator> {
  await openPanel(page, 'settings');
  await page.getByTestId('profile-new').click();
  await page.getByTestId('profile-name').fill(profile.name);
  await page.getByTestId('profile-url').fill(profile.baseUrl);
  await page.getByTestId('profile-key').fill(profile.key);
  await page.getByTestId('profile-create').click();
  const entry = page.locator(`[data-profile="${profile.name}"]`);
  await entry.waitFor();
  return entry;
}

/** Records every mouse and pointer event a person would make on the page; returns how to read them ("<type> <TAG>"). */
export async function recordMouse(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(() => {
    const w = window as unknown as { __mouse: string[] };
    w.__mouse = [];
    for (const t of ['mousedown', 'mouseup', 'click', 'pointerdown', 'pointerup', 'dblclick', 'contextmenu']) {
      window.addEventListener(t, (e) => (e as MouseEvent).detail > 0 || (e as PointerEvent).pointerType ? w.__mouse.push(`${t} ${(e.target as HTMLElement).tagName}`) : undefined, true);
    }
  });
  return () => page.evaluate(() => (window as unknown as { __mouse: string[] }).__mouse);
}
