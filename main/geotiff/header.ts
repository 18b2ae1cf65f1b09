/**
 * The one reader of GeoTIFF headers in main: size, sample type, layout, georeferencing and GDAL
 * tags of a file's first image, as the library, the overview copies and the batch mosaics need them.
 */
import type { GeoTIFF, GeoTIFFImage } from 'geotiff';
import { abortError, throwIfAborted } from '../../common/abort.js';
import { epsgOfGeoKeys, isGeographic } from './geokeys.js';
import { parseGdalMetadata, stripNuls, type GdalMetadataItem } from './gdal-metadata.js';
import { checkBlocksInFile } from './ifd.js';
import { checkDeclaredSize, installBoundedDecoders, MAX_IMAGES } from './limits.js';
import { nodataOf, sampleTypeOf, type SampleType } from './samples.js';
import { geoTiffOf, TiffFile } from './tiff-file.js';

installBoundedDecoders();

/** What the first image's header says. */
export interface GeoTiffHeader {
  width: number;
  height: number;
  bands: number;
  /** The 8/16-bit integer type all bands share, or null (other or mixed sample types). */
  dataType: SampleType | null;
  /** BitsPerSample and SampleFormat (1 unsigned, 2 signed, 3 float) of the first band. */
  bitsPerSample: number;
  sampleFormat: number;
  tiled: boolean;
  /** Images in the file: 1 + the number of overviews. */
  imageCount: number;
  littleEndian: boolean;
  /** TIFF Compression (1: none) and PlanarConfiguration (1: pixel-interleaved). */
  compression: number;
  planar: number;
  /** Rows one block covers: the tile height, or RowsPerStrip (at most the height). */
  blockRows: number;
  /** GDAL_NODATA, or null when the file sets none. */
  nodata: number | null;
  geoKeys: Record<string, unknown> | null;
  /** EPSG code of the CRS, or null (user-defined or missing). */
  epsg: number | null;
  geographic: boolean;
  /** Top-left corner and pixel size (resY is negative for north-up files); null without an affine transform. */
  transform: { originX: number; originY: number; resX: number; resY: number } | null;
  /** Square north-up pixels (resY = -resX within 1e-9). */
  squarePixels: boolean;
  /** [minX, minY, maxX, maxY] in CRS units, or null without an affine transform. */
  bbox: [number, number, number, number] | null;
  /** GDAL_METADATA text without its trailing NULs ('' when absent). */
  metadataXml: string;
  metadata: GdalMetadataItem[];
}

/** Size, nodata and north-up georeferencing of a raster: what the overview copy and the mosaic build on. */
export interface RasterGrid {
  width: number;
  height: number;
  bands: number;
  /** The file's GDAL_NODATA, else {@link nodataOf} its sample type. */
  nodata: number;
  /** EPSG of the CRS, or null when the file uses a user-defined one. */
  epsg: number | null;
  geographic: boolean;
  originX: number;
  originY: number;
  /** Pixel width in CRS units (0 without georeferencing). */
  pixelSize: number;
}

/** The {@link RasterGrid} of a header (origin and pixel size 0 when it has no affine transform). */
export function gridOf(h: GeoTiffHeader): RasterGrid {
  return {
    width: h.width,
    height: h.height,
    bands: h.bands,
    nodata: h.nodata ?? nodataOf(h.dataType),
    epsg: h.epsg,
    geographic: h.geographic,
    originX: h.transform?.originX ?? 0,
    originY: h.transform?.originY ?? 0,
    pixelSize: h.transform?.resX ?? 0,
  };
}

/** An open GeoTIFF, its first image and that image's header; close() releases the file. */
export interface OpenGeoTiff {
  tiff: GeoTIFF;
  image: GeoTIFFImage;
  header: GeoTiffHeader;
  /** The file's bytes for raw IFD reads: in memory (all of a small file: `raw.whole`), the rest from the file until close(). */
  raw: TiffFile;
  close(): Promise<void>;
}

/** Images in the file, refusing a cyclic IFD chain (geotiff's getImageCount would follow it forever) and more than MAX_IMAGES. */
export async function countImages(tiff: GeoTIFF): Promise<number> {
  const seen = new Set<number>();
  for (let i = 0; i < MAX_IMAGES; i++) {
    const next = (await tiff.requestIFD(i)).nextIFDByteOffset;
    if (!next) return i + 1;
    if (seen.has(next)) throw new Error(`the IFD chain is cyclic (image ${i + 1} links back to offset ${next})`);
    seen.add(next);
  }
  throw new Error(`the file has more than ${MAX_IMAGES} images (IFDs); Swath reads at most ${MAX_IMAGES}`);
}

async function describe(tiff: GeoTIFF, image: GeoTIFFImage): Promise<GeoTiffHeader> {
  const dir = image.getFileDirectory();
  const bands = image.getSamplesPerPixel();
  const height = image.getHeight();
  const width = image.getWidth();
  const planar = Number(dir.getValue('PlanarConfiguration') ?? 1);
  const blockWidth = image.isTiled ? image.getTileWidth() : width;
  const blockRows = image.isTiled ? image.getTileHeight() : Math.min(Number(dir.getValue('RowsPerStrip') ?? height), height);
  const bitsPerSample = image.getBitsPerSample();
  // Bands and sizes first: the per-band loop below and every later read depend on them.
  const planes = planar === 2 ? bands : 1;
  checkDeclaredSize({ width, height, bands, blockBits: bitsPerSample, blockWidth, blockRows, planes, metadataChars: 0 });
  const sampleFormat = image.getSampleFormat() ?? 1;
  let uniform = true;
  let blockBits = bitsPerSample;
  for (let i = 1; i < bands; i++) {
    const bits = image.getBitsPerSample(i);
    if (planar !== 2) blockBits += bits;
    if (bits !== bitsPerSample || (image.getSampleFormat(i) ?? 1) !== sampleFormat) uniform = false;
  }
  const keys = image.getGeoKeys() as Record<string, unknown> | null;
  let transform: GeoTiffHeader['transform'] = null;
  let bbox: GeoTiffHeader['bbox'] = null;
  try {
    const [originX, originY] = image.getOrigin() as [number, number];
    const [resX, resY] = image.getResolution() as [number, number];
    transform = { originX, originY, resX, resY };
    bbox = image.getBoundingBox() as [number, number, number, number];
  } catch {
    // No affine transform: an ungeoreferenced TIFF.
  }
  const sx = transform?.resX ?? 0;
  const sy = transform?.resY ?? 0;
  const metadataXml = dir.hasTag('GDAL_METADATA') ? stripNuls(String((await dir.loadValue('GDAL_METADATA')) ?? '')) : '';
  checkDeclaredSize({ width, height, bands, blockBits, blockWidth, blockRows, planes, metadataChars: metadataXml.length });
  return {
    width,
    height,
    bands,
    dataType: uniform ? sampleTypeOf(bitsPerSample, sampleFormat) : null,
    bitsPerSample,
    sampleFormat,
    tiled: image.isTiled,
    imageCount: await countImages(tiff),
    littleEndian: tiff.littleEndian,
    compression: Number(dir.getValue('Compression') ?? 1),
    planar,
    blockRows,
    nodata: image.getGDALNoData(),
    geoKeys: keys,
    epsg: epsgOfGeoKeys(keys),
    geographic: isGeographic(keys),
    transform,
    squarePixels: sx > 0 && sy < 0 && Math.abs(Math.abs(sy) - sx) <= sx * 1e-9,
    bbox,
    metadataXml,
    metadata: parseGdalMetadata(metadataXml),
  };
}

/**
 * Opens `file` and reads its first image's header; the caller closes it. An abort rejects with an AbortError.
 * `content`: the file's whole content when the caller holds it already (a download's writer keeps the
 * bytes of a small file): the header is parsed from it and the file is not read.
 */
export async function openGeoTiff(file: string, signal: AbortSignal, content?: Uint8Array): Promise<OpenGeoTiff> {
  throwIfAborted(signal);
  // One open for all the header reads: geotiff.js's, the block check's and the caller's (raw).
  const raw = content ? TiffFile.of(file, content) : await TiffFile.open(file);
  let tiff: GeoTIFF;
  try {
    tiff = await geoTiffOf(raw, signal);
  } catch (e) {
    await raw.close();
    throw e;
  }
  const close = async () => {
    try {
      await tiff.close();
    } finally {
      await raw.close();
    }
  };
  try {
    const image = await tiff.getImage(0);
    const header = await describe(tiff, image);
    // Every strip and tile must lie inside the file (a truncated or hostile file is refused here, not mid-preview).
    await checkBlocksInFile(file, header.imageCount, raw);
    return { tiff, image, header, raw, close };
  } catch (e) {
    await close();
    if (signal.aborted) throw abortError(signal);
    throw e;
  }
}

/** The header of `file`'s first image (the file is closed again). */
export async function readGeoTiffHeader(file: string, signal: AbortSignal): Promise<GeoTiffHeader> {
  const open = await openGeoTiff(file, signal);
  await open.close();
  return open.header;
}
