import { describe, expect, it } from 'vitest';
import { histogramOf, parseIndexExpression, percentileSorted, summarize } from '../../../main/analysis';
import { referenceStats } from './gdal-reference';

describe('area statistics', () => {
  it('gives the textbook figures of 1..10 (type 7 percentiles: rank (n - 1) p)', () => {
    const s = summarize(Float64Array.from([7, 3, 10, 1, 9, 2, 8, 4, 6, 5]))!;
    expect(s).toEqual({ count: 10, mean: 5.5, median: 5.5, p10: 1.9, p90: 9.1, min: 1, max: 10 });
    // Odd count: the median is the middle value; p10 of 1..11 is rank 1 exactly.
    const odd = summarize(Float64Array.from({ length: 11 }, (_, i) => 11 - i))!;
    expect([odd.median, odd.p10, odd.p90]).toEqual([6, 2, 10]);
  });

  it('matches the plain-array reference on random data, and nothing for no values', () => {
    let seed = 42;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    for (const n of [1, 2, 3, 17, 1000]) {
      const values = Array.from({ length: n }, rnd);
      const s = summarize(Float64Array.from(values))!;
      const ref = referenceStats(values);
      expect(s.count).toBe(ref.count);
      for (const k of ['mean', 'median', 'p10', 'p90'] as const) expect(s[k]).toBeCloseTo(ref[k], 12);
    }
    expect(summarize(new Float64Array(0))).toBeNull();
    expect(percentileSorted([], 50)).toBeNaN();
    expect(percentileSorted([4], 90)).toBe(4);
  });

  it('histograms only the finite values over their range', () => {
    const h = histogramOf([0, 1, 2, 3, NaN, 4, Infinity], 4);
    expect(h).toEqual({ min: 0, max: 4, counts: [1, 1, 1, 2] });
    expect(histogramOf([NaN], 3)).toEqual({ min: 0, max: 0, counts: [0, 0, 0] });
  });
});

describe('index expressions', () => {
  it('accepts one band or one index of the Bandnames grammar', () => {
    expect(parseIndexExpression('ndvi')).toEqual({ kind: 'index', a: 'B8', b: 'B4', label: 'NDVI [B8_B4]' });
    expect(parseIndexExpression('[b11_b8]')).toEqual({ kind: 'index', a: 'B11', b: 'B8', label: '[B11_B8]' });
    expect(parseIndexExpression('b8a')).toEqual({ kind: 'band', band: 'B8A', label: 'B8A' });
    expect(parseIndexExpression('B4,B8')).toEqual({ error: expect.stringMatching(/names 2 bands/) });
    expect(parseIndexExpression('rgb')).toEqual({ error: expect.stringMatching(/names 3 bands/) });
    expect(parseIndexExpression('[B8_X]')).toEqual({ error: expect.stringMatching(/Unknown band "X"/) });
  });
});
