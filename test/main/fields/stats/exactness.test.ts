/**
 * Field statistics against independent computations on the same files (reference.py: rasterio's
 * rasterize and numpy for the centre and all-touched rules, shapely's polygon-pixel intersection
 * areas for exact coverage), for parcels in the raster's CRS and in EPSG:4326, parcels smaller than
 * a pixel, with holes, multipart, crossing the raster's edge, and nodata inside a parcel.
 *
 * The EPSG:4326 set holds the UTM parcels' vertices taken to lon/lat; the run projects them back
 * with proj4 (vertices only). The reference is given those same projected vertices (the engine's
 * projector), so it checks the coverage and statistics; the projection itself is checked against
 * PROJ (osgeo.osr) to a millimetre.
 */
import path from 'node:path';
import proj4 from 'proj4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectorTo } from '../../../../main/fields/stats/compute';
import { coverageOf, FieldStatistics, FieldStatisticsStore, FieldStatisticsWorkers, type PixelRule } from '../../../../main/fields/stats';
import { openDatabase, type OpenDatabase } from '../../../../main/shared/database';
import { makeTempDir, removeTempDirs } from '../../../support/temp-dirs';
import { entryFor, libraryOf, NODATA, parcelSetsOf, projWithGdal, pythonMissing, pythonReference, writeBands, type Parts, type Reference, type TestGrid } from './support';

const missing = pythonMissing();
if (missing) console.log(`Skipping the field statistics exactness tests: ${missing}.`);

const UTM = '+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs';
const GRID: TestGrid = { epsg: 32633, originX: 390000, originY: 5820000, pixelSize: 10, width: 60, height: 40 };

/** Parcels as offsets (metres) from the raster's top-left corner. */
const SHAPES: Parts[] = [
  // An irregular hexagon with a nodata block inside on the first date.
  [[[[53.3, -41.7], [231.9, -38.2], [298.4, -120.6], [241.1, -251.3], [102.6, -233.8], [40.2, -150.9], [53.3, -41.7]]]],
  // A polygon with a hole, both rings turning the same way.
  [[[[320.5, -30.4], [520.7, -35.1], [515.2, -210.9], [330.8, -205.3], [320.5, -30.4]], [[380.3, -80.6], [460.1, -90.2], [450.4, -160.7], [390.9, -150.1], [380.3, -80.6]]]],
  // Smaller than a pixel, inside one and missing its centre.
  [[[[101.2, -301.3], [104.1, -301.8], [102.5, -304.6], [101.2, -301.3]]]],
  // Smaller than a pixel, over four pixels' corner.
  [[[[147.6, -347.2], [152.9, -346.5], [153.4, -352.8], [148.1, -353.3], [147.6, -347.2]]]],
  // Crossing the raster's left and top edges.
  [[[[-45.3, 25.7], [150.2, 12.1], [120.8, -20.9], [-30.6, -60.3], [-45.3, 25.7]]]],
  // Two parts.
  [[[[400.3, -260.1], [470.6, -255.4], [430.9, -320.7], [400.3, -260.1]]], [[[500.2, -300.3], [580.7, -290.8], [590.3, -385.6], [520.4, -370.2], [500.2, -300.3]]]],
  // Crossing the right and bottom edges.
  [[[[560.4, -340.2], [640.9, -345.7], [630.2, -430.1], [550.6, -420.3], [560.4, -340.2]]]],
  // Outside the raster: no result.
  [[[[700.1, -100.2], [760.3, -100.9], [730.5, -160.4], [700.1, -100.2]]]],
];
const utmParcels: Parts[] = SHAPES.map((p) => p.map((poly) => poly.map((ring) => ring.map(([dx, dy]) => [GRID.originX + dx!, GRID.originY + dy!]))));
const toLonLat = proj4(UTM, 'EPSG:4326');
const lonLat = (x: number, y: number) => toLonLat.forward([x, y]) as [number, number];
const wgsParcels: Parts[] = utmParcels.map((p) => p.map((poly) => poly.map((ring) => ring.map(([x, y]) => lonLat(x!, y!)))));

/** Deterministic DNs: reflectance 0.05..0.5. */
function dnOf(seed: number) {
  return (band: number, row: number, col: number) => {
    let h = (row * 7919 + col * 104729 + band * 1299709 + seed * 15485863) >>> 0;
    h = Math.imul(h ^ (h >>> 15), 2246822519) >>> 0;
    h = Math.imul(h ^ (h >>> 13), 3266489917) >>> 0;
    return 500 + ((h ^ (h >>> 16)) % 4500);
  };
}

const RULES: PixelRule[] = ['exact', 'centre', 'touched'];
let dir: string;
let db: OpenDatabase;
let workers: FieldStatisticsWorkers;
let stats: FieldStatistics;
const rasters: { id: string; file: string; date: string }[] = [];

beforeAll(async () => {
  if (missing) return;
  dir = makeTempDir('swath-fields-exact-');
  const date1 = dnOf(1);
  const date2 = dnOf(2);
  // Date 1: a 3 x 3 nodata block in B8 inside the hexagon. Date 2: most of the hexagon nodata in B4 (below the valid share).
  rasters.push({ id: 'r1', date: '2026-05-01', file: await writeBands(path.join(dir, 'd1.tif'), GRID, '2026-05-01', (b, r, c) => (b === 0 && r >= 10 && r <= 12 && c >= 10 && c <= 12 ? NODATA : date1(b, r, c))) });
  rasters.push({ id: 'r2', date: '2026-05-11', file: await writeBands(path.join(dir, 'd2.tif'), GRID, '2026-05-11', (b, r, c) => (b === 1 && r >= 3 && r <= 25 && c >= 3 && c <= 24 ? NODATA : date2(b, r, c))) });
  const corners = [lonLat(GRID.originX, GRID.originY), lonLat(GRID.originX + 600, GRID.originY - 400), lonLat(GRID.originX, GRID.originY - 400), lonLat(GRID.originX + 600, GRID.originY)];
  const bounds: [number, number, number, number] = [Math.min(...corners.map((c) => c[0])), Math.min(...corners.map((c) => c[1])), Math.max(...corners.map((c) => c[0])), Math.max(...corners.map((c) => c[1]))];
  db = await openDatabase({ dir });
  workers = new FieldStatisticsWorkers({ size: 1 });
  stats = new FieldStatistics({
    store: new FieldStatisticsStore(db.db),
    workers,
    library: libraryOf(rasters.map((r) => entryFor(r.id, r.file, r.date, GRID, bounds))),
    parcels: parcelSetsOf({
      utm: { epsg: 32633, proj4: UTM, parcels: utmParcels, toLonLat: lonLat },
      wgs: { epsg: 4326, proj4: '+proj=longlat +datum=WGS84 +no_defs', parcels: wgsParcels, toLonLat: (x, y) => [x, y] },
    }),
    chunkParcels: 3, // several chunks, so the cache's chunking is exercised
  });
}, 60_000);

afterAll(async () => {
  await workers?.close();
  await db?.close();
  removeTempDirs();
});

const project = projectorTo({ epsg: 4326, proj4: '+proj=longlat +datum=WGS84 +no_defs' }, 32633);
const projected = (parts: Parts): Parts => parts.map((poly) => poly.map((ring) => ring.map(([x, y]) => project(x!, y!))));
const gridOf = () => ({ originX: GRID.originX, originY: GRID.originY, resX: GRID.pixelSize, resY: -GRID.pixelSize, width: GRID.width, height: GRID.height });

function expectStats(got: { mean: number | null; min: number | null; max: number | null; std: number | null; median: number | null; p10: number | null; p90: number | null; validPixels: number }, ref: Reference['exact']['stats'], tol: number) {
  if (!ref) {
    expect(got.mean).toBeNull();
    expect(got.validPixels).toBe(0);
    return;
  }
  for (const k of ['mean', 'min', 'max', 'std', 'median', 'p10', 'p90'] as const) expect(Math.abs(got[k]! - ref[k]), k).toBeLessThanOrEqual(tol);
  expect(Math.abs(got.validPixels - ref.weight)).toBeLessThanOrEqual(tol);
}

describe.skipIf(missing !== null)('field statistics equal rasterio, shapely and numpy on the same files', () => {
  for (const [setId, label] of [['utm', 'in the raster CRS'], ['wgs', 'in EPSG:4326']] as const) {
    const geometries = () => (setId === 'utm' ? utmParcels : wgsParcels.map(projected));

    it(`coverage ${label}: exact weights equal shapely's intersection areas to 1e-9 of a pixel; centre and touched pixels equal rasterize's`, () => {
      const refs = pythonReference(rasters[0]!.file, { a: 'B8', b: 'B4' }, geometries().map((parts, index) => ({ index, parts })));
      geometries().forEach((parts, i) => {
        const ref = refs[i]!;
        const exact = coverageOf(parts, gridOf(), 'exact');
        const got = new Map<string, number>();
        if (exact) exact.cells.forEach((cell, k) => {
          const w = exact.window[2] - exact.window[0];
          got.set(`${exact.window[1] + Math.floor(cell / w)},${exact.window[0] + (cell % w)}`, exact.weights![k]!);
        });
        for (const key of new Set([...got.keys(), ...Object.keys(ref.exact.weights)])) {
          expect(Math.abs((got.get(key) ?? 0) - (ref.exact.weights[key] ?? 0)), `parcel ${i} pixel ${key}`).toBeLessThanOrEqual(1e-9);
        }
        for (const rule of ['centre', 'touched'] as const) {
          const c = coverageOf(parts, gridOf(), rule);
          const cells = c ? Array.from(c.cells, (cell) => { const w = c.window[2] - c.window[0]; return `${c.window[1] + Math.floor(cell / w)},${c.window[0] + (cell % w)}`; }) : [];
          expect(cells.sort(), `parcel ${i} ${rule}`).toEqual(ref[rule].cells.map(([r, col]) => `${r},${col}`).sort());
        }
      });
    });

    it(`statistics ${label} on two dates under the three rules equal the reference (1e-6 centre and touched, 1e-9 exact)`, async () => {
      const runs: number[] = [];
      for (const rule of RULES) {
        const r = await stats.run({ setId, index: 'ndvi', rule }, {});
        expect(r.skippedRasters).toEqual([]);
        runs.push(r.results);
      }
      // Every parcel but the one outside the raster, on both dates, under each rule.
      expect(runs).toEqual([14, 14, 14]);
      for (const raster of rasters) {
        const refs = pythonReference(raster.file, { a: 'B8', b: 'B4' }, geometries().map((parts, index) => ({ index, parts })));
        for (const rule of RULES) {
          const rows = stats.results(setId, { index: 'ndvi', rule, date: raster.date });
          expect(rows.map((x) => x.parcelIndex)).toEqual([0, 1, 2, 3, 4, 5, 6]);
          for (const row of rows) {
            const ref = refs[row.parcelIndex]![rule];
            const tol = rule === 'exact' ? 1e-9 : 1e-6;
            expectStats(row, ref.stats, tol);
            expect(Math.abs(row.coveredShare - ref.coveredShare), `covered share ${row.parcelIndex}`).toBeLessThanOrEqual(tol);
            expect(Math.abs(row.validShare - ref.validShare), `valid share ${row.parcelIndex}`).toBeLessThanOrEqual(tol);
            expect(row.belowThreshold).toBe(ref.validShare < 0.8);
            expect(row.rasterId).toBe(raster.id);
          }
        }
      }
    }, 60_000);
  }

  it('the cases are there: nodata lowers the valid share, a date under 80 % is marked, a sub-pixel parcel has no centre pixel, edge parcels are partly covered', async () => {
    const d1 = stats.results('utm', { index: 'ndvi', rule: 'exact', date: '2026-05-01' });
    const d2 = stats.results('utm', { index: 'ndvi', rule: 'exact', date: '2026-05-11' });
    expect(d1[0]!.validShare).toBeLessThan(1);
    expect(d1[0]!.belowThreshold).toBe(false);
    expect(d2[0]!.belowThreshold).toBe(true);
    expect(d2[0]!.mean).not.toBeNull();
    expect(d1[2]!.coveredShare).toBeCloseTo(1, 9);
    expect(stats.results('utm', { index: 'ndvi', rule: 'centre', date: '2026-05-01' })[2]!.validPixels).toBe(0);
    expect(d1[4]!.coveredShare).toBeLessThan(0.9);
    expect(d1[6]!.coveredShare).toBeLessThan(0.9);
    // The change skips the marked date: the latest valid date of the hexagon is the first.
    const latest = await stats.latest('utm', { index: 'ndvi', rule: 'exact' });
    expect(latest.find((l) => l.parcelIndex === 0)).toMatchObject({ date: '2026-05-01', previousDate: null, change: null });
    expect(latest.find((l) => l.parcelIndex === 1)).toMatchObject({ date: '2026-05-11', previousDate: '2026-05-01' });
  });

  it('parcels in EPSG:4326 are projected to the UTM grid as PROJ projects them, to a millimetre', () => {
    const points = wgsParcels.flat(3) as unknown as [number, number][];
    const gdal = projWithGdal(points, 4326, 32633);
    points.forEach(([lon, lat], i) => {
      const [x, y] = project(lon, lat);
      expect(Math.hypot(x - gdal[i]![0], y - gdal[i]![1])).toBeLessThan(1e-3);
    });
  });
});
