/**
 * A run cuts each grid's parcels (north to south) into chunks of about equal pixels: as few as the
 * cell budget allows, at least as many as asked (two per statistics thread), none over the parcel
 * limit, every parcel in exactly one chunk and in order.
 */
import { describe, expect, it } from 'vitest';
import { chunkEnds } from '../../../../main/fields/stats/service';
import { seededRandom } from '../../../../simulator/faults';

function sizes(cells: number[], ends: number[]) {
  return ends.map((end, k) => {
    const from = k ? ends[k - 1]! : 0;
    return { parcels: end - from, cells: cells.slice(from, end).reduce((a, b) => a + b, 0) };
  });
}

describe('chunkEnds', () => {
  it('gives the fewest chunks within the cell budget, of about equal pixels', () => {
    const cells = Array.from({ length: 10_000 }, () => 1369);
    const ends = chunkEnds(cells, { maxCells: 8_000_000 });
    expect(ends).toEqual([5000, 10_000]);
    const three = sizes(cells, chunkEnds(cells, { maxCells: 5_000_000 }));
    expect(three.map((c) => c.parcels)).toEqual([3333, 3334, 3333]);
  });

  it('keeps to the minimum count and the parcel limit', () => {
    expect(chunkEnds(Array(10).fill(1), { minChunks: 4 }).length).toBe(4);
    expect(chunkEnds(Array(7).fill(1), { maxParcels: 3 })).toEqual([2, 5, 7]);
    expect(chunkEnds([5], { minChunks: 4 })).toEqual([1]);
    expect(chunkEnds([])).toEqual([]);
  });

  it('covers every parcel once, in order, within the budget unless one parcel alone exceeds it', () => {
    const r = seededRandom(11);
    for (let t = 0; t < 200; t++) {
      const cells = Array.from({ length: 1 + Math.floor(r() * 3000) }, () => (r() < 0.02 ? 50_000 : 1 + r() * 2000));
      const maxCells = 20_000 + r() * 400_000;
      const maxParcels = 1 + Math.floor(r() * 800);
      const minChunks = 1 + Math.floor(r() * 6);
      const ends = chunkEnds(cells, { maxCells, maxParcels, minChunks });
      expect(ends.at(-1)).toBe(cells.length);
      for (let k = 1; k < ends.length; k++) expect(ends[k]!).toBeGreaterThan(ends[k - 1]!);
      for (const c of sizes(cells, ends)) {
        expect(c.parcels).toBeLessThanOrEqual(maxParcels);
        if (c.parcels > 1) expect(c.cells).toBeLessThanOrEqual(maxCells);
      }
      expect(ends.length).toBeGreaterThanOrEqual(Math.min(cells.length, minChunks));
    }
  });
});
