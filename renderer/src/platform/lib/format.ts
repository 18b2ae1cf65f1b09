/**
 * Display formatting with units: every number the analyst sees goes through
 * here, so units (km², EUR, m, px, MB) and UTC dates stay consistent.
 */

const LOCALE = 'en-US';

// Number.toLocaleString builds a new Intl.NumberFormat at every call; lists format thousands of cells.
const formats = new Map<string, Intl.NumberFormat>();
function numberFormat(minDigits: number, maxDigits: number): Intl.NumberFormat {
  const key = `${minDigits}:${maxDigits}`;
  let f = formats.get(key);
  if (!f) {
    f = new Intl.NumberFormat(LOCALE, { minimumFractionDigits: minDigits, maximumFractionDigits: maxDigits });
    formats.set(key, f);
  }
  return f;
}

/** A number with grouping and at most `digits` fraction digits. */
export function formatNumber(value: number, digits = 2): string {
  if (!Number.isFinite(value)) return String(value);
  return numberFormat(0, digits).format(value);
}

/** An area in square kilometres, e.g. "150.54 km²". */
export function formatKm2(value: number | null | undefined): string {
  if (value == null || !Number.isFinite(value)) return '– km²';
  const digits = value >= 1000 ? 0 : value >= 10 ? 2 : 3;
  return `${formatNumber(value, digits)} km²`;
}

/** Money with two decimals and its currency code, e.g. "22,138.64 EUR". */
export function formatMoney(value: number, currency = 'EUR'): string {
  if (!Number.isFinite(value)) return `${String(value)} ${currency}`;
  return `${numberFormat(2, 2).format(value)} ${currency}`;
}

/**
 * A byte count in decimal (SI) units, e.g. "12.4 MB": the one size format of the app (Downloads,
 * the Library and every other size), so the same file reads the same everywhere.
 */
export function formatBytes(value: number | null | undefined): string {
  if (value == null || !Number.isFinite(value)) return '– B';
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let v = value;
  let u = 0;
  while (Math.abs(v) >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return `${formatNumber(v, u === 0 ? 0 : v >= 100 ? 0 : 1)} ${units[u]}`;
}

/** The exact byte count and the convention, for a size's tooltip: "110,667 bytes (SI: 1 kB = 1,000 bytes)". */
export function bytesTitle(value: number | null | undefined): string | undefined {
  if (value == null || !Number.isFinite(value)) return undefined;
  return `${String(Math.round(value)).replace(/\B(?=(\d{3})+$)/g, ',')} bytes (SI: 1 kB = 1,000 bytes)`;
}

/** A transfer rate, e.g. "3.2 MB/s". */
export function formatRate(bytesPerSec: number | null | undefined): string {
  if (bytesPerSec == null || !Number.isFinite(bytesPerSec)) return '– B/s';
  return `${formatBytes(bytesPerSec)}/s`;
}

/** A remaining time, e.g. "1 min 05 s" or "12 s"; null means unknown. */
export function formatEta(seconds: number | null | undefined): string {
  if (seconds == null || !Number.isFinite(seconds) || seconds < 0) return '–';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The UTC calendar date (YYYY-MM-DD) of a date, a date-time string or a timestamp. */
export function formatDate(value: string | number | Date): string {
  if (typeof value === 'string' && DATE_ONLY.test(value.trim())) return value.trim();
  const d = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  return d.toISOString().slice(0, 10);
}

/** A date-time as "YYYY-MM-DD HH:mm UTC" (a plain date stays a date). */
export function formatDateTime(value: string | number | Date): string {
  if (typeof value === 'string' && DATE_ONLY.test(value.trim())) return value.trim();
  const d = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 16)} UTC`;
}

/** Today's UTC date as YYYY-MM-DD. */
export function todayUtc(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/** Adds whole days to a YYYY-MM-DD date, in UTC. */
export function addDaysUtc(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** The current UTC month as YYYY-MM. */
export function monthUtc(now: Date = new Date()): string {
  return now.toISOString().slice(0, 7);
}

/** Shifts a YYYY-MM month by whole months. */
export function addMonths(month: string, delta: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const d = new Date(Date.UTC(y, m - 1 + delta, 1));
  return d.toISOString().slice(0, 7);
}

/** Longitude and latitude in degrees with hemisphere letters, e.g. "13.40512° E  52.52001° N". */
export function formatLonLat(lon: number, lat: number, digits = 5): string {
  const ew = lon < 0 ? 'W' : 'E';
  const ns = lat < 0 ? 'S' : 'N';
  return `${Math.abs(lon).toFixed(digits)}° ${ew}  ${Math.abs(lat).toFixed(digits)}° ${ns}`;
}

/** A map scale denominator as "1:25,000" (rounded to 2 significant digits above 1,000). */
export function formatScale(denominator: number): string {
  if (!Number.isFinite(denominator) || denominator <= 0) return '1:–';
  const mag = 10 ** Math.max(0, Math.floor(Math.log10(denominator)) - 1);
  const rounded = denominator >= 1000 ? Math.round(denominator / mag) * mag : Math.round(denominator);
  // An integer, grouped by hand as en-US does: the status bar shows it in the first frame, and the
  // first Intl.NumberFormat of a page costs tens of milliseconds (ICU's data).
  return `1:${String(rounded).replace(/\B(?=(\d{3})+$)/g, ',')}`;
}

/** A service property name made readable: "MaxCompositeAreaKm2" -> "Max composite area km²". */
export function humanize(key: string): string {
  const spaced = key
    .replace(/Km2/g, ' km²')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim();
  if (!spaced) return key;
  const words = spaced.split(/\s+/).map((w, i) => (i > 0 && /^[A-Z][a-z]+$/.test(w) ? w.toLowerCase() : w));
  return words.join(' ');
}
