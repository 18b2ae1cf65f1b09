/**
 * A written file not yet in place: its bytes, in the file's order, are a list of pieces (a buffer,
 * or a range of an open temporary file), readable at once while they are put in place. The GeoTIFF
 * writer ends a compressed pyramid this way: its header and its blocks, spooled in the order they
 * were compressed, make the file before they are copied into the COG's order (see
 * `stagePyramid`), so a reader need not wait for the copy.
 */
import type { FileHandle } from 'node:fs/promises';
import { unlink } from 'node:fs/promises';
import { throwIfAborted } from '../../common/abort.js';
import { replaceWithPart } from '../shared/files.js';
import { readExactly, writeExactly, type ByteReader } from '../shared/file-io.js';

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
 * A staged file: a {@link reader} reads it, {@link commit} puts it in place (once), {@link discard}
 * drops it. Its temporary files stay while a reader is open, so a reader opened before the commit
 * ends reads to the end; once they are gone, {@link reader} answers null and the file is read where
 * it was put.
 */
export class StagedFile {
  readonly bytes: number;
  /** Resolves once the temporaries are gone: the commit or the discard has ended and the last reader closed. */
  readonly gone: Promise<void>;
  private markGone!: () => void;
  /** The open readers. */
  private readonly readers = new Set<object>();
  /** Called, and dropped, whenever a reader closes. */
  private onClose: (() => void)[] = [];
  /** Committed or discarded (asked). */
  private done = false;
  /** The commit or the discard has ended: the temporaries are no longer needed for it. */
  private ended = false;
  private released: Promise<void> | null = null;
  /** Where each piece starts in the file. */
  private readonly starts: number[] = [];

  constructor(private readonly parts: StagedParts) {
    this.bytes = parts.bytes;
    this.gone = new Promise((resolve) => (this.markGone = resolve));
    let at = 0;
    for (const p of parts.pieces) {
      this.starts.push(at);
      at += 'data' in p ? p.data.length : p.len;
    }
    if (at !== parts.bytes) throw new Error(`internal: the staged pieces hold ${at} bytes, not ${parts.bytes}`);
  }

  /** A reader of the file's bytes, or null once the temporaries are gone (the file is then where it was put). Close it when done. */
  reader(): ByteReader | null {
    if (this.released) return null;
    const token = {};
    this.readers.add(token);
    let closing: Promise<void> | null = null;
    // Reads under way: a close waits for them before the temporaries can go.
    const reads = new Set<Promise<void>>();
    return {
      bytes: this.bytes,
      read: (into, position) => {
        if (closing) return Promise.reject(new Error('internal: a staged file read after its reader closed'));
        const read = readPieces(this.parts.pieces, this.starts, into, position);
        reads.add(read);
        const done = (): void => void reads.delete(read);
        read.then(done, done);
        return read;
      },
      close: () =>
        (closing ??= (async () => {
          await Promise.allSettled(reads);
          this.readers.delete(token);
          for (const f of this.onClose.splice(0)) f();
          await this.release();
        })()),
    };
  }

  /**
   * Resolves once the readers open at the next turn of the event loop (those handed the file now
   * open theirs by then) have closed, or after `maxMs`: readers opened later do not hold it up.
   */
  async firstReaders(maxMs: number): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    const first = [...this.readers];
    await new Promise<void>((resolve) => {
      let settled = false;
      const timer = setTimeout(() => finish(), maxMs);
      timer.unref();
      const finish = (): void => {
        settled = true;
        clearTimeout(timer);
        resolve();
      };
      const check = (): void => {
        if (settled) return;
        if (first.every((r) => !this.readers.has(r))) finish();
        else this.onClose.push(check);
      };
      check();
    });
  }

  /** Writes the file at `to` (via its part: fsync as `durable` asks, rename); the temporaries go when no reader is left. */
  async commit(opts: CommitOptions = {}): Promise<void> {
    if (this.done) throw new Error('internal: a staged file committed or discarded twice');
    this.done = true;
    const { part } = this.parts;
    const durable = opts.durable ?? true;
    const signal = opts.signal ?? new AbortController().signal;
    try {
      throwIfAborted(signal);
      // Its age is the commit's: a sweep of old parts (a dead process's) leaves it alone.
      const now = new Date();
      await part.fh.utimes(now, now);
      await this.parts.place(signal);
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
    if (!this.ended || this.readers.size > 0) return Promise.resolve();
    this.released ??= (async () => {
      for (const h of this.parts.handles) await h.close().catch(() => undefined);
      for (const p of this.parts.temps) await unlink(p).catch(() => undefined);
      this.markGone();
    })();
    return this.released;
  }
}

/** Fills `into` with the file's bytes from `position`, out of `pieces` (each starting at `starts`). */
async function readPieces(pieces: FilePiece[], starts: number[], into: Buffer, position: number): Promise<void> {
  const end = starts.length ? starts.at(-1)! + pieceLength(pieces.at(-1)!) : 0;
  if (position < 0 || position + into.length > end) throw new RangeError(`bytes ${position}-${position + into.length} are outside the file's ${end}`);
  // The last piece starting at or before `position`.
  let lo = 0;
  for (let hi = starts.length - 1; lo < hi; ) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= position) lo = mid;
    else hi = mid - 1;
  }
  for (let i = lo, done = 0; done < into.length; i++) {
    const p = pieces[i]!;
    const from = position + done - starts[i]!;
    const n = Math.min(pieceLength(p) - from, into.length - done);
    if ('data' in p) p.data.copy(into, done, from, from + n);
    else await readExactly(p.fh, into.subarray(done, done + n), p.src + from);
    done += n;
  }
}

function pieceLength(p: FilePiece): number {
  return 'data' in p ? p.data.length : p.len;
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
