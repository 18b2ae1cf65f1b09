import { GeoTIFF, type GeoTIFFImage } from 'geotiff';
import { evaluate } from './band-expression';
import type { BandMeta, Channel } from './display';
import { RangeSource } from './range-source';
import { bandScaling } from './stretch';
import type { Block, WarpRaster } from './warp';

/**
 * Reads what the preview needs from a GeoTIFF over the raster protocol with Range requests:
 * the header (bands, scaling, nodata, CRS, geotransform), a small overview for histograms and
 * thumbnails, and exact full-resolution pixels for the inspector. geotiff.js fetches only the
 * header and the blocks it needs.
 */

/** Where the renderer fetches library rasters: swath-raster:// in the app, the browser host's path otherwise. */
export function rasterBaseUrl(loc: Pick<Location, 'protocol' | 'origin'> = location): string {
  // The app serves the renderer from app://swath/ (file:// only in older builds).
  return loc.protocol === 'app:' || loc.protocol === 'file:' ? 'swath-raster://' : `${loc.origin}/__swath/raster/`;
}

/** The URL of a raster id (a library id or an overview copy's id). */
export function rasterUrl(rasterId: string, loc?: Pick<Location, 'protocol' | 'origin'>): string {
  return rasterBaseUrl(loc) + encodeURIComponent(rasterId);
}

/**
 * How geotiff.js reads over HTTP: Range requests only (never the whole file), grouped into
 * 128 KiB blocks with a 32 MiB cache. Without a block size geotiff.js 3 sends one request per
 * slice, down to 4-byte tile offsets: hundreds of requests for one header.
 */
export const RANGE_OPTIONS = { allowFullFile: false, maxRanges: 0, blockSize: 128 * 1024, cacheSize: 256 } as const;

/** Header facts of a raster. */
export interface RasterHeader {
  width: number;
  height: number;
  bands: BandMeta[];
  dataType: string;
  /** The file's nodata, else -32768 for INT16 and 0 for UINT8/UINT16; null for other types without one. */
  nodata: number | null;
  /** Whether the file itself declares nodata (OpenLayers masks only then). */
  fileNodata: boolean;
  epsg: number | null;
  /** [minX, minY, maxX, maxY] in the raster's CRS. */
  bbox: [number, number, number, number] | null;
  origin: [number, number] | null;
  /** Pixel size [x, y] in CRS units (y negative for north-up). */
  resolution: [number, number] | null;
  overviews: number;
  tiled: boolean;
}

/** Pixels of one image level, band by band. */
export interface RasterSample {
  width: number;
  height: number;
  data: ArrayLike<number>[];
}

type TypedCtor = Int8ArrayConstructor | Uint8ArrayConstructor | Int16ArrayConstructor | Uint16ArrayConstructor | Int32ArrayConstructor | Uint32ArrayConstructor | Float32ArrayConstructor | Float64ArrayConstructor;
const TYPED: Record<string, TypedCtor> = {
  INT8: Int8Array, UINT8: Uint8Array, INT16: Int16Array, UINT16: Uint16Array, INT32: Int32Array, UINT32: Uint32Array, FLOAT32: Float32Array, FLOAT64: Float64Array,
};

/** The typed array constructor of a sample type ('INT16', 'FLOAT32'...), Float64Array when unknown. */
export function sampleArray(dataType: string): TypedCtor {
  return TYPED[dataType] ?? Float64Array;
}

function dataTypeOf(image: GeoTIFFImage): string {
  const bits = image.getBitsPerSample();
  const format = image.getSampleFormat() ?? 1;
  if (format === 3) return `FLOAT${bits}`;
  return `${format === 2 ? 'INT' : 'UINT'}${bits}`;
}

function epsgOf(image: GeoTIFFImage): number | null {
  const keys = (image.getGeoKeys() ?? {}) as Record<string, unknown>;
  const projected = keys.ProjectedCSTypeGeoKey;
  const geographic = keys.GeographicTypeGeoKey;
  if (keys.GTModelTypeGeoKey !== 2 && typeof projected === 'number' && projected !== 32767) return projected;
  if (typeof geographic === 'number' && geographic !== 32767) return geographic;
  return null;
}

/** Ranges closer than this are fetched as one (the gap's bytes are read and dropped). */
const MERGE_GAP_BYTES = 64 * 1024;
/** Largest merged request. */
const MERGE_MAX_BYTES = 16 * 1024 * 1024;

/** Where a level's tiles are in the file. */
interface TileTable {
  offsets: number[];
  counts: number[];
}

/** Decoded blocks kept per open file: map tiles and the histogram sample share them, so each is read and decoded once. */
const BLOCK_BUDGET_BYTES = 64 * 1024 * 1024;

/** An open GeoTIFF: its header plus readers for overview samples and exact pixels. */
export class RasterFile {
  private readonly blocks = new Map<string, { data: Promise<Block>; bytes: number }>();
  private cachedBytes = 0;

  private constructor(
    readonly url: string,
    private readonly tiff: GeoTIFF,
    private readonly images: GeoTIFFImage[],
    readonly header: RasterHeader,
  ) {}

  /** Each level's tile table once read: null when its tiles cannot be fetched raw (see {@link cachedBlocks}). */
  private readonly tiles: (TileTable | null | undefined)[] = [];
  private readonly tileReads: (Promise<TileTable | null> | undefined)[] = [];

  /**
   * Where a level's raw tiles are (read once, on first use; for COGs they sit in the header's
   * blocks), or null when the level is compressed, band-interleaved, big-endian or striped. Await
   * it before {@link cachedBlocks} when the requests should go out at once.
   */
  tileTable(level: number): Promise<TileTable | null> {
    this.tileReads[level] ??= (async () => {
      const im = this.images[level]!;
      const dir = im.getFileDirectory();
      const raw = TYPED[this.header.dataType] && this.tiff.littleEndian && im.isTiled
        && Number(dir.getValue('Compression') ?? 1) === 1 && Number(dir.getValue('PlanarConfiguration') ?? 1) === 1;
      let table: TileTable | null = null;
      if (raw) {
        const [offsets, counts] = await Promise.all([dir.loadValue('TileOffsets'), dir.loadValue('TileByteCounts')]);
        table = { offsets: Array.from(offsets as ArrayLike<number | bigint>, Number), counts: Array.from(counts as ArrayLike<number | bigint>, Number) };
      }
      this.tiles[level] = table;
      return table;
    })();
    return this.tileReads[level]!;
  }

  /** Opens a raster URL and reads its header (a few Range requests). */
  static async open(url: string, signal?: AbortSignal): Promise<RasterFile> {
    const tiff = await GeoTIFF.fromSource(new RangeSource(url), undefined, signal);
    const count = await tiff.getImageCount();
    const images: GeoTIFFImage[] = [];
    for (let i = 0; i < count; i++) images.push(await tiff.getImage(i));
    const main = images[0]!;
    const dataType = dataTypeOf(main);
    const bands: BandMeta[] = [];
    for (let i = 0; i < main.getSamplesPerPixel(); i++) {
      const md = ((await main.getGDALMetadata(i)) ?? {}) as Record<string, unknown>;
      const name = typeof md.DESCRIPTION === 'string' && md.DESCRIPTION.trim() ? md.DESCRIPTION.trim() : `Band ${i + 1}`;
      bands.push({ name, scaling: bandScaling(name, dataType, { scale: md.SCALE, offset: md.OFFSET }) });
    }
    const own = main.getGDALNoData();
    const fallback = dataType === 'INT16' ? -32768 : dataType === 'UINT8' || dataType === 'UINT16' ? 0 : null;
    let bbox: RasterHeader['bbox'] = null;
    let origin: RasterHeader['origin'] = null;
    let resolution: RasterHeader['resolution'] = null;
    try {
      bbox = main.getBoundingBox() as [number, number, number, number];
      origin = main.getOrigin().slice(0, 2) as [number, number];
      resolution = main.getResolution().slice(0, 2) as [number, number];
    } catch {
      // Ungeoreferenced: the map cannot place it; the caller says so.
    }
    const header: RasterHeader = {
      width: main.getWidth(),
      height: main.getHeight(),
      bands,
      dataType,
      nodata: own ?? fallback,
      fileNodata: own != null,
      epsg: epsgOf(main),
      bbox,
      origin,
      resolution,
      overviews: count - 1,
      tiled: main.isTiled,
    };
    return new RasterFile(url, tiff, images, header);
  }

  /** Number of image levels (full resolution plus overviews). */
  get levels(): number {
    return this.images.length;
  }

  /** Width and height of a level. */
  levelSize(level: number): [number, number] {
    const im = this.images[level]!;
    return [im.getWidth(), im.getHeight()];
  }

  /** Pixel size [x, y] of a level in CRS units (overviews share the full image's origin). */
  levelResolution(level: number): [number, number] {
    const [rx, ry] = this.header.resolution ?? [1, -1];
    const [w, h] = this.levelSize(level);
    return [(rx * this.header.width) / w, (ry * this.header.height) / h];
  }

  /** The levels as the CPU warp sees them (see warp.ts). */
  warpRaster(): WarpRaster {
    const levels = Array.from({ length: this.levels }, (_, i) => ({ size: this.levelSize(i), res: this.levelResolution(i), block: this.levelBlock(i) }));
    return { origin: this.header.origin ?? [0, 0], levels };
  }

  /** Block edge [w, h] to read a level by: its own tiles, or 256 x 256 for striped images. */
  levelBlock(level: number): [number, number] {
    const im = this.images[level]!;
    return im.isTiled ? [im.getTileWidth(), im.getTileHeight()] : [256, 256];
  }

  /**
   * One block (tile, or 256 x 256 of a striped image) of a level through geotiff.js, pixel-
   * interleaved: sample b of pixel (c, r) of the block is data[(r * stride + c) * bands + b].
   */
  private async decodeBlock(level: number, bx: number, by: number): Promise<Block> {
    const im = this.images[level]!;
    const [bw, bh] = this.levelBlock(level);
    const window: [number, number, number, number] = [bx * bw, by * bh, Math.min(im.getWidth(), (bx + 1) * bw), Math.min(im.getHeight(), (by + 1) * bh)];
    const data = (await im.readRasters({ window, interleave: true })) as unknown as ArrayLike<number>;
    return { data, stride: window[2] - window[0] };
  }

  /**
   * Blocks of one level (see {@link decodeBlock} for the layout) through a small LRU cache (64 MiB
   * of decoded pixels per file); every caller of a block shares one read. Uncompressed
   * little-endian chunky tiles (the service's COGs and Swath's overview copies) are fetched
   * straight from the protocol and used as they arrive: the tiles asked for in one call that sit
   * next to each other in the file (a few bytes apart, as writers lay them out) come in one
   * request, issued before this returns, because the browser moves one large response much faster
   * than several small ones. Anything else is decoded by geotiff.js.
   */
  cachedBlocks(level: number, coords: readonly (readonly [number, number])[]): Promise<Block>[] {
    const out: Promise<Block>[] = [];
    const missing: { bx: number; by: number; resolve: (b: Block) => void; reject: (e: unknown) => void; drop: () => void }[] = [];
    const [bw, bh] = this.levelBlock(level);
    const bytes = bw * bh * this.header.bands.length * 4;
    for (const [bx, by] of coords) {
      const key = `${level}/${bx}/${by}`;
      const hit = this.blocks.get(key);
      if (hit) {
        // Most recently used last.
        this.blocks.delete(key);
        this.blocks.set(key, hit);
        out.push(hit.data);
        continue;
      }
      let resolve!: (b: Block) => void;
      let reject!: (e: unknown) => void;
      const data = new Promise<Block>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      const entry = { data, bytes };
      this.blocks.set(key, entry);
      this.cachedBytes += bytes;
      const drop = () => {
        if (this.blocks.get(key) !== entry) return;
        this.blocks.delete(key);
        this.cachedBytes -= bytes;
      };
      missing.push({ bx, by, resolve, reject, drop });
      out.push(data);
    }
    // Least recently used first, never the blocks of this call.
    const asked = new Set(coords.map(([bx, by]) => `${level}/${bx}/${by}`));
    for (const [k, v] of this.blocks) {
      if (this.cachedBytes <= BLOCK_BUDGET_BYTES) break;
      if (asked.has(k)) continue;
      this.blocks.delete(k);
      this.cachedBytes -= v.bytes;
    }
    const decode = (list: typeof missing): void => {
      for (const m of list) {
        this.decodeBlock(level, m.bx, m.by).then(m.resolve, (e: unknown) => {
          m.drop();
          m.reject(e);
        });
      }
    };
    const table = this.tiles[level];
    // Known table: the requests go out now; otherwise once the table is read.
    if (table !== undefined) decode(table ? this.fetchTiles(level, table, missing) : missing);
    else if (missing.length) void this.tileTable(level).then((t) => decode(t ? this.fetchTiles(level, t, missing) : missing), () => decode(missing));
    return out;
  }

  /** {@link cachedBlocks} for one block. */
  cachedBlock(level: number, bx: number, by: number): Promise<Block> {
    return this.cachedBlocks(level, [[bx, by]])[0]!;
  }

  /** Fetches raw tiles in merged requests (see {@link cachedBlocks}); returns the ones it cannot serve (decoded instead). */
  private fetchTiles<T extends { bx: number; by: number; resolve: (b: Block) => void; reject: (e: unknown) => void; drop: () => void }>(level: number, table: TileTable, wanted: T[]): T[] {
    const Typed = TYPED[this.header.dataType]!;
    const im = this.images[level]!;
    const across = Math.ceil(im.getWidth() / im.getTileWidth());
    const expected = im.getTileWidth() * im.getTileHeight() * this.header.bands.length * Typed.BYTES_PER_ELEMENT;
    const rest: T[] = [];
    const list: (T & { offset: number })[] = [];
    for (const m of wanted) {
      const i = m.by * across + m.bx;
      if (table.counts[i] === expected && table.offsets[i]! > 0) list.push({ ...m, offset: table.offsets[i]! });
      else rest.push(m);
    }
    list.sort((a, b) => a.offset - b.offset);
    const groups: (typeof list)[] = [];
    for (const m of list) {
      const g = groups.at(-1);
      const end = g ? g.at(-1)!.offset + expected : 0;
      if (g && m.offset >= end && m.offset - end <= MERGE_GAP_BYTES && m.offset + expected - g[0]!.offset <= MERGE_MAX_BYTES) g.push(m);
      else groups.push([m]);
    }
    for (const g of groups) {
      const start = g[0]!.offset;
      const end = g.at(-1)!.offset + expected;
      const fail = (e: unknown) => {
        for (const m of g) {
          m.drop();
          m.reject(e);
        }
      };
      fetch(this.url, { headers: { Range: `bytes=${start}-${end - 1}` } }).then(async (res) => {
        const buffer = res.status === 206 ? await res.arrayBuffer() : null;
        if (!buffer || buffer.byteLength !== end - start) {
          await res.body?.cancel().catch(() => undefined);
          throw new Error(`${this.url}: the server did not answer the range ${start}-${end - 1} (HTTP ${res.status})`);
        }
        for (const m of g) {
          // A lone tile is the whole response; tiles of a merged one get their own copy, so a cached
          // tile never keeps the whole response alive (and a typed view needs an aligned start).
          const bytes = g.length === 1 ? buffer : buffer.slice(m.offset - start, m.offset - start + expected);
          m.resolve({ data: new Typed(bytes), stride: im.getTileWidth() });
        }
      }).catch(fail);
    }
    return rest;
  }

  /** DNs of a window [x0, y0, x1, y1) of a level, band by band. */
  async readWindow(level: number, window: [number, number, number, number], signal?: AbortSignal): Promise<ArrayLike<number>[]> {
    return (await this.images[level]!.readRasters({ window, signal })) as unknown as ArrayLike<number>[];
  }

  /** The smallest level at least `minSize` px on its longer side (or the largest when none is), for histograms and thumbnails. */
  overviewLevel(minSize = 256): number {
    for (let i = this.images.length - 1; i >= 0; i--) {
      const im = this.images[i]!;
      if (Math.max(im.getWidth(), im.getHeight()) >= minSize) return i;
    }
    return 0;
  }

  /** Reads a whole level (an overview, normally), band by band; decimated (nearest) to at most `maxSize` px when the level is larger. */
  async readSample(level: number, maxSize = 1024): Promise<RasterSample> {
    const [w, h] = this.levelSize(level);
    const f = Math.max(1, Math.max(w, h) / maxSize);
    const width = Math.max(1, Math.round(w / f));
    const height = Math.max(1, Math.round(h / f));
    const nb = this.header.bands.length;
    const Typed = TYPED[this.header.dataType] ?? Float64Array;
    const out = Array.from({ length: nb }, () => new Typed(width * height));
    const [bw, bh] = this.levelBlock(level);
    await this.tileTable(level);
    const coords: [number, number][] = [];
    for (let by = 0; by * bh < h; by++) for (let bx = 0; bx * bw < w; bx++) coords.push([bx, by]);
    // A level larger than the block cache (a big file without overviews) is read in batches, so
    // decoded blocks can leave the cache between them.
    const perBatch = Math.max(1, Math.floor(BLOCK_BUDGET_BYTES / 2 / (bw * bh * nb * 4)));
    const take = ({ data, stride }: Block, bx: number, by: number): void => {
      // Output pixels whose nearest source pixel falls in this block.
      for (let y = 0; y < height; y++) {
        const sy = Math.min(h - 1, Math.floor((y + 0.5) * (h / height)));
        if (sy < by * bh || sy >= (by + 1) * bh) continue;
        for (let x = 0; x < width; x++) {
          const sx = Math.min(w - 1, Math.floor((x + 0.5) * (w / width)));
          if (sx < bx * bw || sx >= (bx + 1) * bw) continue;
          const si = ((sy - by * bh) * stride + (sx - bx * bw)) * nb;
          for (let b = 0; b < nb; b++) out[b]![y * width + x] = data[si + b]!;
        }
      }
    };
    for (let from = 0; from < coords.length; from += perBatch) {
      const batch = coords.slice(from, from + perBatch);
      await Promise.all(this.cachedBlocks(level, batch).map((p, k) => p.then((blk) => take(blk, batch[k]![0], batch[k]![1]))));
    }
    return { width, height, data: out };
  }

  /** Exact full-resolution DNs of every band at pixel (x, y), or null outside the image. */
  async readPixel(x: number, y: number, signal?: AbortSignal): Promise<number[] | null> {
    const { width, height } = this.header;
    if (!(x >= 0 && y >= 0 && x < width && y < height)) return null;
    const xi = Math.floor(x);
    const yi = Math.floor(y);
    const data = (await this.images[0]!.readRasters({ window: [xi, yi, xi + 1, yi + 1], signal })) as unknown as ArrayLike<number>[];
    return Array.from({ length: this.header.bands.length }, (_, i) => Number(data[i]![0]));
  }

  /** Pixel (column, row, fractional) of a coordinate in the raster's CRS, or null without georeferencing. */
  pixelOf(x: number, y: number): [number, number] | null {
    const { origin, resolution } = this.header;
    if (!origin || !resolution) return null;
    return [(x - origin[0]) / resolution[0], (y - origin[1]) / resolution[1]];
  }

  /** Closes the underlying source and drops cached blocks. */
  async close(): Promise<void> {
    this.blocks.clear();
    this.cachedBytes = 0;
    await this.tiff.close?.();
  }
}

/** Physical values of one channel for every pixel of a sample; NaN where any band it reads is nodata. */
export function channelValues(sample: RasterSample, channel: Channel, bands: readonly BandMeta[], nodata: number | null): Float32Array {
  const n = sample.width * sample.height;
  const out = new Float32Array(n);
  const ast = channel.ast;
  if (ast.type === 'band') {
    const src = sample.data[ast.index - 1]!;
    const { scale, offset } = bands[ast.index - 1]!.scaling;
    for (let i = 0; i < n; i++) {
      const v = src[i]!;
      out[i] = v === nodata ? NaN : v * scale + offset;
    }
    return out;
  }
  let i = 0;
  let dead = false;
  const data = [...sample.data];
  const scales = bands.map((b) => b.scaling.scale);
  const offsets = bands.map((b) => b.scaling.offset);
  const value = (index: number): number => {
    const v = data[index - 1]![i]!;
    if (v === nodata) dead = true;
    return v * scales[index - 1]! + offsets[index - 1]!;
  };
  for (i = 0; i < n; i++) {
    dead = false;
    const v = evaluate(ast, value);
    out[i] = dead ? NaN : v;
  }
  return out;
}

/** Physical values of every band at one pixel (NaN for nodata). */
export function physicalValues(dns: readonly number[], bands: readonly BandMeta[], nodata: number | null): number[] {
  return dns.map((v, i) => (v === nodata ? NaN : v * bands[i]!.scaling.scale + bands[i]!.scaling.offset));
}
