import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { BERLIN_WKT, importAoi, openPanel, waitForMapStill } from './workspace-harness';
import { describeEachStyle } from './workspace-styles';

describeEachStyle('workspace e2e: imagery search, check, estimate, download and preview', (ws, shapes) => {
  it('searches dates, checks, estimates and downloads a composite that lands in the folder and opens on the map', async () => {
    const page = ws().page;
    await openPanel(page, 'imagery');
    await importAoi(page, BERLIN_WKT);
    await expect.poll(() => page.getByTestId('aoi-area').innerText()).toMatch(/150\.\d+ km²/);
    expect(await page.getByTestId('aoi-vertices').innerText()).toBe('4');

    // 1. Search dates: a calendar of dates, the newest picked.
    await page.getByTestId('search-dates').click();
    const calendar = page.getByTestId('date-calendar');
    await calendar.waitFor({ timeout: 20_000 });
    const dates = await calendar.locator('button[data-date]').count();
    expect(dates).toBeGreaterThan(5);
    const picked = await page.getByTestId('composite-date').inputValue();
    expect(picked).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(await calendar.locator(`button[data-date="${picked}"]`).getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByTestId('search-groups').innerText()).toContain('Stratus2');
    // Hovering a date highlights its geography (no errors, the calendar stays).
    await calendar.locator('button[data-date]').first().hover();
    await page.screenshot({ path: `test-results/workspace-imagery-search-${shapes}.png` });

    // 2+3. Check with the shared settings.
    await page.getByTestId('step-check').scrollIntoViewIfNeeded();
    await page.getByTestId('check').click();
    const checks = page.getByTestId('availability-checks');
    await checks.waitFor({ timeout: 20_000 });
    await expect.poll(() => checks.innerText()).toContain('can be fulfilled');
    expect(await checks.locator('[data-flag]').count()).toBeGreaterThan(2);

    // Changing a shared setting marks the check stale; checking again clears it.
    await page.locator('#img-res').selectOption('20');
    await expect.poll(() => page.getByTestId('check-stale').isVisible()).toBe(true);
    await page.locator('#img-res').selectOption('10');
    await expect.poll(() => page.getByTestId('check-stale').count()).toBe(0);
    await page.screenshot({ path: `test-results/workspace-imagery-check-${shapes}.png` });

    // 4. Estimate: credit and area.
    await page.getByTestId('estimate').click();
    const estimate = page.getByTestId('estimate-result');
    await estimate.waitFor({ timeout: 20_000 });
    const estimateText = await estimate.innerText();
    expect(estimateText).toMatch(/EUR/);
    expect(estimateText).toMatch(/km²/);
    await page.getByTestId('step-estimate').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `test-results/workspace-imagery-estimate-${shapes}.png` });

    // 5. Download: progress events reach the page, the tray shows the job, then done; the file is in the folder.
    await page.evaluate(() => {
      const w = window as unknown as { __progress: unknown[]; swath: { on(e: string, cb: (p: unknown) => void): void } };
      w.__progress = [];
      w.swath.on('download:progress', (p) => w.__progress.push(p));
    });
    await page.getByTestId('download').click();
    // The tray does not open over the step's actions: the Download button is still
    // what is under the pointer (the toast says where the progress is). Opened by its head, the tray
    // keeps the button in view and takes at most a third of the column.
    expect(await page.getByTestId('downloads-tray').getAttribute('class')).not.toContain('open');
    expect(await isHitTarget(page, 'download')).toBe(true);
    await page.getByTestId('tray-toggle').click();
    expect(await isHitTarget(page, 'download')).toBe(true);
    const job = page.getByTestId('download-job').first();
    await job.waitFor({ timeout: 20_000 });
    const seen = new Set<string>();
    await expect
      .poll(
        async () => {
          const state = await job.getByTestId('job-state').innerText();
          seen.add(state);
          if (state === 'running' && (await job.getByRole('progressbar').count())) seen.add('progressbar');
          return state;
        },
        { timeout: 60_000, interval: 100 },
      )
      .toBe('done');
    expect(await job.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('100');
    const progress = (await page.evaluate(() => (window as unknown as { __progress: { bytes: number; total: number | null }[] }).__progress)) ?? [];
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)!.bytes).toBeGreaterThan(10_000);
    const fileName = await job.getByTestId('job-file').innerText();
    expect(fileName).toMatch(/\.tif$/);
    const files = readdirSync(ws().downloadsDir).filter((f) => f.endsWith('.tif'));
    expect(files).toContain(fileName);
    expect(statSync(path.join(ws().downloadsDir, fileName)).size).toBeGreaterThan(10_000);
    expect(existsSync(path.join(ws().downloadsDir, `${fileName}.part`))).toBe(false);
    expect(await job.getByTestId('job-open').isEnabled()).toBe(true);
    // The job is done: its "queued" toast has gone with it.
    await expect.poll(() => page.getByTestId('toast').allInnerTexts()).not.toContainEqual(expect.stringMatching(/queued/));
    expect(await isHitTarget(page, 'download')).toBe(true);
    const [tray, column] = await Promise.all([page.getByTestId('downloads-tray').boundingBox(), page.locator('main.side').boundingBox()]);
    expect(tray!.height).toBeLessThanOrEqual((tray!.height + column!.height) / 3 + 1);
    await page.screenshot({ path: `test-results/workspace-downloads-tray-${shapes}.png` });

    // 6. Preview: the downloaded raster opens on the map as a layer that loads without error.
    await job.getByTestId('job-open').click();
    const layer = page.locator('[data-testid="layers-list"] li[data-status]').first();
    await expect.poll(() => layer.getAttribute('data-status'), { timeout: 60_000 }).toMatch(/ready|error/);
    expect(await layer.getAttribute('data-status'), await layer.innerText()).toBe('ready');
    expect(await layer.innerText()).toContain(picked);
    // The row says its area is the file's footprint (bounding box), not the AOI.
    expect(await page.getByTestId('entry-footprint').first().innerText()).toMatch(/^Footprint [\d.]+ km² \(bounding box\) · [\d.]+°E – /);
    await page.screenshot({ path: `test-results/workspace-imagery-preview-${shapes}.png` });
    expect(ws().pageErrors).toEqual([]);
  });

  it('shows a validation error next to the offending field', async () => {
    const page = ws().page;
    await openPanel(page, 'imagery');
    // Client-side: a malformed Bandnames expression is named under the builder.
    await page.getByTestId('bandnames-input').fill('B4,B9');
    const bandField = page.locator('[data-field="Bandnames"]');
    await expect.poll(() => bandField.innerText()).toContain('Unknown band "B9"');
    await page.getByTestId('bandnames-input').fill('rgb');

    // Service-side: an EPSG the service cannot render comes back as a field error next to EPSG.
    await page.getByTestId('epsg-select').selectOption('other');
    await page.getByTestId('epsg-other').fill('2154');
    await page.getByTestId('check').click();
    const epsgField = page.locator('[data-field="EpsgProjection"]');
    await expect.poll(() => epsgField.getByTestId('field-error').first().innerText(), { timeout: 20_000 }).toMatch(/2154/);
    expect(await page.getByTestId('epsg-other').getAttribute('class')).toContain('invalid');
    await epsgField.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `test-results/workspace-validation-error-${shapes}.png` });
    // The error is not a generic banner only: the step shows the service's message too.
    expect(await page.getByTestId('step-check').getByTestId('error-notice').innerText()).toMatch(/field/);
    await page.getByTestId('epsg-select').selectOption('utm');
  });

  it('picks mini-tiles on the map from a tile search and downloads them', async () => {
    const page = ws().page;
    await openPanel(page, 'imagery');
    const section = page.getByTestId('step-tiles');
    await section.locator('button.head').click();
    const form = page.getByTestId('tile-search-form');
    await form.locator('[data-field="MiniTiles"] input').check();
    await form.getByTestId('schema-submit').click();
    await expect.poll(() => section.innerText(), { timeout: 20_000 }).toMatch(/\d+ mini-tiles\s*· 0 picked/);
    // The map fits the mini-tiles; the click goes where they are once it has.
    await waitForMapStill(page);
    // Click the middle of the map: the mini-tile under the pointer is picked.
    const box = (await page.getByTestId('map').boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await expect.poll(() => section.innerText()).toMatch(/·\s*1 picked/);
    await page.screenshot({ path: `test-results/workspace-tiles-picked-${shapes}.png` });
    await page.getByTestId('download-tiles').click();
    await expect.poll(() => page.getByTestId('download-job').count(), { timeout: 20_000 }).toBeGreaterThan(1);
    await expect.poll(() => page.getByTestId('download-job').first().getByTestId('job-state').innerText(), { timeout: 60_000 }).toBe('done');
    expect(await page.getByTestId('download-job').first().innerText()).toContain('Mini-tile');
    expect(ws().pageErrors).toEqual([]);
  });
});

/** Whether the element is what a click at its centre reaches (in view, nothing over it). */
async function isHitTarget(page: Page, testid: string): Promise<boolean> {
  return page.getByTestId(testid).evaluate((el) => {
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    return !!hit && el.contains(hit);
  });
}
