import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startBrowserHost, type BrowserHost } from '../../main/hosts/browser-host';
import { MemoryKeychainBackend } from '../../main/profiles';
import { createApp, type SwathApp } from '../../main/app/app';
import { startSimulator } from '../../simulator';
import { launchChromium } from '../e2e/chromium';
import { MAP_HOOK } from '../e2e/workspace-harness';
import { benchBuild } from './renderer.bench.js';
import { chromiumPrinter } from '../support/chromium-printer';

/** What {@link withAppHost} gives a benchmark. */
export interface AppHost {
  app: SwathApp;
  host: BrowserHost;
  browser: Browser;
  /** The embedded demo service: its URL and the key it accepts for the demo account. */
  service: { url: string; key: string };
  /** A fresh page (1440 × 900, the map's test hook) on the app. */
  newPage(): Promise<Page>;
}

/**
 * The real app core on a fresh user-data folder (`seed` writes into it first), the demo service
 * in-process, the built renderer behind the browser host, and Chromium; `run` measures, then all
 * is closed and removed.
 */
export async function withAppHost<T>(name: string, seed: (userData: string) => void, run: (h: AppHost) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `swath-bench-${name}-`));
  const userData = path.join(dir, 'user');
  mkdirSync(userData, { recursive: true });
  seed(userData);
  let app: SwathApp | null = null;
  let host: BrowserHost | null = null;
  let browser: Browser | null = null;
  const build = benchBuild();
  try {
    let service: AppHost['service'] | null = null;
    app = await createApp({
      userDataDir: userData, downloadsDir: path.join(dir, 'Downloads'), keychainBackend: new MemoryKeychainBackend(),
      // Briefs are printed by the Chromium launched below, as the e2e harness does.
      printer: { pdf: (doc, signal) => chromiumPrinter(browser!).pdf(doc, signal), png: (doc, signal) => chromiumPrinter(browser!).png(doc, signal) },
      version: '0.0.0-bench', platform: process.platform, emit: (e, p) => host?.emit(e, p),
      startSimulator: async (opts) => {
        const sim = await startSimulator(opts);
        service = { url: sim.url, key: Object.keys(opts.apiKeys ?? {})[0]! };
        return sim;
      },
    });
    if (!service) throw new Error('the demo service did not start');
    const core = app;
    host = await startBrowserHost({ rendererDir: path.join(build.dir, 'renderer'), handlers: core.handlers, secrets: core.secrets, rasters: core.rasters, greeting: () => [{ event: 'connection:state', payload: core.connection() }] });
    const chromium = (browser = await launchChromium());
    const url = host.url;
    return await run({
      app: core, host, browser: chromium, service,
      async newPage() {
        const context = await chromium.newContext({ viewport: { width: 1440, height: 900 } });
        await context.addInitScript(MAP_HOOK);
        const page = await context.newPage();
        await page.goto(url);
        return page;
      },
    });
  } finally {
    await browser?.close().catch(() => undefined);
    await host?.close().catch(() => undefined);
    await app?.close().catch(() => undefined);
    build.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}
