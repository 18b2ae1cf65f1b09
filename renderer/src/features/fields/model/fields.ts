import type { ResponseOf } from '../../../../../preload/contract';

/** A parcel set as main keeps it. */
export type ParcelSetItem = ResponseOf<'fields:sets'>['sets'][number];
/** One parcel, its geometry in EPSG:4326. */
export type ParcelItem = ResponseOf<'fields:parcels'>['parcels'][number];
/** One parcel on one date. */
export type FieldStatisticItem = ResponseOf<'fields:results'>['results'][number];
/** A parcel's latest valid value and its change. */
export type FieldLatestItem = ResponseOf<'fields:latest'>['latest'][number];
/** What `fields:inspect` found in a file. */
export type InspectedFile = ResponseOf<'fields:inspect'>;
/** A set attached to a watch. */
export type FieldWatchItem = ResponseOf<'fields:attach-watch'>;
/** A pixel rule. */
export type PixelRule = FieldStatisticItem['rule'];

/** The three pixel rules, each with its one-line explanation (the run dialog's and the docs' words). */
export const PIXEL_RULES: { rule: PixelRule; label: string; explanation: string }[] = [
  { rule: 'exact', label: 'Exact coverage', explanation: 'Each pixel counts by the exact share of its area inside the parcel (0..1).' },
  { rule: 'centre', label: 'Pixel centres', explanation: 'A pixel counts whole when its centre is inside the parcel, else not at all.' },
  { rule: 'touched', label: 'All touched', explanation: 'Every pixel the parcel touches counts whole, however little of it is inside.' },
];

/** The default minimum valid share (a date under it is marked, never averaged in). */
export const DEFAULT_MIN_VALID_SHARE = 0.8;

/** The table's columns that sort and filter by number, with their labels: every statistic of the latest valid date, and the change of its mean. */
export const NUMBER_COLUMNS = [
  { key: 'value', label: 'Mean' },
  { key: 'change', label: 'Change of the mean' },
  { key: 'median', label: 'Median' },
  { key: 'min', label: 'Minimum' },
  { key: 'max', label: 'Maximum' },
  { key: 'std', label: 'Standard deviation' },
  { key: 'p10', label: 'P10' },
  { key: 'p90', label: 'P90' },
  { key: 'validPixels', label: 'Valid pixels' },
  { key: 'coveredShare', label: 'Covered share' },
  { key: 'validShare', label: 'Valid share' },
] as const;
export type NumberColumn = (typeof NUMBER_COLUMNS)[number]['key'];
export type SortKey = 'id' | 'name' | 'date' | NumberColumn;

/** One row of the results table: a parcel with its latest valid date's statistics and the change of its mean (null: no valid date). */
export type FieldRow = { index: number; id: string; name: string; date: string | null; previousDate: string | null } & Record<NumberColumn, number | null>;

/** The table's rows: every parcel, with its latest statistics and change where it has them. */
export function fieldRows(parcels: readonly Pick<ParcelItem, 'index' | 'id' | 'name'>[], latest: readonly FieldLatestItem[]): FieldRow[] {
  const byIndex = new Map(latest.map((l) => [l.parcelIndex, l]));
  return parcels.map((p) => {
    const l = byIndex.get(p.index);
    const row: FieldRow = { index: p.index, id: p.id, name: p.name ?? '', date: l?.date ?? null, previousDate: l?.previousDate ?? null } as FieldRow;
    for (const c of NUMBER_COLUMNS) row[c.key] = l?.[c.key] ?? null;
    return row;
  });
}

/** Whether a column is a share (0..1): shown and typed in %. */
export const isShare = (key: NumberColumn): boolean => key === 'coveredShare' || key === 'validShare';

/** A number column's value as the table shows it: shares in %, pixels as counted (fractional under the exact rule), the others with the index's unit. */
export function formatColumn(row: FieldRow, key: NumberColumn): string {
  const v = row[key];
  if (isShare(key)) return v === null ? '—' : `${(v * 100).toFixed(1)} %`;
  return formatValue(v, key === 'change');
}

/** A filter of the table: text in the id or name, and a range of one number column. */
export interface RowFilter {
  text: string;
  column: NumberColumn;
  min: number | null;
  max: number | null;
}

/** The rows that pass `f`, sorted by `key` (empty values last in both directions). */
export function sortFilter(rows: readonly FieldRow[], f: RowFilter, key: SortKey, dir: 1 | -1): FieldRow[] {
  const text = f.text.trim().toLowerCase();
  const out = rows.filter((r) => {
    if (text && !r.id.toLowerCase().includes(text) && !r.name.toLowerCase().includes(text)) return false;
    const v = r[f.column];
    if (f.min !== null && (v === null || v < f.min)) return false;
    if (f.max !== null && (v === null || v > f.max)) return false;
    return true;
  });
  return out.sort((a, b) => {
    const x = a[key];
    const y = b[key];
    if (x === null || x === '') return y === null || y === '' ? a.index - b.index : 1;
    if (y === null || y === '') return -1;
    const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y), undefined, { numeric: true });
    return c === 0 ? a.index - b.index : c * dir;
  });
}

/** How the map colours the parcels: by the latest value, or by the change from the previous valid date. */
export type ColourBy = 'value' | 'change';

/** The legend of a colouring: its ramp and range (a change is centred on 0). */
export interface Legend {
  by: ColourBy;
  /** A ramp of platform/raster/color-ramps.ts: sequential for values, diverging for a change. */
  ramp: 'viridis' | 'rdylgn';
  min: number;
  max: number;
}

/** The legend for `rows`: values span their 2nd to 98th percentile; a change is symmetric around 0. */
export function legendOf(rows: readonly FieldRow[], by: ColourBy): Legend | null {
  const values = rows.map((r) => r[by]).filter((v): v is number => v !== null && Number.isFinite(v)).sort((a, b) => a - b);
  if (!values.length) return null;
  const at = (q: number): number => values[Math.min(values.length - 1, Math.max(0, Math.round(q * (values.length - 1))))]!;
  if (by === 'change') {
    const m = Math.max(Math.abs(at(0.02)), Math.abs(at(0.98))) || 1e-9;
    return { by, ramp: 'rdylgn', min: -m, max: m };
  }
  const lo = at(0.02);
  const hi = at(0.98);
  return { by, ramp: 'viridis', min: lo, max: hi > lo ? hi : lo + 1e-9 };
}

/** A number as the panel shows it: 4 significant digits, a sign for a change, — for none. */
export function formatValue(v: number | null, signed = false): string {
  if (v === null || !Number.isFinite(v)) return '—';
  const text = Number(v.toPrecision(4)).toString();
  return signed && v > 0 ? `+${text}` : text;
}

/** The unit of a band or index (as the analysis feature names it). */
export function unitOf(index: string): string {
  return /^\[|^ndvi$/i.test(index.trim()) ? 'index (unitless, -1..1)' : 'reflectance';
}

/** "about 3 min left" from an ETA in ms (null: not known yet). */
export function etaText(etaMs: number | null): string {
  if (etaMs === null) return 'estimating time left…';
  const s = Math.round(etaMs / 1000);
  if (s < 60) return `about ${s} s left`;
  const m = Math.round(s / 60);
  return m < 60 ? `about ${m} min left` : `about ${Math.floor(m / 60)} h ${m % 60} min left`;
}

/** A parcel's dates as the analysis chart draws an area series: invalid dates (under the valid share) left out of the lines and marked. */
export function parcelSeries(stats: readonly FieldStatisticItem[], index: string, label: string): { series: { kind: 'area'; expression: string; label: string; unit: string; points: { id: string; name: string; date: string; epsg: number; valid: number; pixels?: number; mean: number | null; median: number | null; p10: number | null; p90: number | null }[]; skipped: { id: string; name: string; reason: string }[] }; invalid: string[] } {
  const sorted = [...stats].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const points = sorted.map((s) => ({
    id: s.rasterId, name: s.rasterId, date: s.date, epsg: 0, valid: Math.round(s.validPixels),
    mean: s.belowThreshold ? null : s.mean, median: s.belowThreshold ? null : s.median,
    p10: s.belowThreshold ? null : s.p10, p90: s.belowThreshold ? null : s.p90,
  }));
  const invalid = sorted.filter((s) => s.belowThreshold).map((s) => s.date);
  return {
    series: { kind: 'area', expression: index, label, unit: unitOf(index), points, skipped: sorted.filter((s) => s.belowThreshold).map((s) => ({ id: s.rasterId, name: s.rasterId, reason: `valid share ${(s.validShare * 100).toFixed(0)} % under the minimum` })) },
    invalid,
  };
}
