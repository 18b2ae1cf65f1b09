/**
 * The core's pixel-grid rules (projection, AOI projection, outward snapping, UTM zone, metric
 * resolution in degrees) checked against what GDAL says about GDAL-written rasters, not only
 * against the simulator that uses the same rules.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { METRES_PER_DEGREE, utmEpsgFor } from '../../common/geodesy.js';
import { projectAoi } from '../../common/grid/aoi-mask.js';
import { getProjection, isSupportedEpsg, pixelSizeFor, snapOutward } from '../../common/grid/projection.js';
import { FIXTURES, fixturePath, gdalRecord } from '../fixtures/rasters.js';

const HAS_GDAL = spawnSync('gdallocationinfo', ['--version'], { encoding: 'utf8' }).status === 0;
const supported = FIXTURES.filter((f) => isSupportedEpsg(f.epsg));
const near = (v: number): boolean => Math.abs(v - Math.round(v)) < 1e-6;
/** Fixtures whose origin sits on the global grid (a multiple of the pixel size), as service files do. */
const onGrid = FIXTURES.filter((f) => {
  const [x0, px, , y0] = gdalRecord(f.name).geoTransform as [number, number, number, number];
  return near(x0 / px) && near(y0 / px);
});

/** Pixel and line of a lon/lat point in a fixture, by the core's projection and the fixture's geotransform. */
function locate(name: string, lon: number, lat: number): [number, number] {
  const rec = gdalRecord(name);
  const [x0, px, , y0, , py] = rec.geoTransform as [number, number, number, number, number, number];
  const [x, y] = getProjection(rec.epsg!)!.forward(lon, lat);
  return [Math.floor((x - x0) / px), Math.floor((y - y0) / py)];
}

describe('the core grid rules against GDAL', () => {
  it('covers every service CRS among the fixtures', () => {
    expect(supported.map((f) => f.epsg).sort((a, b) => a - b)).toEqual([3857, 4326, 32633, 32633, 32633, 32756]);
    expect(onGrid.map((f) => f.name)).toEqual(expect.arrayContaining(['utm33n-cog', 'utm33n-raw-cog', 'utm56s-sydney', 'lambert93-2154', 'wgs84-ndvi-index']));
  });

  it('projects lon/lat to the pixel GDAL locates (gdallocationinfo -wgs84, recorded)', () => {
    for (const f of supported) {
      for (const g of gdalRecord(f.name).geo) expect(locate(f.name, g.lon, g.lat), `${f.name} ${g.lon},${g.lat}`).toEqual([g.pixel, g.line]);
    }
  });

  it('snaps a projected AOI outward onto the pixel GDAL locates', () => {
    for (const f of supported.filter((x) => onGrid.includes(x))) {
      const rec = gdalRecord(f.name);
      const [x0, px, , y0] = rec.geoTransform as [number, number, number, number];
      for (const g of rec.geo) {
        const d = 1e-7;
        const ring = [[g.lon - d, g.lat - d], [g.lon + d, g.lat - d], [g.lon + d, g.lat + d], [g.lon - d, g.lat + d], [g.lon - d, g.lat - d]];
        const proj = getProjection(rec.epsg!)!;
        const projected = projectAoi({ type: 'Polygon', coordinates: [ring] }, proj);
        if ('error' in projected) throw new Error(projected.error);
        const e = projected.envelope;
        const [kx0, kx1] = snapOutward(e.minX, e.maxX, px);
        const [ky0, ky1] = snapOutward(-e.maxY, -e.minY, px);
        expect([kx0 - Math.round(x0 / px), ky0 + Math.round(y0 / px)], `${f.name} ${g.lon},${g.lat}`).toEqual([g.pixel, g.line]);
        expect([kx1 - kx0, ky1 - ky0]).toEqual([1, 1]);
      }
    }
  });

  it('snaps a raster\'s own bounds to exactly its pixels', () => {
    for (const f of onGrid) {
      const rec = gdalRecord(f.name);
      const [x0, px, , y0, , py] = rec.geoTransform as [number, number, number, number, number, number];
      const [w, h] = rec.size;
      const kx = Math.round(x0 / px);
      const ky = Math.round((y0 + h * py) / -py);
      // Bounds as floating point gives them, a hair off the grid lines either way.
      expect(snapOutward(x0 + 1e-7 * px, x0 + w * px - 1e-7 * px, px), f.name).toEqual([kx, kx + w]);
      expect(snapOutward(x0 - 1e-7 * px, x0 + w * px + 1e-7 * px, px), f.name).toEqual([kx, kx + w]);
      expect(snapOutward(y0 + h * py, y0, -py), f.name).toEqual([ky, ky + h]);
    }
  });

  it('names the UTM zone of the UTM fixtures from their lon/lat centre', () => {
    for (const f of FIXTURES.filter((x) => x.epsg >= 32601 && x.epsg <= 32760)) {
      const ext = gdalRecord(f.name).wgs84Extent!;
      const lon = ext.reduce((s, p) => s + p[0], 0) / ext.length;
      const lat = ext.reduce((s, p) => s + p[1], 0) / ext.length;
      expect(utmEpsgFor(lon, lat), f.name).toBe(f.epsg);
    }
  });

  it('turns a metric resolution into the degrees of the EPSG:4326 fixture', () => {
    const px = gdalRecord('wgs84-ndvi-index').geoTransform[1]!;
    expect(pixelSizeFor(getProjection(4326)!, px * METRES_PER_DEGREE)).toBeCloseTo(px, 15);
    expect(pixelSizeFor(getProjection(32633)!, 20)).toBe(20);
  });

  it.skipIf(!HAS_GDAL)('projects further points to the pixel GDAL locates (live gdallocationinfo)', () => {
    let checked = 0;
    for (const f of supported) {
      const ext = gdalRecord(f.name).wgs84Extent!;
      const lons = ext.map((p) => p[0]);
      const lats = ext.map((p) => p[1]);
      for (const [tx, ty] of [[0.21, 0.37], [0.5, 0.5], [0.83, 0.64]] as const) {
        const lon = Math.min(...lons) + (Math.max(...lons) - Math.min(...lons)) * tx;
        const lat = Math.min(...lats) + (Math.max(...lats) - Math.min(...lats)) * ty;
        const xml = execFileSync('gdallocationinfo', ['-xml', '-wgs84', fixturePath(f.name), String(lon), String(lat)], { encoding: 'utf8' });
        const m = /<Report pixel="(\d+)" line="(\d+)"/.exec(xml);
        if (!m) continue; // outside the raster (a rotated extent's corner)
        const rec = gdalRecord(f.name);
        const [x, y] = getProjection(rec.epsg!)!.forward(lon, lat);
        const gt = rec.geoTransform;
        // A point on a pixel edge is either pixel within rounding; only unambiguous points count.
        if (near((x - gt[0]!) / gt[1]!) || near((y - gt[3]!) / gt[5]!)) continue;
        expect(locate(f.name, lon, lat), `${f.name} ${lon},${lat}`).toEqual([Number(m[1]), Number(m[2])]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(12);
  });
});
