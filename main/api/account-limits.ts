/**
 * The request limits account info reports. The contract does not show account info's
 * fields, so each limit is the number whose name says what it is (MaxConcurrentConnections,
 * maxConcurrentConnections, max_concurrent_connections, ...), case and separators ignored.
 */

/** The account's request limits; null where the answer names none. */
export interface AccountLimits {
  maxConcurrentConnections: number | null;
  maxCompositeAreaKm2: number | null;
  maxTotalBands: number | null;
}

function numberNamed(info: Record<string, unknown>, ...patterns: RegExp[]): number | null {
  const numbers = Object.entries(info).filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]));
  for (const re of patterns) {
    const hit = numbers.find(([k]) => re.test(k.replace(/[\s_-]/g, '')));
    if (hit) return hit[1];
  }
  return null;
}

/** Reads the request limits from an account info record (see the module comment). */
export function accountLimits(info: unknown): AccountLimits {
  const rec = info && typeof info === 'object' && !Array.isArray(info) ? (info as Record<string, unknown>) : {};
  return {
    maxConcurrentConnections: numberNamed(rec, /^max.*concurrent.*connections?/i, /^max.*connections?/i),
    maxCompositeAreaKm2: numberNamed(rec, /^max.*composite.*area/i, /^max.*area/i),
    maxTotalBands: numberNamed(rec, /^max.*total.*bands?/i, /^max.*bands?/i),
  };
}
