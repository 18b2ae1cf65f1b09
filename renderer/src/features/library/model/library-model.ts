/**
 * The Library panel's model: its filters and orders (main's `library:query` applies them) and the
 * formatting of sizes, resolutions and footprints. No Vue and no OpenLayers, so they are unit tested.
 */

/** Sort orders of the list. */
export type LibrarySort = 'date-desc' | 'date-asc' | 'added-desc' | 'name' | 'size-desc';

/** Filters of the list. */
export interface LibraryFilter {
  query: string;
  /** YYYY-MM-DD bounds of the image date (inclusive), or ''. */
  dateFrom: string;
  dateTo: string;
  /** Keep only rasters whose footprint meets this lon/lat box. */
  area: [number, number, number, number] | null;
  source: 'all' | 'download' | 'import';
}

/** No filtering. */
export const NO_FILTER: LibraryFilter = { query: '', dateFrom: '', dateTo: '', area: null, source: 'all' };

/** The file name of an entry's path (either separator). */
export function fileName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

/** One date of a time series (the raster itself is fetched by id when shown). */
export interface SeriesMember {
  id: string;
  date: string | null;
}

/** Rasters of one area on several dates, oldest first. */
export interface SeriesGroup {
  key: string;
  entries: SeriesMember[];
}

/** "10 m" or "0.5 m" or "1.2 km" pixel sizes. */
export function formatResolution(m: number | null): string {
  if (m == null) return '—';
  if (m >= 1000) return `${(m / 1000).toFixed(1)} km`;
  return `${Number(m.toPrecision(3))} m`;
}

/** "13.40–13.43° E, 52.50–52.52° N" footprints. */
export function formatBox(b: readonly number[] | null): string {
  if (!b) return 'unknown footprint';
  const lon = (v: number) => `${Math.abs(v).toFixed(3)}°${v < 0 ? 'W' : 'E'}`;
  const lat = (v: number) => `${Math.abs(v).toFixed(3)}°${v < 0 ? 'S' : 'N'}`;
  return `${lon(b[0]!)} – ${lon(b[2]!)}, ${lat(b[1]!)} – ${lat(b[3]!)}`;
}
