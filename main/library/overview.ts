/**
 * Overview copies for GeoTIFFs that are not cloud optimised (striped, or tiled without overviews),
 * so the map can show them at any zoom while reading only a few tiles.
 *
 * The copy is built in one sequential pass over the source: each band of rows is cut into tiles
 * and averaged 2x2 into the next level's row buffer, which cascades down the pyramid, so the
 * source is read once and memory stays one tile row per level whatever the file size. The pass is
 * asynchronous (it awaits every read and write), so the main process keeps answering IPC while a
 * large file is converted. Output: uncompressed, pixel-interleaved, square tiles, overviews,
 * the source's GDAL_METADATA and nodata, written to `.part`, fsynced and renamed.
 */
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { fromFile, type GeoTIFFImage } from 'geotiff';
import { buildTiffLayout, pyramidLevels, type TiffLevelLayout } from '../simulator/raster/tiff-writer.js';
import { abortError, throwIfAborted } from '../shared/abort.js';
import { syncDirectory } from '../shared/atomic-file.js';
import { epsgOfGeoKeys, isGeographic } from '../shared/geokeys.js';
import { bytesOf, readExactly, writeExactly } from '../shared/file-io.js';

/** Pixel types the overview copy can carry (8/16-bit integers: what the service and most imagery deliver). */
export type OverviewDataType = 'UINT8' | 'INT16' | 'UINT16';

type Samples = Uint8Array | Int16Array | Uint16Array;

/** What the source header says, as far as the copy needs it. */
export interface OverviewSource {
  width: number;
  height: number;
  bands: number;
  /** Null when the copy cannot carry the sample type (see reason). */
  dataType: OverviewDataType | null;
  tiled: boolean;
  overviews: number;
  nodata: number;
  epsg: number | null;
  geographic: boolean;
  originX: number;
  originY: number;
  pixelSize: number;
  squarePixels: boolean;
  metadataXml: string;
}

/** Whether a file needs an overview copy, and whether one can be built. */
export interface OverviewNeed {
  needed: boolean;
  /** False when a copy would help but cannot be built (reason says why); the original is previewed as is. */
  supported: boolean;
  reason: string;
  source: OverviewSource;
}

/** Striped files larger than this (on either side) get a copy: their strips make the map read whole rows. */
export const STRIPED_LIMIT = 256;
/** Tiled files without overviews larger than this get a copy: their full extent would need every tile. */
export const TILED_LIMIT = 1024;

function dataTypeOf(image: GeoTIFFImage): OverviewDataType | null {
  const bits = image.getBitsPerSample();
  const format = image.getSampleFormat() ?? 1;
  for (let i = 1; i < image.getSamplesPerPixel(); i++) {
    if (image.getBitsPerSample(i) !== bits || (image.getSampleFormat(i) ?? 1) !== format) return null;
  }
  if (bits === 8 && format === 1) return 'UINT8';
  if (bits === 16 && format === 2) return 'INT16';
  if (bits === 16 && format === 1) return 'UINT16';
  return null;
}

/** The nodata value of the copy: the file's own, else -32768 for INT16 and 0 for the unsigned types. */
export function defaultNodata(dataType: OverviewDataType | null): number {
  return dataType === 'INT16' ? -32768 : 0;
}

async function describe(image: GeoTIFFImage, imageCount: number): Promise<OverviewSource> {
  const dataType = dataTypeOf(image);
  const dir = image.getFileDirectory();
  const keys = image.getGeoKeys() as Record<string, unknown> | null;
  const geographic = isGeographic(keys);
  let originX = 0, originY = 0, sx = 0, sy = 0;
  try {
    [originX, originY] = image.getOrigin() as [number, number];
    [sx, sy] = image.getResolution() as [number, number];
  } catch {
    // Ungeoreferenced: squarePixels stays false and the copy is refused.
  }
  const xml = dir.hasTag('GDAL_METADATA') ? String((await dir.loadValue('GDAL_METADATA')) ?? '').replace(/\0+$/, '') : '';
  const nodata = image.getGDALNoData();
  return {
    width: image.getWidth(),
    height: image.getHeight(),
    bands: image.getSamplesPerPixel(),
    dataType,
    tiled: image.isTiled,
    overviews: imageCount - 1,
    nodata: nodata ?? defaultNodata(dataType),
    epsg: epsgOfGeoKeys(keys),
    geographic,
    originX,
    originY,
    pixelSize: sx,
    squarePixels: sx > 0 && sy < 0 && Math.abs(Math.abs(sy) - sx) <= sx * 1e-9,
    metadataXml: xml,
  };
}

/** Decides whether `file` needs an overview copy for a fast preview (reads the header only). */
export async function overviewNeed(file: string, signal: AbortSignal): Promise<OverviewNeed> {
  throwIfAborted(signal);
  const tiff = await fromFile(file, signal);
  try {
    const count = await tiff.getImageCount();
    const image = await tiff.getImage(0);
    const source = await describe(image, count);
    const big = Math.max(source.width, source.height);
    let needed = false;
    let reason = 'The file is tiled with overviews (cloud optimised): it is previewed directly.';
    if (!tiff.littleEndian && !source.tiled) {
      // geotiff.js misreads big-endian strip tables (see readStripTable): the map reads a copy, made from raw strips.
      const dir = image.getFileDirectory();
      const raw = Number(dir.getValue('Compression') ?? 1) === 1 && (Number(dir.getValue('PlanarConfiguration') ?? 1) === 1 || source.bands === 1);
      if (!raw) throw new Error('it is a big-endian striped GeoTIFF with compressed or band-interleaved strips, which Swath cannot read; convert it with gdal_translate -co ENDIANNESS=LITTLE (or -of COG) and import the result');
      needed = true;
      reason = `The file is big-endian and striped (${source.width} x ${source.height} px), so a tiled copy with overviews is built once.`;
    } else if (!source.tiled && big > STRIPED_LIMIT) {
      needed = true;
      reason = `The file is striped (${source.width} x ${source.height} px, not tiled), so a tiled copy with overviews is built once.`;
    } else if (source.overviews === 0 && big > TILED_LIMIT) {
      needed = true;
      reason = `The file has no overviews (${source.width} x ${source.height} px), so a copy with overviews is built once.`;
    } else if (source.overviews === 0) {
      reason = 'The file is small enough to preview directly.';
    }
    let supported = true;
    if (needed) {
      if (!source.dataType) {
        supported = false;
        reason = `${reason.split(',')[0]}, but its sample type is not 8/16-bit integer, so it is previewed directly (slower).`;
      } else if (!source.squarePixels || source.epsg == null) {
        supported = false;
        reason = 'The file needs overviews, but it has no EPSG code or non-square/rotated pixels, so it is previewed directly (slower).';
      }
    }
    // geotiff.js cannot read big-endian strips either: without a copy there is no preview at all.
    if (!supported && !tiff.littleEndian && !source.tiled) {
      throw new Error('it is a big-endian striped GeoTIFF that Swath can neither read nor copy (samples other than 8/16-bit integers, or no EPSG code or square north-up pixels); convert it with gdal_translate -co ENDIANNESS=LITTLE (or -of COG) and import the result');
    }
    return { needed, supported, reason, source };
  } finally {
    await tiff.close();
  }
}

/** Tile edge of the copy: 256 px for small images (finer requests), 512 px above 2048 px. */
export function overviewTile(width: number, height: number): number {
  return Math.max(width, height) <= 2048 ? 256 : 512;
}

function newSamples(dataType: OverviewDataType, n: number): Samples {
  if (dataType === 'UINT8') return new Uint8Array(n);
  if (dataType === 'INT16') return new Int16Array(n);
  return new Uint16Array(n);
}

/** Reads whole rows of the source, pixel-interleaved, into a buffer. */
type RowReader = (y0: number, rows: number, out: Samples, signal: AbortSignal) => Promise<void>;

/** A row reader, and the number of rows it reads best at once (a strip or a tile row; 1 when rows are read straight from disk). */
interface Rows {
  read: RowReader;
  /** Rows per read that decode every block once. */
  chunk: number;
  close(): Promise<void>;
}

/**
 * StripOffsets and StripByteCounts of the first image, read from the file's own bytes in its own
 * byte order (classic TIFF and BigTIFF). geotiff.js 3 reads these tables of big-endian files with
 * the wrong byte order (geotiffjs/geotiff.js#535), which would make the copy silently all zeros.
 */
export async function readStripTable(file: string): Promise<{ littleEndian: boolean; offsets: number[]; counts: number[] }> {
  const fh = await open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    const read = async (position: number, length: number): Promise<DataView> => {
      if (position < 0 || position + length > size) throw new Error(`${file}: its strip table points beyond the end of the file`);
      const buf = Buffer.alloc(length);
      await readExactly(fh, buf, position);
      return new DataView(buf.buffer, buf.byteOffset, length);
    };
    const head = await read(0, 16);
    const le = head.getUint16(0) === 0x4949;
    const big = head.getUint16(2, le) === 43;
    const ifd = big ? Number(head.getBigUint64(8, le)) : head.getUint32(4, le);
    const entries = big ? Number((await read(ifd, 8)).getBigUint64(0, le)) : (await read(ifd, 2)).getUint16(0, le);
    const entrySize = big ? 20 : 12;
    const table = await read(ifd + (big ? 8 : 2), entries * entrySize);
    const values = async (tag: number): Promise<number[]> => {
      for (let i = 0; i < entries; i++) {
        const at = i * entrySize;
        if (table.getUint16(at, le) !== tag) continue;
        const type = table.getUint16(at + 2, le);
        const count = big ? Number(table.getBigUint64(at + 4, le)) : table.getUint32(at + 4, le);
        const width = type === 3 ? 2 : type === 4 ? 4 : type === 16 ? 8 : 0;
        if (!width) throw new Error(`${file}: unexpected type ${type} of TIFF tag ${tag}`);
        const inline = count * width <= (big ? 8 : 4);
        const data = inline ? new DataView(table.buffer, table.byteOffset + at + (big ? 12 : 8), count * width)
          : await read(big ? Number(table.getBigUint64(at + 12, le)) : table.getUint32(at + 8, le), count * width);
        return Array.from({ length: count }, (_, k) => (width === 2 ? data.getUint16(k * 2, le) : width === 4 ? data.getUint32(k * 4, le) : Number(data.getBigUint64(k * 8, le))));
      }
      throw new Error(`${file}: TIFF tag ${tag} is missing`);
    };
    return { littleEndian: le, offsets: await values(273), counts: await values(279) };
  } finally {
    await fh.close();
  }
}

/**
 * The fastest way to read rows of this file: straight from disk for uncompressed,
 * pixel-interleaved strips (a GDAL default; big-endian samples are swapped), geotiff.js for
 * anything else (compression, tiles, band-interleaved).
 */
async function rowReader(file: string, image: GeoTIFFImage, src: OverviewSource): Promise<Rows> {
  const dir = image.getFileDirectory();
  const compression = Number(dir.getValue('Compression') ?? 1);
  const planar = Number(dir.getValue('PlanarConfiguration') ?? 1);
  if (!src.tiled && compression === 1 && (planar === 1 || src.bands === 1)) {
    const { offsets, counts, littleEndian } = await readStripTable(file);
    const rps = Math.min(Number(dir.getValue('RowsPerStrip') ?? src.height), src.height);
    const bytesPerSample = src.dataType === 'UINT8' ? 1 : 2;
    const rowBytes = src.width * src.bands * bytesPerSample;
    const fh = await open(file, 'r');
    return {
      async read(y0, rows, out, signal) {
        throwIfAborted(signal);
        const buf = bytesOf(out, rows * src.width * src.bands);
        let y = y0;
        let at = 0;
        while (y < y0 + rows) {
          const s = Math.floor(y / rps);
          const inStrip = y - s * rps;
          // Consecutive strips stored back to back are read in one call.
          let last = s;
          while (last + 1 < offsets.length && (last + 1) * rps < y0 + rows && offsets[last + 1] === offsets[last]! + counts[last]!) last++;
          const endRow = Math.min(y0 + rows, (last + 1) * rps, src.height);
          const len = (endRow - y) * rowBytes;
          await readExactly(fh, buf.subarray(at, at + len), offsets[s]! + inStrip * rowBytes);
          at += len;
          y = endRow;
        }
        if (!littleEndian && bytesPerSample === 2) buf.swap16();
      },
      chunk: 1,
      close: () => fh.close(),
    };
  }
  const blockRows = image.isTiled ? image.getTileHeight() : Number(dir.getValue('RowsPerStrip') ?? src.height);
  return {
    async read(y0, rows, out, signal) {
      const data = (await image.readRasters({ window: [0, y0, src.width, y0 + rows], interleave: true, signal })) as unknown as ArrayLike<number>;
      out.set(data as never);
    },
    chunk: Math.max(1, Math.min(256, blockRows, src.height)),
    close: async () => undefined,
  };
}

/**
 * Rows of the source decimated by `f` (nearest: output pixel (x, y) is source pixel
 * (floor((x + 0.5) f), floor((y + 0.5) f)), clamped to the image, as `gdal_translate -outsize`
 * samples). Only the rows it needs are read, in the reader's best chunks.
 */
function decimatingReader(base: Rows, src: OverviewSource, dataType: OverviewDataType, f: number): Rows {
  const { width: W, height: H, bands: nb } = src;
  const outW = Math.ceil(W / f);
  const chunk = base.chunk;
  const rowLen = W * nb;
  let buf = newSamples(dataType, chunk * rowLen);
  let at = -1;
  const cols = Int32Array.from({ length: outW }, (_, x) => Math.min(W - 1, Math.floor((x + 0.5) * f)) * nb);
  const pick = (from: Samples, row: number, out: Samples, r: number): void => {
    const o = r * outW * nb;
    for (let x = 0; x < outW; x++) {
      const si = row + cols[x]!;
      for (let b = 0; b < nb; b++) out[o + x * nb + b] = from[si + b]!;
    }
  };
  return {
    async read(y0, rows, out, signal) {
      const source = Array.from({ length: rows }, (_, r) => Math.min(H - 1, Math.floor((y0 + r + 0.5) * f)));
      if (chunk === 1) {
        // Rows straight from disk: every needed row at once (the reads overlap in the thread pool).
        if (buf.length < rows * rowLen) buf = newSamples(dataType, rows * rowLen);
        await Promise.all(source.map((sy, r) => base.read(sy, 1, buf.subarray(r * rowLen, (r + 1) * rowLen), signal)));
        for (let r = 0; r < rows; r++) pick(buf, r * rowLen, out, r);
        return;
      }
      for (let r = 0; r < rows; r++) {
        const sy = source[r]!;
        const c0 = Math.floor(sy / chunk) * chunk;
        if (c0 !== at) {
          await base.read(c0, Math.min(chunk, H - c0), buf, signal);
          at = c0;
        }
        pick(buf, (sy - c0) * rowLen, out, r);
      }
    },
    chunk: 1,
    close: () => base.close(),
  };
}

/** Averages valid (non-nodata) pixels of each 2x2 block of `rows` rows into ceil(rows/2) rows of half width. */
export function downsample2x(
  src: Samples, width: number, rows: number, bands: number, nodata: number,
  out: Samples, outWidth: number,
): number {
  const outRows = Math.ceil(rows / 2);
  const stride = width * bands;
  for (let y2 = 0; y2 < outRows; y2++) {
    const r0 = 2 * y2 * stride;
    const r1 = 2 * y2 + 1 < rows ? r0 + stride : -1;
    const o0 = y2 * outWidth * bands;
    for (let x2 = 0; x2 < outWidth; x2++) {
      const c0 = 2 * x2 * bands;
      const c1 = 2 * x2 + 1 < width ? c0 + bands : -1;
      for (let b = 0; b < bands; b++) {
        let sum = 0;
        let n = 0;
        let v = src[r0 + c0 + b]!;
        if (v !== nodata) { sum += v; n++; }
        if (c1 >= 0) {
          v = src[r0 + c1 + b]!;
          if (v !== nodata) { sum += v; n++; }
        }
        if (r1 >= 0) {
          v = src[r1 + c0 + b]!;
          if (v !== nodata) { sum += v; n++; }
          if (c1 >= 0) {
            v = src[r1 + c1 + b]!;
            if (v !== nodata) { sum += v; n++; }
          }
        }
        out[o0 + x2 * bands + b] = n === 0 ? nodata : n === 4 ? Math.round(sum / 4) : Math.round(sum / n);
      }
    }
  }
  return outRows;
}

/** Options of {@link buildOverviewCopy}. */
export interface BuildOverviewOptions {
  signal: AbortSignal;
  /** Fraction of the source rows processed, 0..1. */
  onProgress?: (fraction: number) => void;
  /**
   * Keep every `decimate`-th pixel (nearest) instead of all of them: a quick look of the file,
   * `decimate` times coarser, with the same georeferencing. Default 1 (the full copy).
   */
  decimate?: number;
  /** Fsync the copy before publishing it (default true); a quick look that lives for one session skips it. */
  durable?: boolean;
}

/** What {@link buildOverviewCopy} wrote. */
export interface OverviewCopy {
  path: string;
  bytes: number;
  levels: { width: number; height: number }[];
  tile: number;
}

/**
 * Builds a tiled copy of `src` with 2x average overviews at `dest` (via `dest.part`, fsync, rename).
 * Throws a plain Error when the source cannot be copied (see {@link overviewNeed}'s `supported`).
 */
export async function buildOverviewCopy(src: string, dest: string, opts: BuildOverviewOptions): Promise<OverviewCopy> {
  const { signal } = opts;
  throwIfAborted(signal);
  const tiff = await fromFile(src, signal);
  let reader: Rows | null = null;
  let fh: FileHandle | null = null;
  const part = `${dest}.part`;
  let ok = false;
  try {
    const image = await tiff.getImage(0);
    const s = await describe(image, await tiff.getImageCount());
    if (!s.dataType) throw new Error(`${src}: only 8/16-bit integer samples can be copied`);
    if (!s.squarePixels || s.epsg == null) throw new Error(`${src}: needs an EPSG code and square north-up pixels`);
    const dataType = s.dataType;
    const f = Math.max(1, Math.floor(opts.decimate ?? 1));
    const { bands: nb, nodata } = s;
    const W = Math.ceil(s.width / f);
    const H = Math.ceil(s.height / f);
    const tile = overviewTile(W, H);
    const sizes = pyramidLevels(W, H, tile);
    const layout = buildTiffLayout({
      levels: sizes.map((l) => ({ ...l, tiled: true, tileSize: tile })),
      samplesPerPixel: nb,
      bitsPerSample: dataType === 'UINT8' ? 8 : 16,
      signed: dataType === 'INT16',
      geo: { epsg: s.epsg, geographic: s.geographic, originX: s.originX, originY: s.originY, pixelSize: s.pixelSize * f },
      nodata: String(nodata),
      metadataXml: s.metadataXml,
    });
    reader = await rowReader(src, image, s);
    if (f > 1) reader = decimatingReader(reader, s, dataType, f);
    fh = await open(part, 'w', 0o644);
    await writeExactly(fh, layout.header, 0);

    // One tile row of pixels per level, plus one tile row of tiles to write.
    const rowBufs = layout.levels.map((L) => newSamples(dataType, L.width * tile * nb));
    const fill = layout.levels.map(() => 0);
    const tileRow = layout.levels.map(() => 0);
    const tileSamples = tile * tile * nb;
    const out = newSamples(dataType, layout.levels[0]!.blocksAcross * tileSamples);
    const file = fh;

    const writeTileRow = async (k: number, L: TiffLevelLayout, rows: number): Promise<void> => {
      const buf = rowBufs[k]!;
      const n = L.blocksAcross * tileSamples;
      out.fill(nodata, 0, n);
      for (let bx = 0; bx < L.blocksAcross; bx++) {
        const x0 = bx * tile;
        const w = Math.min(tile, L.width - x0);
        for (let r = 0; r < rows; r++) {
          const from = (r * L.width + x0) * nb;
          out.set(buf.subarray(from, from + w * nb), bx * tileSamples + r * tile * nb);
        }
      }
      await writeExactly(file, bytesOf(out, n), L.dataOffset + tileRow[k]! * L.blocksAcross * L.blockBytes);
      tileRow[k]!++;
    };

    // A full (or final) tile row of level k is written, then averaged into level k+1's buffer.
    const flush = async (k: number): Promise<void> => {
      const L = layout.levels[k]!;
      const rows = fill[k]!;
      await writeTileRow(k, L, rows);
      fill[k] = 0;
      if (k + 1 >= layout.levels.length) return;
      const C = layout.levels[k + 1]!;
      const at = fill[k + 1]! * C.width * nb;
      const made = downsample2x(rowBufs[k]!, L.width, rows, nb, nodata, rowBufs[k + 1]!.subarray(at), C.width);
      fill[k + 1]! += made;
      const lastRowOfChild = tileRow[k + 1]! * tile + fill[k + 1]! >= C.height;
      if (fill[k + 1] === tile || lastRowOfChild) await flush(k + 1);
    };

    for (let y = 0; y < H; y += tile) {
      throwIfAborted(signal);
      const rows = Math.min(tile, H - y);
      await reader.read(y, rows, rowBufs[0]!, signal);
      fill[0] = rows;
      await flush(0);
      opts.onProgress?.(Math.min(1, (y + rows) / H));
    }
    const durable = opts.durable ?? true;
    if (durable) await fh.sync();
    await fh.close();
    fh = null;
    // Cancelled while the last rows were written: the copy is not published.
    throwIfAborted(signal);
    await rename(part, dest);
    if (durable) await syncDirectory(path.dirname(dest));
    ok = true;
    return { path: dest, bytes: layout.totalBytes, levels: sizes, tile };
  } catch (e) {
    if (signal.aborted) throw abortError(signal);
    throw e;
  } finally {
    await reader?.close().catch(() => undefined);
    await fh?.close().catch(() => undefined);
    if (!ok) await unlink(part).catch(() => undefined);
    await tiff.close();
  }
}
