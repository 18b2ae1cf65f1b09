/**
 * The valid share of a parcel whose covered pixels are all valid is exactly 1, under every pixel
 * rule, whatever the fractional weights of its edge; with one invalid pixel it is under 1.
 */
import { describe, expect, it } from 'vitest';
import { rasterResults } from '../../../../main/fields/stats/compute';
import { coverageOf, PIXEL_RULES, type PixelGrid } from '../../../../main/fields/stats';
import { chunkOf, RESULT_FIELDS } from '../../../../main/fields/stats/packed';

const GRID: PixelGrid = { originX: 0, originY: 1000, resX: 10, resY: -10, width: 100, height: 100 };

/** Irregular polygons inside the grid: every edge cuts pixels at odd fractions. */
const polygons = Array.from({ length: 40 }, (_, i) => {
  const x = 37.3 + (i % 8) * 113.7;
  const y = 961.1 - Math.floor(i / 8) * 181.3;
  const s = 17.9 + (i % 7) * 11.3;
  return [[[x, y], [x + s * 3.1, y - s * 0.37], [x + s * 2.3, y - s * 2.9], [x - s * 0.41, y - s * 1.7], [x, y]]];
});

/** Values of a window, every pixel valid except `invalid` (a grid cell as [col, row]). */
const reader = (invalid: [number, number] | null) => async ([x0, y0, x1, y1]: [number, number, number, number]) => {
  const out = new Float64Array((x1 - x0) * (y1 - y0));
  for (let r = y0; r < y1; r++) for (let c = x0; c < x1; c++) out[(r - y0) * (x1 - x0) + c - x0] = invalid && c === invalid[0] && r === invalid[1] ? NaN : 0.1 + ((r * 31 + c * 17) % 89) / 100;
  return out;
};

describe('valid share', () => {
  for (const rule of PIXEL_RULES) {
    it(`is exactly 1 for parcels whose covered pixels are all valid (${rule})`, async () => {
      const coverages = polygons.map((p) => coverageOf([p], GRID, rule));
      const chunk = chunkOf('g', rule, Int32Array.from(polygons, (_, i) => i), coverages);
      const out = await rasterResults('r', chunk, reader(null), { width: GRID.width, height: GRID.height, stripRows: 256 });
      expect(out.parcels.length).toBe(polygons.length);
      const shares = Array.from(out.parcels, (_, j) => out.values[j * RESULT_FIELDS + 9]);
      expect(shares.filter((s) => s !== 1)).toEqual([]);
    });
  }

  it('is under 1 when one covered pixel is invalid', async () => {
    const c = coverageOf([polygons[0]!], GRID, 'exact')!;
    const first = c.cells[0]!;
    const ww = c.window[2] - c.window[0];
    const cell: [number, number] = [c.window[0] + (first % ww), c.window[1] + Math.floor(first / ww)];
    const out = await rasterResults('r', chunkOf('g', 'exact', Int32Array.of(0), [c]), reader(cell), { width: GRID.width, height: GRID.height, stripRows: 256 });
    const share = out.values[9]!;
    expect(share).toBeLessThan(1);
    expect(share).toBeGreaterThan(0.9);
  });
});
