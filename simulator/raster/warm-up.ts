/**
 * A render thread's warm-up: small windows of the landscape with every kind of pixel (farmland,
 * forest, towns and their streets, lakes and rivers, dry belts, the southern hemisphere, coarse
 * levels, UINT8 and index bands, an AOI edge), rendered once when the thread starts. V8 optimises
 * the row shading for the branches it has seen run; without them, an image's first town or lake
 * throws the optimised code away (insufficient type feedback) and the thread re-optimises it
 * several times during its first image.
 */
import { getProjection, pixelSizeFor } from '../../common/grid/projection.js';
import { parseBandnames, type BandSpec } from './bands.js';
import { LandscapeRenderer } from './landscape.js';
import type { RasterRequest } from './types.js';

interface Window {
  epsg: number;
  /** Top-left corner, in the CRS's units. */
  x: number;
  y: number;
  metres: number;
  bands: string;
  dataType: 'INT16' | 'UINT8';
  date: string;
}

/** Places whose windows hold every branch of the shading (the windows of test/simulator/raster/landscape-pixels.test.ts). */
const WINDOWS: Window[] = [
  { epsg: 32633, x: 480_000, y: 5_560_000, metres: 10, bands: 'B4,B3,B2,B8', dataType: 'INT16', date: '2024-07-15' },
  { epsg: 32633, x: 470_000, y: 5_580_000, metres: 80, bands: 'B8,[B8_B4],[B3_B8]', dataType: 'INT16', date: '2024-04-02' },
  { epsg: 4326, x: 2.1, y: 14.3, metres: 20, bands: 'B2,B3,B4,B8,B11,[B8_B4]', dataType: 'UINT8', date: '2024-09-01' },
  { epsg: 32722, x: 300_000, y: 7_000_000, metres: 640, bands: 'B4,B8,B12', dataType: 'INT16', date: '2024-01-20' },
  { epsg: 3857, x: 1_500_000, y: 20_000, metres: 10, bands: 'B5,B6,B7,B8A', dataType: 'UINT8', date: '2024-12-31' },
];

/** Edge of a window, pixels. */
const SIZE = 96;

/** Renders the warm-up windows (a few tens of milliseconds); the samples are discarded. */
export function warmUpLandscape(): void {
  const mask = new Uint8Array(SIZE * SIZE).fill(1);
  // Half of the last row outside the AOI: the masked path too.
  mask.fill(0, SIZE * (SIZE - 1) + SIZE / 2);
  for (const w of WINDOWS) {
    const proj = getProjection(w.epsg)!;
    const bands = (parseBandnames(w.bands) as { ok: true; bands: BandSpec[] }).bands;
    const renderer = new LandscapeRenderer(proj, bands, w.dataType, w.date);
    const pixelSize = pixelSizeFor(proj, w.metres);
    const grid = { originX: Math.round(w.x / pixelSize) * pixelSize, originY: Math.round(w.y / pixelSize) * pixelSize, pixelSize, pixelMetres: w.metres };
    const n = bands.length;
    const data = w.dataType === 'INT16' ? new Int16Array(SIZE * SIZE * n) : new Uint8Array(SIZE * SIZE * n);
    renderer.renderBlock(grid, 0, 0, SIZE, SIZE, mask, 0, SIZE, { data, offset: 0, rowStride: SIZE * n });
  }
}

/**
 * The writer's warm-up composite (write.ts `startRasterThreads`): 1,024 x 1,024 pixels of four
 * INT16 bands at 10 m around the first window's place, two levels of tiles.
 */
export function warmUpRequest(): RasterRequest {
  const w = WINDOWS[0]!;
  const proj = getProjection(w.epsg)!;
  const side = 1024 * w.metres;
  const ring: [number, number][] = [[w.x, w.y], [w.x + side, w.y], [w.x + side, w.y - side], [w.x, w.y - side], [w.x, w.y]];
  return {
    aoi: { type: 'Polygon', coordinates: [ring.map(([x, y]) => proj.inverse(x, y) as [number, number])] },
    date: w.date,
    epsg: w.epsg,
    resolution: w.metres,
    bands: (parseBandnames(w.bands) as { ok: true; bands: BandSpec[] }).bands,
    dataType: w.dataType,
    pixelSelection: 'intersect',
    tags: { IMAGE_DATE: w.date.replaceAll('-', ''), MODEL_VERSION: 'warm-up', IMAGE_VERSION: '1', CONSTELLATIONS: 'Sentinel2' },
  };
}
