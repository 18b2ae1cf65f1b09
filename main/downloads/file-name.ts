/**
 * File names for downloads: what the server suggests (Content-Disposition) is untrusted input,
 * so it is reduced to one harmless name component before it touches the file system.
 */

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

/** The name used when the server suggests none: `<kind>_<YYYYMMDD>.tif`, date from the request or today. */
export function fallbackFileName(kind: string, date: unknown, now: number = Date.now()): string {
  const m = typeof date === 'string' ? /^(\d{4})-(\d{2})-(\d{2})/.exec(date) : null;
  const day = m ? `${m[1]}${m[2]}${m[3]}` : new Date(now).toISOString().slice(0, 10).replaceAll('-', '');
  return `${kind.replace(/[^a-z0-9-]/gi, '') || 'download'}_${day}.tif`;
}

/** The n-th collision alternative of a name: n = 0 is the name itself, then "stem (1).ext", "stem (2).ext", … */
export function collisionName(name: string, n: number): string {
  if (n === 0) return name;
  const { stem, ext } = splitExtension(name);
  return `${stem} (${n})${ext}`;
}
