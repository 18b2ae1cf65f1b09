import type { LibraryItem } from '../../../../renderer/src/platform/lib/library-item';

let n = 0;
/** A library entry as `library:query` returns it. */
export function item(over: Partial<LibraryItem> = {}): LibraryItem {
  n++;
  return {
    id: `id-${n}`, path: `/data/raster-${n}.tif`, size: 1000 * n, sha256: null, request: null, kind: null, date: '2026-06-01', model: 'Stratus2',
    constellations: ['Sentinel2'], bands: ['B4', 'B3', 'B2'], epsg: 32633, resolution: 10, width: 100, height: 100,
    bounds4326: [13.4, 52.5, 13.5, 52.6], createdAt: `2026-07-0${(n % 9) + 1}T00:00:00.000Z`, source: 'download', ...over,
  };
}

