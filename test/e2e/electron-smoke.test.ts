import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { _electron as electron, type ElectronApplication } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * Launches the built app with the real Electron binary. Where the binary is not
 * installed (CI sandboxes without network), the test is skipped, loudly.
 */

const root = fileURLToPath(new URL('../../', import.meta.url));
// The run's one build (test/support/app-build.ts), never a stale out/ of the checkout.
const mainEntry = join(process.env.SWATH_E2E_BUILD ?? join(root, 'out'), 'main/index.js');

/** Finds the Electron executable the way node_modules/electron/index.js does, but never triggers its download. */
function findElectronBinary(): { path: string } | { reason: string } {
  const pkgDir = join(root, 'node_modules/electron');
  const pathFile = join(pkgDir, 'path.txt');
  if (!existsSync(pathFile)) return { reason: `${pathFile} is missing (the Electron download never ran)` };
  const relative = readFileSync(pathFile, 'utf8').trim();
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  const binary = override ? join(override, relative || 'electron') : join(pkgDir, 'dist', relative);
  return existsSync(binary) ? { path: binary } : { reason: `${binary} does not exist` };
}

const found = findElectronBinary();
const binary = 'path' in found ? found.path : null;
if (!binary) console.warn(`Electron binary not available: ${'reason' in found ? found.reason : ''}; smoke test skipped`);

describe('Electron smoke test', () => {
  let app: ElectronApplication | null = null;
  // Made by the test itself: a skipped test runs no hook, so a folder made here would stay behind.
  let userData: string | null = null;

  afterAll(async () => {
    await app?.close();
    if (userData) rmSync(userData, { recursive: true, force: true });
  });

  it.skipIf(!binary)('launches the built app: secure window, demo service online, bridge only', async () => {
    expect(existsSync(mainEntry), `${mainEntry} (run this file in the e2e part, which builds the app)`).toBe(true);
    // Without ELECTRON_RENDERER_URL the app loads the built renderer, as a packaged app would.
    const { ELECTRON_RENDERER_URL: _devServer, ...env } = process.env;
    userData = mkdtempSync(join(tmpdir(), 'swath-e2e-'));
    app = await electron.launch({
      executablePath: binary!,
      args: [mainEntry],
      cwd: root,
      env: { ...env, SWATH_USER_DATA_DIR: userData },
    });
    const page = await app.firstWindow();
    await page.waitForSelector('[data-testid="service-label"]');

    expect(await page.title()).toBe('Swath');
    await expect.poll(() => page.textContent('[data-testid="service-label"]')).toContain('Demo service (offline)');
    await expect.poll(() => page.textContent('[data-testid="connection-state"]'), { timeout: 15_000 }).toContain('Connected');

    // The page sees the bridge and nothing of Node or Electron.
    const surface = await page.evaluate(() => ({
      swath: Object.keys((window as unknown as { swath: object }).swath).sort(),
      require: typeof (globalThis as { require?: unknown }).require,
      process: typeof (globalThis as { process?: unknown }).process,
    }));
    expect(surface).toEqual({ swath: ['appInfo', 'on', 'servicePing'], require: 'undefined', process: 'undefined' });

    // The key stays in main.
    const info = await page.evaluate(() => (window as unknown as { swath: { appInfo(): Promise<unknown> } }).swath.appInfo());
    expect(JSON.stringify(info)).not.toContain('demo-key');

    const windows = await app.evaluate(({ BrowserWindow }) =>
      BrowserWindow.getAllWindows().map((w) => ({ url: w.webContents.getURL(), title: w.getTitle() })),
    );
    expect(windows).toHaveLength(1);
    expect(windows[0]!.url).toBe('app://swath/index.html');

    // Navigation away is refused: main sees the attempt and prevents it, and the URL stays on the app
    // document. The test's own will-navigate listener is added after the app's, so it sees the verdict.
    const before = page.url();
    await app.evaluate(({ BrowserWindow }) => {
      const seen: { url: string; prevented: boolean }[] = [];
      (globalThis as unknown as { __navigations: typeof seen }).__navigations = seen;
      BrowserWindow.getAllWindows()[0]!.webContents.on('will-navigate', (event, url) => {
        seen.push({ url, prevented: event.defaultPrevented });
      });
    });
    await page.evaluate(() => {
      window.location.href = 'https://example.com/';
    });
    await expect.poll(() => app!.evaluate(() => (globalThis as unknown as { __navigations: unknown[] }).__navigations), { timeout: 15_000 })
      .toEqual([{ url: 'https://example.com/', prevented: true }]);
    expect(page.url()).toBe(before);
  });
});
