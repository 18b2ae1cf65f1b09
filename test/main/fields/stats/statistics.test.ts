/**
 * The statistics of a parcel's values under the centre and touched rules (every weight 1) against
 * a plain reference: the values sorted, NumPy's linear percentile (Hyndman & Fan type 7) read off
 * the sorted array, the mean and population standard deviation summed directly. The rank
 * histogram must give exactly the sorted array's values, whatever the values' spread: ties,
 * one outlier far from the rest, a single value, extreme magnitudes, a span too small to divide.
 */
import { describe, expect, it } from 'vitest';
import { weightedStats } from '../../../../main/fields/stats';
import { seededRandom } from '../../../../simulator/faults';

function reference(values: number[]) {
  const v = Float64Array.from(values).sort();
  const n = v.length;
  const pct = (p: number) => {
    const h = ((n - 1) * p) / 100;
    const k = Math.floor(h);
    return k + 1 >= n || h === k ? v[k]! : v[k]! + (h - k) * (v[k + 1]! - v[k]!);
  };
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const std = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / n);
  return { min: v[0]!, max: v[n - 1]!, mean, std, p10: pct(10), median: pct(50), p90: pct(90) };
}

function check(values: number[]): void {
  const got = weightedStats(Float64Array.from(values), null, values.length)!;
  const want = reference(values);
  // The ranks' values are the sorted array's own: exactly equal, and so the percentiles between them.
  expect({ min: got.min, max: got.max, p10: got.p10, median: got.median, p90: got.p90 }).toEqual({ min: want.min, max: want.max, p10: want.p10, median: want.median, p90: want.p90 });
  expect(got.mean).toBeCloseTo(want.mean, 9);
  expect(got.std).toBeCloseTo(want.std, 9);
  expect(got.weight).toBe(values.length);
}

describe('unweighted parcel statistics', () => {
  it('equal the sorted reference on random values of every size up to 3,000', () => {
    const r = seededRandom(7);
    for (let n = 1; n <= 3000; n += n < 40 ? 1 : 97) {
      check(Array.from({ length: n }, () => r() * 2 - 1));
    }
  });

  it('equal it with many ties (an index of 16-bit numbers), one far outlier, and skewed values', () => {
    const r = seededRandom(11);
    for (let k = 0; k < 50; k++) {
      const n = 50 + Math.floor(r() * 2000);
      check(Array.from({ length: n }, () => Math.round(r() * 20) / 20));
      check([...Array.from({ length: n }, () => 0.3 + r() * 1e-3), 1e6]);
      check([-1e9, ...Array.from({ length: n }, () => r() ** 8)]);
    }
  });

  it('equal it for one value, equal values, extreme magnitudes and a span too small to divide', () => {
    check([0.42]);
    check([0.5, -0.5]);
    check(Array.from({ length: 999 }, () => 0.25));
    check([-1.7e308, 1.7e308, 0, 1, -1, 1e-300]);
    check([1, 1 + Number.EPSILON, 1, 1 + 2 * Number.EPSILON, 1]);
    check([5e-324, 0, 1e-323, 5e-324, 0, 0]);
  });

  it('leave no state behind: the same values after other parcels give the same answer', () => {
    const r = seededRandom(3);
    const a = Array.from({ length: 777 }, () => r());
    const first = weightedStats(Float64Array.from(a), null, a.length);
    for (let k = 0; k < 20; k++) weightedStats(Float64Array.from({ length: 100 + k * 50 }, () => r() * 100), null, 100 + k * 50);
    expect(weightedStats(Float64Array.from(a), null, a.length)).toEqual(first);
  });
});
