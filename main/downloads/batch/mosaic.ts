/**
 * Mosaics finished part GeoTIFFs into one COG when they share CRS, pixel size, pixel grid and data
 * type. Parts are placed by their own georeferencing, so the result does not depend on the plan;
 * bands of band-split parts are interleaved into the requested order.
 */
import { fromFile, type GeoTIFF, type GeoTIFFImage } from 'geotiff';
import { abortError } from '../../../common/abort.js';
import { gdalMetadataXml, writePyramid, type GdalMetadataItem, type PixelArray, type PixelRect } from '../../geotiff/index.js';
import { bandItems, mergeDatasetItems, type PartRaster } from './raster-info.js';

/** A part to mosaic and, for each of its bands, the output band it becomes (null: band i is output band i). */
export interface MosaicSource {
  raster: PartRaster;
  bandIndices: number[] | null;
}

/** The written mosaic. */
export interface MosaicResult {
  path: string;
  width: number;
  height: number;
  bands: number;
  bytes: number;
  overviews: number;
  epsg: number;
  originX: number;
  originY: number;
  pixelSize: number;
}

/** Options of {@link mosaicParts}. */
export interface MosaicOptions {
  signal: AbortSignal;
  /** Fraction written, 0..1. */
  onProgress?: (fraction: number) => void;
  /** Pixel bytes handled per step (see writePyramid); bounds memory. */
  chunkBytes?: number;
}

/** How far (in pixels) an origin may sit off the common grid and still count as on it. */
const GRID_TOLERANCE_PX = 1e-6;

function indicesOf(s: MosaicSource): number[] {
  return s.bandIndices ?? Array.from({ length: s.raster.bands }, (_, i) => i);
}

/** Why these parts cannot be mosaicked into one GeoTIFF (then a VRT is written instead), or null when they can. */
export function mosaicBlocker(sources: readonly MosaicSource[]): string | null {
  if (sources.length === 0) return 'there are no parts';
  const ref = sources[0]!.raster;
  for (const { raster: r } of sources) {
    if (r.epsg === null) return `${r.file} has a CRS without an EPSG code`;
    if (r.epsg !== ref.epsg) return `the parts use different CRSs (EPSG:${ref.epsg} and EPSG:${r.epsg})`;
    if (Math.abs(r.pixelSize - ref.pixelSize) > ref.pixelSize * 1e-9) {
      return `the parts have different pixel sizes (${ref.pixelSize} and ${r.pixelSize})`;
    }
    if (r.dataType !== ref.dataType) return `the parts have different data types (${ref.dataType} and ${r.dataType})`;
    if (r.nodata !== ref.nodata) return `the parts have different nodata values (${ref.nodata} and ${r.nodata})`;
    for (const d of [(r.originX - ref.originX) / ref.pixelSize, (ref.originY - r.originY) / ref.pixelSize]) {
      if (Math.abs(d - Math.round(d)) > GRID_TOLERANCE_PX) return `${r.file} is not on the same pixel grid as ${ref.file}`;
    }
  }
  for (const s of sources) {
    if (indicesOf(s).length !== s.raster.bands) {
      return `${s.raster.file} has ${s.raster.bands} bands but ${indicesOf(s).length} are mapped`;
    }
  }
  const count = Math.max(...sources.flatMap(indicesOf)) + 1;
  const covered = new Set(sources.flatMap(indicesOf));
  for (let b = 0; b < count; b++) if (!covered.has(b)) return `no part delivers output band ${b + 1}`;
  return null;
}

interface Placed {
  source: MosaicSource;
  indices: number[];
  col: number;
  row: number;
  tiff: GeoTIFF | null;
  image: GeoTIFFImage | null;
}

// Full resolution is read one output chunk at a time from every overlapping part, so memory is
// bounded by the chunk size whatever the mosaic's size; on overlaps the first valid pixel in source order wins.
/** Streams the mosaic of `sources` into `outFile` (via `.part`, fsync, rename); throws when {@link mosaicBlocker} objects. */
export async function mosaicParts(sources: readonly MosaicSource[], outFile: string, opts: MosaicOptions): Promise<MosaicResult> {
  const blocker = mosaicBlocker(sources);
  if (blocker) throw new Error(`cannot mosaic: ${blocker}`);
  const ref = sources[0]!.raster;
  const ps = ref.pixelSize;
  const placed: Placed[] = sources.map((source) => ({
    source,
    indices: indicesOf(source),
    col: Math.round((source.raster.originX - ref.originX) / ps),
    row: Math.round((ref.originY - source.raster.originY) / ps),
    tiff: null,
    image: null,
  }));
  const left = Math.min(...placed.map((p) => p.col));
  const top = Math.min(...placed.map((p) => p.row));
  const right = Math.max(...placed.map((p) => p.col + p.source.raster.width));
  const bottom = Math.max(...placed.map((p) => p.row + p.source.raster.height));
  for (const p of placed) {
    p.col -= left;
    p.row -= top;
  }
  // Origins are copied from the parts that define them, not recomputed, so they match the service's to the bit.
  const originX = placed.find((p) => p.col === 0)!.source.raster.originX;
  const originY = placed.find((p) => p.row === 0)!.source.raster.originY;
  const width = right - left;
  const height = bottom - top;
  const bands = Math.max(...placed.flatMap((p) => p.indices)) + 1;

  const items: GdalMetadataItem[] = mergeDatasetItems(sources.map((s) => s.raster));
  for (let b = 0; b < bands; b++) {
    const from = placed.find((p) => p.indices.includes(b))!;
    items.push(...bandItems(from.source.raster, from.indices.indexOf(b), b));
  }

  const nodata = ref.nodata;
  const read = async (rect: PixelRect, out: PixelArray, signal: AbortSignal): Promise<void> => {
    for (const p of placed) {
      const r = p.source.raster;
      const x0 = Math.max(rect.x, p.col);
      const y0 = Math.max(rect.y, p.row);
      const x1 = Math.min(rect.x + rect.width, p.col + r.width);
      const y1 = Math.min(rect.y + rect.height, p.row + r.height);
      if (x1 <= x0 || y1 <= y0) continue;
      if (!p.image) {
        p.tiff = await fromFile(r.file, signal);
        p.image = await p.tiff.getImage(0);
      }
      const data = (await p.image.readRasters({
        window: [x0 - p.col, y0 - p.row, x1 - p.col, y1 - p.row],
        interleave: true,
        signal,
      })) as unknown as ArrayLike<number>;
      const w = x1 - x0;
      const nbs = r.bands;
      const nbo = bands;
      const idx = p.indices;
      for (let y = y0; y < y1; y++) {
        let s = (y - y0) * w * nbs;
        let o = ((y - rect.y) * rect.width + (x0 - rect.x)) * nbo;
        for (let x = 0; x < w; x++, s += nbs, o += nbo) {
          for (let j = 0; j < nbs; j++) {
            const v = data[s + j]!;
            const at = o + idx[j]!;
            if (v !== nodata && out[at] === nodata) out[at] = v;
          }
        }
      }
    }
  };

  try {
    const written = await writePyramid(
      outFile,
      {
        width,
        height,
        bands,
        dataType: ref.dataType,
        geo: { epsg: ref.epsg!, geographic: ref.geographic, originX, originY, pixelSize: ps },
        metadataXml: gdalMetadataXml(items),
        nodata,
      },
      read,
      { signal: opts.signal, onProgress: opts.onProgress, chunkBytes: opts.chunkBytes },
    );
    return { path: written.path, width, height, bands, bytes: written.bytes, overviews: written.levels.length - 1, epsg: ref.epsg!, originX, originY, pixelSize: ps };
  } catch (e) {
    if (opts.signal.aborted) throw abortError(opts.signal);
    throw e;
  } finally {
    await Promise.all(placed.map((p) => p.tiff?.close()));
  }
}
