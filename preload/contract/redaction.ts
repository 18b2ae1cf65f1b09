/**
 * How main marks a redacted API key in what it hands to the renderer, and how
 * the renderer recognises the mark. Only the last four characters ever cross,
 * and only for keys long enough that four characters give nothing away (the
 * profile list shows the same four).
 */

/** The mask that starts every redaction mark. */
export const REDACTION_MASK = '••••';

/** Keys shorter than this are masked without a hint. */
const MIN_LENGTH_TO_REVEAL = 8;

/** The last four characters of a key, or null when the key is too short to show any of it. */
export function lastFour(key: string): string | null {
  return key.length >= MIN_LENGTH_TO_REVEAL ? key.slice(-4) : null;
}

/** The mark that replaces a key: "•••• 7f3a", or "••••" for a short key. */
export function redactionMark(secret: string): string {
  const hint = lastFour(secret);
  return hint ? `${REDACTION_MASK} ${hint}` : REDACTION_MASK;
}

const MARK_RE = new RegExp(`^${REDACTION_MASK}(?: (.{4}))?$`, 'u');

/** Reads a redaction mark: `{ hint }` (the last four, or null) when the value is one, otherwise null. */
export function parseRedactionMark(value: unknown): { hint: string | null } | null {
  if (typeof value !== 'string') return null;
  const m = MARK_RE.exec(value);
  return m ? { hint: m[1] ?? null } : null;
}
