/** Statistics of the valid values of an area: count, mean, median and the p10–p90 band. */

/** Summary of one date's values over an area. */
export interface AreaStats {
  /** Valid values (not nodata, finite). */
  count: number;
  mean: number;
  median: number;
  p10: number;
  p90: number;
  min: number;
  max: number;
}

/**
 * The p-th percentile (0..100) of ascending `sorted` values, linearly interpolated between the two
 * closest ranks (rank h = (n - 1) p / 100; Hyndman & Fan type 7, the default of R and NumPy).
 */
export function percentileSorted(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const h = ((n - 1) * Math.min(100, Math.max(0, p))) / 100;
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/** Summarises `values` (finite numbers only; sorted in place). Null when there are none. */
export function summarize(values: Float64Array): AreaStats | null {
  const n = values.length;
  if (n === 0) return null;
  values.sort();
  let sum = 0;
  for (let i = 0; i < n; i++) sum += values[i]!;
  return {
    count: n,
    mean: sum / n,
    median: percentileSorted(values, 50),
    p10: percentileSorted(values, 10),
    p90: percentileSorted(values, 90),
    min: values[0]!,
    max: values[n - 1]!,
  };
}

/** A fixed-width histogram of finite values between min and max. */
export interface ValueHistogram {
  min: number;
  max: number;
  counts: number[];
}

/** Histogram of the finite values of `values` in `bins` equal bins over their range. */
export function histogramOf(values: ArrayLike<number>, bins = 64): ValueHistogram {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isFinite(v)) continue;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const counts = new Array<number>(bins).fill(0);
  if (min > max) return { min: 0, max: 0, counts };
  const width = max > min ? (max - min) / bins : 1;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isFinite(v)) continue;
    counts[Math.min(bins - 1, Math.floor((v - min) / width))]!++;
  }
  return { min, max, counts };
}
