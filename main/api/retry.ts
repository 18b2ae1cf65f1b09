import { isAbortError, sleep } from '../../common/abort.js';
import { backoffDelay } from '../../common/backoff.js';
import { ApiError } from './errors.js';

/** A signal that never fires, for sleeps nobody can cancel. */
const NEVER = new AbortController().signal;

/**
 * Retry of transient failures (429, 5xx, network errors, timeouts). Hand-written
 * rather than p-retry because it must honour Retry-After, use full jitter (both by
 * common/backoff.ts, the app's one backoff), and take an injectable sleep and random
 * source so tests need no real time.
 */

/** How a failed call is retried. */
export interface RetryPolicy {
  /** Attempts in total, including the first. */
  maxAttempts: number;
  /** Cap of the exponential backoff before jitter, ms (attempt n: base * 2^(n-1)). */
  baseDelayMs: number;
  /** Largest single wait without a Retry-After, ms. */
  maxDelayMs: number;
  /** Budget for all attempts and waits together, ms; no wait starts that would exceed it. */
  maxTotalMs: number;
  /** Waits; rejects when the signal aborts. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Uniform random in [0, 1). */
  random: () => number;
  /** Clock, ms. */
  now: () => number;
}

/** Defaults: 5 attempts, 250 ms base, 10 s cap, 60 s total. */
export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 250,
  maxDelayMs: 10_000,
  maxTotalMs: 60_000,
  sleep: abortableSleep,
  random: Math.random,
  now: Date.now,
};

/** Resolves after `ms`, or rejects with a cancelled ApiError when the signal aborts first. */
export async function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await sleep(ms, signal ?? NEVER);
  } catch (e) {
    if (isAbortError(e)) throw new ApiError('cancelled', 'The request was cancelled.');
    throw e;
  }
}

/** Parses Retry-After (delta seconds or an HTTP date) into ms from `now`; null when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now: number): number | null {
  if (value == null) return null;
  const v = value.trim();
  if (v === '') return null;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}

/** Called before each wait; for logs and tests. */
export type RetryListener = (info: { attempt: number; delayMs: number; error: ApiError }) => void;

/**
 * Runs `fn` until it succeeds, fails with a non-retryable error, runs out of attempts,
 * or would exceed the total budget; the last error is thrown unchanged.
 */
export async function withRetry<T>(
  fn: (attempt: number) => Promise<T>,
  policy: RetryPolicy | null,
  signal?: AbortSignal,
  onRetry?: RetryListener,
): Promise<T> {
  const started = policy?.now() ?? 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (e) {
      if (!policy || !(e instanceof ApiError) || !e.retryable || attempt >= policy.maxAttempts) throw e;
      if (signal?.aborted) throw new ApiError('cancelled', 'The request was cancelled.', { operation: e.operation });
      const delayMs = backoffDelay(attempt, { baseMs: policy.baseDelayMs, maxMs: policy.maxDelayMs }, policy.random, e.retryAfterMs);
      if (policy.now() - started + delayMs > policy.maxTotalMs) throw e;
      onRetry?.({ attempt, delayMs, error: e });
      await policy.sleep(delayMs, signal);
    }
  }
}
