/**
 * Writes a Cloud Optimized GeoTIFF from a pixel source callback, with the same layout as the
 * service (simulator) files: uncompressed, pixel-interleaved, 512 tiles, 2x overviews, GDAL_NODATA
 * and GDAL_METADATA. It reuses the simulator's generic TIFF layout code, which knows nothing of
 * the synthetic landscape.
 *
 * Uncompressed blocks have sizes known in advance, so every block's offset is fixed before any pixel
 * exists: full resolution is written first (tile row by tile row, a bounded chunk at a time), then
 * each overview is computed from the level above by reading that level's tiles back from the file.
 * Memory stays a few chunks whatever the image size.
 */
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { buildTiffLayout, pyramidLevels, type TiffGeoSpec, type TiffLevelLayout } from '../../simulator/raster/tiff-writer.js';
import { abortError, throwIfAborted } from '../../shared/abort.js';
import { syncDirectory } from '../../shared/atomic-file.js';
import { bytesOf, readExactly, writeExactly } from '../../shared/file-io.js';

/** Tile edge of tiled outputs, and the size overviews reduce to. */
export const COG_TILE = 512;

/** Pixel types the service delivers. */
export type CogDataType = 'INT16' | 'UINT8';

/** Interleaved pixels of one of the {@link CogDataType}s. */
export type PixelArray = Int16Array | Uint8Array;

/** A rectangle of pixels of the full-resolution image. */
export interface PixelRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What the header says about the image. */
export interface CogImage {
  width: number;
  height: number;
  bands: number;
  dataType: CogDataType;
  geo: TiffGeoSpec;
  metadataXml: string;
  /** Defaults to the service's nodata for the data type. */
  nodata?: number;
  /** Forces BigTIFF; otherwise chosen only when classic offsets would overflow. */
  bigTiff?: boolean;
}

/** Fills `out` (pre-filled with nodata, rows of rect.width * bands interleaved samples) with the pixels of `rect`, one chunk of a tile row per call. */
export type PixelSource = (rect: PixelRect, out: PixelArray, signal: AbortSignal) => Promise<void>;

/** Options of {@link writeCog}. */
export interface WriteCogOptions {
  signal: AbortSignal;
  /** Fraction of bytes written, 0..1. */
  onProgress?: (fraction: number) => void;
  /** Pixel bytes handled per step; bounds memory. Default 8 MiB (never less than one tile). */
  chunkBytes?: number;
}

/** The nodata value the service uses for a data type. */
export function nodataOf(dataType: CogDataType): number {
  return dataType === 'INT16' ? -32768 : 0;
}

/** Sizes of full resolution and each 2x overview, down to one that fits a tile (the service's level rule). */
export function cogLevels(width: number, height: number): { width: number; height: number }[] {
  return pyramidLevels(width, height, COG_TILE);
}

function newArray(dataType: CogDataType, samples: number): PixelArray {
  return dataType === 'INT16' ? new Int16Array(samples) : new Uint8Array(samples);
}




/** Streams a COG to `<file>.part`, fsyncs and renames it to `file`, removing the `.part` on any failure or abort. */
export async function writeCog(
  file: string,
  image: CogImage,
  source: PixelSource,
  opts: WriteCogOptions,
): Promise<{ path: string; bytes: number; overviews: number }> {
  const { signal } = opts;
  throwIfAborted(signal);
  const { width, height, bands: nb, dataType } = image;
  if (!(width > 0 && height > 0 && nb > 0)) throw new Error(`invalid image size ${width}x${height}x${nb}`);
  const sizes = cogLevels(width, height);
  const tiled = sizes.length > 1 || width > COG_TILE || height > COG_TILE;
  const int16 = dataType === 'INT16';
  const nodata = image.nodata ?? nodataOf(dataType);
  const layout = buildTiffLayout({
    levels: sizes.map((l) => ({ ...l, tiled, tileSize: COG_TILE })),
    samplesPerPixel: nb,
    bitsPerSample: int16 ? 16 : 8,
    signed: int16,
    geo: image.geo,
    nodata: String(nodata),
    metadataXml: image.metadataXml,
    bigTiff: image.bigTiff,
  });
  const asked = opts.chunkBytes;
  const chunkBytes = Math.max(asked !== undefined && asked > 0 && Number.isFinite(asked) ? asked : 8 * 1024 * 1024, layout.levels[0]!.blockBytes);
  const partPath = `${file}.part`;
  const fh = await open(partPath, 'w+', 0o644); // read back too: overviews are built from the written level above
  let ok = false;
  let written = 0;
  const progress = (bytes: number): void => {
    written += bytes;
    opts.onProgress?.(Math.min(1, written / layout.totalBytes));
  };
  try {
    await writeExactly(fh, layout.header, 0);
    progress(layout.header.length);
    await writeFullResolution(fh, layout.levels[0]!, image, source, chunkBytes, signal, progress);
    for (let k = 1; k < layout.levels.length; k++) {
      await writeOverview(fh, layout.levels[k - 1]!, layout.levels[k]!, nb, dataType, nodata, chunkBytes, signal, progress);
    }
    await fh.sync();
    ok = true;
  } finally {
    await fh.close().catch(() => undefined);
    if (!ok) await unlink(partPath).catch(() => undefined);
  }
  try {
    await rename(partPath, file);
  } catch (e) {
    await unlink(partPath).catch(() => undefined);
    throw e;
  }
  await syncDirectory(path.dirname(file));
  return { path: file, bytes: layout.totalBytes, overviews: layout.levels.length - 1 };
}

async function writeFullResolution(
  fh: FileHandle,
  L: TiffLevelLayout,
  image: CogImage,
  source: PixelSource,
  chunkBytes: number,
  signal: AbortSignal,
  progress: (bytes: number) => void,
): Promise<void> {
  const nb = image.bands;
  const nodata = image.nodata ?? nodataOf(image.dataType);
  const bw = L.blockWidth;
  const bh = L.blockHeight;
  const tileSamples = L.blockBytes / (image.dataType === 'INT16' ? 2 : 1);
  const perChunk = Math.max(1, Math.floor(chunkBytes / L.blockBytes));
  const rectBuf = newArray(image.dataType, Math.min(perChunk * bw, L.width) * bh * nb);
  // Two block buffers: one is being written while the next is filled.
  const blockBufs = [newArray(image.dataType, perChunk * tileSamples), newArray(image.dataType, perChunk * tileSamples)];
  let cur = 0;
  let pending: Promise<void> = Promise.resolve();
  try {
    for (let by = 0; by < L.blocksDown; by++) {
      const y0 = by * bh;
      const h = Math.min(bh, L.height - y0);
      for (let bx0 = 0; bx0 < L.blocksAcross; bx0 += perChunk) {
        throwIfAborted(signal);
        const n = Math.min(perChunk, L.blocksAcross - bx0);
        const rect = { x: bx0 * bw, y: y0, width: Math.min(n * bw, L.width - bx0 * bw), height: h };
        const rectSamples = rect.width * rect.height * nb;
        rectBuf.fill(nodata, 0, rectSamples);
        await source(rect, rectBuf.subarray(0, rectSamples), signal);
        throwIfAborted(signal);
        await pending;
        const out = blockBufs[cur]!;
        out.fill(nodata, 0, n * tileSamples);
        for (let t = 0; t < n; t++) {
          const cx = t * bw;
          const w = Math.min(bw, rect.width - cx);
          for (let r = 0; r < h; r++) {
            const src = (r * rect.width + cx) * nb;
            out.set(rectBuf.subarray(src, src + w * nb), t * tileSamples + r * bw * nb);
          }
        }
        const data = bytesOf(out, n * tileSamples);
        pending = writeExactly(fh, data, L.dataOffset + (by * L.blocksAcross + bx0) * L.blockBytes).then(() => progress(data.length));
        // Observed now so a failed write never becomes an unhandled rejection while the next chunk is read.
        pending.catch(() => undefined);
        cur ^= 1;
      }
    }
  } finally {
    await pending.catch(() => undefined);
  }
  await pending;
}

/** Builds one overview level from the level above it: each pixel is the mean of the valid pixels of its 2x2 parent block. */
async function writeOverview(
  fh: FileHandle,
  P: TiffLevelLayout,
  C: TiffLevelLayout,
  nb: number,
  dataType: CogDataType,
  nodata: number,
  chunkBytes: number,
  signal: AbortSignal,
  progress: (bytes: number) => void,
): Promise<void> {
  const t = C.blockWidth; // overviews only exist for tiled images, where every level uses the same square tile
  const shift = Math.log2(t);
  if (!Number.isInteger(shift)) throw new Error(`tile size ${t} is not a power of two`);
  const tileSamples = t * t * nb;
  const perChunk = Math.max(1, Math.floor(chunkBytes / (5 * C.blockBytes)));
  const parents = [newArray(dataType, 2 * perChunk * tileSamples), newArray(dataType, 2 * perChunk * tileSamples)];
  const out = newArray(dataType, perChunk * tileSamples);
  const sums = new Float64Array(nb);
  const counts = new Int32Array(nb);
  for (let cy = 0; cy < C.blocksDown; cy++) {
    for (let cx0 = 0; cx0 < C.blocksAcross; cx0 += perChunk) {
      throwIfAborted(signal);
      const n = Math.min(perChunk, C.blocksAcross - cx0);
      const pc0 = 2 * cx0;
      const pcn = Math.min(P.blocksAcross, 2 * (cx0 + n)) - pc0;
      const rowsPresent: boolean[] = [];
      for (let k = 0; k < 2; k++) {
        const pr = 2 * cy + k;
        rowsPresent.push(pr < P.blocksDown);
        if (pr < P.blocksDown) {
          await readExactly(fh, bytesOf(parents[k]!, pcn * tileSamples), P.dataOffset + (pr * P.blocksAcross + pc0) * P.blockBytes);
        }
      }
      out.fill(nodata, 0, n * tileSamples);
      for (let ti = 0; ti < n; ti++) {
        const cx = cx0 + ti;
        const xEnd = Math.min(t, C.width - cx * t);
        const yEnd = Math.min(t, C.height - cy * t);
        for (let y = 0; y < yEnd; y++) {
          const py = 2 * (cy * t + y);
          for (let x = 0; x < xEnd; x++) {
            const px = 2 * (cx * t + x);
            sums.fill(0);
            counts.fill(0);
            for (let dy = 0; dy < 2; dy++) {
              const Y = py + dy;
              if (Y >= P.height) continue;
              const row = (Y >> shift) - 2 * cy; // 0 or 1: which parent tile row
              if (!rowsPresent[row]) continue;
              const buf = parents[row]!;
              const iy = Y & (t - 1);
              for (let dx = 0; dx < 2; dx++) {
                const X = px + dx;
                if (X >= P.width) continue;
                const tileIdx = (X >> shift) - pc0;
                const at = tileIdx * tileSamples + (iy * t + (X & (t - 1))) * nb;
                for (let b = 0; b < nb; b++) {
                  const v = buf[at + b]!;
                  if (v !== nodata) {
                    sums[b]! += v;
                    counts[b]!++;
                  }
                }
              }
            }
            const o = ti * tileSamples + (y * t + x) * nb;
            for (let b = 0; b < nb; b++) if (counts[b]! > 0) out[o + b] = Math.round(sums[b]! / counts[b]!);
          }
        }
      }
      const data = bytesOf(out, n * tileSamples);
      await writeExactly(fh, data, C.dataOffset + (cy * C.blocksAcross + cx0) * C.blockBytes);
      progress(data.length);
    }
  }
  if (signal.aborted) throw abortError(signal);
}
