/**
 * The one rule for a storage path inside the shared store, asked by everything that takes one: the
 * store before it resolves or writes a path, the registration queue before it queues one, and the
 * catalog's row validation before it uses a row or registers one.
 */

/** Longest storage path inside the shared store. */
export const MAX_STORAGE_PATH_CHARS = 1024;

/**
 * Why `p` cannot be a storage path inside the shared store, or null when it can: relative, forward
 * slashes, no empty, `.` or `..` segment, no drive letter or backslash, no NUL or control character,
 * no trailing dot or space in a segment (Windows would silently strip it), no Windows device name
 * (CON, NUL, COM1, …), at most
 * {@link MAX_STORAGE_PATH_CHARS} characters.
 */
export function storagePathProblem(p: unknown): string | null {
  if (typeof p !== 'string' || p === '') return 'it is empty';
  if (p.length > MAX_STORAGE_PATH_CHARS) return `it is longer than ${MAX_STORAGE_PATH_CHARS} characters`;
  if (/[\u0000-\u001f\u007f]/.test(p)) return 'it contains a NUL or control character'; // eslint-disable-line no-control-regex
  if (p.includes('\\')) return 'it contains a backslash (storage paths use forward slashes)';
  if (p.startsWith('/')) return 'it is absolute';
  if (/^[A-Za-z]:/.test(p)) return 'it starts with a drive letter';
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') return 'it has an empty or "." segment';
    if (seg === '..') return 'it climbs out with ".."';
    if (/[. ]$/.test(seg)) return `its segment "${seg}" ends with a dot or a space`;
    if (/[:*?"<>|]/.test(seg)) return `its segment "${seg}" has a character Windows refuses in names (: * ? " < > |)`;
    if (/^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i.test(seg)) return `its segment "${seg}" is a device name on Windows`;
  }
  return null;
}
