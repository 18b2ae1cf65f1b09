import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../simulator';
import type { StoredOrder } from '../../simulator/state';
import { chromiumAvailable } from './chromium';
import { openPanel, openWorkspace, waitForMap, waitForMapStill, type Workspace } from './workspace-harness';

// Fields through the browser host: a GeoPackage written by ogr2ogr (EPSG:32633) is imported, attached
// to a watch of the demo service's recurring order (on a clock the test moves), the watch brings a
// new date, the notification names the fields that dropped, a field's chart opens (and a brief with
// it, read back by poppler), both exports are written. Screenshots go to test-results.

const HAS_CHROMIUM = chromiumAvailable();
const HAS_OGR2OGR = spawnSync('ogr2ogr', ['--version'], { encoding: 'utf8' }).status === 0;
if (!HAS_OGR2OGR) console.warn('fields e2e: ogr2ogr (gdal-bin) is missing; skipped.');
const DAY = 86_400_000;
const AREA = 'POLYGON((13.85 52.33, 13.88 52.33, 13.88 52.35, 13.85 52.35, 13.85 52.33))';
const SHOTS = 'test-results';
type Handlers = Record<string, (r: unknown, c: unknown) => Promise<any>>;

/** Twelve parcels inside the watch's area, written by ogr2ogr as a GeoPackage in UTM 33N. */
function writeParcels(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const features = Array.from({ length: 12 }, (_, i) => {
    const x = 13.851 + (i % 4) * 0.007;
    const y = 52.331 + Math.floor(i / 4) * 0.006;
    const ring = [[x, y], [x + 0.005, y], [x + 0.005, y + 0.004], [x, y + 0.004], [x, y]];
    return { type: 'Feature', properties: { code: `F-${String(i + 1).padStart(2, '0')}`, label: `Field ${i + 1}` }, geometry: { type: 'Polygon', coordinates: [ring] } };
  });
  const geojson = path.join(dir, 'farm.geojson');
  writeFileSync(geojson, JSON.stringify({ type: 'FeatureCollection', features }));
  const gpkg = path.join(dir, 'farm.gpkg');
  const r = spawnSync('ogr2ogr', ['-f', 'GPKG', '-t_srs', 'EPSG:32633', '-nln', 'farm', gpkg, geojson], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ogr2ogr: ${r.stderr}`);
  return gpkg;
}

describe.skipIf(!HAS_CHROMIUM || !HAS_OGR2OGR)('workspace e2e: fields', () => {
  let ws: Workspace;
  let sim: RunningSimulator;
  // Early summer: the simulator's crops move between dates.
  const clock = { now: Date.parse('2026-06-20T12:00:00Z') };

  beforeAll(async () => {
    ws = await openWorkspace({
      startSimulator: async (o) => {
        sim = await startSimulator({ ...o, now: () => clock.now, lifecycle: { review: 1000, preparing: 1000, awaiting: 1000, processing: 1000 } });
        return sim;
      },
    });
  });
  afterAll(async () => {
    await ws?.close();
  });

  const call = (channel: string, request: unknown = {}) => (ws.app.handlers as unknown as Handlers)[channel]!(request, { senderUrl: 'test://', signal: AbortSignal.timeout(60_000) });
  const demoOrder = (): StoredOrder => Object.values(sim.state.accounts).find((a) => a.profile.seedDemoOrder)!.orders.find((o) => o.to == null)!;
  async function settledWatch(id: string, after: string | null): Promise<{ lastRunAt: string; counts: { downloaded: number } }> {
    let w: any;
    await expect.poll(async () => {
      w = (await call('watches:list')).watches.find((x: any) => x.id === id);
      return !!w && !w.running && w.lastRunAt !== null && w.lastRunAt !== after;
    }, { timeout: 120_000, interval: 200 }).toBe(true);
    return w;
  }

  it('imports a GeoPackage, follows a watch, names the fields that dropped, charts one and exports both files', async () => {
    const page = ws.page;
    await waitForMap(page);
    const o = demoOrder();
    const watch = await call('watches:create', {
      name: 'Farm watch', source: { kind: 'order', orderId: o.guid, recurring: true }, area: { Wkt: AREA }, model: o.model,
      constellations: o.constellations, from: o.from, to: o.to, capEur: null, everyHours: 6,
      settings: { EpsgProjection: 32633, Bandnames: 'B4,B8', DataType: 'INT16', Resolution: 40, PixelSelectionMode: 'intersect' },
    });
    const first = await settledWatch(watch.id, null);
    expect(first.counts.downloaded).toBeGreaterThan(1);

    // Import: the browser host has no file dialog, so the panel asks for a file in the download folder.
    const gpkg = writeParcels(path.join(ws.downloadsDir, 'parcels'));
    await openPanel(page, 'fields');
    await page.getByTestId('fields-panel').waitFor();
    await page.getByTestId('fields-empty').waitFor();
    await page.getByTestId('fields-choose-file').click();
    await page.getByTestId('fields-import-path').fill(gpkg);
    await page.getByTestId('fields-choose-file').click();
    await page.getByTestId('fields-import-id').selectOption('code');
    await page.getByTestId('fields-import-name').selectOption('label');
    await page.getByTestId('fields-import-start').click();
    await page.getByTestId('fields-set-farm').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('fields-set-farm').innerText()).toContain('12 parcels');
    expect(await page.getByTestId('fields-set-farm').innerText()).toContain('EPSG:32633');

    // Attach to the watch: its dates so far are computed as the baseline.
    await page.getByTestId('fields-attach-watch').selectOption({ label: 'Farm watch' });
    await page.getByTestId('fields-attach-direction').selectOption('drop');
    await page.getByTestId('fields-attach-threshold').fill('0.002');
    await page.getByTestId('fields-attach').click();
    await page.getByTestId('fields-watches').waitFor();
    await page.getByTestId('fields-legend').waitFor({ timeout: 60_000 });

    // A week later the order has a new date; the watch brings it and the monitor computes it.
    clock.now += 7 * DAY;
    await call('watches:run', { id: watch.id });
    await settledWatch(watch.id, first.lastRunAt);
    const note = page.locator('[data-testid="notification"]', { hasText: 'dropped more than 0.002 NDVI' });
    await note.waitFor({ timeout: 60_000 });
    expect(await note.getAttribute('data-kind')).toBe('fieldChange');
    const text = await note.innerText();
    const count = Number(/(\d+) fields? dropped more than 0\.002 NDVI/.exec(text)?.[1]);
    expect(count).toBeGreaterThan(0);
    // The count is that of the parcels whose latest change is under -0.002, as main stores them.
    const set = (await call('fields:sets')).sets[0];
    const latest = (await call('fields:latest', { setId: set.id, index: 'ndvi' })).latest as { parcelIndex: number; change: number | null }[];
    expect(latest.filter((l) => l.change !== null && l.change < -0.002)).toHaveLength(count);
    // The fields it names are those with the largest drops, largest first.
    const ids = new Map(((await call('fields:parcels', { setId: set.id })).parcels as { index: number; id: string }[]).map((p) => [p.index, p.id]));
    const named = [...text.matchAll(/\(([^)]+)\) -\d/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(0);
    const drops = latest.filter((l) => l.change !== null && l.change < -0.002).sort((a, b) => a.change! - b.change!);
    expect(named).toEqual(drops.slice(0, named.length).map((l) => ids.get(l.parcelIndex)));

    // The map coloured by the change, the table sorted by it (largest drop first).
    await page.getByTestId('fields-colour-by').selectOption('change');
    await page.getByTestId('fields-sort-change').click();
    const changes = await page.getByTestId('fields-row-change').allInnerTexts();
    const numbers = changes.map(Number).filter((n) => Number.isFinite(n));
    expect(numbers.length).toBeGreaterThan(0);
    expect([...numbers].sort((a, b) => a - b)).toEqual(numbers);
    await page.getByTestId('fields-zoom').click();
    await waitForMapStill(page);
    await page.screenshot({ path: `${SHOTS}/fields-map.png` });
    await page.getByTestId('fields-table').screenshot({ path: `${SHOTS}/fields-table.png` });

    // Any statistic of the latest date: the valid share shown in %, sorted by it, filtered by a range of it (typed in %).
    await page.getByTestId('fields-statistic').selectOption('validShare');
    await page.getByTestId('fields-sort-validShare').click();
    const shares = (await page.getByTestId('fields-row-statistic').allInnerTexts()).filter((t) => t !== '—');
    expect(shares.length).toBeGreaterThan(0);
    expect(shares.every((t) => / %$/.test(t))).toBe(true);
    const shareNumbers = shares.map((t) => Number(t.replace(' %', '')));
    expect([...shareNumbers].sort((a, b) => a - b)).toEqual(shareNumbers);
    if (process.env.SWATH_SHOTS) await page.getByTestId('fields-table').screenshot({ path: path.join(process.env.SWATH_SHOTS, 'fields-table-valid-share.png') });
    await page.getByTestId('fields-filter-column').selectOption('validShare');
    await page.getByTestId('fields-filter-min').fill('101');
    await expect.poll(() => page.getByTestId('fields-table-count').innerText()).toBe('0 of 12 parcels');
    await page.getByTestId('fields-filter-min').fill('');
    await expect.poll(() => page.getByTestId('fields-table-count').innerText()).toBe('12 of 12 parcels');
    await page.getByTestId('fields-statistic').selectOption('value');
    await page.getByTestId('fields-sort-change').click();

    // By keyboard: the list's focused row moves with the arrows and Enter opens that field.
    await page.getByTestId('fields-row').first().focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('fields-row').nth(1).getAttribute('aria-selected')).toBe('true');
    await page.getByTestId('series-chart').waitFor({ timeout: 20_000 });

    // A run over the whole library from the run dialog (every date again, the coverage reused).
    await page.getByTestId('fields-rule-exact').check();
    await page.getByTestId('fields-run-start').click();
    await expect.poll(() => page.getByTestId('fields-run-result').innerText().catch(() => ''), { timeout: 60_000 }).toContain(`${12 * (first.counts.downloaded + 1)} parcel × date results`);

    // One field's chart over time.
    await page.getByTestId('fields-row').first().click();
    const chart = page.getByTestId('series-chart');
    await chart.waitFor({ timeout: 20_000 });
    expect(Number(await chart.getAttribute('data-points'))).toBe(first.counts.downloaded + 1);
    await page.getByTestId('fields-chart').screenshot({ path: `${SHOTS}/fields-chart.png` });

    // A brief with that field's chart (the brief's button under it, by keyboard): the chart on the page.
    await page.getByTestId('parcel-brief').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('brief-dialog').waitFor();
    expect(await page.getByTestId('brief-chart').isChecked()).toBe(true);
    const label = /\((.* mean)\)$/.exec((await page.getByTestId('brief-dialog').locator('label.check').last().innerText()).trim())![1]!;
    await page.getByTestId('brief-export').click();
    await expect.poll(() => page.getByTestId('brief-progress').getAttribute('data-step'), { timeout: 60_000 }).toMatch(/done|failed/);
    expect(await page.getByTestId('brief-error').count()).toBe(0);
    const pdf = (await page.getByTestId('brief-file').innerText()).trim();
    expect(spawnSync('pdfinfo', [pdf], { encoding: 'utf8' }).stdout).toMatch(/^Pages:\s+1$/m);
    expect(spawnSync('pdftotext', [pdf, '-'], { encoding: 'utf8' }).stdout).toContain(label);
    await page.keyboard.press('Escape');
    await page.getByTestId('brief-dialog').waitFor({ state: 'detached' });

    // Two fields on the brief's chart: this one kept (by keyboard), a second row's chart shown, the brief of both.
    await page.getByTestId('parcel-brief-add').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('parcel-brief-chosen').waitFor();
    await page.getByTestId('fields-row').nth(1).click();
    await expect.poll(() => page.getByTestId('parcel-brief').innerText()).toMatch(/these 2 fields/);
    await page.getByTestId('parcel-brief').click();
    await page.getByTestId('brief-dialog').waitFor();
    const labels = await page.getByTestId('brief-fields').locator('li').evaluateAll((els) => els.map((e) => e.getAttribute('data-label')!));
    expect(labels).toHaveLength(2);
    expect(labels[0]).toBe(label);
    if (process.env.SWATH_SHOTS) await page.getByTestId('brief-dialog').screenshot({ path: path.join(process.env.SWATH_SHOTS, 'brief-dialog-fields.png') });
    await page.getByTestId('brief-export').click();
    await expect.poll(() => page.getByTestId('brief-progress').getAttribute('data-step'), { timeout: 60_000 }).toMatch(/done|failed/);
    expect(await page.getByTestId('brief-error').count()).toBe(0);
    const both = (await page.getByTestId('brief-file').innerText()).trim();
    expect(spawnSync('pdfinfo', [both], { encoding: 'utf8' }).stdout).toMatch(/^Pages:\s+1$/m);
    const bothText = spawnSync('pdftotext', [both, '-'], { encoding: 'utf8' }).stdout.replace(/\s+/g, ' ');
    for (const l of labels) expect(bothText, l).toContain(l);
    await page.keyboard.press('Escape');
    await page.getByTestId('brief-dialog').waitFor({ state: 'detached' });

    // Both exports, into the download folder's exports/.
    await page.getByTestId('fields-export-csv').click();
    await expect.poll(() => page.getByTestId('fields-exported').innerText().catch(() => ''), { timeout: 20_000 }).toMatch(/\.csv$/);
    const csv = /written to (.*\.csv)$/.exec(await page.getByTestId('fields-exported').innerText())![1]!;
    await page.getByTestId('fields-export-gpkg').click();
    await expect.poll(() => page.getByTestId('fields-exported').innerText().catch(() => ''), { timeout: 20_000 }).toMatch(/\.gpkg$/);
    const exportedGpkg = /written to (.*\.gpkg)$/.exec(await page.getByTestId('fields-exported').innerText())![1]!;
    for (const f of [csv, exportedGpkg]) {
      expect(path.dirname(f)).toBe(path.join(ws.downloadsDir, 'exports'));
      expect(existsSync(f)).toBe(true);
    }
    const info = spawnSync('ogrinfo', ['-so', '-al', exportedGpkg], { encoding: 'utf8' });
    expect(info.stdout).toMatch(/Layer name: parcels[\s\S]*Feature Count: 12/);
    expect(info.stdout).toMatch(new RegExp(`Layer name: statistics[\\s\\S]*Feature Count: ${12 * (first.counts.downloaded + 1)}`));
    expect(ws.pageErrors).toEqual([]);
  });
});
