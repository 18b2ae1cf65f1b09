import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daysFromToday, importAoi, mapPixel, startTaskingHarness, wktCenter, type TaskingHarness } from '../renderer/features/tasking/e2e-harness';
import { ANSWER_STYLES, listRows } from '../simulator/helpers';
import { chromiumAvailable } from './chromium';
import { waitForMapStill } from './workspace-harness';

const HAS_CHROMIUM = chromiumAvailable();
// About 6 x 4 km near Leipzig: a handful of 3.2 km mini-tiles, away from the seeded demo orders.
const LEIPZIG = 'POLYGON((12.33 51.31, 12.41 51.31, 12.41 51.345, 12.33 51.345, 12.33 51.31))';

async function sim(h: TaskingHarness, path: string, body: unknown): Promise<any> {
  const res = await fetch(`${h.sim.url}${path}`, { method: 'POST', headers: { 'x-api-key': h.key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.Data;
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A record's GUID and WKT footprint, whatever the answer style calls them. */
const guidOf = (r: Record<string, unknown>) => Object.values(r).find((v): v is string => typeof v === 'string' && GUID.test(v))!;
const wktOf = (r: Record<string, unknown>) => Object.values(r).find((v): v is string => typeof v === 'string' && /^POLYGON/i.test(v))!;

describe.skipIf(!HAS_CHROMIUM).each(ANSWER_STYLES)('tasking in Chromium: a tile-mode recurring order with TileDeduplication (%s answers)', (shapes) => {
  let h: TaskingHarness;
  /** What main asked in its own dialog (the desktop app's; here a stand-in that agrees). */
  const asked: string[] = [];
  beforeAll(async () => {
    // Orders stay in Review long enough to be cancelled in full.
    h = await startTaskingHarness({ shapes, lifecycle: { review: 120_000 }, confirm: async (r) => (asked.push(r.message), true) });
  }, 90_000);
  afterAll(async () => {
    await h?.close();
  });

  it('searches mini-tiles, warns about an inconsistent earlier order, estimates, places with dedup and cancels', async () => {
    const { page } = h;
    const from = daysFromToday(-10);
    // An earlier recurring mini-tile order over two of the mini-tiles, every 5 days.
    const minis = listRows(await sim(h, '/api/tasking/search/tiles', { Wkt: LEIPZIG, MiniTiles: true })).map((t) => ({ Guid: guidOf(t), DataGeogWkt: wktOf(t) }));
    expect(minis.length).toBeGreaterThanOrEqual(4);
    const earlier = {
      MiniTileGuids: minis.slice(0, 2).map((t) => t.Guid), SatelliteConstellations: ['Sentinel1', 'Sentinel2'], Model: 'Stratus2',
      StorageMonths: 0, ApiRequests: 0, ImageFrequency: 5, ReferenceDate: from, From: from, To: null,
    };
    await sim(h, '/api/tasking/orders/estimate', earlier);
    const earlierId = guidOf(await sim(h, '/api/tasking/orders', earlier));

    await importAoi(page, LEIPZIG);
    await page.locator('[data-testid="area-tiles"]').click();
    const form = page.locator('[data-testid="tile-search-form"]');
    await form.locator('#tiles-MiniTiles').check();
    await form.locator('[data-testid="schema-submit"]').click();
    await expect.poll(() => page.locator('[data-testid="tile-list"] li').count()).toBe(minis.length);
    const count = () => page.locator('[data-testid="tile-selection-count"]').innerText();
    // Click one mini-tile on the map (once the map has fitted them); click it again to drop it.
    await waitForMapStill(page);
    const c0 = await mapPixel(page, ...wktCenter(minis[0]!.DataGeogWkt));
    await page.mouse.click(c0.x, c0.y);
    await expect.poll(count).toBe(`1 of ${minis.length} selected`);
    await expect.poll(() => page.locator(`[data-testid="tile-list"] li[data-guid="${minis[0]!.Guid}"]`).getAttribute('class')).toMatch(/selected/);
    await page.mouse.click(c0.x, c0.y + 1);
    await expect.poll(count).toBe(`0 of ${minis.length} selected`);
    // Box-select with Ctrl held: a box around the two western mini-tile centres.
    const west = minis.map((m) => wktCenter(m.DataGeogWkt)).sort((a, b) => a[0] - b[0]).slice(0, 2);
    const p1 = await mapPixel(page, west[0]![0] - 0.003, Math.max(west[0]![1], west[1]![1]) + 0.003);
    const p2 = await mapPixel(page, Math.max(west[0]![0], west[1]![0]) + 0.003, Math.min(west[0]![1], west[1]![1]) - 0.003);
    await page.keyboard.down('Control');
    await page.mouse.move(p1.x, p1.y);
    await page.mouse.down();
    await page.mouse.move((p1.x + p2.x) / 2, (p1.y + p2.y) / 2, { steps: 5 });
    await page.mouse.move(p2.x, p2.y, { steps: 5 });
    await page.mouse.up();
    await page.keyboard.up('Control');
    await expect.poll(count).toMatch(new RegExp(`^[2-9] of ${minis.length} selected`));
    await h.shot('tasking-09-tiles-box-selected');
    await page.locator('[data-testid="tiles-select-all"]').click();
    await expect.poll(() => page.locator('[data-testid="tile-selection-count"]').innerText()).toBe(`${minis.length} of ${minis.length} selected`);
    await page.locator('[data-testid="tab-orders"]').click();
    await page.locator(`[data-testid="order-row"][data-order="${earlierId}"]`).waitFor();
    await page.locator('[data-testid="tab-order"]').click();
    await h.shot('tasking-10-tiles-selected');

    await page.locator('[data-testid="kind-recurring"]').click();
    await page.locator('[data-testid="order-from"]').fill(from);
    await page.locator('[data-testid="order-reference"]').fill(from);
    await page.locator('[data-testid="order-frequency"]').fill('7');
    await expect.poll(() => page.locator('[data-testid="backfill-note"]').innerText()).toBe(`Backfills from ${from}, then continues every 7 days.`);
    await page.locator('[data-testid="estimate-button"]').click();
    await page.locator('[data-testid="estimate-summary"]').waitFor();
    const payload = JSON.parse((await page.locator('[data-testid="estimate-payload"]').textContent())!);
    expect(payload).toMatchObject({ MiniTileGuids: minis.map((t) => t.Guid), To: null, ImageFrequency: 7 });

    // Earlier order with other cadence: named before placing.
    const warning = page.locator('[data-testid="dedup-warning"]');
    await expect.poll(() => warning.innerText()).toMatch(/ImageFrequency \(5 → 7\)/);
    await expect.poll(() => warning.innerText()).toContain(earlierId);
    await warning.scrollIntoViewIfNeeded();
    await h.shot('tasking-11-tiles-dedup-warning');

    // Adopting its settings is an edit: the estimate is stale until estimated again.
    await warning.locator('button').click();
    await expect.poll(() => page.locator('[data-testid="order-frequency"]').inputValue()).toBe('5');
    await expect(page.locator('[data-testid="place-button"]').isDisabled()).resolves.toBe(true);
    await expect.poll(() => page.locator('[data-testid="stale-notice"]').innerText()).toMatch(/ImageFrequency/);
    await page.locator('[data-testid="stale-notice"]').scrollIntoViewIfNeeded();
    await h.shot('tasking-12-tiles-stale-after-edit');
    await page.locator('[data-testid="estimate-button"]').click();
    await expect.poll(() => page.locator('[data-testid="stale-notice"]').count()).toBe(0);
    await expect.poll(() => page.locator('[data-testid="dedup-consistent"]').innerText()).toMatch(/Consistent with 1 earlier tile order/);
    expect(await page.locator('[data-testid="tile-dedup"]').isChecked()).toBe(true);

    await page.locator('[data-testid="place-button"]').click();
    const dialog = page.locator('[data-testid="confirm-place-dialog"]');
    await dialog.waitFor();
    await expect.poll(() => dialog.locator('[data-testid="confirm-recurring"]').innerText()).toMatch(/This order is recurring\..*cancel before\s+\d{4}-\d{2}-01 00:00 UTC/s);
    await expect.poll(() => dialog.innerText()).toMatch(new RegExp(`${minis.length} mini-tiles, TileDeduplication on`));
    await h.shot('tasking-13-tiles-confirm-recurring');
    await dialog.locator('[data-testid="confirm-place"]').click();
    await page.locator('[data-testid="create-done"]').waitFor({ timeout: 20_000 });
    const id = (await page.locator('[data-testid="created-id"]').innerText()).trim();
    const stored = h.sim.state.accounts['demo-key']!.orders.find((o) => o.guid === id)!;
    expect(stored.dedupedTiles.sort()).toEqual(earlier.MiniTileGuids.sort());
    expect(stored.to).toBeNull();

    // Cancel: parameters prefilled from the row, confirmed, then the list refreshes.
    await page.locator('[data-testid="tab-orders"]').click();
    const row = page.locator(`[data-testid="order-row"][data-order="${id}"]`);
    await row.waitFor();
    await expect.poll(() => row.locator('[data-testid="order-deadline"]').innerText()).toMatch(/Renews unless cancelled by \d{4}-\d{2}-01 00:00 UTC/);
    await row.locator('button').first().click();
    const cancelForm = page.locator('[data-testid="order-cancel-form"]');
    await expect.poll(() => cancelForm.locator('input').first().inputValue()).toBe(id);
    await cancelForm.locator('[data-testid="schema-submit"]').click();
    const confirm = page.locator('[data-testid="confirm-cancel-dialog"]');
    await confirm.waitFor();
    await expect.poll(() => confirm.innerText()).toContain(id);
    await h.shot('tasking-14-tiles-confirm-cancel');
    await confirm.locator('[data-testid="confirm-cancel"]').click();
    await page.locator('[data-testid="cancel-result"]').waitFor();
    // The page's dialog is not the consent: main asked in its own, naming the order.
    expect(asked).toEqual([`Cancel tasking order ${id}?`]);
    await expect.poll(() => page.locator('[data-testid="cancel-result"]').innerText()).toMatch(/Canceled/);
    expect(h.sim.state.accounts['demo-key']!.orders.find((o) => o.guid === id)!.canceledAt).not.toBeNull();
    // A cancelled order is listed again once expired orders are included.
    await expect.poll(() => row.count()).toBe(0);
    // The list's filter of expired orders, whatever the spec calls it.
    await page.locator('[data-testid^="filter-"][data-testid*="expired" i]').check();
    await expect.poll(() => row.locator('[data-testid="order-status"]').innerText()).toBe('Canceled');
    await h.shot('tasking-15-tiles-cancelled');
    expect(h.errors).toEqual([]);
  }, 120_000);

  it('warns about recurring orders once less than 72 hours are left before the renewal deadline', async () => {
    const { page } = h;
    const now = new Date();
    const deadline = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    // The page's clock only: 36 hours before 00:00 UTC on the 1st.
    await page.clock.setFixedTime(new Date(deadline - 36 * 3_600_000));
    await page.locator('[data-testid="orders-refresh"]').click();
    const banner = page.locator('[data-testid="renewal-warning"]');
    await expect.poll(() => banner.innerText()).toMatch(/renews? in 1 d 12 h 00 min/);
    await expect.poll(() => banner.innerText()).toContain(`${new Date(deadline).toISOString().slice(0, 10)} 00:00 UTC`);
    await expect.poll(() => page.locator('[data-testid="order-deadline"]').first().innerText()).toMatch(/in 1 d 12 h 00 min/);
    await h.shot('tasking-16-renewal-warning');
  }, 60_000);
});
