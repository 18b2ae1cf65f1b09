import { describe, expect, it } from 'vitest';
import { PlanError, readAoi, geodesicAreaKm2 } from '../../../main/batch-plan/geo.js';
import {
  bandGroupsOf,
  limitsFromAccountInfo,
  planComposite,
  serviceWindowOf,
  type BatchPlan,
  type PixelWindow,
} from '../../../main/batch-plan/plan.js';
import { expandBandnames } from '../../../main/batch-plan/bandnames.js';
import { readEstimate } from '../../../main/spend/batch-estimate.js';
import { parseAoi } from '../../../simulator/geo/aoi.js';
import { CONCAVE_AOI, DEMO_ORDER_WKT, compositeBody } from '../downloads/batch/helpers.js';

const DATE = '2026-11-01';
const SMALL_AOI = 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))';
const LIMITS = { maxCompositeAreaKm2: 2500, maxTotalBands: 12 };

function overlaps(a: PixelWindow, b: PixelWindow): boolean {
  return a.col < b.col + b.width && b.col < a.col + a.width && a.row < b.row + b.height && b.row < a.row + a.height;
}

/** Blocks are pairwise disjoint and inside the grid; returns the number of grid pixels they cover. */
function checkTiling(plan: BatchPlan): number {
  const grid = plan.grid!;
  const wins = plan.blocks.map((b) => b.window!);
  for (const w of wins) {
    expect(Number.isInteger(w.col) && Number.isInteger(w.row) && w.width > 0 && w.height > 0).toBe(true);
    expect(w.col >= 0 && w.row >= 0 && w.col + w.width <= grid.width && w.row + w.height <= grid.height).toBe(true);
  }
  for (let i = 0; i < wins.length; i++) for (let j = i + 1; j < wins.length; j++) expect(overlaps(wins[i]!, wins[j]!)).toBe(false);
  return wins.reduce((s, w) => s + w.width * w.height, 0);
}

/** The pixels of the grid no block covers, as a coverage count per pixel (0 = gap, 2+ = overlap). */
function coverage(plan: BatchPlan): Uint8Array {
  const g = plan.grid!;
  const c = new Uint8Array(g.width * g.height);
  for (const b of plan.blocks) {
    const w = b.window!;
    for (let y = w.row; y < w.row + w.height; y++) for (let x = w.col; x < w.col + w.width; x++) c[y * g.width + x]!++;
  }
  return c;
}

describe('planComposite: single requests', () => {
  it('keeps a job within both limits as one unchanged request', () => {
    const body = compositeBody({ Wkt: SMALL_AOI, Date: DATE, Bandnames: 'all' });
    const plan = planComposite(body, LIMITS);
    expect(plan.kind).toBe('single');
    expect(plan.parts).toHaveLength(1);
    expect(plan.parts[0]!.body).toBe(body);
    expect(plan.bands).toHaveLength(10);
    expect(plan.epsg).toBe(32633);
    expect(plan.areaKm2).toBeGreaterThan(4);
    expect(plan.areaKm2).toBeLessThan(5);
  });

  it('reads the limits from account info', () => {
    expect(limitsFromAccountInfo({ MaxCompositeAreaKm2: 500, MaxTotalBands: 6, Other: 1 })).toEqual({ maxCompositeAreaKm2: 500, maxTotalBands: 6 });
    expect(() => limitsFromAccountInfo({ MaxCompositeAreaKm2: 0, MaxTotalBands: 6 })).toThrow(PlanError);
  });

  it('reads an estimate\'s area, credit and currency by what the fields say, in either answer style', () => {
    expect(readEstimate({ AreaEstimateKm2: 150.5, CreditEstimate: 12.3, CurrencyCode: 'EUR', BandCount: 3 })).toEqual({ area: 150.5, cost: { state: 'known', eur: 12.3 }, currency: 'EUR' });
    expect(readEstimate({ traceId: 'x', bandCount: 3, includedInOrder: true, currency: 'EUR', priceEur: 0, areaSqKm: 150.54 })).toEqual({ area: 150.54, cost: { state: 'known', eur: 0 }, currency: 'EUR' });
    expect(readEstimate({ areaSqKmBeforeMinimum: 0.5, areaSqKm: 1, cost: 2 })).toEqual({ area: 1, cost: { state: 'known', eur: 2 }, currency: null });
    expect(readEstimate({ note: 'none' })).toMatchObject({ area: NaN, cost: { state: 'unknown' } });
  });

  it('finds the limits by what their names say, whatever the casing (the contract does not show the fields)', () => {
    expect(limitsFromAccountInfo({ maxConcurrentConnections: 8, maxTotalBands: 12, balanceEur: 5, maxCompositeAreaKm2: 2500 })).toEqual({ maxCompositeAreaKm2: 2500, maxTotalBands: 12 });
    expect(limitsFromAccountInfo({ max_composite_area_sq_km: 100, max_bands: 3 })).toEqual({ maxCompositeAreaKm2: 100, maxTotalBands: 3 });
    expect(() => limitsFromAccountInfo({ maxConcurrentConnections: 8 })).toThrow(PlanError);
  });
});

describe('planComposite: area split on the output pixel grid', () => {
  const cases = [
    { name: 'the demo order rectangle in UTM (47000)', wkt: DEMO_ORDER_WKT, epsg: 47000, res: 20, limit: 100 },
    { name: 'a concave AOI in UTM', wkt: CONCAVE_AOI, epsg: 32633, res: 10, limit: 60 },
    { name: 'the demo order in EPSG:4326', wkt: DEMO_ORDER_WKT, epsg: 4326, res: 40, limit: 90 },
    { name: 'the demo order in EPSG:3857', wkt: DEMO_ORDER_WKT, epsg: 3857, res: 20, limit: 150 },
    {
      name: 'a MultiPolygon with a hole',
      wkt: 'MULTIPOLYGON(((13.26 52.41, 13.45 52.41, 13.45 52.58, 13.26 52.58, 13.26 52.41), (13.30 52.45, 13.40 52.45, 13.40 52.54, 13.30 52.54, 13.30 52.45)), ((13.50 52.41, 13.59 52.41, 13.59 52.50, 13.50 52.41)))',
      epsg: 32633,
      res: 20,
      limit: 50,
    },
  ];

  for (const c of cases) {
    it(`${c.name}: parts fit, abut without gaps or overlaps, and snap back inside their blocks`, () => {
      const body = compositeBody({ Wkt: c.wkt, Date: DATE, EpsgProjection: c.epsg, Resolution: c.res });
      const plan = planComposite(body, { maxCompositeAreaKm2: c.limit, maxTotalBands: 12 });
      expect(plan.kind).toBe('split');
      expect(plan.splitBy).toEqual({ area: true, bands: false });
      expect(plan.parts.length).toBeGreaterThan(1);
      const grid = plan.grid!;
      expect(grid.epsg).toBe(c.epsg === 47000 ? 32633 : c.epsg);
      expect(grid.originX).toBe(grid.col0 * grid.pixelSize);
      expect(grid.originY).toBe(grid.rowTop * grid.pixelSize);

      // Every part fits the limit (with the 90 % margin), by the same geodesic measure the service uses.
      for (const p of plan.parts) {
        const aoi = readAoi(p.body).polygons;
        const area = geodesicAreaKm2(aoi);
        expect(area).toBeCloseTo(p.areaKm2, 9);
        expect(area).toBeLessThanOrEqual(c.limit * 0.9);
        expect(p.body.EpsgProjection).toBe(grid.epsg);
        // The service accepts the part's AOI as it is (closed rings, no self-intersections, no overlaps).
        expect(parseAoi({ Wkt: p.body.Wkt }, { required: true }).ok).toBe(true);
        // Snapped by the service, the part's grid stays inside its own block.
        const got = serviceWindowOf(aoi, grid);
        const w = p.window!;
        expect(got.col >= w.col && got.row >= w.row && got.col + got.width <= w.col + w.width && got.row + got.height <= w.row + w.height).toBe(true);
      }
      // Parts together hold the whole AOI (up to how the area formula treats a long edge versus its densified chords).
      const sum = plan.parts.reduce((s, p) => s + p.areaKm2, 0);
      expect(Math.abs(sum - plan.areaKm2) / plan.areaKm2).toBeLessThan(2e-4);

      // Blocks are whole pixels of the grid, pairwise disjoint; where the AOI is, there is exactly one block.
      const covered = checkTiling(plan);
      expect(covered).toBeLessThanOrEqual(grid.width * grid.height);
      expect(coverage(plan).every((v) => v <= 1)).toBe(true);
    });
  }

  it('covers the whole grid exactly when no block is empty (a convex AOI)', () => {
    const plan = planComposite(compositeBody({ Wkt: DEMO_ORDER_WKT, Date: DATE, Resolution: 20 }), { maxCompositeAreaKm2: 100, maxTotalBands: 12 });
    const c = coverage(plan);
    expect(c.every((v) => v === 1)).toBe(true);
    expect(checkTiling(plan)).toBe(plan.grid!.width * plan.grid!.height);
    // The rectangle's interior blocks are entirely inside the AOI, so the service snaps them to exactly the block.
    const interior = plan.parts.filter((p) => {
      const w = p.window!;
      return w.col > 0 && w.row > 0 && w.col + w.width < plan.grid!.width && w.row + w.height < plan.grid!.height;
    });
    for (const p of interior) expect(serviceWindowOf(readAoi(p.body).polygons, plan.grid!)).toEqual(p.window);
  });

  it('matches the grid the service computes for the whole AOI', () => {
    const plan = planComposite(compositeBody({ Wkt: CONCAVE_AOI, Date: DATE, Resolution: 20 }), { maxCompositeAreaKm2: 100, maxTotalBands: 12 });
    const g = plan.grid!;
    expect(serviceWindowOf(readAoi({ Wkt: CONCAVE_AOI }).polygons, g)).toEqual({ col: 0, row: 0, width: g.width, height: g.height });
  });

  it('answers in the AOI form of the request (GeoJson in, GeoJson out)', () => {
    const geo = { type: 'Polygon', coordinates: [[[13.25, 52.4], [13.6, 52.4], [13.6, 52.6], [13.25, 52.6], [13.25, 52.4]]] };
    const plan = planComposite(compositeBody({ Wkt: null, GeoJson: geo, Date: DATE }), { maxCompositeAreaKm2: 200, maxTotalBands: 12 });
    for (const p of plan.parts) {
      expect(p.body.Wkt).toBeNull();
      expect((p.body.GeoJson as { type: string }).type).toBe('Polygon');
      expect(parseAoi({ GeoJson: p.body.GeoJson }, { required: true }).ok).toBe(true);
    }
  });

  it('keeps every part within the pixel size cap, even under a generous area limit', () => {
    const plan = planComposite(compositeBody({ Wkt: DEMO_ORDER_WKT, Date: DATE, Resolution: 10 }), { maxCompositeAreaKm2: 400, maxTotalBands: 12 }, { maxPixelsPerSide: 1000 });
    for (const b of plan.blocks) expect(Math.max(b.window!.width, b.window!.height)).toBeLessThanOrEqual(1000);
    expect(coverage(plan).every((v) => v === 1)).toBe(true);
  });

  it('refuses what cannot be split, naming the field', () => {
    const big = { maxCompositeAreaKm2: 100, maxTotalBands: 12 };
    const err = (f: () => unknown): PlanError => {
      try {
        f();
      } catch (e) {
        return e as PlanError;
      }
      throw new Error('no error');
    };
    expect(err(() => planComposite(compositeBody({ Wkt: DEMO_ORDER_WKT, Date: DATE, UploadUrl: 'http://127.0.0.1:1/x' }), big)).field).toBe('UploadUrl');
    expect(err(() => planComposite(compositeBody({ Wkt: DEMO_ORDER_WKT, Date: DATE, EpsgProjection: 25833 }), big)).field).toBe('EpsgProjection');
    expect(err(() => planComposite(compositeBody({ Wkt: DEMO_ORDER_WKT, Date: DATE, Resolution: undefined }), big)).field).toBe('Resolution');
    expect(err(() => planComposite(compositeBody({ Wkt: DEMO_ORDER_WKT, Date: DATE, Bandnames: 'B4,rgb' }), big)).field).toBe('Bandnames');
    expect(err(() => planComposite(compositeBody({ Wkt: DEMO_ORDER_WKT, GeoJson: { type: 'Polygon', coordinates: [] }, Date: DATE }), big)).field).toBe('GeoJson');
  });
});

describe('planComposite: band split', () => {
  it('splits B4,B3,B2,ndvi under a 2-band limit into ordered groups of at most 2', () => {
    const plan = planComposite(compositeBody({ Wkt: SMALL_AOI, Date: DATE, Bandnames: 'B4,B3,B2,ndvi' }), { maxCompositeAreaKm2: 2500, maxTotalBands: 2 });
    expect(plan.kind).toBe('split');
    expect(plan.splitBy).toEqual({ area: false, bands: true });
    expect(plan.bands).toEqual(['B4', 'B3', 'B2', '[B8_B4]']);
    expect(plan.bandGroups).toEqual([['B4', 'B3'], ['B2', '[B8_B4]']]);
    expect(plan.parts.map((p) => p.body.Bandnames)).toEqual(['B4,B3', 'B2,[B8_B4]']);
    expect(plan.parts.map((p) => p.bandIndices)).toEqual([[0, 1], [2, 3]]);
    // The AOI is untouched; only the EPSG is pinned so every group lands on the same grid.
    for (const p of plan.parts) {
      expect(p.body.Wkt).toBe(SMALL_AOI);
      expect(p.body.EpsgProjection).toBe(32633);
    }
  });

  it('keeps every group within the limit and the concatenation in requested order', () => {
    for (const [expr, max] of [['all', 3], ['all', 6], ['B2,B3,[B8_B4],B8,B11,ndvi,B12', 4], ['rgb', 1], ['B4,B4,B4', 2]] as const) {
      const bands = (expandBandnames(expr) as { bands: string[] }).bands;
      const groups = bandGroupsOf(bands, max);
      expect(groups.flat()).toEqual(bands);
      expect(groups.every((g) => g.length >= 1 && g.length <= max)).toBe(true);
      expect(groups.length).toBe(Math.ceil(bands.length / max));
      const plan = planComposite(compositeBody({ Wkt: SMALL_AOI, Date: DATE, Bandnames: expr }), { maxCompositeAreaKm2: 2500, maxTotalBands: max });
      const parsed = plan.parts.map((p) => (expandBandnames(p.body.Bandnames) as { bands: string[] }).bands);
      expect(parsed.flat()).toEqual(bands);
      expect(plan.parts.flatMap((p) => p.bandIndices)).toEqual(bands.map((_, i) => i));
    }
  });

  it('crosses area blocks with band groups', () => {
    const plan = planComposite(compositeBody({ Wkt: DEMO_ORDER_WKT, Date: DATE, Bandnames: 'all' }), { maxCompositeAreaKm2: 200, maxTotalBands: 6 });
    expect(plan.splitBy).toEqual({ area: true, bands: true });
    expect(plan.parts).toHaveLength(plan.blocks.length * 2);
    for (const b of plan.blocks) {
      const mine = plan.parts.filter((p) => p.block === b.index);
      expect(mine.map((p) => p.body.Bandnames)).toEqual(['B2,B3,B4,B5,B6', 'B7,B8,B8A,B11,B12']);
      expect(new Set(mine.map((p) => p.body.Wkt)).size).toBe(1);
    }
  });
});
