import { lstat, open, type FileHandle } from 'node:fs/promises';

/** Typed-array views that pixel code reads and writes. */
export type PixelView = Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | Float32Array | Float64Array;

/** The first `samples` elements of a typed array as bytes, without copying (TIFF is little-endian, like every platform Electron ships for). */
export function bytesOf(a: PixelView, samples: number): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, samples * a.BYTES_PER_ELEMENT);
}

/** Fills `into` from `position`, looping over short reads; a file that ends early is an error. */
export async function readExactly(fh: FileHandle, into: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < into.length) {
    const { bytesRead } = await fh.read(into, done, into.length - done, position + done);
    if (bytesRead === 0) throw new Error(`unexpected end of file at byte ${position + done}`);
    done += bytesRead;
  }
}

/** Writes all of `data` at `position`, looping over short writes. */
export async function writeExactly(fh: FileHandle, data: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < data.length) {
    const { bytesWritten } = await fh.write(data, done, data.length - done, position + done);
    if (bytesWritten === 0) throw new Error('the disk accepted no more bytes');
    done += bytesWritten;
  }
}

/** Positional reads of a file's `bytes`; closed when done (a second close does nothing). */
export interface ByteReader {
  readonly bytes: number;
  /** Fills `into` with the bytes from `position`; a range past `bytes` is an error. */
  read(into: Buffer, position: number): Promise<void>;
  close(): Promise<void>;
}

/** A {@link ByteReader} of the file at `path`, as large as it is when opened. */
export async function openByteReader(path: string): Promise<ByteReader> {
  const fh = await open(path, 'r');
  let bytes: number;
  try {
    bytes = (await fh.stat()).size;
  } catch (e) {
    await fh.close();
    throw e;
  }
  let closed: Promise<void> | null = null;
  return {
    bytes,
    read: (into, position) => {
      if (position < 0 || position + into.length > bytes) return Promise.reject(new RangeError(`bytes ${position}-${position + into.length} are outside the file's ${bytes}`));
      return readExactly(fh, into, position);
    },
    close: () => (closed ??= fh.close()),
  };
}

/** Whether anything (file, folder, link) is at `p`; errors other than "not found" are thrown. */
export async function pathExists(p: string): Promise<boolean> {
  try {
    await lstat(p);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}
