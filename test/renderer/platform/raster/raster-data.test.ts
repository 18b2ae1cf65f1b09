import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveLibraryFile } from '../../../../main/library/raster-protocol';
import { defaultDisplay, displayChannels } from '../../../../renderer/src/platform/raster/display';
import { channelValues, physicalValues, RasterFile, rasterBaseUrl, rasterUrl } from '../../../../renderer/src/platform/raster/raster-data';
import { FIXTURES, fixturePath, gdalRecord } from '../../../fixtures/rasters';

// The renderer's GeoTIFF reader over HTTP Range requests (the raster protocol's logic, served by
// a loopback server), compared with what GDAL read from the same files.

describe('raster reader against GDAL', () => {
  let server: http.Server;
  let base: string;
  const ranges: string[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      ranges.push(String(req.headers.range));
      void serveLibraryFile({ get: (id) => ({ path: fixturePath(id) }) }, `swath-raster://${req.url!.slice(1)}`, { range: req.headers.range }, { method: req.method }).then((a) => {
        res.writeHead(a.status, a.headers);
        if (a.body) Readable.fromWeb(a.body as never).pipe(res);
        else res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('chooses swath-raster:// in the app and the browser host path elsewhere', () => {
    expect(rasterBaseUrl({ protocol: 'file:', origin: 'null' })).toBe('swath-raster://');
    expect(rasterBaseUrl({ protocol: 'app:', origin: 'app://swath' })).toBe('swath-raster://');
    expect(rasterUrl('ovr-abc', { protocol: 'http:', origin: 'http://127.0.0.1:5180' })).toBe('http://127.0.0.1:5180/__swath/raster/ovr-abc');
  });

  for (const f of FIXTURES) {
    it(`${f.name}: header and full-resolution pixels equal GDAL's`, async () => {
      const rec = gdalRecord(f.name);
      ranges.length = 0;
      const file = await RasterFile.open(base + f.name);
      const h = file.header;
      expect([h.width, h.height]).toEqual(rec.size);
      expect(h.epsg).toBe(rec.epsg);
      expect(h.nodata).toBe(rec.noDataValue);
      expect(h.overviews).toBe(rec.overviews.length);
      expect(h.bands.map((b) => b.name)).toEqual(rec.bands.map((b) => b.description));
      for (let i = 0; i < h.bands.length; i++) expect(h.bands[i]!.scaling.scale).toBeCloseTo(rec.bands[i]!.scale!, 12);
      const [ox, px, , oy, , py] = rec.geoTransform;
      expect(h.origin).toEqual([ox, oy]);
      expect(h.resolution).toEqual([px, py]);
      for (const p of rec.pixels) expect(await file.readPixel(p.x, p.y), `${f.name} ${p.x},${p.y}`).toEqual(p.values);
      for (const g of rec.geo) {
        const at = file.pixelOf(ox! + (g.pixel + 0.5) * px!, oy! + (g.line + 0.5) * py!)!;
        expect(await file.readPixel(at[0], at[1])).toEqual(g.values);
      }
      expect(await file.readPixel(-1, 0)).toBeNull();
      // Only Range requests: never the whole file.
      expect(ranges.every((r) => /^bytes=\d+-\d+$/.test(r))).toBe(true);
      await file.close();
    });
  }

  it('samples an overview for histograms, with nodata as NaN in physical units', async () => {
    const file = await RasterFile.open(base + 'utm33n-cog');
    const level = file.overviewLevel(150);
    expect(level).toBe(1);
    const sample = await file.readSample(level, 512);
    expect([sample.width, sample.height]).toEqual([200, 200]);
    const d = defaultDisplay(file.header.bands);
    const ch = displayChannels(d, file.header.bands);
    if (!ch.ok) throw new Error(ch.message);
    const red = channelValues(sample, ch.channels[0]!, file.header.bands, file.header.nodata);
    // The nodata triangle (x + y < 60 at full resolution) is NaN; everything else is reflectance.
    expect(Number.isNaN(red[0]!)).toBe(true);
    const valid = Array.from(red).filter((v) => !Number.isNaN(v));
    expect(valid.length).toBeGreaterThan(200 * 200 * 0.95);
    expect(Math.min(...valid)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...valid)).toBeLessThan(1);
    const rec = gdalRecord('utm33n-cog');
    const phys = physicalValues(rec.pixels[2]!.values, file.header.bands, file.header.nodata);
    expect(phys[0]).toBeCloseTo(rec.pixels[2]!.values[0]! / 10000, 10);
    expect(phys[4]).toBeCloseTo(rec.pixels[2]!.values[4]! / 32767, 10);
    expect(physicalValues(rec.pixels[0]!.values, file.header.bands, file.header.nodata).every(Number.isNaN)).toBe(true);
    await file.close();
  });
});
