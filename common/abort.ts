/** AbortSignal helpers shared by main's long operations (downloads, batches, library, simulator). */

/** The error an aborted operation rejects with: the signal's reason when it is an AbortError, otherwise a new one. */
export function abortError(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  if (r instanceof Error && r.name === 'AbortError') return r;
  const e = new Error(typeof r === 'string' ? r : r instanceof Error ? r.message : 'The operation was aborted');
  e.name = 'AbortError';
  return e;
}

/** Throws an AbortError if the signal has fired. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError(signal);
}

/** True for the error an aborted operation rejects with. */
export function isAbortError(e: unknown): boolean {
  return e instanceof Error && e.name === 'AbortError';
}

/** `p`, or an AbortError as soon as `signal` fires (`p` itself goes on, e.g. for other waiters). */
export function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
