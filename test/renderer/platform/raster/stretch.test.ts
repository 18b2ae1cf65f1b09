import { describe, expect, it } from 'vitest';
import { HISTOGRAM_BINS, buildHistogram, percentile, rebin } from '../../../../renderer/src/platform/raster/histogram';
import { DEFAULT_STRETCH, applyStretch, bandScaling, stretchRange } from '../../../../renderer/src/platform/raster/stretch';

/** Numpy's default ("linear") percentile of sorted values: the reference for the histogram's. */
function exactPercentile(sorted: number[], p: number): number {
  const h = (sorted.length - 1) * (p / 100);
  const lo = Math.floor(h);
  return sorted[lo]! + (h - lo) * ((sorted[Math.min(lo + 1, sorted.length - 1)] ?? sorted[lo]!) - sorted[lo]!);
}

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

describe('histograms and percentiles', () => {
  it('percentiles are exact to within one bin of the sorted-data percentile, for skewed data', () => {
    const rnd = lcg(7);
    const values: number[] = [];
    for (let i = 0; i < 50_000; i++) values.push(Math.exp(rnd() * 3) / 20 - 0.05); // log-uniform-ish reflectance
    const h = buildHistogram(values);
    const sorted = [...values].sort((a, b) => a - b);
    const bin = (h.max - h.min) / HISTOGRAM_BINS;
    for (const p of [0, 2, 5, 25, 50, 75, 98, 100]) expect(Math.abs(percentile(h, p) - exactPercentile(sorted, p)), `p${p}`).toBeLessThanOrEqual(bin * 1.01 + 1e-12);
  });

  it('counts NaN and infinities as nodata, never as values', () => {
    const h = buildHistogram([NaN, 1, 2, 3, Infinity, NaN, 4, -Infinity]);
    expect(h).toMatchObject({ min: 1, max: 4, total: 4, nodata: 4 });
    expect(percentile(h, 0)).toBe(1);
    expect(percentile(h, 100)).toBe(4);
    expect(percentile(buildHistogram([NaN]), 50)).toBeNaN();
  });

  it('a constant band has one bin and a non-empty range', () => {
    const h = buildHistogram([0.2, 0.2, 0.2]);
    expect(h.counts[0]).toBe(3);
    const [lo, hi] = stretchRange(h, DEFAULT_STRETCH);
    expect(lo).toBe(0.2);
    expect(hi).toBeGreaterThan(lo);
  });

  it('rebins into display bins that keep every count', () => {
    const h = buildHistogram([0, 0.25, 0.5, 0.75, 1, 1]);
    const r = rebin(h, 0, 1, 4);
    expect(Array.from(r).reduce((a, b) => a + b, 0)).toBe(6);
    // Values beyond the display range land in the end bins.
    expect(Array.from(rebin(h, -1, 0.5, 3))).toEqual([0, 0, 6]);
    expect(Array.from(rebin(h, 0, 1, 2))).toEqual([2, 4]);
  });
});

describe('stretch and scaling', () => {
  it('min/max, percentile and manual ranges', () => {
    const values = Array.from({ length: 101 }, (_, i) => i / 100);
    const h = buildHistogram(values);
    expect(stretchRange(h, { mode: 'minmax', low: 2, high: 98 })).toEqual([0, 1]);
    const [lo, hi] = stretchRange(h, DEFAULT_STRETCH);
    expect(lo).toBeCloseTo(0.02, 3);
    expect(hi).toBeCloseTo(0.98, 3);
    expect(stretchRange(h, { mode: 'manual', low: 2, high: 98 }, [0.1, 0.3])).toEqual([0.1, 0.3]);
  });

  it('applies a linear stretch, clamps, then gamma', () => {
    expect(applyStretch(0.05, 0, 0.1)).toBe(0.5);
    expect(applyStretch(-1, 0, 0.1)).toBe(0);
    expect(applyStretch(2, 0, 0.1)).toBe(1);
    expect(applyStretch(0.025, 0, 0.1, 2)).toBeCloseTo(0.5, 12);
  });

  it('scales DNs: the file\'s SCALE/OFFSET first, else the service conventions', () => {
    expect(bandScaling('B4', 'INT16')).toEqual({ scale: 1 / 10000, offset: 0 });
    expect(bandScaling('[B8_B4]', 'INT16')).toEqual({ scale: 1 / 32767, offset: 0 });
    expect(bandScaling('B4', 'UINT8')).toEqual({ scale: 0.4 / 255, offset: 0 });
    expect(bandScaling('[B8_B4]', 'UINT8')).toEqual({ scale: 1 / 127, offset: -128 / 127 });
    expect(bandScaling('Band 1', 'FLOAT32')).toEqual({ scale: 1, offset: 0 });
    // A class or cloud band keeps its numbers (main's analysis scaled it as reflectance before they shared this rule).
    expect(bandScaling('SCL', 'INT16')).toEqual({ scale: 1, offset: 0 });
    expect(bandScaling('B8A', 'INT16')).toEqual({ scale: 1 / 10000, offset: 0 });
    expect(bandScaling('B4', 'INT16', { scale: 2e-5, offset: -0.1 })).toEqual({ scale: 2e-5, offset: -0.1 });
    expect(bandScaling('B4', 'INT16', { scale: 0.0002, offset: -0.1 })).toEqual({ scale: 0.0002, offset: -0.1 });
    expect(bandScaling('B4', 'INT16', { scale: null, offset: null })).toEqual({ scale: 1 / 10000, offset: 0 });
  });
});
