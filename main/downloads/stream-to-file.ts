import { createHash } from 'node:crypto';
import { mkdir, open, stat, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { countImages, geoTiffOf, READ_WHOLE_BYTES, TiffFile } from '../geotiff/index.js';
import { abortError, isAbortError, throwIfAborted } from '../../common/abort.js';
import { MAX_NUMBERED_TRIES, numberedName, publishNumbered } from '../shared/files.js';
import { pathExists } from '../shared/file-io.js';
import { DownloadError, errorMessage } from './types.js';

/** Suffix of files still being written; nothing else in a download folder carries it. */
export const PART_SUFFIX = '.part';

/** Bytes gathered before one writev: large sequential writes while holding little memory (one batch in flight, one filling). */
const WRITE_BATCH_BYTES = 1 * 1024 * 1024;

/**
 * Written bytes after which a background fdatasync starts (never awaited per chunk, at most one in
 * flight): writeback then overlaps the transfer, so the final fsync before the rename is short and
 * dirty pages never pile up to the size of the file.
 */
const SYNC_EVERY_BYTES = 32 * 1024 * 1024;

/** A transfer that delivers no byte for this long is abandoned as transient (the queue fails the job: the service answered, so it charged). */
export const DEFAULT_STALL_TIMEOUT_MS = 60_000;

/** A freshly created, exclusively owned `.part` file and the final name it is meant for. */
export interface ReservedPart {
  finalPath: string;
  partPath: string;
  handle: FileHandle;
}

function ioError(action: string, file: string, e: unknown): DownloadError {
  return new DownloadError('io', `Could not ${action} ${file}: ${errorMessage(e)}`, { cause: e });
}

/**
 * Creates `<dir>/<name>.part` with O_EXCL, moving on to "name (1)", "name (2)", … while either the
 * final name or its `.part` exists, so two concurrent jobs can never write the same file.
 */
export async function reservePartFile(dir: string, name: string, signal: AbortSignal): Promise<ReservedPart> {
  throwIfAborted(signal);
  try {
    await mkdir(dir, { recursive: true });
  } catch (e) {
    throw ioError('create the folder', dir, e);
  }
  for (let n = 0; n < MAX_NUMBERED_TRIES; n++) {
    const finalPath = path.join(dir, numberedName(name, n, 'copy'));
    const partPath = finalPath + PART_SUFFIX;
    try {
      if (await pathExists(finalPath)) continue;
      const handle = await open(partPath, 'wx', 0o644);
      return { finalPath, partPath, handle };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw ioError('create', partPath, e);
    }
  }
  throw new DownloadError('io', `Could not find a free file name for ${name} in ${dir} after ${MAX_NUMBERED_TRIES} tries.`);
}

async function writeAll(fh: FileHandle, chunks: Uint8Array[], size: number, position: number): Promise<void> {
  const { bytesWritten } = await fh.writev(chunks, position);
  if (bytesWritten === size) return;
  // Partial vectored writes are rare (disk nearly full); finish the rest the slow way so the error, if any, is the real one.
  let rest = Buffer.concat(chunks).subarray(bytesWritten);
  let pos = position + bytesWritten;
  while (rest.length > 0) {
    const { bytesWritten: w } = await fh.write(rest, 0, rest.length, pos);
    if (w === 0) throw new Error('the disk accepted no more bytes');
    rest = rest.subarray(w);
    pos += w;
  }
}

/**
 * A body of at most this many bytes is kept in memory as it is written (the same size a header read
 * takes a file whole, READ_WHOLE_BYTES): verifying and recording the file then parse these bytes
 * instead of reading the file back, a trip through the thread pool for each open, stat, read and close.
 */
export const KEEP_CONTENT_BYTES = READ_WHOLE_BYTES;

/** `chunks` in one Uint8Array of its own (`bytes` long). */
function joined(chunks: Uint8Array[], bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** Outcome of {@link writeBody}. */
export interface WrittenBody {
  bytes: number;
  /** Null when hashing was not asked for (the library hashes published files off the hot path). */
  sha256: string | null;
  /** Everything written, when it was at most {@link KEEP_CONTENT_BYTES}; else null. */
  content: Uint8Array | null;
}

/**
 * Streams a response body into an open file, hashing as it goes. Writes are batched (1 MB writev)
 * and overlapped with reading (one batch in flight), with a background fdatasync every 32 MB, so
 * throughput stays near the disk's while memory stays bounded. A stream error, a stall, an early
 * end (fewer bytes than `contentLength`) or too many bytes is a transient {@link DownloadError}; the
 * service answered, so it charged: the queue does not send the request again on its own.
 */
export async function writeBody(
  body: ReadableStream<Uint8Array>,
  fh: FileHandle,
  opts: { contentLength: number | null; signal: AbortSignal; label: string; onProgress?: (bytes: number) => void; stallTimeoutMs?: number; hash?: boolean },
): Promise<WrittenBody> {
  const { contentLength, signal, label, onProgress } = opts;
  const stallMs = opts.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;
  const hash = opts.hash === false ? null : createHash('sha256');
  const reader = body.getReader();
  let bytes = 0;
  const onAbort = (): void => {
    reader.cancel(signal.reason).catch(() => undefined);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  // A connection that stays open but sends nothing would hang the job forever; a coarse watchdog
  // (rather than a timer reset per chunk) turns it into a transient failure.
  let lastData = performance.now();
  let stalled = false;
  const watchdog = setInterval(() => {
    if (performance.now() - lastData < stallMs) return;
    stalled = true;
    reader.cancel().catch(() => undefined);
  }, Math.max(10, Math.min(1000, stallMs / 4)));
  const stallError = (): DownloadError =>
    new DownloadError('transient', `The transfer of ${label} stalled: no data for ${Math.round(stallMs / 1000)} s after ${bytes} bytes.`);
  let position = 0;
  // The body's chunks while it stays small (references to the chunks being written, no copy until the end).
  let kept: Uint8Array[] | null = [];
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let inflight: Promise<void> | null = null;
  let syncing: Promise<void> | null = null;
  let unsynced = 0;
  const flush = async (): Promise<void> => {
    if (inflight) await inflight;
    if (pendingBytes === 0) return;
    const chunks = pending;
    const size = pendingBytes;
    pending = [];
    pendingBytes = 0;
    const write = writeAll(fh, chunks, size, position);
    inflight = write;
    // Observed here too, so a failing write is never an unhandled rejection while we are reading.
    write.catch(() => undefined);
    position += size;
    unsynced += size;
    if (unsynced >= SYNC_EVERY_BYTES && !syncing) {
      unsynced = 0;
      const sync = write.then(() => fh.datasync()).finally(() => {
        if (syncing === sync) syncing = null;
      });
      syncing = sync;
      sync.catch(() => undefined);
    }
  };
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (e) {
        throwIfAborted(signal);
        if (stalled) throw stallError();
        throw new DownloadError('transient', `The transfer of ${label} was interrupted after ${bytes} bytes: ${errorMessage(e)}`, { cause: e });
      }
      throwIfAborted(signal);
      if (stalled) throw stallError();
      if (chunk.done) break;
      lastData = performance.now();
      const value = chunk.value;
      if (value.byteLength === 0) continue;
      hash?.update(value);
      bytes += value.byteLength;
      if (contentLength != null && bytes > contentLength) {
        throw new DownloadError('transient', `The server sent more than the announced ${contentLength} bytes for ${label}.`);
      }
      if (kept && bytes <= KEEP_CONTENT_BYTES) kept.push(value);
      else kept = null;
      pending.push(value);
      pendingBytes += value.byteLength;
      onProgress?.(bytes);
      if (pendingBytes >= WRITE_BATCH_BYTES) {
        await flush();
        // Waiting for the disk is not a network stall.
        lastData = performance.now();
      }
    }
    await flush();
    if (inflight) await inflight;
    if (syncing) await syncing;
    if (contentLength != null && bytes !== contentLength) {
      throw new DownloadError('transient', `The transfer of ${label} ended after ${bytes} of ${contentLength} bytes.`);
    }
    return { bytes, sha256: hash ? hash.digest('hex') : null, content: kept ? joined(kept, bytes) : null };
  } catch (e) {
    // The caller closes and deletes the file next; nothing may still be writing to it then.
    if (inflight) await (inflight as Promise<void>).catch(() => undefined);
    if (syncing) await (syncing as Promise<void>).catch(() => undefined);
    reader.cancel().catch(() => undefined);
    if (e instanceof DownloadError || (e as Error).name === 'AbortError') throw e;
    throw ioError('write', label, e);
  } finally {
    clearInterval(watchdog);
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Checks that a finished `.part` is what it claims: the size equals Content-Length when known,
 * geotiff.js parses every image (IFD) with georeferencing on the first, and every strip or tile
 * lies inside the file, which catches a truncated body even without Content-Length.
 */
export async function verifyGeoTiff(file: string, expectedBytes: number | null, signal: AbortSignal, content?: Uint8Array | null): Promise<void> {
  throwIfAborted(signal);
  const size = (await stat(file)).size;
  if (expectedBytes != null && size !== expectedBytes) {
    throw new DownloadError('transient', `${file} has ${size} bytes but the server announced ${expectedBytes}.`);
  }
  let raw: TiffFile | null = null;
  let tiff: Awaited<ReturnType<typeof geoTiffOf>> | null = null;
  try {
    // The bytes the writer kept are the file's when their length is its size; else the file, opened once.
    raw = content && content.length === size ? TiffFile.of(file, content) : await TiffFile.open(file);
    tiff = await geoTiffOf(raw, signal);
    const count = await countImages(tiff);
    if (count < 1) throw new Error('it contains no image');
    for (let i = 0; i < count; i++) {
      throwIfAborted(signal);
      const image = await tiff.getImage(i);
      if (!(image.getWidth() > 0 && image.getHeight() > 0)) throw new Error(`image ${i} has no pixels`);
      if (i === 0 && !image.getGeoKeys()) throw new Error('it has no GeoTIFF georeferencing (GeoKeyDirectory)');
      const dir = image.getFileDirectory();
      const tiled = dir.hasTag('TileOffsets');
      const offsets = (await dir.loadValue(tiled ? 'TileOffsets' : 'StripOffsets')) as ArrayLike<number | bigint> | undefined;
      const counts = (await dir.loadValue(tiled ? 'TileByteCounts' : 'StripByteCounts')) as ArrayLike<number | bigint> | undefined;
      if (!offsets || !counts || offsets.length !== counts.length) throw new Error(`image ${i} has no valid block table`);
      for (let k = 0; k < offsets.length; k++) {
        const end = Number(offsets[k]) + Number(counts[k]);
        if (end > size) throw new Error(`block ${k} of image ${i} ends at byte ${end}, past the end of the file (${size})`);
      }
    }
  } catch (e) {
    if ((e as Error).name === 'AbortError' || signal.aborted) throw abortError(signal);
    throw new DownloadError('transient', `${file} is not a readable GeoTIFF: ${errorMessage(e)}`, { cause: e });
  } finally {
    await tiff?.close();
    await raw?.close();
  }
}

/**
 * Gives a verified `.part` its final name without ever replacing an existing file
 * ({@link publishNumbered}): when the name is taken, " (n)" is tried; the part is gone either way.
 */
export async function publishPartFile(partPath: string, finalPath: string, signal: AbortSignal): Promise<string> {
  try {
    return await publishNumbered(partPath, finalPath, { naming: 'copy', signal });
  } catch (e) {
    if (isAbortError(e)) throw e;
    throw ioError('publish', finalPath, e);
  }
}

/** Removes a file if present; used for `.part` files, so a missing one is not an error. */
export async function removeIfExists(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw ioError('remove', file, e);
  }
}

/** Options of {@link downloadToFile}. */
export interface DownloadToFileOptions {
  body: ReadableStream<Uint8Array>;
  dir: string;
  /** An already sanitised name (see sanitizeFileName). */
  fileName: string;
  contentLength: number | null;
  signal: AbortSignal;
  /** Awaited once the `.part` exists and before any byte is written, so a crash can always find it. */
  onPart?: (partPath: string) => Promise<void> | void;
  onProgress?: (bytes: number) => void;
  /** See {@link DEFAULT_STALL_TIMEOUT_MS}. */
  stallTimeoutMs?: number;
  /** false skips the sha256 (default true): hashing on the read path costs a third of the throughput. */
  hash?: boolean;
}

/** A finished, verified download. */
export interface DownloadedFile {
  path: string;
  bytes: number;
  /** Null when the options asked not to hash. */
  sha256: string | null;
  /** The file's whole content when it is at most {@link KEEP_CONTENT_BYTES} long, else null. */
  content: Uint8Array | null;
}

/**
 * The whole streaming path: reserve `<name>.part`, stream and hash into it, fsync, verify it is a
 * complete GeoTIFF, then publish it under its final name. On any failure or abort the `.part` is
 * removed, so a final name only ever appears for a verified file.
 */
export async function downloadToFile(opts: DownloadToFileOptions): Promise<DownloadedFile> {
  const { body, dir, fileName, contentLength, signal } = opts;
  let reserved: ReservedPart;
  try {
    reserved = await reservePartFile(dir, fileName, signal);
  } catch (e) {
    await body.cancel().catch(() => undefined);
    throw e;
  }
  const { partPath, handle } = reserved;
  let closed = false;
  try {
    await opts.onPart?.(partPath);
    const written = await writeBody(body, handle, { contentLength, signal, label: partPath, onProgress: opts.onProgress, stallTimeoutMs: opts.stallTimeoutMs, hash: opts.hash });
    try {
      await handle.sync();
    } catch (e) {
      throw ioError('flush', partPath, e);
    }
    await handle.close();
    closed = true;
    await verifyGeoTiff(partPath, contentLength, signal, written.content);
    const finalPath = await publishPartFile(partPath, reserved.finalPath, signal);
    return { path: finalPath, bytes: written.bytes, sha256: written.sha256, content: written.content };
  } catch (e) {
    if (!closed) await handle.close().catch(() => undefined);
    await body.cancel().catch(() => undefined);
    await removeIfExists(partPath).catch(() => undefined);
    throw e;
  }
}
