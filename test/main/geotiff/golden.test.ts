/** Byte-for-byte regression check of every GeoTIFF writer in main (see EXPECTED). */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTiffLayout } from '../../../main/geotiff/index.js';
import { buildOverviewCopy } from '../../../main/library/overview.js';
import { writePyramid, type PyramidImage } from '../../../main/geotiff/index.js';
import { mosaicParts } from '../../../main/downloads/batch/mosaic.js';
import { gdalMetadataXml } from '../../../main/geotiff/index.js';
import { readPartRaster } from '../../../main/downloads/batch/raster-info.js';
import { FIXTURES, fixturePath } from '../../fixtures/rasters.js';
import { writeGeoTiff } from '../../../simulator/raster/index.js';
import { request, rect } from '../../simulator/raster/helpers.js';

function value(x: number, y: number, b: number, nodata: number): number {
  if ((x + y) % 97 === 0) return nodata;
  return ((x * 31 + y * 17 + b * 1000) % 20000) + 1;
}

function sha(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 16);
}

/** A striped, uncompressed GeoTIFF of the value pattern (one strip), as GDAL writes by default. */
async function stripedFile(file: string, width: number, height: number, bands: number, bits: 8 | 16, signed: boolean, nodata: number): Promise<void> {
  const layout = buildTiffLayout({
    levels: [{ width, height, tiled: false, tileSize: 0 }], samplesPerPixel: bands, bitsPerSample: bits, signed,
    geo: { epsg: 32633, geographic: false, originX: 400000, originY: 5900000, pixelSize: 10 }, nodata: String(nodata),
    metadataXml: '<GDALMetadata>\n  <Item name="IMAGE_DATE">2026-05-01</Item>\n</GDALMetadata>\n',
  });
  const n = width * height * bands;
  const data = bits === 8 ? new Uint8Array(n) : signed ? new Int16Array(n) : new Uint16Array(n);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) for (let b = 0; b < bands; b++) {
    const v = value(x, y, b, nodata);
    data[(y * width + x) * bands + b] = bits === 8 && v !== nodata ? v % 251 + 1 : v;
  }
  const fh = await open(file, 'w');
  await fh.write(layout.header, 0, layout.header.length, 0);
  await fh.write(Buffer.from(data.buffer, data.byteOffset, data.byteLength), 0, data.byteLength, layout.header.length);
  await fh.close();
}

function cogImage(width: number, height: number, bands: number, originX: number, originY: number, over: Partial<PyramidImage> = {}): PyramidImage {
  const items = Array.from({ length: bands }, (_, i) => ({ name: 'DESCRIPTION', value: `band-${i}`, sample: i, role: 'description' }));
  return {
    width, height, bands, dataType: 'INT16',
    geo: { epsg: 32633, geographic: false, originX, originY, pixelSize: 10 },
    metadataXml: gdalMetadataXml([{ name: 'IMAGE_DATE', value: '20260101', sample: null, role: null }, ...items]),
    ...over,
  };
}

async function writePattern(file: string, image: PyramidImage, gx: number, gy: number, chunkBytes?: number): Promise<void> {
  const nodata = image.nodata ?? (image.dataType === 'INT16' ? -32768 : 0);
  await writePyramid(file, image, async (rect, out) => {
    for (let y = 0; y < rect.height; y++) for (let x = 0; x < rect.width; x++) for (let b = 0; b < image.bands; b++) {
      const v = value(gx + rect.x + x, gy + rect.y + y, b, nodata);
      out[(y * rect.width + x) * image.bands + b] = image.dataType === 'UINT8' && v !== nodata ? v % 251 + 1 : v;
    }
  }, { signal: AbortSignal.timeout(60_000), chunkBytes });
}

async function produce(): Promise<Record<string, string>> {
  const dir = await mkdtemp(path.join(tmpdir(), 'swath-golden-'));
  try {
    return await produceIn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function produceIn(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const signal = AbortSignal.timeout(120_000);
  const copy = async (name: string, src: string, decimate: number): Promise<void> => {
    const dest = path.join(dir, `${name}-d${decimate}.tif`);
    try {
      await buildOverviewCopy(src, dest, { signal, decimate, durable: false });
      out[`overview ${name} d${decimate}`] = sha(dest);
    } catch (e) {
      out[`overview ${name} d${decimate}`] = `error: ${(e as Error).message.replace(src, '<src>')}`;
    }
  };
  for (const f of FIXTURES) for (const d of [1, 3]) await copy(f.name, fixturePath(f.name), d);
  const s1 = path.join(dir, 's1.tif');
  await stripedFile(s1, 3000, 2100, 3, 16, true, -32768);
  const s2 = path.join(dir, 's2.tif');
  await stripedFile(s2, 1500, 900, 1, 16, false, 0);
  const s3 = path.join(dir, 's3.tif');
  await stripedFile(s3, 2300, 1700, 2, 8, false, 0);
  for (const [name, f] of [['s1', s1], ['s2', s2], ['s3', s3]] as const) for (const d of [1, 4]) await copy(name, f, d);

  const c1 = path.join(dir, 'c1.tif');
  // Uncompressed (compress: false): the bytes of the writer before compression, still pinned.
  await writePattern(c1, cogImage(1300, 1100, 3, 500000, 5800000, { compress: false }), 0, 0, 2 * 512 * 512 * 6);
  const c2 = path.join(dir, 'c2.tif');
  await writePattern(c2, cogImage(700, 600, 2, 500000, 5800000, { dataType: 'UINT8', compress: false }), 0, 0);
  const c3 = path.join(dir, 'c3.tif');
  await writePattern(c3, cogImage(300, 200, 2, 500000, 5800000, { bigTiff: true, compress: false }), 0, 0);
  const c4 = path.join(dir, 'c4.tif');
  await writePattern(c4, cogImage(1200, 700, 2, 506000, 5795000, { compress: false }), 600, 500);
  for (const [name, f] of [['c1', c1], ['c2', c2], ['c3', c3], ['c4', c4]] as const) out[`cog ${name}`] = sha(f);
  // The same images DEFLATE-compressed (the writer's default).
  for (const [name, img] of [['c1', cogImage(1300, 1100, 3, 500000, 5800000)], ['c2', cogImage(700, 600, 2, 500000, 5800000, { dataType: 'UINT8' })], ['c3', cogImage(300, 200, 2, 500000, 5800000, { bigTiff: true })]] as const) {
    const f = path.join(dir, `${name}-deflate.tif`);
    await writePattern(f, { ...img, compress: true }, 0, 0);
    out[`cog ${name} deflate`] = sha(f);
  }
  const f32 = path.join(dir, 'f32-deflate.tif');
  await writePattern(f32, cogImage(623, 510, 1, 500000, 5800000, { dataType: 'FLOAT32', nodata: -9999, compress: true }), 0, 0);
  out['cog float32 deflate'] = sha(f32);

  const m1 = path.join(dir, 'm1.tif');
  const parts = await Promise.all([c1, c4].map((f) => readPartRaster(f, signal)));
  await mosaicParts(parts.map((raster) => ({ raster, bandIndices: null })), m1, { signal });
  out['mosaic offset'] = sha(m1);
  const m2 = path.join(dir, 'm2.tif');
  const fx = await Promise.all(['utm33n-cog', 'utm33n-striped'].map((n) => readPartRaster(fixturePath(n), signal)));
  await mosaicParts(fx.map((raster) => ({ raster, bandIndices: null })), m2, { signal, chunkBytes: 1 });
  out['mosaic fixtures'] = sha(m2);
  const m3 = path.join(dir, 'm3.tif');
  const split = await Promise.all([c4, c1].map((f) => readPartRaster(f, signal)));
  await mosaicParts([{ raster: split[0]!, bandIndices: [3, 1] }, { raster: split[1]!, bandIndices: [0, 2, 4] }], m3, { signal });
  out['mosaic band-split'] = sha(m3);
  const sims = {
    'sim 4326 small': request({ aoi: rect(13.40, 52.50, 13.42, 52.51) }),
    'sim utm tiled': request({ aoi: rect(13.30, 52.40, 13.50, 52.55), epsg: 32633, resolution: 20 }),
    'sim uint8 big': request({ aoi: rect(13.30, 52.40, 13.45, 52.50), epsg: 3857, resolution: 15, dataType: 'UINT8', pixelSelection: 'contained' }),
  };
  for (const [name, req] of Object.entries(sims)) {
    const f = path.join(dir, `${name.replace(/ /g, '-')}.tif`);
    await writeGeoTiff(req, f, { bigTiff: name.endsWith('big') });
    out[name] = sha(f);
  }
  return out;
}

/**
 * SHA-256 prefixes of what the writers produce. The uncompressed files (the overview copies, the
 * batch COGs c1-c4 with compress: false) are byte-for-byte those of the writers main/geotiff
 * replaced (commit 23f236b). The DEFLATE-compressed ones (predictor 2 for integers, 3 for FLOAT32:
 * the compressed COGs, the mosaics, the simulator's rasters) are the current writer's, at its
 * chosen level, memLevel and block order; their pixels are checked against GDAL's reading in pyramid.test.ts
 * and simulator/raster/geotiff.test.ts. They depend on Node's bundled zlib: a Node upgrade that
 * changes zlib's output changes them.
 */
const EXPECTED: Record<string, string> = {
  'overview utm33n-cog d1': '968c0a2f1e8c387f',
  'overview utm33n-cog d3': '3a739fc5fe8be2b6',
  'overview utm33n-striped d1': '968c0a2f1e8c387f',
  'overview utm33n-striped d3': '3a739fc5fe8be2b6',
  'overview mercator-rgb-uint8 d1': '62f2fa9cfd9bc623',
  'overview mercator-rgb-uint8 d3': '725e50989828c909',
  'overview wgs84-ndvi-index d1': '61ca223a41eaea49',
  'overview wgs84-ndvi-index d3': '0f38ae94aff0db60',
  'overview lambert93-2154 d1': 'adb895dcd26daae2',
  'overview lambert93-2154 d3': '68ea77bdc5bfa711',
  'overview utm33n-raw-cog d1': '438860b6de838133',
  'overview utm33n-raw-cog d3': 'fd7e16337ea2e39a',
  'overview utm56s-sydney d1': 'f8780e9f43278fa1',
  'overview utm56s-sydney d3': '2fbbee28e1936ff2',
  'overview s1 d1': '64e4a73ced886274',
  'overview s1 d4': 'b660f680a79398a6',
  'overview s2 d1': '7714ad1453c50546',
  'overview s2 d4': 'bd43a50536cec7c9',
  'overview s3 d1': '98a4e0c0aa833f2c',
  'overview s3 d4': '810076206f86f69c',
  'cog c1': 'c1ce0d336cc1b33d',
  'cog c2': '134c2f88adcbb21f',
  'cog c3': 'acac7ec9ddb6d3e5',
  'cog c4': '0cdeb34d30e8a802',
  'cog c1 deflate': '9821b508bd9ab6a1',
  'cog c2 deflate': 'acddf6d2fa78ed92',
  'cog c3 deflate': '4eecfd32eb88e448',
  'cog float32 deflate': '4b63f95e53021420',
  'mosaic offset': '185477f501ee83c0',
  'mosaic fixtures': '08733eab96dc455c',
  'mosaic band-split': '798dcced6ed404bd',
  'sim 4326 small': 'd1012b2b2fb71129',
  'sim utm tiled': '07a8588db5428133',
  'sim uint8 big': '836fc7475d74f76a',
};

describe('GeoTIFF writers against the files of the writers they replaced', () => {
  it('write byte-for-byte the same overview copies, COGs, mosaics and simulator rasters', async () => {
    expect(await produce()).toEqual(EXPECTED);
  });
});
