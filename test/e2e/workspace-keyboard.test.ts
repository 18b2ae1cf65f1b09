import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumAvailable } from './chromium';
import { openWorkspace, recordMouse, waitForMap, type Workspace } from './workspace-harness';

const HAS_CHROMIUM = chromiumAvailable();

/** The most key presses any main action may take from wherever focus is. */
const MAX_PRESSES = 10;

/** The test id of the focused element (or its tag). */
function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return el?.dataset.testid || el?.id || `${el?.tagName.toLowerCase()} ${el?.textContent?.trim().slice(0, 40)}`;
  });
}

describe.skipIf(!HAS_CHROMIUM)('workspace e2e: the main flow by keyboard only (no mouse event)', () => {
  let ws: Workspace;
  let page: Page;
  let mouse: () => Promise<string[]>;
  /** Key presses per step (a typed text counts as one press per character, reported apart). */
  const presses = new Map<string, number>();
  let step = '';
  async function press(key: string): Promise<void> {
    presses.set(step, (presses.get(step) ?? 0) + 1);
    await page.keyboard.press(key);
  }

  /** What main asked in its own dialog (the desktop app's; here a stand-in that agrees). */
  const asked: string[] = [];
  beforeAll(async () => {
    ws = await openWorkspace({ app: { confirm: async (q) => (asked.push(q.title), true) } });
    page = ws.page;
    await waitForMap(page);
    await page.getByTestId('connection-state').filter({ hasText: 'Connected' }).waitFor({ timeout: 20_000 });
    // No mouse event may reach the page: any pointer or mouse event fails the test.
    mouse = await recordMouse(page);
  });
  afterAll(async () => {
    console.log(`Key presses per step: ${[...presses].map(([s, n]) => `${s} ${n}`).join(', ')}`);
    await ws?.close();
  });

  it('the first Tab stop is the skip link to the panel, then the map', async () => {
    step = 'skip links';
    await press('Tab');
    expect(await focused(page)).toBe('skip-panel');
    expect(await page.getByTestId('skip-panel').isVisible()).toBe(true);
    await page.screenshot({ path: 'test-results/keyboard-skip-link.png' });
    await press('Tab');
    expect(await focused(page)).toBe('skip-map');
    await press('Enter');
    expect(await focused(page)).toBe('map');
  });

  it('types an AOI as a bounding box: the import dialog takes focus in its text field and gives it back', async () => {
    step = 'AOI';
    const before = await focused(page);
    await press('Alt+A');
    await page.getByTestId('import-dialog').waitFor();
    expect(await focused(page)).toBe('import-text');
    await page.keyboard.type('13.3, 52.45, 13.5, 52.55');
    await press('Control+Enter');
    await expect.poll(() => page.getByTestId('aoi-area').innerText()).toMatch(/^150\.\d\d km²$/);
    expect(await page.getByTestId('aoi-vertices').innerText()).toBe('4');
    expect(await page.getByTestId('import-dialog').count()).toBe(0);
    expect(await focused(page)).toBe(before);
  });

  it('search → check → estimate → download → open on the map, each in at most 10 presses', async () => {
    step = 'search';
    await press('Alt+S');
    await expect.poll(() => focused(page)).toBe('search-dates');
    await press('Enter');
    const calendar = page.getByTestId('date-calendar');
    await calendar.waitFor({ timeout: 20_000 });
    const picked = await page.getByTestId('composite-date').inputValue();
    expect(picked).toMatch(/^\d{4}-\d{2}-\d{2}$/);

    step = 'check';
    await press('Alt+C');
    await expect.poll(() => focused(page)).toBe('check');
    await press('Enter');
    await expect.poll(() => page.getByTestId('availability-checks').innerText(), { timeout: 20_000 }).toContain('can be fulfilled');

    step = 'estimate';
    await press('Alt+M');
    await expect.poll(() => focused(page)).toBe('estimate');
    await press('Enter');
    await expect.poll(() => page.getByTestId('estimate-result').innerText(), { timeout: 20_000 }).toMatch(/EUR/);

    step = 'download';
    await press('Alt+D');
    await expect.poll(() => focused(page)).toBe('download');
    await press('Enter');
    // A download leaves the tray closed (it would cover the step's actions); its head says when it is done.
    await expect.poll(() => page.getByTestId('tray-toggle').innerText(), { timeout: 60_000 }).toMatch(/1 finished/);
    expect(await page.getByTestId('download-job').count()).toBe(0);

    step = 'open on the map';
    await press('Alt+L');
    await expect.poll(() => focused(page)).toBe('job-open');
    await page.screenshot({ path: 'test-results/keyboard-open-download.png' });
    await press('Enter');
    const layer = page.locator('[data-testid="layers-list"] li[data-status]').first();
    await expect.poll(() => layer.getAttribute('data-status'), { timeout: 60_000 }).toBe('ready');
    expect(await layer.innerText()).toContain(picked);

    for (const s of ['search', 'check', 'estimate', 'download', 'open on the map']) expect(presses.get(s), s).toBeLessThanOrEqual(MAX_PRESSES);
  });

  it('time series; the STAC export reached from inside a text field of a dialog; Enter on the map pins the pixel at the centre', async () => {
    step = 'time series';
    await press('Alt+G');
    await expect.poll(() => focused(page)).toBe('series-compute');
    await press('Enter');
    // The composite is RGB: the NDVI series names it as not used, with the reason.
    await expect.poll(() => page.getByTestId('series-summary').innerText(), { timeout: 30_000 }).toMatch(/NDVI.*over the AOI/i);

    // Focus in a text field (the AOI dialog's): letters would type there, Alt+letter still goes, and closes the dialog.
    step = 'AOI field';
    await press('Alt+A');
    await expect.poll(() => focused(page)).toBe('import-text');
    step = 'export';
    await press('Alt+X');
    await expect.poll(() => focused(page)).toBe('stac-export-button');
    expect(await page.getByTestId('import-dialog').count()).toBe(0);

    step = 'pixel';
    await press('Alt+K');
    expect(await focused(page)).toBe('map');
    await press('Enter');
    await expect.poll(() => page.getByTestId('inspector-lonlat').count(), { timeout: 20_000 }).toBe(1);
    expect(await page.getByTestId('pixel-inspector').innerText()).toContain('Pinned');
    expect(await page.getByTestId('inspector-pixel').innerText()).toMatch(/^col \d+, row \d+$/);
    await page.screenshot({ path: 'test-results/keyboard-map-centre.png' });
    for (const s of ['time series', 'export', 'pixel']) expect(presses.get(s), s).toBeLessThanOrEqual(MAX_PRESSES);
  });

  it('tasking: estimate → place the order, confirmed in its dialog, which opens on Back', async () => {
    step = 'tasking estimate';
    await press('Alt+T');
    await expect.poll(() => focused(page)).toBe('estimate-button');
    await press('Enter');
    await page.getByTestId('estimate-summary').waitFor({ timeout: 20_000 });

    step = 'place order';
    await press('Alt+O');
    await expect.poll(() => focused(page)).toBe('place-button');
    await press('Enter');
    const dialog = page.getByTestId('confirm-place-dialog');
    await dialog.waitFor();
    await expect.poll(() => dialog.getByTestId('confirm-cost').innerText()).toMatch(/\d+\.\d\d EUR/);
    // The safe button has focus: a second Enter never places an order by accident.
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Back');
    await page.screenshot({ path: 'test-results/keyboard-confirm-place.png' });
    await press('Tab');
    expect(await focused(page)).toBe('confirm-place');
    await press('Enter');
    await page.getByTestId('create-done').waitFor({ timeout: 20_000 });
    expect((await page.getByTestId('created-id').innerText()).trim()).toMatch(/^[0-9a-f-]{36}$/);
    // With no budget, an order above the confirmation threshold is asked in main's own dialog too.
    expect(asked).toEqual(['Confirm this spend?']);
    // Place order is disabled now: focus went to its section's heading, not to the body.
    await expect.poll(() => page.evaluate(() => document.activeElement?.closest('[data-testid="section-estimate"]') !== null)).toBe(true);
    for (const s of ['tasking estimate', 'place order']) expect(presses.get(s), s).toBeLessThanOrEqual(MAX_PRESSES);

    expect(await mouse()).toEqual([]);
    expect(ws.pageErrors).toEqual([]);
  });
});
