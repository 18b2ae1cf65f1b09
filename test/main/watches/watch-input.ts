/** A watch as the analyst gives it (an AOI, NDVI at 10 m, a 20 EUR cap), for the store tests. */
export const WATCH_INPUT = {
  name: 'Field A',
  source: { kind: 'aoi' as const, orderId: null, recurring: null },
  area: { Wkt: 'POLYGON((13.4 52.5, 13.43 52.5, 13.43 52.52, 13.4 52.52, 13.4 52.5))' },
  model: 'Stratus2',
  constellations: ['Sentinel2'],
  from: '2026-01-01',
  to: null,
  settings: { EpsgProjection: 32633, Bandnames: 'ndvi', DataType: 'INT16' as const, Resolution: 10, PixelSelectionMode: 'intersect' as const },
  capEur: 20,
  everyHours: 6,
};
