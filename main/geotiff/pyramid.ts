/**
 * The one GeoTIFF writer of main: DEFLATE-compressed (predictor 2 for integers, 3 for FLOAT32;
 * uncompressed on request), pixel-interleaved, square tiles and 2x overviews (the service's COG
 * layout), GDAL_NODATA and GDAL_METADATA. The overview copies (uncompressed), the batch mosaics,
 * the change layers and the simulator's rasters all supply pixels to it.
 *
 * Uncompressed blocks have sizes known in advance, so every block's offset is fixed before any pixel
 * exists: full resolution is written first (tile row by tile row, a bounded chunk at a time), and
 * each overview is the nodata-aware 2x2 mean of the level above: computed in memory as the rows above are written when one tile row of every overview fits
 * {@link CASCADE_BYTES}, read back from the file otherwise. Memory stays bounded whatever the image size. The file is
 * written to `<file>.part`, fsynced and renamed, and the `.part` is removed on any failure or abort.
 * Compressed, each block is DEFLATEd as it is produced and the header is written last with the
 * blocks' offsets and byte counts (see {@link stagePyramid}).
 */
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { throwIfAborted } from '../../common/abort.js';
import { bytesOf, readExactly, writeExactly } from '../shared/file-io.js';
import { BlockDeflater, type BlockTable } from './deflate-blocks.js';
import { buildTiffLayout, pyramidLevels, type TiffGeoSpec, type TiffLayout, type TiffLevelLayout, type TiffSpec } from './layout.js';
import { copyRuns, StagedFile, type CopyRun, type FilePiece } from './staged.js';
import { bytesPerSample, nodataOf, samplesOf, WriteScratch, type PixelArray, type SampleType } from './samples.js';

/** Tile edge of the service's files and the batch mosaics, and the size their overviews reduce to. */
export const COG_TILE = 512;

/** A rectangle of pixels of one level. */
export interface PixelRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What the header says about the image. */
export interface PyramidImage {
  width: number;
  height: number;
  bands: number;
  dataType: SampleType;
  geo: TiffGeoSpec;
  metadataXml: string;
  /** Defaults to {@link nodataOf} the data type. */
  nodata?: number;
  /** Tile edge, a power of two (default {@link COG_TILE}); overviews are added until one level fits a tile. */
  tile?: number;
  /** Default: tiled only when the image is larger than a tile (otherwise one strip, like the service). */
  tiled?: boolean;
  /** Forces BigTIFF; otherwise chosen only when classic offsets would overflow. */
  bigTiff?: boolean;
  /**
   * DEFLATE with the predictor for the data type (default true): horizontal differencing
   * (Predictor 2) for integers, the floating-point predictor (3) for FLOAT32. False writes
   * uncompressed blocks.
   */
  compress?: boolean;
}

/**
 * Fills `out` (pre-filled with nodata unless {@link WritePyramidOptions.fullSources}) with the pixels of `rect`, bands interleaved, rows `rowStride`
 * (rect.width * bands) samples apart; one chunk of a tile row per call.
 */
export type PixelSource = (rect: PixelRect, out: PixelArray, signal: AbortSignal, rowStride: number) => Promise<void>;

/** Options of {@link writePyramid}. */
export interface WritePyramidOptions {
  signal: AbortSignal;
  /** Fraction of bytes written, 0..1. */
  onProgress?: (fraction: number) => void;
  /** Pixel bytes handled per step; bounds memory. Default 8 MiB (never less than one tile). */
  chunkBytes?: number;
  /** Fsync the file and its folder when publishing it (default true). */
  durable?: boolean;
  /** The sources write every pixel of each rectangle asked for, so `out` is not pre-filled with nodata first. */
  fullSources?: boolean;
  /** Memory the mean overviews may take to be built in memory (default {@link CASCADE_BYTES}); beyond it they are read back from the file. */
  overviewMemoryBytes?: number;
  /** zlib level of compressed files (default `DEFAULT_DEFLATE_LEVEL` of deflate-blocks.ts, GDAL's; the sizes and speeds of the levels are given there). */
  deflateLevel?: number;
}

/** Sizes of full resolution and each 2x overview, down to one that fits a tile (the service's level rule). */
export function cogLevels(width: number, height: number, tile = COG_TILE): { width: number; height: number }[] {
  return pyramidLevels(width, height, tile);
}

/** The TIFF Predictor {@link writePyramid} uses with DEFLATE: floating point (3) for FLOAT32, horizontal differencing (2) for integers. */
export function predictorOf(dataType: SampleType): 2 | 3 {
  return dataType === 'FLOAT32' ? 3 : 2;
}

/** Pixel bytes handled per step: `asked` (default 8 MiB), never less than the largest block. */
function chunkBytesOf(layout: TiffLayout, asked: number | undefined): number {
  const maxBlock = Math.max(...layout.levels.map((l) => l.blockBytes));
  return Math.max(asked !== undefined && asked > 0 && Number.isFinite(asked) ? asked : 8 * 1024 * 1024, maxBlock);
}

/** One step of a level written from a pixel source: `n` blocks from block column `bx0` of block row `by`, and their pixels. */
interface SourceChunk {
  by: number;
  bx0: number;
  n: number;
  rect: PixelRect;
}

/** The steps of level L, in the order they are written: block rows top down, each a chunk of blocks at a time, left to right. */
function* sourceChunks(L: TiffLevelLayout, chunkBytes: number): Generator<SourceChunk> {
  const bw = L.blockWidth;
  const bh = L.blockHeight;
  const perChunk = Math.max(1, Math.floor(chunkBytes / L.blockBytes));
  for (let by = 0; by < L.blocksDown; by++) {
    const y = by * bh;
    const height = Math.min(bh, L.height - y);
    for (let bx0 = 0; bx0 < L.blocksAcross; bx0 += perChunk) {
      const n = Math.min(perChunk, L.blocksAcross - bx0);
      yield { by, bx0, n, rect: { x: bx0 * bw, y, width: Math.min(n * bw, L.width - bx0 * bw), height } };
    }
  }
}

/**
 * The rectangles {@link writePyramid} asks its source for, in the order it asks (with the same
 * `chunkBytes`), so a source may produce the next ones while the writer handles the current one.
 */
export function sourceRects(image: PyramidImage, chunkBytes?: number): PixelRect[] {
  const layout = pyramidLayout(image);
  return [...sourceChunks(layout.levels[0]!, chunkBytesOf(layout, chunkBytes))].map((c) => c.rect);
}

/**
 * The uncompressed file layout of `image` (its size is known before any pixel): what
 * {@link writePyramid} writes, or, compressed, writes first and then compresses.
 */
export function pyramidLayout(image: PyramidImage, deflate?: TiffSpec['deflate']): TiffLayout {
  const { width, height, bands } = image;
  const tile = image.tile ?? COG_TILE;
  const sizes = cogLevels(width, height, tile);
  const tiled = image.tiled ?? (width > tile || height > tile);
  const bits = bytesPerSample(image.dataType) * 8;
  return buildTiffLayout({
    levels: sizes.map((l) => ({ ...l, tiled, tileSize: tile })),
    samplesPerPixel: bands,
    bitsPerSample: bits as 8 | 16 | 32,
    signed: image.dataType === 'INT16',
    float: image.dataType === 'FLOAT32',
    geo: image.geo,
    nodata: String(image.nodata ?? nodataOf(image.dataType)),
    metadataXml: image.metadataXml,
    bigTiff: image.bigTiff,
    deflate,
  });
}

/**
 * Writes `image` to `file` (via `<file>.part`, fsync, rename) from `source`'s full-resolution
 * pixels: {@link stagePyramid}, then its commit. `bytes` is the size of the file written.
 */
export async function writePyramid(
  file: string,
  image: PyramidImage,
  source: PixelSource,
  opts: WritePyramidOptions,
): Promise<{ path: string; bytes: number; levels: { width: number; height: number }[]; tile: number }> {
  const staged = await stagePyramid(file, image, source, opts);
  await staged.commit({ durable: opts.durable ?? true, signal: opts.signal });
  return { path: file, bytes: staged.bytes, levels: staged.levels, tile: staged.tile };
}

/** A pyramid written and not yet in place ({@link stagePyramid}): a {@link StagedFile} with the image's levels and tile. */
export interface StagedPyramid extends StagedFile {
  levels: { width: number; height: number }[];
  tile: number;
}

/**
 * Writes every byte of `image`'s file for `file` from `source`'s full-resolution pixels and answers
 * it staged: readable at once, put in place (`<file>.part` fsynced and renamed) by its commit.
 * Compressed (the default), each block is DEFLATEd as it is produced ({@link BlockDeflater}: the
 * predictor and zlib on the DEFLATE threads, several blocks at once). A single level's compressed
 * blocks go straight to `<file>.part` after the header; the overviews come out with full
 * resolution, but the file holds the smallest overview first, so with overviews the compressed
 * blocks go to `<file>.blocks.part` as they come: the staged file reads them from there in the
 * file's order, and its commit copies them into `<file>.part`. Mean overviews too large to build in
 * memory are built from an uncompressed copy of the levels above them in `<file>.raw.part`. Those
 * files are removed; on a failure or an abort, before the answer, so is the part.
 */
export async function stagePyramid(
  file: string,
  image: PyramidImage,
  source: PixelSource,
  opts: WritePyramidOptions,
): Promise<StagedPyramid> {
  const { signal } = opts;
  throwIfAborted(signal);
  const { width, height, bands: nb } = image;
  if (!(width > 0 && height > 0 && nb > 0)) throw new Error(`invalid image size ${width}x${height}x${nb}`);
  const tile = image.tile ?? COG_TILE;
  if (!Number.isInteger(Math.log2(tile))) throw new Error(`tile size ${tile} is not a power of two`);
  const layout = pyramidLayout(image);
  const nodata = image.nodata ?? nodataOf(image.dataType);
  const chunkBytes = chunkBytesOf(layout, opts.chunkBytes);
  const compress = image.compress ?? true;
  const levels = layout.levels;
  // One level: its blocks come in the file's order.
  const single = levels.length === 1;
  const inMemory = MeanCascade.bytes(levels, nb, image.dataType) <= (opts.overviewMemoryBytes ?? CASCADE_BYTES);
  const partPath = `${file}.part`;
  // Uncompressed pixels are kept where the file is uncompressed, or mean overviews are read back from it.
  const rawPath = !compress ? partPath : single || inMemory ? null : `${file}.raw.part`;
  const spoolPath = compress && !single ? `${file}.blocks.part` : null;
  let written = 0;
  const work = layout.totalBytes;
  const progress = (n: number): void => {
    written += n;
    opts.onProgress?.(Math.min(1, written / work));
  };
  const predictor = predictorOf(image.dataType);
  const sampleBytes = bytesPerSample(image.dataType);
  const compressedHeader = (blocks?: BlockTable[]): Buffer => pyramidLayout({ ...image, compress: false, bigTiff: layout.bigTiff }, { predictor, blocks }).header;
  const headerBytes = compress ? compressedHeader().length : layout.header.length;
  const handles: FileHandle[] = [];
  const openFile = async (p: string, flags: string): Promise<FileHandle> => {
    const h = await open(p, flags, 0o644);
    handles.push(h);
    return h;
  };
  let staged: StagedFile | null = null;
  let deflater: BlockDeflater | null = null;
  const scratch = new WriteScratch();
  try {
    // Read too: the staged file's readers, the overviews read back from an uncompressed one.
    const part = await openFile(partPath, 'w+');
    const raw = rawPath === partPath ? part : rawPath ? await openFile(rawPath, 'w+') : null;
    const spool = spoolPath ? await openFile(spoolPath, 'w+') : null;
    if (compress) {
      deflater = new BlockDeflater(
        spool ?? part, spool ? 0 : headerBytes, levels.map((L) => L.blocksAcross * L.blocksDown),
        levels.map((L) => ({ rowSamples: L.blockWidth * nb, rows: L.blockHeight })), { predictor, sampleBytes, spp: nb },
        Math.max(...levels.map((L) => L.blockBytes)), progress, opts.deflateLevel,
      );
    }
    const level: LevelWrite = {
      fh: raw, deflater, levels, dataType: image.dataType, nb, nodata, chunkBytes, signal, progress,
      fullSources: opts.fullSources ?? false, scratch,
    };
    if (!compress) {
      await writeExactly(part, layout.header, 0);
      progress(layout.header.length);
    }
    const cascade = inMemory ? new MeanCascade(level, levels) : null;
    await writeFromSource(level, levels[0]!, source, cascade ? (rect, rows) => cascade.push(0, rect, rows) : undefined);
    for (let k = 1; k < levels.length && !cascade; k++) await writeMean(level, levels[k - 1]!, levels[k]!);
    let bytes = layout.totalBytes;
    let pieces: FilePiece[] | null = null;
    let place: (signal: AbortSignal) => Promise<void> = async () => undefined;
    if (deflater) {
      let tables = await deflater.finish();
      bytes = deflater.end;
      let runs: CopyRun[] = [];
      if (spool) ({ tables, end: bytes, runs } = planCopy(tables, layout.dataOrder, headerBytes));
      const header = compressedHeader(tables);
      if (header.length !== headerBytes) throw new Error('internal header size mismatch');
      if (spool) {
        pieces = [{ data: header }, ...runs.map((r) => ({ fh: spool, src: r.src, len: r.len }))];
        // The last of the work is the copy: the progress reaches its end with it.
        place = async (placeSignal: AbortSignal): Promise<void> => {
          await writeExactly(part, header, 0);
          await copyRuns(spool, part, runs, chunkBytes, placeSignal);
          progress(layout.header.length);
        };
      } else {
        await writeExactly(part, header, 0);
        progress(layout.header.length);
      }
    }
    // The uncompressed copy is read by no one once the overviews are made.
    if (raw && raw !== part) {
      await raw.close();
      handles.splice(handles.indexOf(raw), 1);
      await unlink(rawPath!);
    }
    // The file is all in the part, or, spooled, the header and the spooled blocks in the file's order.
    pieces ??= [{ fh: part, src: 0, len: bytes }];
    staged = new StagedFile({ file, bytes, pieces, part: { path: partPath, fh: part }, place, handles, temps: spoolPath ? [spoolPath] : [] });
  } finally {
    await deflater?.drain();
    scratch.release();
    if (!staged) {
      for (const h of handles) await h.close().catch(() => undefined);
      for (const p of [partPath, rawPath, spoolPath]) if (p) await unlink(p).catch(() => undefined);
    }
  }
  return Object.assign(staged, { levels: levels.map((l) => ({ width: l.width, height: l.height })), tile });
}

/**
 * Where the compressed blocks of `tables` (offsets in the spool) go in the file from `start`, level
 * by level in `order`, each level's blocks in row-major order: their offsets there, the file's end,
 * and the runs of blocks that lie together in both (each copied with one read and one write per chunk).
 */
function planCopy(tables: BlockTable[], order: number[], start: number): { tables: BlockTable[]; end: number; runs: CopyRun[] } {
  const out = tables.map((t) => ({ offsets: t.offsets.slice(), counts: t.counts.slice() }));
  const runs: CopyRun[] = [];
  let at = start;
  for (const li of order) {
    const t = tables[li]!;
    for (let i = 0; i < t.offsets.length; i++) {
      const src = t.offsets[i]!;
      const len = t.counts[i]!;
      const last = runs.at(-1);
      if (last && last.src + last.len === src && last.dst + last.len === at) last.len += len;
      else runs.push({ src, dst: at, len });
      out[li]!.offsets[i] = at;
      at += len;
    }
  }
  return { tables: out, end: at, runs };
}

interface LevelWrite {
  /** The uncompressed pyramid at its fixed offsets, where one is kept. */
  fh: FileHandle | null;
  /** Compresses each block as it is written, when the file is compressed. */
  deflater: BlockDeflater | null;
  levels: TiffLevelLayout[];
  dataType: SampleType;
  nb: number;
  nodata: number;
  chunkBytes: number;
  signal: AbortSignal;
  progress: (bytes: number) => void;
  fullSources: boolean;
  /** The write's large temporary arrays, freed when it ends. */
  scratch: WriteScratch;
}

/**
 * Cuts `n` blocks of level L out of `rows` (row-major, `rowsWidth` pixels wide, `height` rows),
 * the first block starting at column `x0` of `rows`, into `out`, padding with nodata.
 */
function cutBlocks(
  w: LevelWrite, L: TiffLevelLayout, rows: PixelArray, rowsWidth: number, x0: number, height: number, n: number, out: PixelArray,
): void {
  const { nb, nodata } = w;
  const bw = L.blockWidth;
  const blockSamples = L.blockBytes / bytesPerSample(w.dataType);
  for (let t = 0; t < n; t++) {
    const cx = x0 + t * bw;
    const cw = Math.min(bw, rowsWidth - cx);
    // Only a block cut by the image's edge has padding to fill.
    if (cw < bw || height < L.blockHeight) out.fill(nodata, t * blockSamples, (t + 1) * blockSamples);
    for (let r = 0; r < height; r++) {
      const src = (r * rowsWidth + cx) * nb;
      out.set(rows.subarray(src, src + cw * nb), t * blockSamples + r * bw * nb);
    }
  }
}

/** The rows a step's blocks are cut from: `rows` (`width` pixels wide, `height` rows), the first block starting at column `x0`. */
interface BlockRows {
  rows: PixelArray;
  width: number;
  x0: number;
  height: number;
}

/**
 * Writes `n` blocks of level L from block (bx0, by), cut out of `src`: uncompressed at their fixed
 * offsets (cut into `out` first) where the uncompressed pyramid is kept, and handed to the
 * compressor, each cut straight into its shared slot (or copied there from `out`), which counts
 * them as progress once written (or counted here when the file is uncompressed). `src` is read
 * until this resolves.
 */
async function writeBlocks(w: LevelWrite, L: TiffLevelLayout, by: number, bx0: number, n: number, src: BlockRows, out: PixelArray | null): Promise<void> {
  const first = by * L.blocksAcross + bx0;
  let rawWrite: Promise<void> | null = null;
  let data: Buffer | null = null;
  if (w.fh) {
    if (!out) throw new Error('internal: no block buffer for the uncompressed pyramid');
    cutBlocks(w, L, src.rows, src.width, src.x0, src.height, n, out);
    data = bytesOf(out, n * (L.blockBytes / bytesPerSample(w.dataType)));
    rawWrite = writeExactly(w.fh, data, L.dataOffset + first * L.blockBytes);
    rawWrite.catch(() => undefined); // awaited below, after the blocks are handed over
  }
  if (w.deflater) {
    const li = w.levels.indexOf(L);
    for (let t = 0; t < n; t++) {
      await w.deflater.submit(li, first + t, L.blockBytes, (dst) => {
        if (data) dst.set(data.subarray(t * L.blockBytes, (t + 1) * L.blockBytes));
        else cutBlocks(w, L, src.rows, src.width, src.x0 + t * L.blockWidth, src.height, 1, samplesOf(w.dataType, dst));
      });
    }
  }
  await rawWrite;
  if (!w.deflater) w.progress(n * L.blockBytes);
}

/** Memory the in-memory mean overviews may use; larger images build them from the file instead ({@link writeMean}). */
const CASCADE_BYTES = 48 * 1024 * 1024;

/**
 * The mean overviews, built in memory while full resolution is written (no read-back): each
 * overview level keeps one tile row of its pixels at full width, filled with the 2x2 means of the
 * two tile rows of the level above as they are written. A completed tile row is cut into tiles,
 * written and passed down to the next level.
 */
class MeanCascade {
  private readonly rows: PixelArray[];
  /** Cut blocks of the uncompressed pyramid, where one is kept. */
  private readonly out: PixelArray | null;
  private readonly perChunk: number;

  constructor(private readonly w: LevelWrite, private readonly levels: TiffLevelLayout[]) {
    const t = levels[0]!.blockWidth;
    this.rows = levels.map((L, k) => w.scratch.samples(w.dataType, k === 0 ? 0 : t * L.width * w.nb));
    const blockBytes = levels[0]!.blockBytes;
    this.perChunk = Math.max(1, Math.floor(w.chunkBytes / blockBytes));
    this.out = w.fh ? w.scratch.samples(w.dataType, Math.min(this.perChunk, levels[1]?.blocksAcross ?? 1) * (blockBytes / bytesPerSample(w.dataType))) : null;
  }

  /** Bytes of the tile rows every overview level keeps. */
  static bytes(levels: TiffLevelLayout[], nb: number, dataType: SampleType): number {
    return levels.slice(1).reduce((sum, L) => sum + L.blockHeight * L.width * nb * bytesPerSample(dataType), 0);
  }

  /** Takes `rows` (rect.width pixels wide) of level k, where rect starts a tile row of level k at a tile column. */
  async push(k: number, rect: PixelRect, rows: PixelArray): Promise<void> {
    const P = this.levels[k]!;
    const C = this.levels[k + 1];
    if (!C) return;
    const { nb, nodata } = this.w;
    const t = C.blockHeight;
    const acc = this.rows[k + 1]!;
    mean2x2(rows, rect.width, rect.height, nb, nodata, acc, Math.ceil(rect.width / 2), (((rect.y / 2) % t) * C.width + rect.x / 2) * nb, C.width * nb);
    if (rect.x + rect.width < P.width) return; // the parent's tile row goes on
    const pRow = rect.y / P.blockHeight;
    if (pRow % 2 === 0 && pRow !== P.blocksDown - 1) return; // the child's tile row needs the next parent row
    const cRow = pRow >> 1;
    const y0 = cRow * t;
    const h = Math.min(t, C.height - y0);
    for (let bx0 = 0; bx0 < C.blocksAcross; bx0 += this.perChunk) {
      throwIfAborted(this.w.signal);
      const n = Math.min(this.perChunk, C.blocksAcross - bx0);
      await writeBlocks(this.w, C, cRow, bx0, n, { rows: acc, width: C.width, x0: bx0 * C.blockWidth, height: h }, this.out);
    }
    await this.push(k + 1, { x: 0, y: y0, width: C.width, height: h }, acc);
  }
}

/** Writes level L from a pixel source, a chunk of a block row at a time; one chunk is written while the next is read. */
async function writeFromSource(
  w: LevelWrite, L: TiffLevelLayout, source: PixelSource, onRows?: (rect: PixelRect, rows: PixelArray) => Promise<void>,
): Promise<void> {
  const { nb, nodata, signal } = w;
  const bw = L.blockWidth;
  const bh = L.blockHeight;
  const blockSamples = L.blockBytes / bytesPerSample(w.dataType);
  const perChunk = Math.max(1, Math.floor(w.chunkBytes / L.blockBytes));
  // Two of each: a chunk's blocks are cut from its rows while the next chunk is read into the other.
  const rectSize = Math.min(perChunk * bw, L.width) * bh * nb;
  const rectBufs = [w.scratch.samples(w.dataType, rectSize), w.scratch.samples(w.dataType, rectSize)];
  // Cut blocks of the uncompressed pyramid, where one is kept (compressed blocks are cut into the compressor's slots).
  const blockBufs = w.fh ? [w.scratch.samples(w.dataType, perChunk * blockSamples), w.scratch.samples(w.dataType, perChunk * blockSamples)] : null;
  let cur = 0;
  let pending: Promise<void> = Promise.resolve();
  try {
    for (const { by, bx0, n, rect } of sourceChunks(L, w.chunkBytes)) {
      throwIfAborted(signal);
      // Last read by the chunk before the previous one, whose write was awaited before the previous chunk's began.
      const rows = rectBufs[cur]!;
      const rectSamples = rect.width * rect.height * nb;
      if (!w.fullSources) rows.fill(nodata, 0, rectSamples);
      await source(rect, rows.subarray(0, rectSamples), signal, rect.width * nb);
      throwIfAborted(signal);
      await pending;
      pending = writeBlocks(w, L, by, bx0, n, { rows, width: rect.width, x0: 0, height: rect.height }, blockBufs?.[cur] ?? null);
      // Observed now so a failed write never becomes an unhandled rejection while the next chunk is read.
      pending.catch(() => undefined);
      cur ^= 1;
      await onRows?.(rect, rows);
    }
  } finally {
    await pending.catch(() => undefined);
  }
  await pending;
}

/**
 * Builds overview level C from level P written above it: each pixel is the mean of the valid
 * pixels of its 2x2 parent block. Parent tiles are read back a chunk of two tile rows at a time.
 */
async function writeMean(w: LevelWrite, P: TiffLevelLayout, C: TiffLevelLayout): Promise<void> {
  const { nb, nodata, signal } = w;
  const t = C.blockWidth; // overviews only exist for tiled images, where every level uses the same square tile
  const tileSamples = t * t * nb;
  // Two parent tile rows read, the same as rows, the child rows and their tiles: ten child tiles per chunk.
  const perChunk = Math.max(1, Math.floor(w.chunkBytes / (10 * C.blockBytes)));
  const parents = [w.scratch.samples(w.dataType, 2 * perChunk * tileSamples), w.scratch.samples(w.dataType, 2 * perChunk * tileSamples)];
  const parentRows = w.scratch.samples(w.dataType, 4 * perChunk * tileSamples);
  const childRows = w.scratch.samples(w.dataType, perChunk * tileSamples);
  const out = w.scratch.samples(w.dataType, perChunk * tileSamples);
  for (let cy = 0; cy < C.blocksDown; cy++) {
    for (let cx0 = 0; cx0 < C.blocksAcross; cx0 += perChunk) {
      throwIfAborted(signal);
      const n = Math.min(perChunk, C.blocksAcross - cx0);
      const pc0 = 2 * cx0;
      const pcn = Math.min(P.blocksAcross, 2 * (cx0 + n)) - pc0;
      // The parent pixels under these child tiles, as rows.
      const pw = Math.min(P.width - pc0 * t, pcn * t);
      const ph = Math.min(P.height - 2 * cy * t, 2 * t);
      for (let k = 0; k < 2 && 2 * cy + k < P.blocksDown; k++) {
        const pr = 2 * cy + k;
        await readExactly(w.fh!, bytesOf(parents[k]!, pcn * tileSamples), P.dataOffset + (pr * P.blocksAcross + pc0) * P.blockBytes);
        const rows = Math.min(t, ph - k * t);
        for (let tc = 0; tc < pcn; tc++) {
          const cw = Math.min(t, pw - tc * t);
          for (let r = 0; r < rows; r++) {
            const from = tc * tileSamples + r * t * nb;
            parentRows.set(parents[k]!.subarray(from, from + cw * nb), ((k * t + r) * pw + tc * t) * nb);
          }
        }
      }
      const cw = Math.min(n * t, C.width - cx0 * t);
      const ch = mean2x2(parentRows, pw, ph, nb, nodata, childRows, cw);
      await writeBlocks(w, C, cy, cx0, n, { rows: childRows, width: cw, x0: 0, height: ch }, out);
    }
  }
  throwIfAborted(signal);
}

/**
 * Averages the valid (non-nodata) pixels of each 2x2 block of `rows` rows of `src` (row-major,
 * `width` pixels of `bands` samples) into ceil(rows/2) rows of `outWidth` pixels, written from
 * `outOffset` with rows `outStride` samples apart; a block without valid pixels is nodata.
 * Returns the number of rows written.
 */
export function mean2x2(
  src: PixelArray, width: number, rows: number, bands: number, nodata: number,
  out: PixelArray, outWidth: number, outOffset = 0, outStride = outWidth * bands,
): number {
  const outRows = Math.ceil(rows / 2);
  // Integer samples round to the nearest integer; float samples keep the mean.
  const float = out instanceof Float32Array;
  const stride = width * bands;
  // Output pixels whose 2x2 block lies inside `src` (the last column or row may have only one parent).
  const fullWidth = Math.min(width >> 1, outWidth);
  for (let y2 = 0; y2 < outRows; y2++) {
    const r0 = 2 * y2 * stride;
    const r1 = 2 * y2 + 1 < rows ? r0 + stride : -1;
    const o0 = outOffset + y2 * outStride;
    let x2 = 0;
    if (!float && r1 >= 0) {
      meanRowOfBlocks(src, r0, r1, out, o0, fullWidth, bands, nodata);
      x2 = fullWidth;
    }
    for (; x2 < outWidth; x2++) {
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
        out[o0 + x2 * bands + b] = n === 0 ? nodata : float ? sum / n : Math.round(sum / n);
      }
    }
  }
  return outRows;
}

/**
 * One output row of whole 2x2 blocks of integers, from the rows at `r0` and `r1` of `src` into
 * `out` from `o0`. Math.round(sum / 4) is floor((sum + 2) / 4), an arithmetic shift of a sum within
 * int32. A function of its own, called once a row: V8 optimises it as a whole, where the loop inside
 * {@link mean2x2}'s long calls ran as on-stack-replaced code that it left and re-entered every call.
 */
function meanRowOfBlocks(src: PixelArray, r0: number, r1: number, out: PixelArray, o0: number, width: number, bands: number, nodata: number): void {
  const pitch = 2 * bands;
  for (let x2 = 0, a0 = r0, b0 = r1, o = o0; x2 < width; x2++, a0 += pitch, b0 += pitch, o += bands) {
    for (let b = 0; b < bands; b++) {
      const p = src[a0 + b]!;
      const q = src[a0 + bands + b]!;
      const r = src[b0 + b]!;
      const t = src[b0 + bands + b]!;
      out[o + b] = p === nodata || q === nodata || r === nodata || t === nodata ? meanOfValid(p, q, r, t, nodata) : (p + q + r + t + 2) >> 2;
    }
  }
}

/** The rounded mean of the valid ones of four integer samples, or nodata when none is. */
function meanOfValid(p: number, q: number, r: number, t: number, nodata: number): number {
  let sum = 0;
  let n = 0;
  if (p !== nodata) { sum += p; n++; }
  if (q !== nodata) { sum += q; n++; }
  if (r !== nodata) { sum += r; n++; }
  if (t !== nodata) { sum += t; n++; }
  return n === 0 ? nodata : Math.round(sum / n);
}
