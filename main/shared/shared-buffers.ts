/**
 * Shared buffers kept from one job for the next. A SharedArrayBuffer lives until every thread it
 * was sent to has collected its garbage, and worker threads that allocate little collect late: new
 * buffers for every file kept several files' buffers alive at once.
 */
export class SharedBufferPool {
  private readonly spare: SharedArrayBuffer[] = [];

  /** `kept`: buffers kept at most; the oldest go first. */
  constructor(private readonly kept: number) {}

  /** A buffer of at least `bytes`: a kept one of at most twice that, or a new one. */
  take(bytes: number): SharedArrayBuffer {
    const i = this.spare.findIndex((b) => b.byteLength >= bytes && b.byteLength <= 2 * bytes);
    return i >= 0 ? this.spare.splice(i, 1)[0]! : new SharedArrayBuffer(bytes);
  }

  /** Keeps `b` for a later {@link take}; no thread may still write to it. */
  give(b: SharedArrayBuffer): void {
    this.spare.push(b);
    if (this.spare.length > this.kept) this.spare.splice(0, this.spare.length - this.kept);
  }
}
