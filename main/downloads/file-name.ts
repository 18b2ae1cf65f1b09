/**
 * File names for downloads: what the server suggests (Content-Disposition, read by main/api) is untrusted input,
 * so it is reduced to one harmless name component before it touches the file system; and the
 * name says what the file is (date, product or bands, model, EPSG, resolution).
 */

import { parseBandnames } from '../../common/bandnames.js';

/** Longest name we produce, in UTF-8 bytes; leaves room for " (999)" and ".part" under the usual 255-byte limit. */
export const MAX_FILE_NAME_BYTES = 200;

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)$/i;
// C0/C1 controls, and bidi/zero-width marks that can disguise an extension ("gpj.exe" shown reversed).
// eslint-disable-next-line no-control-regex
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;
// Characters Windows refuses in names; replaced rather than dropped so names stay readable.
const WINDOWS_FORBIDDEN = /[<>:"|?*]/g;

function utf8Length(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** Cuts s (by code points, never splitting a surrogate pair) to at most maxBytes of UTF-8. */
function truncateUtf8(s: string, maxBytes: number): string {
  let out = '';
  let bytes = 0;
  for (const ch of s) {
    const b = utf8Length(ch);
    if (bytes + b > maxBytes) break;
    out += ch;
    bytes += b;
  }
  return out;
}

/** Splits "name.ext" into stem and extension (with the dot); a leading-dot-only name has no extension. */
export function splitExtension(name: string): { stem: string; ext: string } {
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return { stem: name, ext: '' };
  return { stem: name.slice(0, dot), ext: name.slice(dot) };
}

/**
 * Reduces an untrusted name to one safe component: the last path segment only (so `../`, `..\`,
 * absolute paths and drive letters go), no control or bidi characters, no Windows-forbidden
 * characters or reserved device names, no leading/trailing dots or spaces, a length cap, and a
 * `.tif`/`.tiff` extension (the queue only ever writes verified GeoTIFFs); `fallback` when nothing is left.
 */
export function sanitizeFileName(raw: string | null | undefined, fallback: string): string {
  const cleaned = raw == null ? '' : clean(raw);
  return cleaned || clean(fallback) || 'download.tif';
}

function clean(raw: string): string {
  let name = raw.normalize('NFC').replace(INVISIBLE, '');
  const segments = name.split(/[/\\]+/).filter((s) => s.trim() !== '');
  name = segments.length ? segments[segments.length - 1]! : '';
  name = name.replace(/^[a-zA-Z]:/, '');
  name = name.replace(WINDOWS_FORBIDDEN, '_');
  name = name.replace(/^[\s.]+/, '').replace(/[\s.]+$/, '');
  if (!name) return '';
  let { stem, ext } = splitExtension(name);
  if (!/^\.tiff?$/i.test(ext)) {
    stem = name;
    ext = '.tif';
  }
  stem = stem.replace(/[\s.]+$/, '');
  // Windows treats "CON.tif" and "con .tif" as the device, so the check is on the part before the first dot.
  const device = stem.split('.')[0]!.trim();
  if (WINDOWS_RESERVED.test(device)) stem = `_${stem}`;
  if (!stem) return '';
  stem = truncateUtf8(stem, MAX_FILE_NAME_BYTES - utf8Length(ext)).replace(/[\s.]+$/, '');
  return stem ? stem + ext : '';
}

/**
 * What a download holds, as one name part: "rgb", "all" or "ndvi" when the request says so, else
 * its bands in order joined by "-", an index [A_B] written A_B ("B8_B4", "B4-B3-B2",
 * "B8_B4-B11"); null when the request has no valid Bandnames.
 */
export function productLabel(bandnames: unknown): string | null {
  const parsed = parseBandnames(bandnames);
  if (!parsed.ok) return null;
  const whole = String(bandnames).trim().toLowerCase();
  if (whole === 'rgb' || whole === 'all' || whole === 'ndvi') return whole;
  return parsed.bands.map((b) => b.replace(/^\[(\w+)_(\w+)\]$/, '$1_$2')).join('-');
}

/** What a name is made of; missing parts are left out. */
export interface NameParts {
  kind: string;
  /** YYYY-MM-DD (or a longer ISO string). */
  date?: unknown;
  bandnames?: unknown;
  model?: unknown;
  epsg?: unknown;
  resolution?: unknown;
}

/** `<kind>_<YYYYMMDD>_<product>_<model>_<EPSG>_<res>m` (no extension), each part reduced to letters, digits, "-" and "_". */
export function describedStem(p: NameParts): string {
  const part = (v: unknown) => String(v).replace(/[^A-Za-z0-9_-]+/g, '');
  const bits = [part(p.kind) || 'download'];
  const m = typeof p.date === 'string' ? /^(\d{4})-(\d{2})-(\d{2})/.exec(p.date) : null;
  if (m) bits.push(`${m[1]}${m[2]}${m[3]}`);
  const product = productLabel(p.bandnames);
  if (product) bits.push(product);
  if (typeof p.model === 'string' && part(p.model)) bits.push(part(p.model));
  if (typeof p.epsg === 'number' && Number.isInteger(p.epsg)) bits.push(String(p.epsg));
  if (typeof p.resolution === 'number' && Number.isFinite(p.resolution) && p.resolution > 0) bits.push(`${p.resolution}m`);
  return bits.join('_');
}

/**
 * The name a download is saved under: the service's suggestion made safe
 * (`composite_<YYYYMMDD>_<model>_<EPSG>_<res>m.tif`) with the request's product inserted after the
 * date, so an NDVI and an RGB composite of one date differ
 * (`composite_20261015_ndvi_Stratus2_32633_10m.tif`); without a suggestion, the same built from
 * the request. Always passes {@link sanitizeFileName}.
 */
export function describedFileName(kind: string, request: Record<string, unknown>, suggested: string | null | undefined, now: number = Date.now()): string {
  const fromRequest = `${describedStem({
    kind, date: typeof request.Date === 'string' ? request.Date : new Date(now).toISOString(),
    bandnames: request.Bandnames, model: request.Model, epsg: request.EpsgProjection, resolution: request.Resolution,
  })}.tif`;
  const safe = sanitizeFileName(suggested, fromRequest);
  const product = productLabel(request.Bandnames);
  if (!product || safe === fromRequest) return safe;
  const { stem, ext } = splitExtension(safe);
  if (`_${stem}_`.toLowerCase().includes(`_${product.toLowerCase()}_`)) return safe;
  const dated = /^([^_]+_\d{8})(_.*)?$/.exec(stem);
  const named = dated ? `${dated[1]}_${product}${dated[2] ?? ''}` : `${stem}_${product}`;
  return sanitizeFileName(named + ext, fromRequest);
}
