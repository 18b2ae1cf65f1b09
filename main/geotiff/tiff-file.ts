/** A TIFF opened once for its header reads: its size, its first bytes, and checked reads of the rest. */
import { open, type FileHandle } from 'node:fs/promises';
import { fromArrayBuffer, GeoTIFF } from 'geotiff';
import { readExactly } from '../shared/file-io.js';

/**
 * Files up to this size are read whole, in one read, and parsed from memory: a header read from the
 * file is a trip through the thread pool for each part (the IFDs, their tag tables, the block
 * tables), and a download recorded in the library waited on a dozen of them.
 */
export const READ_WHOLE_BYTES = 256 * 1024;

/** Of a larger file, this much of its start is read at once: its header, tag tables and block tables usually lie there. */
export const HEAD_BYTES = 64 * 1024;

/** A file's size and checked reads of its bytes (what the IFD checks read). */
export interface TiffBytes {
  size: number;
  read(position: number, length: number): Promise<DataView>;
}

/** The source geotiff.js reads from (its `BaseSource`, which the package does not export by name). */
type GeoTiffSource = Parameters<typeof GeoTIFF.fromSource>[0];

/**
 * A TIFF file opened once (one open, one stat, one read) for everything its header checks read:
 * geotiff.js, the block table check and the COG layout check. A file of at most
 * {@link READ_WHOLE_BYTES} is then entirely in memory and closed at once; of a larger one the first
 * {@link HEAD_BYTES} are, and it stays open for the reads past them until {@link close}.
 */
export class TiffFile implements TiffBytes {
  private constructor(
    readonly path: string,
    readonly size: number,
    /** The first bytes, in an ArrayBuffer of their own (all of the file when it is small). */
    readonly head: Uint8Array,
    private fh: FileHandle | null,
  ) {}

  /** Opens `file` and reads its head; the caller closes it. */
  static async open(file: string): Promise<TiffFile> {
    const fh = await open(file, 'r');
    let opened: TiffFile;
    try {
      const size = (await fh.stat()).size;
      const head = new Uint8Array(size <= READ_WHOLE_BYTES ? size : HEAD_BYTES);
      await readExactly(fh, Buffer.from(head.buffer), 0);
      opened = new TiffFile(file, size, head, head.length < size ? fh : null);
    } catch (e) {
      await fh.close();
      throw e;
    }
    // All of it is in memory: nothing more is read, and the answer does not wait for the close.
    if (!opened.fh) void fh.close().catch(() => undefined);
    return opened;
  }

  /** A file whose whole content the caller holds already (a download's writer kept its bytes): nothing is read. */
  static of(file: string, content: Uint8Array): TiffFile {
    return new TiffFile(file, content.length, content, null);
  }

  /** The whole file, when it is in memory; else null. */
  get whole(): Uint8Array | null {
    return this.head.length === this.size ? this.head : null;
  }

  /** `length` bytes at `position`, refused when they are not all inside the file. */
  async read(position: number, length: number): Promise<DataView> {
    if (!(position >= 0 && length >= 0 && position + length <= this.size)) {
      throw new Error(`${this.path}: its strip or tile table points beyond the end of the file`);
    }
    if (position + length <= this.head.length) return new DataView(this.head.buffer, this.head.byteOffset + position, length);
    const bytes = await this.readFromFile(position, length);
    return new DataView(bytes.buffer, 0, length);
  }

  /**
   * geotiff.js's source: from the head when a slice lies in it, else from the file. Each slice is a
   * copy in an ArrayBuffer of its own (geotiff.js may hand it to a decoder that detaches it); past
   * the end of the file a slice reads zeros, as geotiff.js's own file source does.
   */
  source(): GeoTiffSource {
    return {
      fileSize: this.size,
      fetch: (slices: { offset: number; length: number }[]) => Promise.all(slices.map(async ({ offset, length }) => {
        if (offset + length <= this.head.length) return this.head.slice(offset, offset + length).buffer;
        return (await this.readFromFile(offset, length, true)).buffer;
      })),
      close: () => this.close(),
    } as unknown as GeoTiffSource;
  }

  /** Releases the file (reads from memory still work). */
  async close(): Promise<void> {
    const fh = this.fh;
    this.fh = null;
    await fh?.close();
  }

  private async readFromFile(position: number, length: number, zerosPastEnd = false): Promise<Uint8Array> {
    if (!this.fh) throw new Error(`${this.path}: the file is closed`);
    const into = new Uint8Array(length);
    if (zerosPastEnd) {
      let done = 0;
      while (done < length) {
        const { bytesRead } = await this.fh.read(into, done, length - done, position + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
    } else {
      await readExactly(this.fh, Buffer.from(into.buffer), position);
    }
    return into;
  }
}

/** geotiff.js's GeoTIFF on `tiff`: parsed from memory when the file is whole there, else read through {@link TiffFile.source}. */
export function geoTiffOf(tiff: TiffFile, signal?: AbortSignal): Promise<GeoTIFF> {
  const whole = tiff.whole;
  return whole ? fromArrayBuffer(ownBuffer(whole), signal) : GeoTIFF.fromSource(tiff.source(), undefined, signal);
}

/** An ArrayBuffer holding exactly `bytes` (theirs when they fill it, else a copy). */
export function ownBuffer(bytes: Uint8Array): ArrayBuffer {
  const b = bytes.buffer;
  return b instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === b.byteLength ? b : new Uint8Array(bytes).buffer;
}
