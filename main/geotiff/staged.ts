/**
 * A written file not yet in place: its bytes, in the file's order, are a list of pieces (a buffer,
 * or a range of an open temporary file), readable at once while they are put in place. The GeoTIFF
 * writer ends a compressed pyramid this way: its header and its blocks, spooled in the order they
 * were compressed, make the file before they are copied into the COG's order (see
 * `stagePyramid`), so a reader need not wait for the copy.
 */
import type { FileHandle } from 'node:fs/promises';
import { unlink } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { throwIfAborted } from '../../common/abort.js';
import { replaceWithPart } from '../shared/files.js';
import { readExactly, writeExactly } from '../shared/file-io.js';

/** Bytes of the file in order: `data`, or `len` bytes of `fh` from `src`. */
export type FilePiece = { data: Buffer } | { fh: FileHandle; src: number; len: number };

/** A range of one file copied to another. */
export interface CopyRun {
  src: number;
  dst: number;
  len: number;
}

/** Options of {@link StagedFile.commit}. */
export interface CommitOptions {
  /** Where the file goes (default: the path it was staged for). */
  to?: string;
  /** Fsync the file and its folder (true, the default), only the file ('file': a cache, whose lost renames are rebuilt), or neither. */
  durable?: boolean | 'file';
  signal?: AbortSignal;
}

/** What a {@link StagedFile} is made of: see its constructor. */
export interface StagedParts {
  /** The path the file was staged for. */
  file: string;
  /** Its size. */
  bytes: number;
  pieces: FilePiece[];
  /** The complete file under a temporary name (its bytes written by {@link place}), fsynced and renamed by commit. */
  part: { path: string; fh: FileHandle };
  /** Writes the file's bytes into `part` (nothing when they are there already). */
  place: (signal: AbortSignal) => Promise<void>;
  /** Open handles (the part's among them) and temporary files, closed and removed once the file is placed or discarded and no reader is left. */
  handles: FileHandle[];
  temps: string[];
}

/**
 * A staged file: {@link open} reads it, {@link commit} puts it in place (once), {@link discard} drops
 * it. Its temporary files stay while a reader is open, so a reader opened before the commit ends
 * reads to the end; once they are gone, {@link open} answers null and the file is read where it was put.
 */
export class StagedFile {
  readonly bytes: number;
  private readers = 0;
  /** Committed or discarded (asked). */
  private done = false;
  /** The commit or the discard has ended: the temporaries are no longer needed for it. */
  private ended = false;
  private released: Promise<void> | null = null;
  /** Called when the last reader closes. */
  private onUnread: (() => void)[] = [];

  constructor(private readonly parts: StagedParts) {
    this.bytes = parts.bytes;
  }

  /**
   * A stream of the file's first `limit` bytes (default all) in reads of `highWaterMark` (default 1 MiB),
   * or null once the temporaries are gone. The stream must be read to its end or destroyed.
   */
  open(opts: { limit?: number; highWaterMark?: number } = {}): Readable | null {
    if (this.released) return null;
    this.readers++;
    const limit = Math.min(this.bytes, opts.limit ?? this.bytes);
    const stream = Readable.from(readPieces(this.parts.pieces, limit, opts.highWaterMark ?? 1 << 20), { objectMode: false });
    stream.once('close', () => {
      if (--this.readers === 0) for (const f of this.onUnread.splice(0)) f();
      void this.release();
    });
    return stream;
  }

  /** Resolves once no reader is open, from the next turn of the event loop on (readers handed the file now open theirs first). */
  async unread(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.readers > 0) await new Promise<void>((resolve) => this.onUnread.push(resolve));
  }

  /** Writes the file at `to` (via its part: fsync as `durable` asks, rename); the temporaries go when no reader is left. */
  async commit(opts: CommitOptions = {}): Promise<void> {
    if (this.done) throw new Error('internal: a staged file committed or discarded twice');
    this.done = true;
    const { part } = this.parts;
    const durable = opts.durable ?? true;
    try {
      await this.parts.place(opts.signal ?? new AbortController().signal);
      if (durable) await part.fh.sync();
      await replaceWithPart(part.path, opts.to ?? this.parts.file, { durable: durable === true });
    } catch (e) {
      await unlink(part.path).catch(() => undefined);
      this.ended = true;
      await this.release();
      throw e;
    }
    this.ended = true;
    await this.release();
  }

  /** Drops the file: its part and temporaries are removed (once no reader is left). */
  async discard(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await unlink(this.parts.part.path).catch(() => undefined);
    this.ended = true;
    await this.release();
  }

  /** Closes the handles and removes the temporaries once the file is committed or discarded and no reader is left; resolves when they are gone. */
  private release(): Promise<void> {
    if (!this.ended || this.readers > 0) return Promise.resolve();
    this.released ??= (async () => {
      for (const h of this.parts.handles) await h.close().catch(() => undefined);
      for (const p of this.parts.temps) await unlink(p).catch(() => undefined);
    })();
    return this.released;
  }
}

/** The file's first `limit` bytes from `pieces`, in new buffers of at most `size` bytes. */
async function* readPieces(pieces: FilePiece[], limit: number, size: number): AsyncGenerator<Buffer> {
  let at = 0;
  for (const p of pieces) {
    if (at >= limit) return;
    if ('data' in p) {
      const data = p.data.subarray(0, limit - at);
      at += data.length;
      yield data;
      continue;
    }
    for (let done = 0; done < p.len && at < limit; ) {
      const buf = Buffer.allocUnsafe(Math.min(size, p.len - done, limit - at));
      await readExactly(p.fh, buf, p.src + done);
      done += buf.length;
      at += buf.length;
      yield buf;
    }
  }
}

/**
 * Copies `runs` from `from` to `to` in pieces of at most `chunkBytes`, each read while the piece
 * before it is written (two buffers).
 */
export async function copyRuns(from: FileHandle, to: FileHandle, runs: CopyRun[], chunkBytes: number, signal: AbortSignal): Promise<void> {
  const size = Math.min(chunkBytes, Math.max(1, ...runs.map((r) => r.len)));
  const bufs = [Buffer.allocUnsafe(size), Buffer.allocUnsafe(size)];
  let writing: Promise<void> | null = null;
  let n = 0;
  try {
    for (const r of runs) {
      for (let done = 0; done < r.len; done += size) {
        throwIfAborted(signal);
        const piece = bufs[n++ % 2]!.subarray(0, Math.min(size, r.len - done));
        await readExactly(from, piece, r.src + done);
        await writing;
        writing = writeExactly(to, piece, r.dst + done);
        // Observed at once (a failure during the next read is no unhandled rejection), and thrown at the next await.
        writing.catch(() => undefined);
      }
    }
    await writing;
  } finally {
    // After a failed read or an abort, the last write still ends before the caller closes the files.
    await writing?.catch(() => undefined);
  }
}
