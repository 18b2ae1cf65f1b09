import type { SecretRegistry } from '../platform/secrets';

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

/**
 * The log's redaction over the app's secret registry (main/platform/secrets.ts): every key the
 * profile store, the transport, the team library and the demo service add there is redacted
 * from logs and reports too, plus the shapes above for a key Swath has not seen yet.
 */
export class LogRedactor {
  constructor(private readonly registry: SecretRegistry) {}

  /** Redacts `text` against the known secrets and the shapes a key travels in. */
  redact(text: string): string {
    let out = this.registry.redactText(text);
    for (const shape of SHAPES) out = out.replace(shape, (_m, prefix: string) => `${prefix}[redacted]`);
    return out;
  }
}
