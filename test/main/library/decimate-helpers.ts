import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fromFile } from 'geotiff';
import { buildTiffLayout } from '../../../main/geotiff/index.js';

// Helpers of the quick-look tests: whole-image reads with geotiff.js, the decimation and 2x
// average computed independently of main/library/overview.ts, and GeoTIFFs written with the
// project's own TIFF writer (so the tests that need odd sizes or a single strip run without GDAL).

export const HAS_GDAL = spawnSync('gdalinfo', ['--version']).status === 0;

type Samples = Uint8Array | Int16Array | Uint16Array;

/** One level of a GeoTIFF as geotiff.js decodes it, pixel-interleaved. */
export interface Decoded {
  width: number;
  height: number;
  bands: number;
  data: Samples;
}

/** Level 0 plus what the copy must carry over from the source. */
export interface DecodedFile extends Decoded {
  levels: { width: number; height: number }[];
  tiled: boolean;
  tileWidth: number;
  origin: number[];
  resolution: number[];
  nodata: number | null;
  epsg: number | undefined;
  descriptions: (string | undefined)[];
}

/** Decodes one level of `file` (pixel-interleaved, whatever the file's layout). */
export async function readLevel(file: string, level = 0): Promise<Decoded> {
  const tiff = await fromFile(file);
  try {
    const img = await tiff.getImage(level);
    const data = (await img.readRasters({ interleave: true })) as unknown as Samples;
    return { width: img.getWidth(), height: img.getHeight(), bands: img.getSamplesPerPixel(), data };
  } finally {
    await tiff.close();
  }
}

/** Decodes level 0 of `file` with its georeferencing, nodata, band descriptions and the sizes of every level. */
export async function readFile(file: string): Promise<DecodedFile> {
  const tiff = await fromFile(file);
  try {
    const count = await tiff.getImageCount();
    const levels: { width: number; height: number }[] = [];
    for (let i = 0; i < count; i++) {
      const im = await tiff.getImage(i);
      levels.push({ width: im.getWidth(), height: im.getHeight() });
    }
    const img = await tiff.getImage(0);
    const data = (await img.readRasters({ interleave: true })) as unknown as Samples;
    const keys = (img.getGeoKeys() ?? {}) as Record<string, number | undefined>;
    const descriptions: (string | undefined)[] = [];
    for (let b = 0; b < img.getSamplesPerPixel(); b++) {
      const d = (await img.getGDALMetadata(b))?.DESCRIPTION;
      descriptions.push(d === undefined ? undefined : String(d));
    }
    return {
      width: img.getWidth(), height: img.getHeight(), bands: img.getSamplesPerPixel(), data, levels,
      tiled: img.isTiled, tileWidth: img.isTiled ? img.getTileWidth() : 0,
      origin: img.getOrigin(), resolution: img.getResolution(), nodata: img.getGDALNoData(),
      epsg: keys.ProjectedCSTypeGeoKey ?? keys.GeographicTypeGeoKey, descriptions,
    };
  } finally {
    await tiff.close();
  }
}

/** The source index sampled for output index `i` at factor `f`, per the documented formula. */
export function sampled(i: number, f: number, size: number): number {
  return Math.min(size - 1, Math.floor((i + 0.5) * f));
}

/** Nearest decimation by `f`, written from the formula (not from the implementation). */
export function decimateExpected(src: Decoded, f: number): Decoded {
  const width = Math.ceil(src.width / f);
  const height = Math.ceil(src.height / f);
  const nb = src.bands;
  const data = new (src.data.constructor as new (n: number) => Samples)(width * height * nb);
  for (let y = 0; y < height; y++) {
    const sy = sampled(y, f, src.height);
    for (let x = 0; x < width; x++) {
      const sx = sampled(x, f, src.width);
      for (let b = 0; b < nb; b++) data[(y * width + x) * nb + b] = src.data[(sy * src.width + sx) * nb + b]!;
    }
  }
  return { width, height, bands: nb, data };
}

/** 2x2 average of the valid (non-nodata) pixels, rounded; all-nodata blocks stay nodata. */
export function average2xExpected(src: Decoded, nodata: number): Decoded {
  const width = Math.ceil(src.width / 2);
  const height = Math.ceil(src.height / 2);
  const nb = src.bands;
  const data = new (src.data.constructor as new (n: number) => Samples)(width * height * nb);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      for (let b = 0; b < nb; b++) {
        let sum = 0;
        let n = 0;
        for (const [dx, dy] of [[0, 0], [1, 0], [0, 1], [1, 1]] as const) {
          const sx = 2 * x + dx;
          const sy = 2 * y + dy;
          if (sx >= src.width || sy >= src.height) continue;
          const v = src.data[(sy * src.width + sx) * nb + b]!;
          if (v !== nodata) {
            sum += v;
            n++;
          }
        }
        data[(y * width + x) * nb + b] = n === 0 ? nodata : Math.round(sum / n);
      }
    }
  }
  return { width, height, bands: nb, data };
}

/** Null when both images are equal; else the size difference or the first differing sample (and how many differ). */
export function difference(got: Decoded, want: Decoded): string | null {
  if (got.width !== want.width || got.height !== want.height || got.bands !== want.bands) {
    return `size ${got.width}x${got.height}x${got.bands}, expected ${want.width}x${want.height}x${want.bands}`;
  }
  if (got.data.length !== want.data.length) return `${got.data.length} samples, expected ${want.data.length}`;
  let first = -1;
  let count = 0;
  for (let i = 0; i < want.data.length; i++) {
    if (got.data[i] !== want.data[i]) {
      if (first < 0) first = i;
      count++;
    }
  }
  if (first < 0) return null;
  const px = Math.floor(first / want.bands);
  return `${count} samples differ; first at x=${px % want.width} y=${Math.floor(px / want.width)} band ${first % want.bands}: ${got.data[first]} instead of ${want.data[first]}`;
}

/** What {@link writeTestTiff} writes. */
export interface TestTiffSpec {
  width: number;
  height: number;
  bands: number;
  dataType: 'UINT8' | 'UINT16' | 'INT16';
  /** Tile edge for a tiled file without overviews; a single strip when absent. */
  tile?: number;
  nodata: number;
  /** Sample value of band b at (x, y); a nodata triangle is added in the top-left corner. */
  value?: (x: number, y: number, b: number) => number;
}

export const TEST_GEO = { epsg: 32633, geographic: false, originX: 390000, originY: 5826000, pixelSize: 20 };
export const TEST_DESCRIPTIONS = ['red', 'green', 'blue', 'nir'];

/** A value pattern where nearby pixels differ (so a row or column off by one is visible). */
export function patternValue(dataType: TestTiffSpec['dataType']): (x: number, y: number, b: number) => number {
  if (dataType === 'UINT8') return (x, y, b) => 1 + ((x * 7 + y * 13 + b * 29) % 250);
  if (dataType === 'UINT16') return (x, y, b) => 1 + ((x * 131 + y * 1031 + b * 7919) % 60000);
  return (x, y, b) => -20000 + ((x * 131 + y * 1031 + b * 7919) % 50000);
}

/**
 * Writes an uncompressed, pixel-interleaved, little-endian GeoTIFF (EPSG:32633, 20 m pixels, band
 * descriptions in GDAL_METADATA) with the project's TIFF writer: one strip, or tiles without overviews.
 */
export function writeTestTiff(file: string, spec: TestTiffSpec): void {
  const { width, height, bands: nb, dataType, nodata } = spec;
  const value = spec.value ?? patternValue(dataType);
  const bytes = dataType === 'UINT8' ? 1 : 2;
  const xml = `<GDALMetadata>${Array.from({ length: nb }, (_, b) => `<Item name="DESCRIPTION" sample="${b}" role="description">${TEST_DESCRIPTIONS[b] ?? `b${b}`}</Item>`).join('')}</GDALMetadata>`;
  const layout = buildTiffLayout({
    levels: [{ width, height, tiled: spec.tile !== undefined, tileSize: spec.tile ?? 0 }],
    samplesPerPixel: nb,
    bitsPerSample: bytes === 1 ? 8 : 16,
    signed: dataType === 'INT16',
    geo: TEST_GEO,
    nodata: String(nodata),
    metadataXml: xml,
  });
  const buf = Buffer.alloc(layout.totalBytes);
  layout.header.copy(buf, 0);
  const L = layout.levels[0]!;
  const put = (at: number, v: number): void => {
    if (dataType === 'UINT8') buf.writeUInt8(v, at);
    else if (dataType === 'UINT16') buf.writeUInt16LE(v, at);
    else buf.writeInt16LE(v, at);
  };
  const sample = (x: number, y: number, b: number): number => (x + y < 17 ? nodata : value(x, y, b));
  if (spec.tile === undefined) {
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        for (let b = 0; b < nb; b++) put(L.dataOffset + ((y * width + x) * nb + b) * bytes, sample(x, y, b));
      }
    }
  } else {
    const t = spec.tile;
    for (let by = 0; by < L.blocksDown; by++) {
      for (let bx = 0; bx < L.blocksAcross; bx++) {
        const base = L.dataOffset + (by * L.blocksAcross + bx) * L.blockBytes;
        for (let r = 0; r < t; r++) {
          for (let c = 0; c < t; c++) {
            const x = bx * t + c;
            const y = by * t + r;
            for (let b = 0; b < nb; b++) put(base + ((r * t + c) * nb + b) * bytes, x < width && y < height ? sample(x, y, b) : nodata);
          }
        }
      }
    }
  }
  writeFileSync(file, buf);
}
