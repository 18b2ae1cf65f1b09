import { fromUrl, type GeoTIFF, type GeoTIFFImage } from 'geotiff';
import { evaluate } from './band-expression';
import type { BandMeta, Channel } from './display';
import { bandScaling } from './stretch';

/**
 * Reads what the preview needs from a GeoTIFF over the raster protocol with Range requests:
 * the header (bands, scaling, nodata, CRS, geotransform), a small overview for histograms and
 * thumbnails, and exact full-resolution pixels for the inspector. geotiff.js fetches only the
 * header and the blocks it needs.
 */

/** Where the renderer fetches library rasters: swath-raster:// in the app, the browser host's path otherwise. */
export function rasterBaseUrl(loc: Pick<Location, 'protocol' | 'origin'> = location): string {
  return loc.protocol === 'file:' ? 'swath-raster://' : `${loc.origin}/__swath/raster/`;
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

function num(v: unknown): number | null {
  const n = typeof v === 'string' ? Number(v) : typeof v === 'number' ? v : NaN;
  return Number.isFinite(n) ? n : null;
}

/** Decoded blocks kept per open file: map tiles and the histogram sample share them, so each is read and decoded once. */
const BLOCK_BUDGET_BYTES = 64 * 1024 * 1024;

/** An open GeoTIFF: its header plus readers for overview samples and exact pixels. */
export class RasterFile {
  private readonly blocks = new Map<string, { data: Promise<{ data: ArrayLike<number>; stride: number }>; bytes: number }>();
  private cachedBytes = 0;

  private constructor(
    readonly url: string,
    private readonly tiff: GeoTIFF,
    private readonly images: GeoTIFFImage[],
    readonly header: RasterHeader,
  ) {}

  /** Opens a raster URL and reads its header (a few Range requests). */
  static async open(url: string, signal?: AbortSignal): Promise<RasterFile> {
    const tiff = await fromUrl(url, { ...RANGE_OPTIONS }, signal);
    const count = await tiff.getImageCount();
    const images: GeoTIFFImage[] = [];
    for (let i = 0; i < count; i++) images.push(await tiff.getImage(i));
    const main = images[0]!;
    const dataType = dataTypeOf(main);
    const bands: BandMeta[] = [];
    for (let i = 0; i < main.getSamplesPerPixel(); i++) {
      const md = ((await main.getGDALMetadata(i)) ?? {}) as Record<string, unknown>;
      const name = typeof md.DESCRIPTION === 'string' && md.DESCRIPTION.trim() ? md.DESCRIPTION.trim() : `Band ${i + 1}`;
      bands.push({ name, scaling: bandScaling(name, dataType, { scale: num(md.SCALE), offset: num(md.OFFSET) }) });
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

  /** Block edge [w, h] to read a level by: its own tiles, or 256 x 256 for striped images. */
  levelBlock(level: number): [number, number] {
    const im = this.images[level]!;
    return im.isTiled ? [im.getTileWidth(), im.getTileHeight()] : [256, 256];
  }

  /**
   * One block (tile, or 256 x 256 of a striped image) of a level, pixel-interleaved: sample b of
   * pixel (c, r) of the block is data[(r * stride + c) * bands + b]. Uncompressed little-endian
   * chunky tiles (the service's COGs and Swath's overview copies) are used as fetched, without
   * geotiff.js's per-sample copy; anything else goes through readRasters.
   */
  async readBlock(level: number, bx: number, by: number, signal?: AbortSignal): Promise<{ data: ArrayLike<number>; stride: number }> {
    const im = this.images[level]!;
    const dir = im.getFileDirectory();
    const Typed = TYPED[this.header.dataType];
    const raw = im.isTiled && Number(dir.getValue('Compression') ?? 1) === 1 && Number(dir.getValue('PlanarConfiguration') ?? 1) === 1 && this.tiff.littleEndian;
    if (raw && Typed) {
      const passThrough = { decode: async (buffer: ArrayBuffer) => buffer };
      const tile = await im.getTileOrStrip(bx, by, 0, passThrough as never, signal);
      const buffer = tile.data as ArrayBuffer;
      if (buffer.byteLength % Typed.BYTES_PER_ELEMENT === 0) return { data: new Typed(buffer), stride: im.getTileWidth() };
    }
    const [bw, bh] = this.levelBlock(level);
    const window: [number, number, number, number] = [bx * bw, by * bh, Math.min(im.getWidth(), (bx + 1) * bw), Math.min(im.getHeight(), (by + 1) * bh)];
    const data = (await im.readRasters({ window, interleave: true, signal })) as unknown as ArrayLike<number>;
    return { data, stride: window[2] - window[0] };
  }

  /** {@link readBlock} through a small LRU cache (64 MiB of decoded pixels per file). */
  cachedBlock(level: number, bx: number, by: number): Promise<{ data: ArrayLike<number>; stride: number }> {
    const key = `${level}/${bx}/${by}`;
    const hit = this.blocks.get(key);
    if (hit) {
      // Most recently used last.
      this.blocks.delete(key);
      this.blocks.set(key, hit);
      return hit.data;
    }
    const [bw, bh] = this.levelBlock(level);
    const bytes = bw * bh * this.header.bands.length * 4;
    // Not tied to one caller's signal: other tiles may be waiting for the same block.
    const data = this.readBlock(level, bx, by);
    const entry = { data, bytes };
    this.blocks.set(key, entry);
    this.cachedBytes += bytes;
    data.catch(() => {
      if (this.blocks.get(key) === entry) {
        this.blocks.delete(key);
        this.cachedBytes -= bytes;
      }
    });
    for (const [k, v] of this.blocks) {
      if (this.cachedBytes <= BLOCK_BUDGET_BYTES || k === key) break;
      this.blocks.delete(k);
      this.cachedBytes -= v.bytes;
    }
    return data;
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
    const reads: Promise<void>[] = [];
    for (let by = 0; by * bh < h; by++) {
      for (let bx = 0; bx * bw < w; bx++) {
        reads.push(this.cachedBlock(level, bx, by).then(({ data, stride }) => {
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
        }));
      }
    }
    await Promise.all(reads);
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
  const value = (index: number): number => {
    const v = sample.data[index - 1]![i]!;
    if (v === nodata) dead = true;
    const s = bands[index - 1]!.scaling;
    return v * s.scale + s.offset;
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
