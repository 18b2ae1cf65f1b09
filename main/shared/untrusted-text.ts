/**
 * Text a page or a service controls, on its way into a log line or a notification: one line
 * (line breaks and other control characters shown as escapes, so it cannot forge a log line or
 * look like a second paragraph of Swath's own), bounded, and attributed where it is shown.
 */

// C0 and C1 controls, DEL, and the Unicode line and paragraph separators.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g; // eslint-disable-line no-control-regex
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` on one line, control characters escaped (\n, \r, \t, \uXXXX), cut to `max` characters with a count of what was cut. */
export function oneLine(text: string, max: number): string {
  const escaped = text.replace(CONTROL, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (escaped.length <= max) return escaped;
  return `${escaped.slice(0, max)}… (${escaped.length - max} more characters cut)`;
}

/** How much of a service's own text a notification or notice quotes. */
export const SERVICE_TEXT_MAX = 200;

/** A service's text as Swath quotes it: after Swath's own words, attributed, in quotes, on one line and short. */
export function serviceSaid(text: string, max = SERVICE_TEXT_MAX): string {
  const quoted = oneLine(text.trim(), max).replace(/[“”]/g, '"');
  return quoted ? `The service said: “${quoted}”` : 'The service gave no reason.';
}

/**
 * At most `limit` events per `windowMs` (a sliding window), for what a page may do as often as it
 * likes (error reports, notifications). Counts what it refused, for one line in the log later.
 */
export class RateLimit {
  private readonly times: number[] = [];
  private refused = 0;

  constructor(private readonly limit: number, private readonly windowMs: number, private readonly now: () => number = Date.now) {}

  /** True when one more is allowed now (and counts it), false when over the limit. */
  take(): boolean {
    const t = this.now();
    while (this.times.length && t - this.times[0]! >= this.windowMs) this.times.shift();
    if (this.times.length >= this.limit) {
      this.refused++;
      return false;
    }
    this.times.push(t);
    return true;
  }

  /** How many were refused since the last call. */
  takeRefused(): number {
    const n = this.refused;
    this.refused = 0;
    return n;
  }
}
