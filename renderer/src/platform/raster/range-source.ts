/**
 * The byte source geotiff.js reads library rasters through: HTTP Range requests only (never the
 * whole file), in aligned blocks kept in a small LRU cache, so the header, the IFDs and tile
 * offset tables are fetched once. Unlike geotiff.js's own BlockedSource it answers slices that are
 * already cached at once: BlockedSource waits for a timer on every call, and parsing a header makes
 * dozens of calls one after another (Chromium clamps nested timers to 4 ms), which cost more than
 * the bytes themselves.
 */

/** A byte range of the file. */
export interface Slice {
  offset: number;
  length: number;
}

/** Options of {@link RangeSource}. */
export interface RangeSourceOptions {
  /** Block size in bytes: reads are rounded out to whole blocks. Default 128 KiB. */
  blockSize?: number;
  /** Cached bytes kept (least recently used go first). Default 32 MiB. */
  cacheBytes?: number;
  fetch?: typeof fetch;
}

interface Block {
  /** The response buffer holding the block (shared by the blocks of one request) and where in it the block starts. */
  buffer: ArrayBuffer;
  at: number;
  length: number;
}

/** A geotiff.js source over HTTP Range requests (see the module comment). */
export class RangeSource {
  private readonly blockSize: number;
  private readonly cacheBytes: number;
  private readonly fetchImpl: typeof fetch;
  private readonly blocks = new Map<number, Block>();
  private readonly inflight = new Map<number, Promise<void>>();
  private cached = 0;
  private size: number | null = null;

  constructor(readonly url: string, opts: RangeSourceOptions = {}) {
    this.blockSize = opts.blockSize ?? 128 * 1024;
    this.cacheBytes = opts.cacheBytes ?? 32 * 1024 * 1024;
    this.fetchImpl = opts.fetch ?? ((...args) => fetch(...args));
  }

  /** The file size once a response has told it, else null. */
  get fileSize(): number | null {
    return this.size;
  }

  /** The bytes of each slice (clipped to the end of the file). */
  async fetch(slices: Slice[], signal?: AbortSignal): Promise<ArrayBuffer[]> {
    const wanted = new Set<number>();
    for (const s of slices) {
      const end = this.size == null ? s.offset + s.length : Math.min(this.size, s.offset + s.length);
      for (let id = Math.floor(s.offset / this.blockSize); id * this.blockSize < end; id++) wanted.add(id);
    }
    // A block evicted by a concurrent read before this one copied it is fetched again.
    for (let attempt = 0; ; attempt++) {
      const missing = [...wanted].filter((id) => !this.blocks.has(id) && !this.inflight.has(id)).sort((a, b) => a - b);
      // Consecutive missing blocks are one request.
      let run: number[] = [];
      const runs: number[][] = [];
      for (const id of missing) {
        if (run.length && id !== run.at(-1)! + 1) {
          runs.push(run);
          run = [];
        }
        run.push(id);
      }
      if (run.length) runs.push(run);
      for (const ids of runs) this.request(ids);
      const waits = [...wanted].map((id) => this.inflight.get(id)).filter((p): p is Promise<void> => !!p);
      // Requests are shared by every caller that needs their blocks: one caller's abort stops only its own wait.
      if (waits.length) await untilAborted(Promise.all(waits), signal);
      if (attempt >= 2 || [...wanted].every((id) => this.blocks.has(id))) return slices.map((s) => this.read(s));
    }
  }

  /** One slice (geotiff.js's BaseSource interface). */
  async fetchSlice(slice: Slice, signal?: AbortSignal): Promise<Slice & { data: ArrayBuffer }> {
    const [data] = await this.fetch([slice], signal);
    return { ...slice, data: data! };
  }

  private request(ids: number[]): void {
    const start = ids[0]! * this.blockSize;
    const end = (ids.at(-1)! + 1) * this.blockSize;
    const p = (async () => {
      const res = await this.fetchImpl(this.url, { headers: { Range: `bytes=${start}-${end - 1}` } });
      // The size, where the response may show it (a custom protocol's CORS may hide Content-Range).
      const total = /\/(\d+)\s*$/.exec(res.headers.get('Content-Range') ?? '');
      if (total) this.size = Number(total[1]);
      if (res.status === 416) {
        // Wholly past the end of the file: these blocks are empty, and the file ends before them.
        await res.body?.cancel().catch(() => undefined);
        if (this.size == null || this.size > start) this.size = start;
        for (const id of ids) this.blocks.set(id, { buffer: new ArrayBuffer(0), at: 0, length: 0 });
        return;
      }
      if (res.status !== 206) {
        await res.body?.cancel().catch(() => undefined);
        throw new Error(`${this.url}: the server did not answer a range request (HTTP ${res.status})`);
      }
      const buffer = await res.arrayBuffer();
      // A short answer is the end of the file.
      if (buffer.byteLength < end - start && (this.size == null || this.size > start + buffer.byteLength)) this.size = start + buffer.byteLength;
      for (const id of ids) {
        const at = Math.min(id * this.blockSize - start, buffer.byteLength);
        const length = Math.max(0, Math.min(this.blockSize, buffer.byteLength - at));
        this.blocks.set(id, { buffer, at, length });
        this.cached += length;
      }
      this.evict(new Set(ids));
    })();
    const done = p.finally(() => {
      for (const id of ids) if (this.inflight.get(id) === done) this.inflight.delete(id);
    });
    for (const id of ids) this.inflight.set(id, done);
  }

  /** Drops least recently used blocks above the budget (never the ones just fetched). */
  private evict(keep: Set<number>): void {
    for (const [id, b] of this.blocks) {
      if (this.cached <= this.cacheBytes) break;
      if (keep.has(id)) continue;
      this.blocks.delete(id);
      this.cached -= b.length;
    }
  }

  private read(s: Slice): ArrayBuffer {
    const end = this.size == null ? s.offset + s.length : Math.min(this.size, s.offset + s.length);
    const out = new Uint8Array(Math.max(0, end - s.offset));
    for (let id = Math.floor(s.offset / this.blockSize); id * this.blockSize < end; id++) {
      const b = this.blocks.get(id);
      if (!b) throw new Error(`${this.url}: bytes ${id * this.blockSize}.. were not read`);
      // Most recently used last.
      this.blocks.delete(id);
      this.blocks.set(id, b);
      const blockStart = id * this.blockSize;
      const from = Math.max(s.offset, blockStart);
      const to = Math.min(end, blockStart + b.length);
      if (to > from) out.set(new Uint8Array(b.buffer, b.at + (from - blockStart), to - from), from - s.offset);
    }
    return out.buffer;
  }

  async close(): Promise<void> {
    this.blocks.clear();
    this.cached = 0;
  }
}

/** `p`, or an AbortError as soon as `signal` aborts (p goes on for its other waiters). */
function untilAborted<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(new DOMException('Aborted', 'AbortError'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new DOMException('Aborted', 'AbortError'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
