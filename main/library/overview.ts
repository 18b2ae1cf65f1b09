/**
 * Overview copies for GeoTIFFs that are not cloud optimised (striped, or tiled without overviews),
 * so the map can show them at any zoom while reading only a few tiles.
 *
 * The source is read once, a tile row of rows at a time, and handed to the one GeoTIFF writer
 * (main/geotiff), which cuts it into tiles and builds the 2x2-mean overviews from what it wrote.
 * The pass is asynchronous (it awaits every read and write), so the main process keeps answering
 * IPC while a large file is converted. Output: uncompressed, pixel-interleaved, square tiles,
 * overviews, the source's GDAL_METADATA and nodata, written to `.part`, fsynced and renamed.
 */
import { open } from 'node:fs/promises';
import type { GeoTIFFImage } from 'geotiff';
import { abortError, throwIfAborted } from '../../common/abort.js';
import { bytesOf, readExactly } from '../shared/file-io.js';
import {
  gridOf, newSamples, nodataOf, openGeoTiff, readStripTable, writePyramid, type GeoTiffHeader, type PixelArray, type RasterGrid, type SampleType,
} from '../geotiff/index.js';

/** Pixel types the overview copy can carry (8/16-bit integers: what the service and most imagery deliver). */
export type OverviewDataType = SampleType;

type Samples = PixelArray;

/** What the source header says, as far as the copy needs it. */
export interface OverviewSource extends RasterGrid {
  /** Null when the copy cannot carry the sample type (see reason). */
  dataType: OverviewDataType | null;
  tiled: boolean;
  overviews: number;
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

/** The nodata value of the copy: the file's own, else -32768 for INT16 and 0 for the unsigned types. */
export const defaultNodata = nodataOf;

function describe(h: GeoTiffHeader): OverviewSource {
  return {
    ...gridOf(h),
    dataType: h.dataType,
    tiled: h.tiled,
    overviews: h.imageCount - 1,
    squarePixels: h.squarePixels,
    metadataXml: h.metadataXml,
  };
}

/** Decides whether `file` needs an overview copy for a fast preview (reads the header only). */
export async function overviewNeed(file: string, signal: AbortSignal): Promise<OverviewNeed> {
  const tiff = await openGeoTiff(file, signal);
  try {
    const h = tiff.header;
    const source = describe(h);
    const big = Math.max(source.width, source.height);
    let needed = false;
    let reason = 'The file is tiled with overviews (cloud optimised): it is previewed directly.';
    if (!h.littleEndian && !source.tiled) {
      // geotiff.js misreads big-endian strip tables (see readStripTable): the map reads a copy, made from raw strips.
      const raw = h.compression === 1 && (h.planar === 1 || source.bands === 1);
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
    if (!supported && !h.littleEndian && !source.tiled) {
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
 * The fastest way to read rows of this file: straight from disk for uncompressed,
 * pixel-interleaved strips (a GDAL default; big-endian samples are swapped), geotiff.js for
 * anything else (compression, tiles, band-interleaved).
 */
async function rowReader(file: string, image: GeoTIFFImage, h: GeoTiffHeader, src: OverviewSource): Promise<Rows> {
  if (!src.tiled && h.compression === 1 && (h.planar === 1 || src.bands === 1)) {
    const { offsets, counts, littleEndian } = await readStripTable(file);
    const rps = h.blockRows;
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
  return {
    async read(y0, rows, out, signal) {
      const data = (await image.readRasters({ window: [0, y0, src.width, y0 + rows], interleave: true, signal })) as unknown as ArrayLike<number>;
      out.set(data as never);
    },
    chunk: Math.max(1, Math.min(256, h.blockRows)),
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
  const tiff = await openGeoTiff(src, signal);
  let reader: Rows | null = null;
  try {
    const s = describe(tiff.header);
    if (!s.dataType) throw new Error(`${src}: only 8/16-bit integer samples can be copied`);
    if (!s.squarePixels || s.epsg == null) throw new Error(`${src}: needs an EPSG code and square north-up pixels`);
    const dataType = s.dataType;
    const f = Math.max(1, Math.floor(opts.decimate ?? 1));
    const { bands: nb, nodata } = s;
    const W = Math.ceil(s.width / f);
    const H = Math.ceil(s.height / f);
    const tile = overviewTile(W, H);
    reader = await rowReader(src, tiff.image, tiff.header, s);
    if (f > 1) reader = decimatingReader(reader, s, dataType, f);
    const rows = reader;
    // One tile row of the source at a time: the reader reads whole rows best.
    const written = await writePyramid(dest, {
      width: W,
      height: H,
      bands: nb,
      dataType,
      geo: { epsg: s.epsg, geographic: s.geographic, originX: s.originX, originY: s.originY, pixelSize: s.pixelSize * f },
      metadataXml: s.metadataXml,
      nodata,
      tile,
      tiled: true,
      // Uncompressed: the copy is the preview's own cache, never handed to other tools, and the
      // renderer reads a level's raw tiles in one Range request without decoding them.
      compress: false,
    }, (rect, out, sig) => rows.read(rect.y, rect.height, out, sig), {
      signal,
      onProgress: opts.onProgress,
      // Whole tile rows at a time (the reader reads whole rows best), every pixel of them read from the file.
      chunkBytes: Math.ceil(W / tile) * tile * tile * nb * (dataType === 'UINT8' ? 1 : 2),
      fullSources: true,
      durable: opts.durable ?? true,
    });
    return { path: written.path, bytes: written.bytes, levels: written.levels, tile };
  } catch (e) {
    if (signal.aborted) throw abortError(signal);
    throw e;
  } finally {
    await reader?.close().catch(() => undefined);
    await tiff.close();
  }
}
