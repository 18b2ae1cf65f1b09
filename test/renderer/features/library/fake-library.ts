import { parseBandnames } from '../../../../common/bandnames';
import { seriesKey } from '../../../../common/library-series';
import type { RequestOf, ResponseOf } from '../../../../preload/contract';
import type { LibraryItem } from '../../../../renderer/src/platform/lib/library-item';
import { NO_FILTER, fileName, type LibraryFilter, type LibrarySort } from '../../../../renderer/src/features/library/model/library-model';

interface FullGroup {
  key: string;
  entries: LibraryItem[];
}

/**
 * A stand-in for main's `library:query` over an array, for the renderer's tests: the same filters,
 * orders and time-series rows as the catalog (test/main/library/catalog-query.test.ts pins main's).
 */

/** Whether two lon/lat boxes [w, s, e, n] intersect. */
function boxesIntersect(a: readonly number[], b: readonly number[]): boolean {
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
function filterEntries(entries: readonly LibraryItem[], f: LibraryFilter): LibraryItem[] {
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
function sortEntries(entries: readonly LibraryItem[], sort: LibrarySort): LibraryItem[] {
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

/** Groups entries that cover the same area on at least two different dates. */
function timeSeriesGroups(entries: readonly LibraryItem[]): FullGroup[] {
  const byKey = new Map<string, LibraryItem[]>();
  for (const e of entries) {
    const k = seriesKey(e);
    if (!k || !e.date) continue;
    if (!byKey.has(k)) byKey.set(k, []);
    byKey.get(k)!.push(e);
  }
  const groups: FullGroup[] = [];
  for (const [key, list] of byKey) {
    if (new Set(list.map((e) => e.date)).size < 2) continue;
    groups.push({ key, entries: [...list].sort((a, b) => a.date!.localeCompare(b.date!) || a.createdAt.localeCompare(b.createdAt)) });
  }
  return groups;
}

/** `library:query` answered from `entries`, as main answers it. */
export function queryEntries(entries: readonly LibraryItem[], q: RequestOf<'library:query'>): ResponseOf<'library:query'> {
  const groups = timeSeriesGroups(entries);
  const keyOf = new Map<string, string>();
  for (const g of groups) for (const e of g.entries) keyOf.set(e.id, g.key);
  const mark = (e: LibraryItem): LibraryItem => {
    const k = keyOf.get(e.id);
    const { series: _drop, ...rest } = e;
    void _drop;
    return k ? { ...rest, series: k } : rest;
  };
  const f: LibraryFilter = { ...NO_FILTER, query: q.text ?? '', dateFrom: q.dateFrom ?? '', dateTo: q.dateTo ?? '', area: q.bbox ?? null, source: q.source ?? 'all' };
  let matched = sortEntries(filterEntries(entries, f), (q.sort ?? 'date-desc') as LibrarySort);
  if (q.ids) matched = matched.filter((e) => q.ids!.includes(e.id));
  const rows: LibraryItem[] = [];
  const seen = new Set<string>();
  for (const e of matched) {
    const k = q.series ? keyOf.get(e.id) : undefined;
    if (k && seen.has(k)) continue;
    if (k) seen.add(k);
    rows.push(e);
  }
  const page = rows.slice(q.offset ?? 0, (q.offset ?? 0) + q.limit).map(mark);
  const series = q.series ? [...new Set(page.map((e) => e.series).filter((k): k is string => !!k))].map((key) => ({ key, entries: groups.find((g) => g.key === key)!.entries.map((e) => ({ id: e.id, date: e.date })) })) : [];
  return { total: matched.length, rows: rows.length, all: entries.length, entries: page, series };
}
