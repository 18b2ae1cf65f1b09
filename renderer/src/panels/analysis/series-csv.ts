import type { ResponseOf } from '../../../../preload/contract';

/** A computed time series, as main answers `analysis:series`. */
export type SeriesResult = ResponseOf<'analysis:series'>;
/** One date of it. */
export type SeriesPoint = SeriesResult['points'][number];

function cell(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * The series as CSV: one row per date (YYYY-MM-DD, UTC image dates), the unit in the value
 * headers, full precision, empty cells for no data. Area: mean, median, p10, p90 and the pixel
 * counts; point: the value and the pixel (0-based column/row of the file) it was read from.
 */
export function seriesCsv(s: SeriesResult): string {
  const unit = s.unit;
  const head = s.kind === 'area'
    ? ['date_utc', 'file', 'epsg', `mean (${unit})`, `median (${unit})`, `p10 (${unit})`, `p90 (${unit})`, 'valid_pixels', 'pixels_in_area']
    : ['date_utc', 'file', 'epsg', `value (${unit})`, 'pixel_col', 'pixel_row', 'pixel_centre_x', 'pixel_centre_y'];
  const rows = s.points.map((p) =>
    s.kind === 'area'
      ? [p.date, p.name, p.epsg, p.mean, p.median, p.p10, p.p90, p.valid, p.pixels]
      : [p.date, p.name, p.epsg, p.value, p.pixel?.col, p.pixel?.row, p.pixel?.x, p.pixel?.y],
  );
  const title = `# ${s.label}${s.kind === 'area' ? ' over the area' : ' at the point'}; expression ${s.expression}`;
  return [title, head.map(cell).join(','), ...rows.map((r) => r.map(cell).join(','))].join('\n') + '\n';
}

/** Seconds since the epoch of a YYYY-MM-DD date at 00:00 UTC (the chart's x). */
export function utcSeconds(date: string): number {
  return Date.parse(`${date}T00:00:00Z`) / 1000;
}
