import { parseBandnames } from '../../../common/bandnames';
import { seriesKey } from '../../../common/library-series';
import type { ResponseOf } from '../../../preload/contract';

/**
 * Pure helpers of the Library panel: search, filters, sorting, time-series grouping and the
 * formatting of sizes, resolutions and footprints. No Vue and no OpenLayers, so they are unit tested.
 */

/** One local raster as listed by `library:list`. */
export type LibraryItem = ResponseOf<'library:list'>['entries'][number];

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

/** Whether two lon/lat boxes [w, s, e, n] intersect. */
export function boxesIntersect(a: readonly number[], b: readonly number[]): boolean {
  return a[0]! <= b[2]! && b[0]! <= a[2]! && a[1]! <= b[3]! && b[1]! <= a[3]!;
}

function haystack(e: LibraryItem): string {
  return [fileName(e.path), e.date ?? '', e.model ?? '', e.bands.join(' '), e.epsg ? `EPSG:${e.epsg}` : '', e.constellations.join(' '), e.kind ?? '', e.source]
    .join(' ')
    .toLowerCase();
}

/**
 * How one search word matches: a word in the Bandnames grammar (ndvi, rgb, all, B8, [B8_B4],
 * B4,B3,B2) by the raster's bands, each band it names held exactly (so "B8" is not B8A nor the
 * index [B8_B4], and "ndvi" is the index [B8_B4]); any other word as text.
 */
function wordMatcher(word: string): (e: LibraryItem, text: string) => boolean {
  const parsed = parseBandnames(word);
  if (parsed.ok) {
    const want = parsed.bands.map((b) => b.toUpperCase());
    return (e) => {
      const held = new Set(e.bands.map((b) => b.toUpperCase().replace(/\s+/g, '')));
      return want.every((b) => held.has(b));
    };
  }
  const w = word.toLowerCase();
  return (_e, text) => text.includes(w);
}

/**
 * Entries passing a filter. Every whitespace-separated search word must match: band names and
 * products by the bands (see {@link wordMatcher}), other words in the name, date, model, EPSG,
 * constellations, kind and source.
 */
export function filterEntries(entries: readonly LibraryItem[], f: LibraryFilter): LibraryItem[] {
  const words = f.query.split(/\s+/).filter(Boolean).map(wordMatcher);
  return entries.filter((e) => {
    if (f.source !== 'all' && e.source !== f.source) return false;
    if (f.dateFrom && (!e.date || e.date < f.dateFrom)) return false;
    if (f.dateTo && (!e.date || e.date > f.dateTo)) return false;
    if (f.area && (!e.bounds4326 || !boxesIntersect(e.bounds4326, f.area))) return false;
    if (words.length) {
      const h = haystack(e);
      if (!words.every((w) => w(e, h))) return false;
    }
    return true;
  });
}

/** Entries in a sort order (stable; undated rasters last for date orders). */
export function sortEntries(entries: readonly LibraryItem[], sort: LibrarySort): LibraryItem[] {
  const byDate = (a: LibraryItem, b: LibraryItem, dir: 1 | -1) => {
    if (a.date === b.date) return b.createdAt.localeCompare(a.createdAt);
    if (!a.date) return 1;
    if (!b.date) return -1;
    return dir * a.date.localeCompare(b.date);
  };
  const out = [...entries];
  switch (sort) {
    case 'date-desc': return out.sort((a, b) => byDate(a, b, -1));
    case 'date-asc': return out.sort((a, b) => byDate(a, b, 1));
    case 'added-desc': return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    case 'name': return out.sort((a, b) => fileName(a.path).localeCompare(fileName(b.path)));
    case 'size-desc': return out.sort((a, b) => b.size - a.size);
  }
}

/** The area an entry covers, as a grouping key (see common/library-series.ts). */
export const aoiKey = (e: LibraryItem): string | null => seriesKey(e);

/** Rasters of one area on several dates, oldest first. */
export interface SeriesGroup {
  key: string;
  entries: LibraryItem[];
}

/** Groups entries that cover the same area on at least two different dates. */
export function timeSeriesGroups(entries: readonly LibraryItem[]): SeriesGroup[] {
  const byKey = new Map<string, LibraryItem[]>();
  for (const e of entries) {
    const k = aoiKey(e);
    if (!k || !e.date) continue;
    if (!byKey.has(k)) byKey.set(k, []);
    byKey.get(k)!.push(e);
  }
  const groups: SeriesGroup[] = [];
  for (const [key, list] of byKey) {
    if (new Set(list.map((e) => e.date)).size < 2) continue;
    groups.push({ key, entries: [...list].sort((a, b) => a.date!.localeCompare(b.date!) || a.createdAt.localeCompare(b.createdAt)) });
  }
  return groups;
}

/** "12.3 MB" style sizes (binary multiples, one decimal). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} ${units[i]}`;
}

/** "10 m" or "0.5 m" or "1.2 km" pixel sizes. */
export function formatResolution(m: number | null): string {
  if (m == null) return '—';
  if (m >= 1000) return `${(m / 1000).toFixed(1)} km`;
  return `${Number(m.toPrecision(3))} m`;
}

/** Approximate area of a lon/lat box in km² (spherical). */
export function boxAreaKm2(b: readonly number[]): number {
  const R = 6371.0088;
  const rad = Math.PI / 180;
  return Math.abs(R * R * (b[2]! - b[0]!) * rad * (Math.sin(b[3]! * rad) - Math.sin(b[1]! * rad)));
}

/** "13.40–13.43° E, 52.50–52.52° N" footprints. */
export function formatBox(b: readonly number[] | null): string {
  if (!b) return 'unknown footprint';
  const lon = (v: number) => `${Math.abs(v).toFixed(3)}°${v < 0 ? 'W' : 'E'}`;
  const lat = (v: number) => `${Math.abs(v).toFixed(3)}°${v < 0 ? 'S' : 'N'}`;
  return `${lon(b[0]!)} – ${lon(b[2]!)}, ${lat(b[1]!)} – ${lat(b[3]!)}`;
}
