import PQueue from 'p-queue';
import { ApiError } from './errors.js';

/** Concurrency used until the account reports its MaxConcurrentConnections. */
export const DEFAULT_CONCURRENCY = 2;

/**
 * Bounds the requests in flight to the account's concurrency limit, so a big batch
 * queues on the client instead of drawing a storm of 429s. A slot is held from the
 * request until its response body is fully read (or cancelled), because the service
 * counts a connection as busy until then.
 */
export class Limiter {
  private readonly queue: PQueue;

  /** Creates a limiter with `concurrency` slots. */
  constructor(concurrency = DEFAULT_CONCURRENCY) {
    this.queue = new PQueue({ concurrency: Math.max(1, Math.floor(concurrency)) });
  }

  /** Number of slots; changing it takes effect for the next queued requests. */
  get concurrency(): number {
    return this.queue.concurrency;
  }

  set concurrency(n: number) {
    this.queue.concurrency = Math.max(1, Math.floor(n));
  }

  /** Requests holding a slot now. */
  get active(): number {
    return this.queue.pending;
  }

  /** Requests waiting for a slot. */
  get waiting(): number {
    return this.queue.size;
  }

  /**
   * Waits for a free slot and resolves with its release function (idempotent).
   * Aborting while waiting rejects at once with a cancelled ApiError; the slot is not taken.
   */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(new ApiError('cancelled', 'The request was cancelled.'));
    return new Promise((resolve, reject) => {
      let settled = false;
      const onAbort = () => {
        if (settled) return;
        settled = true;
        reject(new ApiError('cancelled', 'The request was cancelled.'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      void this.queue.add(
        () =>
          new Promise<void>((done) => {
            signal?.removeEventListener('abort', onAbort);
            // Cancelled while queued: hand the slot straight back.
            if (settled) return done();
            settled = true;
            let released = false;
            resolve(() => {
              if (released) return;
              released = true;
              done();
            });
          }),
      );
    });
  }
}
