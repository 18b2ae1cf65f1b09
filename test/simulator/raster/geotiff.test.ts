import { execFileSync } from 'node:child_process';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Polygon } from 'geojson';
import { fromFile } from 'geotiff';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planRaster, writeGeoTiff, type RasterRequest } from '../../../simulator/raster/index.js';
import { getProjection } from '../../../common/grid/projection.js';
import { cogReport, gdalSamples } from '../../main/geotiff/cog-validator.js';
import { firstDifference } from '../../main/downloads/batch/helpers.js';
import { HAS_GDAL, bands, gdalPixel, gdalPixels, gdalinfo, readStructure, readWindow, rect, request, tempDir } from './helpers.js';

const HOLE = rect(15.07, 50.045, 15.08, 50.055);
const DIAMOND: Polygon = {
  type: 'Polygon',
  coordinates: [[[15.05, 50], [15.1, 50.03], [15.05, 50.06], [15, 50.03], [15.05, 50]]],
};

interface Case {
  req: RasterRequest;
  tiled: boolean;
  overviews: number;
}

const CASES: Record<string, Case> = {
  utm: {
    req: request({
      aoi: { type: 'Polygon', coordinates: [rect(15, 50, 15.15, 50.1).coordinates[0]!, HOLE.coordinates[0]!] },
      epsg: 32633,
      resolution: 10,
      bands: bands('B4,B3,B2,ndvi'),
    }),
    tiled: true,
    overviews: 2,
  },
  geo: { req: request({ aoi: rect(15, 50, 15.05, 50.03), epsg: 4326, resolution: 20 }), tiled: false, overviews: 0 },
  merc: { req: request({ aoi: rect(15, 50, 15.2, 50.1), epsg: 3857, resolution: 40, bands: bands('all') }), tiled: true, overviews: 1 },
  south: {
    req: request({ aoi: rect(15, -30.1, 15.1, -30), epsg: 32733, resolution: 20, date: '2024-01-10', bands: bands('B8,[B8_B11]') }),
    tiled: true,
    overviews: 1,
  },
  uint8: {
    req: request({ aoi: DIAMOND, epsg: 32633, resolution: 20, dataType: 'UINT8', bands: bands('rgb') }),
    tiled: false,
    overviews: 0,
  },
  intersect: { req: request({ aoi: DIAMOND, epsg: 32633, resolution: 20, pixelSelection: 'intersect' }), tiled: false, overviews: 0 },
  contained: { req: request({ aoi: DIAMOND, epsg: 32633, resolution: 20, pixelSelection: 'contained' }), tiled: false, overviews: 0 },
};

let dir = '';
const files: Record<string, string> = {};
const written: Record<string, { bytes: number; width: number; height: number }> = {};

beforeAll(async () => {
  dir = await tempDir();
  for (const [name, c] of Object.entries(CASES)) {
    files[name] = join(dir, `${name}.tif`);
    written[name] = await writeGeoTiff(c.req, files[name]!);
  }
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function planOf(req: RasterRequest): Exclude<ReturnType<typeof planRaster>, { error: string }> {
  const p = planRaster(req);
  if ('error' in p) throw new Error(p.error);
  return p;
}

/** Pixel (column, row) containing lon/lat in the output of req. */
function pixelAt(req: RasterRequest, lon: number, lat: number): [number, number] {
  const p = planOf(req);
  const [x, y] = getProjection(req.epsg)!.forward(lon, lat);
  return [Math.floor((x - p.bounds.minX) / p.pixelSize), Math.floor((p.bounds.maxY - y) / p.pixelSize)];
}

function envelopeOf(req: RasterRequest): { minX: number; minY: number; maxX: number; maxY: number } {
  const proj = getProjection(req.epsg)!;
  const env = { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
  const rings = req.aoi.type === 'Polygon' ? [req.aoi.coordinates[0]!] : req.aoi.coordinates.map((p) => p[0]!);
  for (const ring of rings) {
    for (let i = 1; i < ring.length; i++) {
      // Edges are sampled densely here, independently of the writer's own densification.
      for (let k = 0; k <= 50; k++) {
        const lon = ring[i - 1]![0]! + ((ring[i]![0]! - ring[i - 1]![0]!) * k) / 50;
        const lat = ring[i - 1]![1]! + ((ring[i]![1]! - ring[i - 1]![1]!) * k) / 50;
        const [x, y] = proj.forward(lon, lat);
        env.minX = Math.min(env.minX, x);
        env.maxX = Math.max(env.maxX, x);
        env.minY = Math.min(env.minY, y);
        env.maxY = Math.max(env.maxY, y);
      }
    }
  }
  return env;
}

async function validCount(file: string, nodata: number): Promise<{ count: number; mask: Uint8Array }> {
  const r = await readWindow(file);
  const mask = new Uint8Array(r.width * r.height);
  let count = 0;
  for (let i = 0; i < mask.length; i++) {
    if (r.data[i * r.samples] !== nodata) {
      mask[i] = 1;
      count++;
    }
  }
  return { count, mask };
}

describe('GeoTIFF output read back with geotiff.js', () => {
  for (const [name, c] of Object.entries(CASES)) {
    it(`${name}: structure, georeferencing and tags`, async () => {
      const plan = planOf(c.req);
      const file = files[name]!;
      const st = await stat(file);
      // DEFLATE-compressed: the plan's size is the uncompressed one, the file much smaller.
      expect(st.size).toBeLessThan(plan.estimatedBytes / 2);
      expect(written[name]).toEqual({ bytes: st.size, width: plan.width, height: plan.height });
      expect(plan.overviews).toBe(c.overviews);

      const tiff = await fromFile(file);
      try {
        expect(await tiff.getImageCount()).toBe(1 + c.overviews);
        const img = await tiff.getImage(0);
        const int16 = c.req.dataType === 'INT16';
        expect([img.getWidth(), img.getHeight()]).toEqual([plan.width, plan.height]);
        expect(img.getSamplesPerPixel()).toBe(c.req.bands.length);
        for (let s = 0; s < c.req.bands.length; s++) {
          expect(img.getBitsPerSample(s)).toBe(int16 ? 16 : 8);
          expect(img.getSampleFormat(s)).toBe(int16 ? 2 : 1);
        }
        expect(img.getGDALNoData()).toBe(int16 ? -32768 : 0);
        expect(img.getOrigin().slice(0, 2)).toEqual([plan.bounds.minX, plan.bounds.maxY]);
        const [rx, ry] = img.getResolution();
        expect(rx).toBeCloseTo(plan.pixelSize, 12);
        expect(ry).toBeCloseTo(-plan.pixelSize, 12);
        const keys = img.getGeoKeys() as Record<string, number>;
        expect(keys.GTRasterTypeGeoKey).toBe(1);
        if (c.req.epsg === 4326) {
          expect(keys.GTModelTypeGeoKey).toBe(2);
          expect(keys.GeographicTypeGeoKey).toBe(4326);
        } else {
          expect(keys.GTModelTypeGeoKey).toBe(1);
          expect(keys.ProjectedCSTypeGeoKey).toBe(c.req.epsg);
        }
        const md = (await img.getGDALMetadata()) as Record<string, string>;
        expect(md).toMatchObject({
          IMAGE_DATE: '20240701',
          MODEL_VERSION: 'model-7',
          IMAGE_VERSION: 'img-3',
          CONSTELLATIONS: 'Sentinel2,Landsat89',
        });
        if (c.tiled) {
          expect(img.getTileWidth()).toBe(512);
          expect(img.getTileHeight()).toBe(512);
          let w = plan.width;
          let h = plan.height;
          for (let o = 1; o <= c.overviews; o++) {
            const ov = await tiff.getImage(o);
            w = Math.ceil(plan.width / 2 ** o);
            h = Math.ceil(plan.height / 2 ** o);
            expect([ov.getWidth(), ov.getHeight()]).toEqual([w, h]);
            expect(ov.getTileWidth()).toBe(512);
          }
          expect(Math.max(w, h)).toBeLessThanOrEqual(512);
        }
      } finally {
        await tiff.close();
      }

      // The output covers the AOI's projected envelope, overshooting by less than one pixel.
      const env = envelopeOf(c.req);
      const tol = plan.pixelSize * 1e-3;
      expect(plan.bounds.minX).toBeLessThanOrEqual(env.minX + tol);
      expect(plan.bounds.minY).toBeLessThanOrEqual(env.minY + tol);
      expect(plan.bounds.maxX).toBeGreaterThanOrEqual(env.maxX - tol);
      expect(plan.bounds.maxY).toBeGreaterThanOrEqual(env.maxY - tol);
      expect(env.minX - plan.bounds.minX).toBeLessThan(plan.pixelSize);
      expect(env.minY - plan.bounds.minY).toBeLessThan(plan.pixelSize);
      expect(plan.bounds.maxX - env.maxX).toBeLessThan(plan.pixelSize);
      expect(plan.bounds.maxY - env.maxY).toBeLessThan(plan.pixelSize);
    });
  }

  it('utm: Cloud Optimized layout (IFDs first, smallest overview data first, full resolution last), DEFLATE with predictor 2', () => {
    const s = readStructure(files.utm!);
    expect(s.bigTiff).toBe(false);
    expect(s.ifds).toHaveLength(3);
    const spp = CASES.utm!.req.bands.length;
    const firstData: number[] = [];
    s.ifds.forEach((ifd, i) => {
      expect(ifd.tags.get(254)).toEqual([i === 0 ? 0 : 1]);
      expect(ifd.tags.get(284)).toEqual([1]);
      expect(ifd.tags.get(259)).toEqual([8]); // Adobe DEFLATE
      expect(ifd.tags.get(317)).toEqual([2]); // horizontal differencing (integers)
      expect(ifd.tags.get(322)).toEqual([512]);
      expect(ifd.tags.get(323)).toEqual([512]);
      expect(ifd.tags.get(339)).toEqual(new Array(spp).fill(2));
      expect(ifd.tags.get(258)).toEqual(new Array(spp).fill(16));
      expect(ifd.tags.get(338)).toEqual(new Array(spp - 1).fill(0));
      expect(ifd.tags.get(42113)).toBe('-32768');
      const offsets = ifd.tags.get(324) as number[];
      const counts = ifd.tags.get(325) as number[];
      const w = ifd.tags.get(256) as number[];
      const h = ifd.tags.get(257) as number[];
      expect(offsets).toHaveLength(Math.ceil(w[0]! / 512) * Math.ceil(h[0]! / 512));
      // Bytes, not time: every stored tile is smaller than its raw 512×512×spp INT16 block, so it was compressed.
      for (const c of counts) expect(c).toBeLessThan(512 * 512 * spp * 2);
      // Tiles are stored row-major and contiguously.
      offsets.forEach((o, k) => expect(o).toBe(offsets[0]! + counts.slice(0, k).reduce((a, b) => a + b, 0)));
      firstData.push(offsets[0]!);
    });
    const minData = Math.min(...firstData);
    for (const o of s.ifdOffsets) expect(o).toBeLessThan(minData);
    expect(firstData[2]).toBeLessThan(firstData[1]!);
    expect(firstData[1]).toBeLessThan(firstData[0]!);
    const last = s.ifds[0]!.tags.get(324) as number[];
    const lastCounts = s.ifds[0]!.tags.get(325) as number[];
    expect(last[last.length - 1]! + lastCounts[lastCounts.length - 1]!).toBe(s.size); // full resolution's last tile ends the file
    // Geo tags only on the full-resolution image, GDAL style.
    expect(s.ifds[0]!.tags.has(33550)).toBe(true);
    expect(s.ifds[1]!.tags.has(33550)).toBe(false);
  });

  it('the hole and the outside of the AOI are nodata, the inside is not', async () => {
    const req = CASES.utm!.req;
    const [hx, hy] = pixelAt(req, 15.075, 50.05);
    const [ix, iy] = pixelAt(req, 15.03, 50.02);
    const r = await readWindow(files.utm!);
    const v = (x: number, y: number): number => r.data[(y * r.width + x) * r.samples]!;
    expect(v(hx, hy)).toBe(-32768);
    expect(v(ix, iy)).not.toBe(-32768);
    // Tile padding and area beyond the diamond stay nodata too.
    const d = await readWindow(files.intersect!);
    expect(d.data[0]).toBe(-32768);
    expect(d.data[(d.width * d.height - 1) * d.samples]).toBe(-32768);
    const [cx, cy] = pixelAt(CASES.intersect!.req, 15.05, 50.03);
    expect(d.data[(cy * d.width + cx) * d.samples]).not.toBe(-32768);
  });

  it('contained selects fewer pixels than intersect, and only pixels intersect also selects', async () => {
    const inter = await validCount(files.intersect!, -32768);
    const cont = await validCount(files.contained!, -32768);
    expect(planOf(CASES.contained!.req).bounds).toEqual(planOf(CASES.intersect!.req).bounds);
    expect(cont.count).toBeGreaterThan(0.9 * inter.count);
    expect(cont.count).toBeLessThan(inter.count);
    let outside = 0;
    for (let i = 0; i < cont.mask.length; i++) if (cont.mask[i] && !inter.mask[i]) outside++;
    expect(outside).toBe(0);
    // Same landscape regardless of the selection mode.
    const a = await readWindow(files.intersect!);
    const b = await readWindow(files.contained!);
    let same = 0;
    for (let i = 0; i < cont.mask.length; i++) if (cont.mask[i] && a.data[i * 4] === b.data[i * 4]) same++;
    expect(same).toBe(cont.count);
  });

  it('uint8: values in 1..255 inside, 0 outside', async () => {
    const r = await readWindow(files.uint8!);
    const inter = await validCount(files.intersect!, -32768);
    let valid = 0;
    let bad = 0;
    for (let i = 0; i < r.width * r.height; i++) {
      const px = [r.data[i * 3]!, r.data[i * 3 + 1]!, r.data[i * 3 + 2]!];
      if (px[0] === 0) {
        if (px[1] !== 0 || px[2] !== 0 || inter.mask[i]) bad++;
      } else {
        valid++;
        if (px.some((p) => p < 1 || p > 255) || !inter.mask[i]) bad++;
      }
    }
    expect(bad).toBe(0);
    expect(valid).toBe(inter.count);
  });
});

describe.skipIf(!HAS_GDAL)('GeoTIFF output read back with GDAL', () => {
  for (const [name, c] of Object.entries(CASES)) {
    it(`${name}: gdalinfo agrees with the request`, () => {
      const plan = planOf(c.req);
      const info = gdalinfo(files[name]!);
      expect(info.stac?.['proj:epsg']).toBe(c.req.epsg);
      expect(info.size).toEqual([plan.width, plan.height]);
      const gt = info.geoTransform;
      expect(gt[0]).toBeCloseTo(plan.bounds.minX, 9);
      expect(gt[3]).toBeCloseTo(plan.bounds.maxY, 9);
      expect(gt[1]).toBeCloseTo(plan.pixelSize, 12);
      expect(gt[5]).toBeCloseTo(-plan.pixelSize, 12);
      expect([gt[2], gt[4]]).toEqual([0, 0]);
      expect(info.metadata['']).toMatchObject({
        IMAGE_DATE: '20240701',
        MODEL_VERSION: 'model-7',
        IMAGE_VERSION: 'img-3',
        CONSTELLATIONS: 'Sentinel2,Landsat89',
        AREA_OR_POINT: 'Area',
      });
      expect(info.metadata.IMAGE_STRUCTURE?.INTERLEAVE).toBe('PIXEL');
      expect(info.bands).toHaveLength(c.req.bands.length);
      const int16 = c.req.dataType === 'INT16';
      info.bands.forEach((b, i) => {
        const spec = c.req.bands[i]!;
        expect(b.type).toBe(int16 ? 'Int16' : 'Byte');
        expect(b.noDataValue).toBe(int16 ? -32768 : 0);
        expect(b.description).toBe(spec.name);
        if (int16) expect(b.scale).toBeCloseTo(spec.kind === 'index' ? 1 / 32767 : 0.0001, 12);
        else expect(b.scale).toBeCloseTo(0.4 / 255, 12);
        if (c.tiled) {
          expect(b.block).toEqual([512, 512]);
          expect(b.overviews?.map((o) => o.size)).toEqual(
            Array.from({ length: c.overviews }, (_, k) => [Math.ceil(plan.width / 2 ** (k + 1)), Math.ceil(plan.height / 2 ** (k + 1))]),
          );
        } else {
          expect(b.overviews ?? []).toEqual([]);
        }
      });
    });

    it(`${name}: GDAL decodes every block without errors`, () => {
      const out = execFileSync('gdalinfo', ['-checksum', files[name]!], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      expect(out).toMatch(/Checksum=\d+/);
      expect(out).not.toMatch(/ERROR/i);
    });
  }

  it('gdallocationinfo matches geotiff.js at several pixels, including nodata', async () => {
    for (const name of ['utm', 'merc', 'south', 'uint8', 'geo']) {
      const file = files[name]!;
      const { width, height } = written[name]!;
      const pts: [number, number][] = [
        [0, 0],
        [Math.floor(width / 2), Math.floor(height / 2)],
        [width - 1, height - 1],
        [Math.floor(width / 3), Math.floor((2 * height) / 3)],
        [Math.min(width - 1, 600), Math.min(height - 1, 530)],
      ];
      // geotiff.js reads each pixel alone (a 1 x 1 window: only its block is decoded).
      const mine = await Promise.all(pts.map(async ([x, y]) => Array.from((await readWindow(file, [x, y, x + 1, y + 1])).data)));
      expect(gdalPixels(file, pts)).toEqual(mine);
    }
    const [hx, hy] = pixelAt(CASES.utm!.req, 15.075, 50.05);
    expect(gdalPixel(files.utm!, hx, hy)).toEqual([-32768, -32768, -32768, -32768]);
  });

  it('overview pixels read by GDAL match geotiff.js', async () => {
    const ov = await readWindow(files.utm!, undefined, 1);
    const x = Math.floor(ov.width / 2);
    const y = Math.floor(ov.height / 3);
    // gdallocationinfo takes full-resolution pixel coordinates even when querying an overview.
    const args = ['-valonly', '-overview', '1', files.utm!, String(2 * x), String(2 * y)];
    const out = execFileSync('gdallocationinfo', args, { encoding: 'utf8' });
    const mine = Array.from({ length: ov.samples }, (_, s) => ov.data[(y * ov.width + x) * ov.samples + s]!);
    expect(out.trim().split(/\s+/).map(Number)).toEqual(mine);
  });
});

/**
 * numpy's nodata-aware 2x2 means of each level (the last column and row may have a single parent),
 * rounded half up, against the next level as GDAL reads it: the samples that differ, per overview.
 */
const MEANS_PY = `
import sys
import numpy as np
from osgeo import gdal
ds = gdal.Open(sys.argv[1])
nodata = ds.GetRasterBand(1).GetNoDataValue()
def level(k):
    bands = [ds.GetRasterBand(b + 1) for b in range(ds.RasterCount)]
    return np.stack([(b if k == 0 else b.GetOverview(k - 1)).ReadAsArray().astype(np.float64) for b in bands])
out = []
for k in range(ds.GetRasterBand(1).GetOverviewCount()):
    p, c = level(k), level(k + 1)
    h, w = c.shape[1], c.shape[2]
    q = np.full((p.shape[0], 2 * h, 2 * w), nodata)
    q[:, :p.shape[1], :p.shape[2]] = p
    blocks = q.reshape(p.shape[0], h, 2, w, 2)
    valid = blocks != nodata
    n = valid.sum(axis=(2, 4))
    s = np.where(valid, blocks, 0).sum(axis=(2, 4))
    mean = np.where(n > 0, np.floor(s / np.maximum(n, 1) + 0.5), nodata)
    out.append(f"{int((mean != c).sum())}/{c.size}")
print(" ".join(out))
`;

describe.skipIf(!HAS_GDAL)('demo composite overviews', () => {
  it('are the nodata-aware 2x2 means of the level above, as numpy computes them', () => {
    for (const name of ['utm', 'merc', 'south'] as const) {
      const out = execFileSync('/usr/bin/python3', ['-c', MEANS_PY, files[name]!], { encoding: 'utf8' }).trim().split(' ');
      expect(out, name).toHaveLength(CASES[name]!.overviews);
      for (const o of out) expect(o, name).toMatch(/^0\/[1-9]\d*$/);
    }
  });
});

describe.skipIf(!HAS_GDAL)('compressed demo composites (DEFLATE, predictor 2)', () => {
  it('pass GDAL\'s COG validator, hold the pixels of the uncompressed file in every level, and are smaller', async () => {
    const sizes: string[] = [];
    for (const name of ['utm', 'uint8'] as const) {
      const raw = join(dir, `${name}-raw.tif`);
      const rawWritten = await writeGeoTiff(CASES[name]!.req, raw, { compress: false });
      const zipped = files[name]!;
      const report = cogReport(zipped);
      expect(report.valid, report.output).toBe(true);
      expect(cogReport(raw).valid).toBe(true);
      const info = gdalinfo(zipped) as unknown as { metadata: Record<string, Record<string, string>> };
      expect(info.metadata.IMAGE_STRUCTURE).toMatchObject({ COMPRESSION: 'DEFLATE', PREDICTOR: '2' });
      // Every band and overview: GDAL's checksums of the compressed file equal the uncompressed one's.
      const checksums = (f: string) => execFileSync('gdalinfo', ['-checksum', f], { encoding: 'utf8' }).split('\n').filter((l) => /Checksum=|Overviews checksum/.test(l)).map((l) => l.trim());
      const zc = checksums(zipped);
      expect(zc.length).toBeGreaterThanOrEqual(CASES[name]!.req.bands.length);
      expect(zc).toEqual(checksums(raw));
      // And sample by sample, every band of every level as GDAL decodes it.
      const type = name === 'uint8' ? 'Byte' : 'Int16';
      const overviews = (gdalinfo(zipped).bands[0]!.overviews ?? []).length;
      for (let ovr = -1; ovr < overviews; ovr++) {
        const a = gdalSamples(zipped, type, undefined, ovr < 0 ? undefined : ovr);
        expect(a.length).toBeGreaterThan(0);
        expect(firstDifference(a, gdalSamples(raw, type, undefined, ovr < 0 ? undefined : ovr)), `${name} overview ${ovr}`).toBe(-1);
      }
      const [zs, rs] = [(await stat(zipped)).size, (await stat(raw)).size];
      expect(rs).toBe(rawWritten.bytes);
      expect(zs).toBe(written[name]!.bytes);
      expect(zs).toBeLessThan(rs / 2);
      sizes.push(`${name}: ${rs} -> ${zs} bytes`);
    }
    console.log(`Demo composites, uncompressed -> DEFLATE: ${sizes.join('; ')}`);
  });
});
