import type { DownloadKind } from './download-sink.js';
import type { RasterMetadata } from './metadata.js';

/**
 * The library's records and the list's questions and answers, shared by the catalog (writes, on
 * main's connection) and its reader (the list's queries, on main's connection or a worker thread's).
 */

/** One local raster the app knows about: its file, its origin, and what the file says of itself. */
export interface LibraryEntry extends RasterMetadata {
  id: string;
  /** Absolute path of the file. */
  path: string;
  size: number;
  /** Null for a moment after a download is recorded, until the background hash is done. */
  sha256: string | null;
  /** The process body that produced the file (never the key); null for imports. */
  request: Record<string, unknown> | null;
  /** The operation that produced it; null for imports. */
  kind: DownloadKind | null;
  /** ISO 8601. */
  createdAt: string;
  source: 'download' | 'import';
  /** The time series this raster belongs to (its area, CRS and bands on at least two dates); absent when none. */
  series?: string;
}

/** Sort orders of {@link LibraryReader.query}. */
export type LibrarySort = 'date-desc' | 'date-asc' | 'added-desc' | 'name' | 'size-desc';

/** A lon/lat box [west, south, east, north]. */
export type Box = [number, number, number, number];

/** One page of the list: filters, order, window. */
export interface LibraryQuery {
  /** Search words: band names and products (ndvi, rgb, B8, [B8_B4]) by the bands held, other words in the name, date, model, EPSG, constellations, kind and source. */
  text?: string;
  source?: 'all' | 'download' | 'import';
  /** YYYY-MM-DD bounds of the image date (inclusive). */
  dateFrom?: string;
  dateTo?: string;
  /** Only rasters whose footprint meets this box. */
  bbox?: Box | null;
  /** Only these ids. */
  ids?: string[];
  sort?: LibrarySort;
  offset?: number;
  limit: number;
  /** One row per time series (at its first matching date in the order), with the series' dates in `series`. */
  series?: boolean;
}

/** The answer of {@link LibraryReader.query}. */
export interface LibraryPage {
  /** Rasters matching the filters. */
  total: number;
  /** Rows of the list (a series counts once when `series` was asked). */
  rows: number;
  /** Rasters in the library. */
  all: number;
  /** The page's rows: rasters, or a series' first raster in the order. */
  entries: LibraryEntry[];
  /** The dates of the series on this page, oldest first. */
  series: { key: string; entries: { id: string; date: string | null }[] }[];
}
