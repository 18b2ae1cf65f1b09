/**
 * The one backoff of the app: every wait before trying again (an API call, a download job, a team
 * registration, a watch run) is computed here, so Retry-After is honoured by one rule everywhere.
 *
 * Without a Retry-After, attempt n waits at most `min(maxMs, baseMs * factor^(n-1))`, with jitter:
 * `full` (uniform in [0, ceiling): clients failing together spread out), `half` (uniform in
 * [ceiling/2, ceiling): never soon) or `none` (the ceiling itself).
 *
 * The Retry-After rule: the server's wait is a floor, plus a jitter of up to one base delay so many
 * clients told the same instant do not all return at once. A caller that must stay responsive
 * whatever the server says bounds the floor with `maxRetryAfterMs`.
 */

/** How the waits of one caller grow. */
export interface BackoffPolicy {
  /** Ceiling of the first wait, ms, and the most jitter added to a Retry-After. */
  baseMs: number;
  /** Largest wait without a Retry-After, ms. */
  maxMs: number;
  /** Growth of the ceiling per attempt (default 2: doubling). */
  factor?: number;
  /** Spread of the wait under its ceiling (default `full`). */
  jitter?: 'full' | 'half' | 'none';
  /** Longest Retry-After waited for, ms (default: none, the server's wait is kept). */
  maxRetryAfterMs?: number;
}

/**
 * The wait after failed attempt `attempt` (1 for the first), ms: the Retry-After rule when the
 * server gave one (`retryAfterMs`, ms from now), else the policy's exponential ceiling with jitter.
 * `random` is uniform in [0, 1).
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number, retryAfterMs: number | null = null): number {
  if (retryAfterMs != null && Number.isFinite(retryAfterMs) && retryAfterMs >= 0) {
    return Math.min(retryAfterMs, policy.maxRetryAfterMs ?? Infinity) + Math.floor(random() * policy.baseMs);
  }
  const ceiling = Math.min(policy.maxMs, policy.baseMs * (policy.factor ?? 2) ** Math.max(0, attempt - 1));
  switch (policy.jitter ?? 'full') {
    case 'none':
      return ceiling;
    case 'half':
      return Math.floor(ceiling * (0.5 + 0.5 * random()));
    default:
      return Math.floor(random() * ceiling);
  }
}
