import type { FieldStatistic, Parcel, ParcelSet, StatisticKey } from '../ports';

/** What an export reads: the set, its parcels in pages, its statistics in pages, the rasters' names. */
export interface ExportSource {
  set: ParcelSet;
  /** Every parcel of the set in index order, in pages. */
  parcels: () => Iterable<Parcel[]>;
  /** A page of the statistics of the exported index and rule, in the order of parcel, date and raster: the rows after `after` (null: from the first). */
  results: (after: StatisticKey | null, limit: number) => FieldStatistic[];
  /** A library raster's name (its file name), or its id when the library no longer has it. */
  rasterName: (rasterId: string) => string;
}

/** Rows a page of statistics is read in; main yields to its event loop between pages. */
export const EXPORT_PAGE = 2_000;

/** The statistics columns of both exports, in order: the field's name and its header. */
export const STAT_COLUMNS = [
  ['mean', 'mean'], ['min', 'min'], ['max', 'max'], ['std', 'std'], ['median', 'median'], ['p10', 'p10'], ['p90', 'p90'],
  ['validPixels', 'valid_pixels'], ['coveredShare', 'covered_share'], ['validShare', 'valid_share'],
] as const satisfies readonly (readonly [keyof FieldStatistic, string])[];

/** Yields to main's event loop (an export of a million rows never holds it for long). */
export const yieldLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Parcel index -> its id and name (two strings a parcel, read once), yielding to the event loop between pages. */
export async function parcelNames(pages: Iterable<Parcel[]>, signal?: AbortSignal): Promise<Map<number, { id: string; name: string | null }>> {
  const names = new Map<number, { id: string; name: string | null }>();
  for (const page of pages) {
    for (const p of page) names.set(p.index, { id: p.id, name: p.name });
    await yieldLoop();
    signal?.throwIfAborted();
  }
  return names;
}

/**
 * Every page of statistics, each read after the last row of the one before (a keyset: a page costs
 * the same at the millionth row as at the first), yielding to the event loop between pages; stops
 * at `signal`.
 */
export async function* statisticPages(source: ExportSource, signal?: AbortSignal): AsyncGenerator<FieldStatistic[]> {
  for (let after: StatisticKey | null = null; ;) {
    signal?.throwIfAborted();
    const page = source.results(after, EXPORT_PAGE);
    if (page.length) yield page;
    if (page.length < EXPORT_PAGE) return;
    after = page[page.length - 1]!;
    await yieldLoop();
  }
}

/**
 * A finite number in plain decimal notation (no exponent: `1e-7` is `0.0000001`), the shortest
 * that reads back as the same double; null and non-finite numbers are empty.
 */
export function plainDecimal(n: number | null): string {
  if (n === null || !Number.isFinite(n)) return '';
  const text = String(n);
  const e = text.indexOf('e');
  if (e < 0) return text;
  const negative = text.startsWith('-');
  const mantissa = text.slice(negative ? 1 : 0, e);
  const exponent = Number(text.slice(e + 1));
  const dot = mantissa.indexOf('.');
  const digits = mantissa.replace('.', '');
  const point = (dot < 0 ? mantissa.length : dot) + exponent;
  let out: string;
  if (point <= 0) out = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) out = `${digits}${'0'.repeat(point - digits.length)}`;
  else out = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return negative ? `-${out}` : out;
}
