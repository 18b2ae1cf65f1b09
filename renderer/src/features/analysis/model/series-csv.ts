import type { ResponseOf } from '../../../../../preload/contract';

/** A computed time series, as main answers `analysis:series`. */
export type SeriesResult = ResponseOf<'analysis:series'>;
/** One date of it. */
export type SeriesPoint = SeriesResult['points'][number];

function cell(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The flat unit of a series' values for a header: `reflectance`, or `unitless` for an index. */
export function csvUnit(s: Pick<SeriesResult, 'unit'>): string {
  return /^index\b/.test(s.unit) ? 'unitless' : s.unit.replace(/[^A-Za-z0-9 _.-]+/g, ' ').trim() || 'unitless';
}

/** The expression as a header-safe name: `ndvi`, `B8`, `B11_B8` for `[B11_B8]`. */
export function csvName(expression: string): string {
  return expression.replace(/[^A-Za-z0-9_]+/g, '_').replace(/^_+|_+$/g, '') || 'value';
}

/**
 * The series as CSV that any CSV reader reads as is (Python's csv module, pandas): the header is
 * the first line, no comment line; the header names carry the
 * statistic and the expression (`mean_ndvi`), and the flat unit in brackets (`[unitless]`,
 * `[reflectance]`). One row per date (YYYY-MM-DD, UTC image dates), full precision, empty cells for
 * no data. Area: mean, median, p10, p90 and the pixel counts; point: the value and the pixel
 * (0-based column/row of the file) it was read from.
 */
export function seriesCsv(s: SeriesResult): string {
  const v = (stat: string) => `${stat}_${csvName(s.expression)} [${csvUnit(s)}]`;
  const head = s.kind === 'area'
    ? ['date_utc', 'file', 'epsg', v('mean'), v('median'), v('p10'), v('p90'), 'valid_pixels', 'pixels_in_area']
    : ['date_utc', 'file', 'epsg', v('value'), 'pixel_col', 'pixel_row', 'pixel_centre_x', 'pixel_centre_y'];
  const rows = s.points.map((p) =>
    s.kind === 'area'
      ? [p.date, p.name, p.epsg, p.mean, p.median, p.p10, p.p90, p.valid, p.pixels]
      : [p.date, p.name, p.epsg, p.value, p.pixel?.col, p.pixel?.row, p.pixel?.x, p.pixel?.y],
  );
  return [head.map(cell).join(','), ...rows.map((r) => r.map(cell).join(','))].join('\n') + '\n';
}

/** Seconds since the epoch of a YYYY-MM-DD date at 00:00 UTC (the chart's x). */
export function utcSeconds(date: string): number {
  return Date.parse(`${date}T00:00:00Z`) / 1000;
}

export { placeTag, seriesPlace } from '../../../platform/lib/place-name';

/**
 * The series' CSV file name stem: the expression, where it was computed and its first and last
 * dates, so two series of other areas or dates never get the same name:
 * `swath-series-ndvi-aoi-13.400E52.503N-18.8km2-2026-04-10_2026-08-20`.
 */
export function seriesFileName(s: Pick<SeriesResult, 'expression' | 'points'>, place: string): string {
  const dates = s.points.map((p) => p.date).filter((d): d is string => !!d).sort();
  const span = dates.length ? `-${dates[0]}${dates.length > 1 ? `_${dates.at(-1)}` : ''}` : '';
  return `swath-series-${csvName(s.expression)}-${place}${span}`.replace(/[^A-Za-z0-9_.-]+/g, '-').slice(0, 160);
}
