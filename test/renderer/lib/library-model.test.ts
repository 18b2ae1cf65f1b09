import { describe, expect, it } from 'vitest';
import {
  NO_FILTER, aoiKey, boxAreaKm2, filterEntries, formatBox, formatBytes, formatResolution, sortEntries, timeSeriesGroups,
} from '../../../renderer/src/lib/library-model';
import { item } from '../library/entries';

const WKT = 'POLYGON((13.40 52.50, 13.42 52.50, 13.42 52.51, 13.40 52.51, 13.40 52.50))';

describe('library list model', () => {
  it('searches every word across name, date, model, bands and EPSG', () => {
    const a = item({ path: '/x/berlin_summer.tif', bands: ['B4', 'B8'], epsg: 32633 });
    const b = item({ path: '/x/paris.tif', epsg: 2154, model: 'Nimbus' });
    expect(filterEntries([a, b], { ...NO_FILTER, query: 'berlin' })).toEqual([a]);
    expect(filterEntries([a, b], { ...NO_FILTER, query: 'epsg:2154' })).toEqual([b]);
    expect(filterEntries([a, b], { ...NO_FILTER, query: 'B8 summer' })).toEqual([a]);
    expect(filterEntries([a, b], { ...NO_FILTER, query: 'nimbus berlin' })).toEqual([]);
  });

  it('finds rasters by the names analysts use: ndvi, rgb, the index grammar and band names', () => {
    const ndvi = item({ path: '/x/composite_20261015_Stratus2_32633_10m.tif', bands: ['[B8_B4]'] });
    const rgb = item({ path: '/y/composite_20261015_Stratus2_32633_10m.tif', bands: ['B4', 'B3', 'B2'] });
    const nir = item({ path: '/z/nir.tif', bands: ['B8A', 'B11'] });
    const mixed = item({ path: '/z/mixed.tif', bands: ['B8', '[B11_B12]'] });
    const all = [ndvi, rgb, nir, mixed];
    const find = (query: string) => filterEntries(all, { ...NO_FILTER, query });
    expect(find('ndvi')).toEqual([ndvi]);
    expect(find('NDVI')).toEqual([ndvi]);
    expect(find('[B8_B4]')).toEqual([ndvi]);
    expect(find('[b8_b4]')).toEqual([ndvi]);
    expect(find('B8_B4')).toEqual([ndvi]);
    expect(find('rgb')).toEqual([rgb]);
    expect(find('B4,B3')).toEqual([rgb]);
    // A band is held exactly: B8 is neither B8A nor a band of the index [B8_B4].
    expect(find('B8')).toEqual([mixed]);
    expect(find('b8a')).toEqual([nir]);
    expect(find('[B11_B12]')).toEqual([mixed]);
    expect(find('ndvi 20261015')).toEqual([ndvi]);
    expect(find('rgb 32633')).toEqual([rgb]);
  });

  it('filters by date range, area and source', () => {
    const june = item({ date: '2026-06-10' });
    const july = item({ date: '2026-07-10', source: 'import' });
    const undated = item({ date: null });
    const sydney = item({ bounds4326: [151, -34, 151.3, -33.8] });
    const all = [june, july, undated, sydney];
    expect(filterEntries(all, { ...NO_FILTER, dateFrom: '2026-07-01' })).toEqual([july]);
    expect(filterEntries(all, { ...NO_FILTER, dateTo: '2026-06-30' })).toEqual([june, sydney]);
    expect(filterEntries(all, { ...NO_FILTER, area: [150, -35, 152, -33] })).toEqual([sydney]);
    expect(filterEntries(all, { ...NO_FILTER, source: 'import' })).toEqual([july]);
  });

  it('sorts by image date (undated last), added, name and size', () => {
    const a = item({ date: '2026-05-01', path: '/b.tif', size: 5 });
    const b = item({ date: null, path: '/a.tif', size: 50 });
    const c = item({ date: '2026-06-01', path: '/c.tif', size: 1 });
    expect(sortEntries([a, b, c], 'date-desc')).toEqual([c, a, b]);
    expect(sortEntries([a, b, c], 'date-asc')).toEqual([a, c, b]);
    expect(sortEntries([a, b, c], 'name')).toEqual([b, a, c]);
    expect(sortEntries([a, b, c], 'size-desc')).toEqual([b, a, c]);
  });

  it('groups the same AOI on several dates into a time series, oldest first', () => {
    const d1 = item({ request: { Wkt: WKT }, date: '2026-06-20' });
    const d2 = item({ request: { Wkt: WKT.replace(/ /g, '  ') }, date: '2026-06-10' });
    const d3 = item({ request: { Wkt: WKT }, date: '2026-06-30' });
    const other = item({ request: { Wkt: 'POLYGON((1 1, 2 1, 2 2, 1 1))' }, date: '2026-06-10' });
    const otherBands = item({ request: { Wkt: WKT }, date: '2026-07-01', bands: ['B8'] });
    const imported = [item({ date: '2026-01-01' }), item({ date: '2026-02-01' })];
    const groups = timeSeriesGroups([d1, d2, d3, other, otherBands, ...imported]);
    expect(groups.map((g) => g.entries.map((e) => e.date))).toEqual([['2026-06-10', '2026-06-20', '2026-06-30'], ['2026-01-01', '2026-02-01']]);
    expect(aoiKey(item({ bounds4326: null, request: null }))).toBeNull();
    expect(timeSeriesGroups([item({ request: { Wkt: WKT } }), item({ request: { Wkt: WKT } })])).toEqual([]);
  });

  it('formats sizes, resolutions, footprints and areas with units', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(10.5 * 1024 * 1024)).toBe('10.5 MB');
    expect(formatBytes(1.2 * 1024 ** 3)).toBe('1.2 GB');
    expect(formatResolution(10)).toBe('10 m');
    expect(formatResolution(2500)).toBe('2.5 km');
    expect(formatResolution(null)).toBe('—');
    expect(formatBox([151.1, -33.9, 151.2, -33.8])).toBe('151.100°E – 151.200°E, 33.900°S – 33.800°S');
    expect(formatBox(null)).toBe('unknown footprint');
    // One degree square at the equator is about 12,364 km².
    expect(boxAreaKm2([0, 0, 1, 1])).toBeCloseTo(12364, -1);
  });
});
