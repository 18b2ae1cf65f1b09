import type { MultiPolygon, Polygon } from 'geojson';
import { describe, expect, it } from 'vitest';
import { planRaster, utmEpsgFor } from '../../../simulator/raster/index.js';
import { AoiRasterizer, projectAoi } from '../../../common/grid/aoi-mask.js';
import { getProjection } from '../../../common/grid/projection.js';
import { rect, request } from './helpers.js';

/** Rasterizes in EPSG:4326 with 1-degree pixels so expectations can be worked out by hand. */
function maskOf(aoi: Polygon | MultiPolygon, contained: boolean, w = 12, h = 12): Uint8Array {
  const p = projectAoi(aoi, getProjection(4326)!);
  if ('error' in p) throw new Error(p.error);
  const r = new AoiRasterizer(p.polygons, contained);
  const grid = { originX: 0, originY: h, pixelSize: 1, width: w, height: h };
  const mask = new Uint8Array(w * h);
  // Two bands of rows, to exercise the row-band edge selection.
  const half = Math.floor(h / 2);
  const a = new Uint8Array(w * half);
  r.fillRows(grid, 0, half, a);
  mask.set(a, 0);
  const b = new Uint8Array(w * (h - half));
  r.fillRows(grid, half, h - half, b);
  mask.set(b, w * half);
  return mask;
}

const count = (m: Uint8Array): number => m.reduce((s, v) => s + v, 0);
/** Mask value of the pixel whose lower-left corner is (x, y) in grid units. */
const at = (m: Uint8Array, x: number, y: number, h = 12, w = 12): number => m[(h - 1 - y) * w + x]!;

describe('AOI rasterization', () => {
  it('grid-aligned square: intersect and contained agree, touching pixels excluded', () => {
    const sq = rect(2, 3, 6, 8); // 4 x 5 pixels
    expect(count(maskOf(sq, false))).toBe(20);
    expect(count(maskOf(sq, true))).toBe(20);
    expect(at(maskOf(sq, false), 1, 4)).toBe(0);
    expect(at(maskOf(sq, false), 2, 3)).toBe(1);
    expect(at(maskOf(sq, false), 6, 4)).toBe(0);
  });

  it('offset square: intersect takes partial pixels, contained only full ones', () => {
    const sq = rect(1.5, 1.5, 4.5, 4.5);
    const inter = maskOf(sq, false);
    const cont = maskOf(sq, true);
    expect(count(inter)).toBe(16); // pixels 1..4 in both directions
    expect(count(cont)).toBe(4); // pixels 2..3
    expect(at(inter, 1, 1)).toBe(1);
    expect(at(cont, 1, 1)).toBe(0);
    expect(at(cont, 2, 2)).toBe(1);
  });

  it('a sliver smaller than a pixel still intersects but is not contained', () => {
    const sliver = rect(3.2, 3.2, 3.4, 3.3);
    expect(count(maskOf(sliver, false))).toBe(1);
    expect(at(maskOf(sliver, false), 3, 3)).toBe(1);
    expect(count(maskOf(sliver, true))).toBe(0);
  });

  it('triangle: contained is a strict subset of intersect', () => {
    const tri: Polygon = { type: 'Polygon', coordinates: [[[0.3, 0.2], [11.1, 0.7], [5.2, 11.6], [0.3, 0.2]]] };
    const inter = maskOf(tri, false);
    const cont = maskOf(tri, true);
    expect(count(cont)).toBeGreaterThan(20);
    expect(count(cont)).toBeLessThan(count(inter));
    for (let i = 0; i < cont.length; i++) if (cont[i]) expect(inter[i]).toBe(1);
  });

  it('holes are excluded', () => {
    const withHole: Polygon = {
      type: 'Polygon',
      coordinates: [rect(0, 0, 10, 10).coordinates[0]!, rect(3.5, 3.5, 6.5, 6.5).coordinates[0]!],
    };
    const inter = maskOf(withHole, false);
    const cont = maskOf(withHole, true);
    // Only pixels 4..5 lie entirely in the hole; 3..6 touch it.
    expect(count(inter)).toBe(100 - 4);
    expect(count(cont)).toBe(100 - 16);
    expect(at(inter, 4, 4)).toBe(0);
    expect(at(inter, 3, 3)).toBe(1);
    expect(at(cont, 3, 3)).toBe(0);
  });

  it('multipolygons add up', () => {
    const mp: MultiPolygon = {
      type: 'MultiPolygon',
      coordinates: [rect(0, 0, 2, 2).coordinates, rect(5, 5, 8, 7).coordinates],
    };
    const m = maskOf(mp, false);
    expect(count(m)).toBe(4 + 6);
    expect(at(m, 1, 1)).toBe(1);
    expect(at(m, 6, 6)).toBe(1);
    expect(at(m, 3, 3)).toBe(0);
  });
});

describe('planRaster', () => {
  const aoi = rect(15, 50, 15.1, 50.05);

  it('snaps the projected envelope outward to multiples of the pixel size', () => {
    for (const resolution of [10, 20, 40, 80, 160, 320, 640, 1280]) {
      const p = planRaster(request({ aoi, epsg: 32633, resolution }));
      if ('error' in p) throw new Error(p.error);
      expect(p.pixelSize).toBe(resolution);
      for (const v of [p.bounds.minX, p.bounds.minY, p.bounds.maxX, p.bounds.maxY]) {
        expect(Math.abs(v / resolution - Math.round(v / resolution))).toBeLessThan(1e-9);
      }
      expect(p.width).toBe(Math.round((p.bounds.maxX - p.bounds.minX) / resolution));
      expect(p.height).toBe(Math.round((p.bounds.maxY - p.bounds.minY) / resolution));
    }
    const utm = getProjection(32633)!;
    const p = planRaster(request({ aoi, epsg: 32633, resolution: 10 }));
    if ('error' in p) throw new Error(p.error);
    const [x0, y0] = utm.forward(15, 50);
    expect(p.bounds.minX).toBeLessThanOrEqual(x0);
    expect(p.bounds.minX).toBeGreaterThan(x0 - 10);
    expect(p.bounds.minY).toBeLessThanOrEqual(y0);
    expect(p.bounds.minY).toBeGreaterThan(y0 - 10);
  });

  it('converts the resolution to degrees for EPSG:4326', () => {
    const p = planRaster(request({ aoi, epsg: 4326, resolution: 20 }));
    if ('error' in p) throw new Error(p.error);
    expect(p.pixelSize).toBeCloseTo(20 / 111320, 15);
    const ps = 20 / 111320;
    expect(p.width).toBe(Math.ceil(15.1 / ps) - Math.floor(15 / ps));
    expect(p.height).toBe(Math.ceil(50.05 / ps) - Math.floor(50 / ps));
    expect(p.bounds.minX).toBeCloseTo(Math.floor(15 / ps) * ps, 12);
  });

  it('uses an explicit grid as given', () => {
    const grid = { minX: 499980, minY: 5538560, maxX: 499980 + 3200, maxY: 5538560 + 3200 };
    const p = planRaster(request({ aoi, epsg: 32633, resolution: 10, grid }));
    if ('error' in p) throw new Error(p.error);
    expect(p.bounds).toEqual(grid);
    expect([p.width, p.height, p.overviews]).toEqual([320, 320, 0]);
  });

  it('counts overviews until they fit in 512 px', () => {
    const big = planRaster(request({ aoi: rect(15, 50, 15.3, 50.1), epsg: 32633, resolution: 10 }));
    if ('error' in big) throw new Error(big.error);
    expect(big.width).toBeGreaterThan(2048);
    expect(big.width).toBeLessThanOrEqual(4096);
    expect(big.overviews).toBe(3);
    const small = planRaster(request({ aoi: rect(15, 50, 15.01, 50.01), epsg: 32633, resolution: 10 }));
    expect('error' in small ? small.error : small.overviews).toBe(0);
  });

  it('rejects unsupported CRSs, AOIs outside the CRS area and outputs that are too large', () => {
    expect(planRaster(request({ aoi, epsg: 2154 }))).toEqual({ error: expect.stringMatching(/EPSG/) });
    expect(planRaster(request({ aoi: rect(100, 10, 100.1, 10.1), epsg: 32633 }))).toEqual({
      error: expect.stringMatching(/valid area|UTM zone/),
    });
    expect(planRaster(request({ aoi: rect(10, 86, 10.1, 86.5), epsg: 3857 }))).toEqual({ error: expect.stringMatching(/3857/) });
    expect(planRaster(request({ aoi: rect(14, 48, 16, 50), epsg: 32633, resolution: 10 }))).toEqual({
      error: expect.stringMatching(/too large/),
    });
    expect(planRaster(request({ aoi, date: '2024-02-30' }))).toEqual({ error: expect.stringMatching(/date/) });
    expect(planRaster(request({ aoi, bands: [] }))).toEqual({ error: expect.stringMatching(/band/) });
    const degenerate: Polygon = { type: 'Polygon', coordinates: [[[1, 1], [2, 2], [1, 1]]] };
    expect(planRaster(request({ aoi: degenerate }))).toEqual({ error: expect.stringMatching(/ring/) });
  });

  it('accepts an AOI slightly outside its UTM zone (neighbour data is reprojected by the real service)', () => {
    expect('error' in planRaster(request({ aoi: rect(11.5, 50, 11.6, 50.1), epsg: 32633 }))).toBe(false);
  });
});

describe('utmEpsgFor', () => {
  it('picks the standard zone and hemisphere', () => {
    expect(utmEpsgFor(15.2, 50)).toBe(32633);
    expect(utmEpsgFor(-0.1, 51.5)).toBe(32630);
    expect(utmEpsgFor(151.2, -33.9)).toBe(32756);
    expect(utmEpsgFor(-180, 10)).toBe(32601);
    expect(utmEpsgFor(179.99, -10)).toBe(32760);
    // 180 exactly stays in zone 60, like the tile grid (geo/aoi.ts owns the rule).
    expect(utmEpsgFor(180, 0)).toBe(32660);
  });
});
