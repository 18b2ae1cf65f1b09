/** The file name a Content-Disposition header suggests, as the service sent it (untrusted: sanitised by the downloads module). */

/**
 * Extracts the file name from a Content-Disposition header, preferring RFC 5987 `filename*=`
 * over `filename=` (a malformed or unknown-charset `filename*=` falls back to it); the result is NOT
 * sanitised (the downloads module's sanitizeFileName does that).
 */
export function contentDispositionFileName(header: string | null | undefined): string | null {
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
