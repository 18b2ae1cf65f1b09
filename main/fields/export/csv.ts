import { open } from 'node:fs/promises';
import { STAT_COLUMNS, parcelNames, plainDecimal, statisticPages, type ExportSource } from './rows.js';

/** The header of the long CSV: one row per parcel, date and raster. */
export const CSV_HEADER = ['parcel_id', 'name', 'date', 'raster_id', 'raster', 'index', 'rule', ...STAT_COLUMNS.map(([, h]) => h), 'below_threshold'];

/** A field quoted as RFC 4180 asks when it holds a comma, a quote, CR or LF. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Bytes written to the file at once. */
const CHUNK = 1 << 20;

/**
 * Writes the long CSV of `source` to `file` (RFC 4180: CRLF rows, a header row, UTF-8 without a
 * BOM; numbers in plain decimal, an empty field for none; below_threshold true or false), page by
 * page, and fsyncs it. Returns the number of data rows.
 */
export async function writeLongCsv(file: string, source: ExportSource, signal?: AbortSignal): Promise<number> {
  const names = await parcelNames(source.parcels(), signal);
  const handle = await open(file, 'wx', 0o644);
  let rows = 0;
  try {
    let buffer = `${CSV_HEADER.join(',')}\r\n`;
    for await (const page of statisticPages(source, signal)) {
      for (const s of page) {
        const parcel = names.get(s.parcelIndex);
        const fields = [
          csvField(parcel?.id ?? String(s.parcelIndex)), csvField(parcel?.name ?? ''), s.date, csvField(s.rasterId), csvField(source.rasterName(s.rasterId)),
          csvField(s.index), s.rule, ...STAT_COLUMNS.map(([k]) => plainDecimal(s[k] as number | null)), s.belowThreshold ? 'true' : 'false',
        ];
        buffer += `${fields.join(',')}\r\n`;
        rows++;
      }
      if (buffer.length >= CHUNK) {
        await handle.write(buffer);
        buffer = '';
      }
    }
    await handle.write(buffer);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return rows;
}
