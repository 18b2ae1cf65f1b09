import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { getProjection, pixelSizeFor } from '../../../common/grid/projection.js';
import { parseBandnames, type BandSpec } from '../../../simulator/raster/bands.js';
import { LandscapeRenderer } from '../../../simulator/raster/landscape.js';

interface Case {
  name: string;
  epsg: number;
  /** Top-left corner of the window, in the CRS's units. */
  x: number;
  y: number;
  /** Metres per pixel (an overview level when coarse). */
  metres: number;
  bands: string;
  dataType: 'INT16' | 'UINT8';
  date: string;
  /** sha256 of the window's pixel-interleaved samples (little-endian). */
  sha256: string;
}

const SIZE = 300;

/**
 * The landscape's samples pinned for fixed requests: renderer changes (speed-ups) must give the same
 * bytes, so the service's files, caches and the client tests built on them stay as they are. The windows
 * cover farmland, forest, towns (streets included), lakes and rivers, a dry belt, the southern hemisphere, geographic
 * and UTM grids, coarse levels (sub-pixel fields), UINT8 and normalised-difference bands, and an AOI
 * edge (a partial mask).
 */
const CASES: Case[] = [
  { name: 'central Europe, UTM 10 m, INT16', epsg: 32633, x: 480_000, y: 5_560_000, metres: 10, bands: 'B4,B3,B2,B8', dataType: 'INT16', date: '2024-07-15', sha256: 'dc54dad3462418af80869f3d50be773ca5168009852dd9795b5273f4c9dfbbad' },
  { name: 'central Europe, UTM 80 m overview, indices', epsg: 32633, x: 470_000, y: 5_580_000, metres: 80, bands: 'B8,[B8_B4],[B3_B8]', dataType: 'INT16', date: '2024-04-02', sha256: 'f9488326e9ab607040f9856b35e0be3aefd0c951db4f6fd806de884c534a9e97' },
  { name: 'Sahel, geographic 20 m, UINT8', epsg: 4326, x: 2.1, y: 14.3, metres: 20, bands: 'B2,B3,B4,B8,B11,[B8_B4]', dataType: 'UINT8', date: '2024-09-01', sha256: '3a7086497903d36b3214df895d31ead14542f5bf02abfefd51c2d89ab42cd7b6' },
  { name: 'southern Brazil, UTM 640 m overview', epsg: 32722, x: 300_000, y: 7_000_000, metres: 640, bands: 'B4,B8,B12', dataType: 'INT16', date: '2024-01-20', sha256: '7948c199e99dd79d96d8069811c681d030c2deeddf266dfffb75c36bfdeaf6f5' },
  { name: 'equator, web mercator 10 m, partial mask', epsg: 3857, x: 1_500_000, y: 20_000, metres: 10, bands: 'B5,B6,B7,B8A', dataType: 'UINT8', date: '2024-12-31', sha256: '29fe15295c03f34b645f09b327940b3f76b6ff6ee6f77889f2fb60f9e120de59' },
];

function render(c: Case): { sha256: string; distinct: number } {
  const proj = getProjection(c.epsg)!;
  const parsed = parseBandnames(c.bands);
  if (!parsed.ok) throw new Error(parsed.reason);
  const bands: BandSpec[] = parsed.bands;
  const renderer = new LandscapeRenderer(proj, bands, c.dataType, c.date);
  const pixelSize = pixelSizeFor(proj, c.metres);
  const grid = { originX: Math.round(c.x / pixelSize) * pixelSize, originY: Math.round(c.y / pixelSize) * pixelSize, pixelSize, pixelMetres: c.metres };
  const mask = new Uint8Array(SIZE * SIZE).fill(1);
  // The last case's AOI is a triangle: half the window is outside it and keeps the nodata fill.
  if (c.name.includes('partial')) for (let r = 0; r < SIZE; r++) mask.fill(0, r * SIZE + SIZE - r, (r + 1) * SIZE);
  const n = bands.length;
  const data = c.dataType === 'INT16' ? new Int16Array(SIZE * SIZE * n).fill(-32768) : new Uint8Array(SIZE * SIZE * n);
  // Two blocks side by side and one below, as the writer asks for them (256 x 256 tiles of a 300 px window).
  for (const [x0, y0] of [[0, 0], [256, 0], [0, 256], [256, 256]] as const) {
    const w = Math.min(256, SIZE - x0);
    const h = Math.min(256, SIZE - y0);
    renderer.renderBlock(grid, x0, y0, w, h, mask, y0 * SIZE + x0, SIZE, { data, offset: (y0 * SIZE + x0) * n, rowStride: SIZE * n });
  }
  return { sha256: createHash('sha256').update(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)).digest('hex'), distinct: new Set(data).size };
}

describe('landscape samples', () => {
  for (const c of CASES) {
    it(`are the pinned bytes: ${c.name}`, () => {
      const r = render(c);
      // A window of real landscape, not a flat fill.
      expect(r.distinct).toBeGreaterThan(50);
      expect(r.sha256).toBe(c.sha256);
    });
  }
});
