/**
 * The time-series key of a library raster, shared by main (which groups the catalog by it) and the
 * renderer: rasters of the same area, CRS and bands on several dates form one series.
 */

/** What {@link seriesKey} reads of a raster. */
export interface SeriesKeyInput {
  request: Record<string, unknown> | null;
  bounds4326: readonly number[] | null;
  epsg: number | null;
  bands: readonly string[];
}

/**
 * The area a raster covers, as a grouping key: the AOI the service was asked for (Wkt or
 * GeoJson) when known, else the footprint rounded to ~100 m, plus CRS and band list (so the
 * display carries over between dates). Null when nothing places it.
 */
export function seriesKey(e: SeriesKeyInput): string | null {
  const r = e.request ?? {};
  let area: string | null = null;
  if (typeof r.Wkt === 'string' && r.Wkt.trim()) area = r.Wkt.replace(/\s+/g, ' ').trim();
  else if (r.GeoJson) area = JSON.stringify(r.GeoJson);
  else if (e.bounds4326) area = e.bounds4326.map((v) => v.toFixed(3)).join(',');
  if (!area) return null;
  return `${area}|${e.epsg ?? '?'}|${e.bands.join(',')}`;
}
