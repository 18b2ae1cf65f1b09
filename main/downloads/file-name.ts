/**
 * File names for downloads: what the server suggests (Content-Disposition) is untrusted input,
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

/**
 * Extracts the file name from a Content-Disposition header, preferring RFC 5987 `filename*=`
 * over `filename=`; the result is NOT sanitised (see {@link sanitizeFileName}).
 */
export function parseContentDisposition(header: string | null | undefined): string | null {
  if (!header) return null;
  const params = parseParams(header);
  const extended = params.get('filename*');
  if (extended !== undefined) {
    const decoded = decodeExtValue(extended);
    if (decoded) return decoded;
  }
  const plain = params.get('filename');
  return plain ? plain : null;
}

function parseParams(header: string): Map<string, string> {
  const out = new Map<string, string>();
  let i = header.indexOf(';');
  if (i < 0) return out;
  i++;
  const n = header.length;
  while (i < n) {
    while (i < n && (header[i] === ' ' || header[i] === '\t' || header[i] === ';')) i++;
    const nameStart = i;
    while (i < n && header[i] !== '=' && header[i] !== ';') i++;
    const name = header.slice(nameStart, i).trim().toLowerCase();
    if (header[i] !== '=') continue;
    i++;
    while (i < n && (header[i] === ' ' || header[i] === '\t')) i++;
    let value = '';
    if (header[i] === '"') {
      i++;
      while (i < n && header[i] !== '"') {
        if (header[i] === '\\' && i + 1 < n) i++;
        value += header[i];
        i++;
      }
      i++;
      while (i < n && header[i] !== ';') i++;
    } else {
      const start = i;
      while (i < n && header[i] !== ';') i++;
      value = header.slice(start, i).trim();
    }
    // The first occurrence wins: a second filename= is a classic header-smuggling trick.
    if (name && !out.has(name)) out.set(name, value);
  }
  return out;
}

/** Decodes `charset'lang'percent-encoded` (RFC 5987); null when malformed or in an unknown charset. */
function decodeExtValue(v: string): string | null {
  const m = /^([!#$%&+^_`{}~\w-]*)'[^']*'(.*)$/.exec(v.trim());
  if (!m) return null;
  const charset = m[1]!.toLowerCase();
  const encoded = m[2]!;
  try {
    if (charset === 'utf-8' || charset === 'utf8' || charset === '') return decodeURIComponent(encoded);
    if (charset === 'iso-8859-1' || charset === 'latin1') {
      return encoded.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
    }
  } catch {
    return null;
  }
  return null;
}

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

/** The n-th collision alternative of a name: n = 0 is the name itself, then "stem (1).ext", "stem (2).ext", … */
export function collisionName(name: string, n: number): string {
  if (n === 0) return name;
  const { stem, ext } = splitExtension(name);
  return `${stem} (${n})${ext}`;
}
