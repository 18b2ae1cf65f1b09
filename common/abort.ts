/** AbortSignal helpers shared by every process (no Node or DOM beyond AbortSignal and timers). */

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

/** Resolves after `ms`, or rejects with an AbortError as soon as `signal` fires (the timer is cleared). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortError(signal));
    const onAbort = (): void => {
      clearTimeout(t);
      reject(abortError(signal));
    };
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
