import { redactSecrets } from '../api/errors';

/**
 * The one redaction every log line, diagnostics report and renderer error
 * report goes through: the exact keys Swath knows (from the profile store and
 * every key the user enters), plus the shapes a key travels in (the
 * x-api-key header, key-like JSON fields and query parameters), for a key
 * Swath has not seen yet.
 */

const SHAPES: RegExp[] = [
  // x-api-key: abc / "x-api-key":"abc" / Authorization: Bearer abc
  /((?:x-api-key|authorization)["']?\s*[:=]\s*["']?(?:bearer\s+)?)([^\s"',;}]+)/gi,
  // "key": "abc", "apiKey":"abc", "api_key": "abc", "password": "abc", "token": "abc"
  /(["'](?:key|api[-_]?key|apikey|password|secret|token)["']\s*:\s*["'])([^"']+)/gi,
  // ?key=abc&api_key=abc
  /([?&](?:key|api[-_]?key|apikey|token)=)([^&#\s"']+)/gi,
];

/** Every secret Swath has seen in this run; logs and diagnostics are redacted against all of them. */
export class SecretRegistry {
  private readonly known = new Set<string>();

  /** Remembers a secret (ignores empty and very short values, which would redact ordinary words). */
  add(secret: string | null | undefined): void {
    if (secret && secret.trim().length >= 4) this.known.add(secret.trim());
  }

  /** The secrets, longest first so a key containing another is redacted whole. */
  secrets(): string[] {
    return [...this.known].sort((a, b) => b.length - a.length);
  }

  /** Redacts `text` against the known secrets and the shapes a key travels in. */
  redact(text: string): string {
    let out = redactSecrets(text, this.secrets());
    for (const shape of SHAPES) out = out.replace(shape, (_m, prefix: string) => `${prefix}[redacted]`);
    return out;
  }
}
