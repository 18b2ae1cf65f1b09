/** The app's one backoff: the exponential ceilings, the three jitters, and the one Retry-After rule. */
import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../common/backoff.js';

const low = () => 0;
const high = () => 0.999;

describe('backoffDelay', () => {
  it('uses full jitter by default: uniform in [0, min(max, base * 2^(n-1)))', () => {
    const p = { baseMs: 100, maxMs: 1000 };
    expect(backoffDelay(1, p, low)).toBe(0);
    expect(backoffDelay(1, p, high)).toBe(99);
    expect(backoffDelay(3, p, high)).toBe(399);
    // Capped at maxMs however many attempts, even past what a double can hold.
    expect(backoffDelay(12, p, high)).toBe(999);
    expect(backoffDelay(5000, p, high)).toBe(999);
  });

  it('grows by the policy factor; half jitter never waits less than half the ceiling; none waits the ceiling', () => {
    const watch = { baseMs: 60_000, factor: 4, maxMs: 24 * 3_600_000, jitter: 'half' as const };
    expect([1, 2, 3].map((n) => backoffDelay(n, watch, low))).toEqual([30_000, 120_000, 480_000]);
    expect(backoffDelay(3, watch, high)).toBe(959_520);
    const outbox = { baseMs: 1000, maxMs: 300_000, jitter: 'none' as const };
    expect([0, 1, 2, 3, 9, 10, 1000].map((n) => backoffDelay(n, outbox, high))).toEqual([1000, 1000, 2000, 4000, 256_000, 300_000, 300_000]);
  });

  it('one Retry-After rule: the server\'s wait is a floor plus up to one base delay, bounded only where the caller asks', () => {
    const p = { baseMs: 100, maxMs: 1000 };
    expect(backoffDelay(1, p, low, 2000)).toBe(2000);
    expect(backoffDelay(1, p, high, 2000)).toBe(2099);
    // The same for every jitter and attempt: the server said when.
    expect(backoffDelay(7, { ...p, jitter: 'none' }, low, 0)).toBe(0);
    expect(backoffDelay(1, { ...p, maxRetryAfterMs: 1000 }, low, 3_600_000)).toBe(1000);
    // Not a wait the server gave: the policy's own backoff.
    expect(backoffDelay(1, p, high, Number.NaN)).toBe(99);
    expect(backoffDelay(1, p, high, -5)).toBe(99);
  });
});
