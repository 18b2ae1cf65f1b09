import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { axeSerious, formatFindings, type AxeFinding } from './axe';
import { chromiumAvailable } from './chromium';
import { BERLIN_WKT, downloadComposite, importAoi, openPanel, openWorkspace, waitForMap, type Workspace } from './workspace-harness';

const HAS_CHROMIUM = chromiumAvailable();
const PANELS = ['imagery', 'tasking', 'library', 'products', 'billing', 'account', 'settings', 'watches', 'fields'];

/** Opens a panel and waits until its code has loaded (no "Loading…" placeholder) and its busy notices are gone. */
async function showPanel(page: Page, id: string): Promise<void> {
  await openPanel(page, id);
  await expect.poll(() => page.locator('.side-body > p.empty .spinner').count(), { timeout: 20_000 }).toBe(0);
  await expect.poll(() => page.locator('.side-body [data-testid="busy-notice"]').count(), { timeout: 20_000 }).toBe(0);
}

/** Opens a dialog with `open`, checks focus moved into it, scans the page with the dialog up, closes it with Escape and checks focus went back. */
async function scanDialog(page: Page, testid: string, state: string, open: () => Promise<void>): Promise<AxeFinding[]> {
  await open();
  const dialog = page.getByTestId(testid);
  await dialog.waitFor();
  // Focus moved into the dialog.
  await expect.poll(() => dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
  const found = await axeSerious(page, `${state} / dialog ${testid}`);
  await page.keyboard.press('Escape');
  await expect.poll(() => dialog.count()).toBe(0);
  // Focus went back to the element that had it (the opener), not to the page's body.
  await expect.poll(() => page.evaluate(() => document.activeElement !== document.body && document.activeElement?.isConnected)).toBe(true);
  return found;
}

/** Opens the API key dialog through the app's ui store (a test hook: no panel opens it without a refused key). */
async function openKeyDialog(page: Page): Promise<void> {
  await page.evaluate(() => {
    type Store = { openKeyDialog(reason: string): void };
    const app = (document.querySelector('#app') as unknown as { __vue_app__: { config: { globalProperties: { $pinia: { _s: Map<string, Store> } } } } }).__vue_app__;
    app.config.globalProperties.$pinia._s.get('ui')!.openKeyDialog('The service refused the API key (test).');
  });
}

/** Every panel, then every window dialog, scanned. */
async function scanAll(page: Page, state: string): Promise<AxeFinding[]> {
  const found: AxeFinding[] = [];
  for (const id of PANELS) {
    await showPanel(page, id);
    found.push(...(await axeSerious(page, `${state} / ${id}`)));
  }
  found.push(...(await scanDialog(page, 'import-dialog', state, () => page.getByTestId('import-aoi').click())));
  found.push(...(await scanDialog(page, 'help-overlay', state, () => page.getByTestId('help-button').click())));
  found.push(...(await scanDialog(page, 'key-dialog', state, () => openKeyDialog(page))));
  await showPanel(page, 'settings');
  found.push(...(await scanDialog(page, 'about-dialog', state, () => page.getByTestId('about-open').click())));
  return found;
}

/**
 * The analyst's walk that fills the panels: an AOI, search, check, estimate, download, the result
 * on the map; a tasking estimate and its confirmation dialog (scanned, then dismissed).
 */
async function walk(page: Page, state: string): Promise<AxeFinding[]> {
  await showPanel(page, 'imagery');
  await importAoi(page, BERLIN_WKT);
  const job = await downloadComposite(page);
  await job.getByTestId('job-open').click();
  const layer = page.locator('[data-testid="layers-list"] li[data-status]').first();
  await expect.poll(() => layer.getAttribute('data-status'), { timeout: 60_000 }).toBe('ready');

  await showPanel(page, 'tasking');
  await page.getByTestId('estimate-button').click();
  await page.getByTestId('estimate-summary').waitFor({ timeout: 20_000 });
  return scanDialog(page, 'confirm-place-dialog', state, () => page.getByTestId('place-button').click());
}

describe.skipIf(!HAS_CHROMIUM)('workspace e2e: WCAG 2.1 AA (axe-core) on every panel and dialog', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await openWorkspace({ noPage: true });
  });
  afterAll(async () => {
    await ws?.close();
  });

  it.each(['light', 'dark'] as const)('%s theme: 0 critical and 0 serious violations, fresh and after the walk', async (theme) => {
    const page = await ws.newPage({ colorScheme: theme });
    await waitForMap(page);
    await expect.poll(() => page.getByTestId('connection-state').innerText(), { timeout: 20_000 }).toContain('Connected');
    const found = await scanAll(page, `${theme} / fresh`);
    found.push(...(await walk(page, `${theme} / walk`)));
    found.push(...(await scanAll(page, `${theme} / after the walk`)));
    expect(formatFindings(found)).toBe('');
    expect(ws.pageErrors).toEqual([]);
    await page.close();
  }, 240_000);
});
