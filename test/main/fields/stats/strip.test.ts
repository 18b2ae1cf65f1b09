/**
 * A raster's parcel results read through the strip compute only the columns the parcels' windows
 * cover (wantedRuns): the results equal those of a reader that computes every value, whether the
 * parcels overlap, touch, are taller than the strip, leave whole rows and columns uncovered, or
 * cross the raster's edge. The strip reader below writes a poison value outside the runs it is
 * asked for, so a pixel a parcel reads outside them changes its statistics.
 */
import { describe, expect, it } from 'vitest';
import { coverageOf, type PixelGrid, type PixelRule } from '../../../../main/fields/stats';
import { rasterResults, wantedRuns } from '../../../../main/fields/stats/compute';
import { chunkOf, type CoverageChunk } from '../../../../main/fields/stats/packed';
import type { WantedRuns } from '../../../../main/fields/stats/read';
import { seededRandom } from '../../../../simulator/faults';

const GRID: PixelGrid = { originX: 0, originY: 0, resX: 1, resY: -1, width: 300, height: 260 };
const POISON = 1e12;

/** A value per pixel, NaN (invalid) on a diagonal pattern. */
const valueAt = (x: number, y: number) => ((x * 7 + y * 3) % 23 === 0 ? NaN : Math.sin(x / 9) * Math.cos(y / 7) + x / 1000);

function chunkOfRandomParcels(seed: number, rule: PixelRule): CoverageChunk {
  const r = seededRandom(seed);
  const coverages = Array.from({ length: 120 }, () => {
    // Mostly small parcels in a loose grid, some tall and wide ones, some past the raster's edge.
    const w = r() < 0.1 ? 5 + r() * 120 : 2 + r() * 25;
    const h = r() < 0.1 ? 40 + r() * 150 : 0.5 + r() * 25;
    const x = -10 + r() * (GRID.width + 10);
    const y = -10 + r() * (GRID.height + 10);
    const tilt = (r() - 0.5) * 0.6 * w;
    const ring = [[x, -y], [x + w, -y - tilt], [x + w - tilt, -y - h], [x - tilt, -y - h + tilt], [x, -y]];
    return coverageOf([[ring]], GRID, rule);
  });
  return chunkOf('test', rule, Int32Array.from(coverages.keys()), coverages);
}

/** Fills the window's values into `into`: all of them, or only `wanted`'s runs with POISON elsewhere. */
function reader(honourWanted: boolean) {
  return async (win: [number, number, number, number], into?: Float64Array, wanted?: WantedRuns): Promise<Float64Array> => {
    const [x0, y0, x1, y1] = win;
    const w = x1 - x0;
    const out = into ?? new Float64Array(w * (y1 - y0));
    for (let y = y0; y < y1; y++) {
      const o = (y - y0) * w - x0;
      if (honourWanted && wanted) {
        for (let x = x0; x < x1; x++) out[o + x] = POISON;
        for (let k = wanted.rowStart[y - y0]!; k < wanted.rowStart[y - y0 + 1]!; k++) {
          for (let x = wanted.runs[2 * k]!; x < wanted.runs[2 * k + 1]!; x++) out[o + x] = valueAt(x, y);
        }
      } else for (let x = x0; x < x1; x++) out[o + x] = valueAt(x, y);
    }
    return out;
  };
}

describe('strip reads of the parcels\' columns only', () => {
  for (const rule of ['centre', 'exact', 'touched'] as const) {
    it(`give the results of full reads (${rule} rule, strips of 8 and 32 rows)`, async () => {
      for (const seed of [1, 2, 3]) {
        const c = chunkOfRandomParcels(seed, rule);
        for (const stripRows of [8, 32]) {
          const raster = { width: GRID.width, height: GRID.height, stripRows };
          const full = await rasterResults('r', c, reader(false), raster);
          const runs = await rasterResults('r', c, reader(true), raster);
          expect(runs.parcels).toEqual(full.parcels);
          expect(Array.from(runs.values)).toEqual(Array.from(full.values));
          expect(full.parcels.length, 'parcels meet the raster').toBeGreaterThan(100);
          expect(Array.from(full.values).some((v) => v >= POISON)).toBe(false);
        }
      }
    });
  }

  it('merge the windows of a row into ascending, disjoint runs and leave uncovered rows empty', () => {
    // Windows [x0, y0, x1, y1): two overlapping, one touching, one apart, one below the rows asked.
    const windows = [[10, 0, 20, 3], [15, 1, 30, 2], [30, 1, 35, 4], [50, 2, 60, 3], [0, 9, 5, 10]];
    const c = { windows: Int32Array.from(windows.flat()) } as CoverageChunk;
    const got = wantedRuns(c, [0, 1, 2, 3, 4], 0, 0, 6, 10);
    const rows = Array.from({ length: 6 }, (_, r) => Array.from(got.runs.subarray(2 * got.rowStart[r]!, 2 * got.rowStart[r + 1]!)));
    expect(rows).toEqual([[10, 20], [10, 35], [10, 20, 30, 35, 50, 60], [30, 35], [], []]);
    // From parcel 1 on, and rows [1, 3): parcel 0 has finished with them.
    const later = wantedRuns(c, [0, 1, 2, 3, 4], 1, 1, 3, 10);
    expect(Array.from(later.rowStart)).toEqual([0, 1, 3]);
    expect(Array.from(later.runs)).toEqual([15, 35, 30, 35, 50, 60]);
    // A window taller than `tall` rows reads its own window: not in the runs.
    expect(Array.from(wantedRuns(c, [0, 1, 2, 3, 4], 0, 0, 6, 2).runs)).toEqual([15, 30, 50, 60]);
  });
});
