/** Bounded parallelism under one AbortSignal (batch estimates, batch parts). */
import { abortError, throwIfAborted } from './abort.js';

/**
 * Runs `fn` over `items` with at most `limit` calls in flight, results in input order. The first
 * failure aborts the signal handed to the other calls, waits for them to settle, and is rethrown.
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  signal: AbortSignal,
  fn: (item: T, index: number, signal: AbortSignal) => Promise<R>,
): Promise<R[]> {
  throwIfAborted(signal);
  const inner = new AbortController();
  const onAbort = (): void => inner.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async (): Promise<void> => {
    while (failure === null && !inner.signal.aborted && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i]!, i, inner.signal);
      } catch (e) {
        // The first real error wins; the aborts it causes in the other workers are only echoes of it.
        if (failure === null) failure = { error: e };
        inner.abort(e);
      }
    }
  };
  try {
    const n = Math.max(1, Math.min(Math.floor(limit) || 1, items.length));
    await Promise.all(Array.from({ length: n }, worker));
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  if (signal.aborted) throw abortError(signal);
  if (failure !== null) throw (failure as { error: unknown }).error;
  return results;
}
