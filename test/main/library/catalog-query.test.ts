import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { LIBRARY_FILE, LibraryCatalog, type LibraryEntry } from '../../../main/library/index.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'swath-libq-'));
  return () => rmSync(dir, { recursive: true, force: true });
});

let n = 0;
function entry(over: Partial<LibraryEntry>): LibraryEntry {
  n++;
  return {
    id: `id-${n}`, path: path.join(dir, 'files', `raster-${n}.tif`), size: n, sha256: 'a'.repeat(64), request: null, kind: null,
    date: '2026-01-01', model: 'Stratus2', constellations: ['Sentinel2'], bands: ['B4', 'B3', 'B2'], epsg: 32633, resolution: 10,
    width: 4, height: 4, bounds4326: [13.4, 52.5, 13.43, 52.52], createdAt: `2026-02-01T00:00:${String(n % 60).padStart(2, '0')}.000Z`, source: 'import',
    ...over,
  };
}

/** Opens a catalog that imports these entries from an old library.json. */
async function seeded(entries: LibraryEntry[]): Promise<LibraryCatalog> {
  writeFileSync(path.join(dir, LIBRARY_FILE), JSON.stringify({ version: 1, entries }));
  return LibraryCatalog.open({ dir });
}

const ids = (es: { id: string }[]) => es.map((e) => e.id);

describe('LibraryCatalog on SQLite', () => {
  it('imports library.json once, in one transaction, and keeps it renamed as a backup', async () => {
    const es = [entry({}), entry({ sha256: null })];
    const cat = await seeded(es);
    expect(cat.count()).toBe(2);
    expect(cat.get(es[0]!.id)).toEqual(es[0]);
    expect(existsSync(path.join(dir, LIBRARY_FILE))).toBe(false);
    expect(readdirSync(dir).filter((f) => f.startsWith(`${LIBRARY_FILE}.imported-`))).toHaveLength(1);
    await cat.close();
    // A library.json that shows up again (a crash before the rename) is not imported twice.
    writeFileSync(path.join(dir, LIBRARY_FILE), JSON.stringify({ version: 1, entries: [entry({})] }));
    const again = await LibraryCatalog.open({ dir });
    expect(again.count()).toBe(2);
    expect(readdirSync(dir).filter((f) => f.startsWith(`${LIBRARY_FILE}.imported-`)).length).toBeGreaterThanOrEqual(1);
    await again.close();
  });

  it('pages, counts and sorts from the indexes', async () => {
    const es = [
      entry({ date: '2026-03-01', size: 30 }), entry({ date: null, size: 10 }), entry({ date: '2026-01-01', size: 50 }),
      entry({ date: '2026-02-01', size: 20 }), entry({ date: '2026-03-01', size: 40 }),
    ];
    const cat = await seeded(es);
    const all = cat.query({ limit: 10 });
    expect(all).toMatchObject({ total: 5, rows: 5, all: 5, series: [] });
    // Newest image first; the same date newest added first; undated last.
    expect(ids(all.entries)).toEqual([es[4], es[0], es[3], es[2], es[1]].map((e) => e!.id));
    expect(ids(cat.query({ limit: 10, sort: 'date-asc' }).entries)).toEqual([es[2], es[3], es[4], es[0], es[1]].map((e) => e!.id));
    expect(ids(cat.query({ limit: 10, sort: 'size-desc' }).entries)).toEqual([es[2], es[4], es[0], es[3], es[1]].map((e) => e!.id));
    expect(ids(cat.query({ limit: 10, sort: 'added-desc' }).entries)).toEqual([...es].reverse().map((e) => e.id));
    const page = cat.query({ limit: 2, offset: 2 });
    expect(page.total).toBe(5);
    expect(ids(page.entries)).toEqual([es[3], es[2]].map((e) => e!.id));
    expect(cat.query({ limit: 10, dateFrom: '2026-02-01', dateTo: '2026-02-28' }).total).toBe(1);
    expect(cat.query({ limit: 10, ids: [es[1]!.id, 'nope'] }).entries).toEqual([es[1]]);
    await cat.close();
  });

  it('searches products and bands by the bands held, other words as text (name, model, EPSG, date)', async () => {
    const ndvi = entry({ bands: ['[B8_B4]'], path: path.join(dir, 'berlin_ndvi.tif') });
    const b8 = entry({ bands: ['B8'], model: 'Cumulus', epsg: 3857 });
    const b8a = entry({ bands: ['B8A'], date: '2025-07-04' });
    const rgb = entry({ bands: ['B4', 'B3', 'B2'], source: 'download', kind: 'composite' });
    const cat = await seeded([ndvi, b8, b8a, rgb]);
    const find = (text: string, more = {}) => ids(cat.query({ limit: 50, text, sort: 'added-desc', ...more }).entries);
    expect(find('ndvi')).toEqual([ndvi.id]);
    expect(find('[B8_B4]')).toEqual([ndvi.id]);
    expect(find('B8')).toEqual([b8.id]);
    expect(find('b8a')).toEqual([b8a.id]);
    expect(find('rgb')).toEqual([rgb.id]);
    expect(find('B4')).toEqual([rgb.id]);
    expect(find('berlin')).toEqual([ndvi.id]);
    expect(find('BERL')).toEqual([ndvi.id]);
    expect(find('cumulus')).toEqual([b8.id]);
    expect(find('EPSG:3857')).toEqual([b8.id]);
    expect(find('2025-07')).toEqual([b8a.id]);
    expect(find('composite')).toEqual([rgb.id]);
    // Short words match as text too; every word must match.
    expect(find('cu')).toEqual([b8.id]);
    expect(find('cumulus B8A')).toEqual([]);
    expect(find('"quoted" 100%_')).toEqual([]);
    expect(find('rgb', { source: 'import' })).toEqual([]);
    expect(cat.query({ limit: 50, text: 'ndvi' }).total).toBe(1);
    await cat.close();
  });

  it('answers which rasters cover an area from the footprint index, exactly', async () => {
    const berlin = entry({ bounds4326: [13.4, 52.5, 13.43, 52.52] });
    const paris = entry({ bounds4326: [2.3, 48.8, 2.4, 48.9] });
    const none = entry({ bounds4326: null });
    const cat = await seeded([berlin, paris, none]);
    expect(ids(cat.covering([13.42, 52.51, 13.5, 52.6]))).toEqual([berlin.id]);
    expect(ids(cat.covering([13.43, 52.52, 13.43, 52.52]))).toEqual([berlin.id]);
    expect(ids(cat.covering([13.4301, 52.5, 14, 53]))).toEqual([]);
    expect(ids(cat.covering([-180, -90, 180, 90])).sort()).toEqual([berlin.id, paris.id].sort());
    expect(ids(cat.query({ limit: 10, bbox: [2, 48, 3, 49] }).entries)).toEqual([paris.id]);
    await cat.close();
  });

  it('groups a time series into one row at its first raster in the order, and follows adds and removals', async () => {
    const wkt = 'POLYGON((13.4 52.5,13.43 52.5,13.43 52.52,13.4 52.52,13.4 52.5))';
    const d1 = entry({ date: '2026-01-01', request: { Wkt: wkt } });
    const d2 = entry({ date: '2026-01-05', request: { Wkt: wkt } });
    const single = entry({ date: '2026-01-03' });
    const cat = await seeded([d1, d2, single]);
    const page = cat.query({ limit: 10, series: true });
    expect(page).toMatchObject({ total: 3, rows: 2, all: 3 });
    expect(ids(page.entries)).toEqual([d2.id, single.id]);
    expect(page.entries[0]!.series).toBeTruthy();
    expect(page.series).toEqual([{ key: page.entries[0]!.series, entries: [{ id: d1.id, date: d1.date }, { id: d2.id, date: d2.date }] }]);
    expect(ids(cat.query({ limit: 1, offset: 1, series: true }).entries)).toEqual([single.id]);
    // Filtered to the older date only: the series shows at that date, with all its dates.
    expect(ids(cat.query({ limit: 10, series: true, dateTo: '2026-01-02' }).entries)).toEqual([d1.id]);
    // One date left: no longer a series.
    await cat.remove(d2.id, {}, new AbortController().signal);
    expect(cat.get(d1.id)!.series).toBeUndefined();
    expect(cat.query({ limit: 10, series: true })).toMatchObject({ total: 2, rows: 2, series: [] });
    await cat.close();
  });

  it('a search with thousands of matches (the index walk) pages as the same filter sorted, in every order, and recounts after a change', async () => {
    // 3,000 rasters: 60 series of 25 dates and 1,500 singles; two thirds are named \"harvest\".
    const es = Array.from({ length: 3000 }, (_, i) => {
      const inSeries = i % 2 === 0;
      const wkt = `POLYGON((${13 + (i % 60) * 0.1} 52,${13.05 + (i % 60) * 0.1} 52,${13.05 + (i % 60) * 0.1} 52.05,${13 + (i % 60) * 0.1} 52.05,${13 + (i % 60) * 0.1} 52))`;
      return entry({
        path: path.join(dir, 'files', `scene-${i}-${i % 3 ? 'harvest' : 'flood'}.tif`),
        date: `2026-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (Math.floor(i / 60) % 28)).padStart(2, '0')}`,
        size: (i * 7919) % 5000, request: inSeries ? { Wkt: wkt } : null, createdAt: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
      });
    });
    const cat = await seeded(es);
    const harvest = es.filter((e) => e.path.endsWith('harvest.tif')).map((e) => e.id);
    expect(harvest.length).toBeGreaterThan(1900);
    for (const sort of ['date-desc', 'date-asc', 'added-desc', 'name', 'size-desc'] as const) {
      for (const series of [false, true]) {
        for (const offset of [0, 700]) {
          // The same rasters asked by id are always sorted: the reference for the walk.
          const byText = cat.query({ text: 'harvest', sort, series, offset, limit: 150 });
          const byIds = cat.query({ ids: harvest, sort, series, offset, limit: 150 });
          expect(byText.total).toBe(harvest.length);
          expect({ ...byText, entries: ids(byText.entries) }, `${sort} series=${series} offset=${offset}`).toEqual({ ...byIds, entries: ids(byIds.entries) });
        }
      }
    }
    // The counts of a list kept while it pages are recounted once the library changes.
    const first = cat.query({ text: 'harvest', series: true, limit: 100 });
    await cat.remove(harvest.find((id) => Number(id.slice(3)) % 2 === 0 && id !== first.entries[0]!.id)!, {}, new AbortController().signal);
    const next = cat.query({ text: 'harvest', series: true, limit: 100, offset: 100 });
    expect(next.total).toBe(first.total - 1);
    await cat.close();
  });

  it('gives every raster once, a page at a time, for exports of the whole library', async () => {
    const es = Array.from({ length: 7 }, () => entry({}));
    const cat = await seeded(es);
    await cat.remove(es[3]!.id, {}, new AbortController().signal);
    const seen: string[] = [];
    for await (const e of cat.everyEntry(2)) seen.push(e.id);
    expect(seen).toEqual(ids(es.filter((_, i) => i !== 3)));
    await cat.close();
  });

  it('finds file names case-insensitively in any folder', async () => {
    const cat = await seeded([entry({ path: path.join(dir, 'a', 'Scene_NDVI.tif') })]);
    expect(cat.hasFileName('scene_ndvi.TIF')).toBe(true);
    expect(cat.hasFileName('scene_ndvi (2).tif')).toBe(false);
    expect(cat.findByPath(path.join(dir, 'a', 'Scene_NDVI.tif'))?.path).toBe(path.join(dir, 'a', 'Scene_NDVI.tif'));
    await cat.close();
  });
});
