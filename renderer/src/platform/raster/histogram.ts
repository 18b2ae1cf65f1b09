/**
 * Histograms of band values (physical units) from an overview, and the percentiles the stretch
 * uses. NaN marks no data and is counted apart, so it never drags a stretch towards nodata.
 */

/** Counts of values in equal bins between min and max. */
export interface Histogram {
  min: number;
  max: number;
  counts: Uint32Array;
  /** Valid values counted. */
  total: number;
  /** NaN (no data) values seen. */
  nodata: number;
}

/** Bins of {@link buildHistogram} by default: fine enough that a percentile is within 1/4096 of the range. */
export const HISTOGRAM_BINS = 4096;

/** Builds a histogram of the finite values; NaN and infinities count as no data. */
export function buildHistogram(values: ArrayLike<number>, bins = HISTOGRAM_BINS): Histogram {
  let min = Infinity;
  let max = -Infinity;
  let nodata = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isFinite(v)) { nodata++; continue; }
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const counts = new Uint32Array(bins);
  const total = values.length - nodata;
  if (total === 0) return { min: 0, max: 0, counts, total: 0, nodata };
  const span = max - min;
  const k = span > 0 ? bins / span : 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isFinite(v)) continue;
    counts[Math.min(bins - 1, Math.floor((v - min) * k))]!++;
  }
  return { min, max, counts, total, nodata };
}

/**
 * The value below which `p` percent of the valid values lie, interpolated linearly inside the bin
 * where the cumulative count crosses p (so it is exact to within one bin width).
 */
export function percentile(h: Histogram, p: number): number {
  if (h.total === 0) return NaN;
  if (p <= 0) return h.min;
  if (p >= 100) return h.max;
  const target = (p / 100) * h.total;
  const bins = h.counts.length;
  const width = (h.max - h.min) / bins;
  let cum = 0;
  for (let i = 0; i < bins; i++) {
    const c = h.counts[i]!;
    if (c > 0 && cum + c >= target) return h.min + (i + (target - cum) / c) * width;
    cum += c;
  }
  return h.max;
}

/** Counts in `bins` equal bins between lo and hi (values outside are clamped into the end bins), for drawing. */
export function rebin(h: Histogram, lo: number, hi: number, bins: number): Uint32Array {
  const out = new Uint32Array(bins);
  if (h.total === 0 || !(hi > lo)) return out;
  const n = h.counts.length;
  const width = (h.max - h.min) / n;
  for (let i = 0; i < n; i++) {
    const c = h.counts[i]!;
    if (c === 0) continue;
    const centre = h.min + (i + 0.5) * width;
    const j = Math.floor(((centre - lo) / (hi - lo)) * bins);
    out[Math.max(0, Math.min(bins - 1, j))]! += c;
  }
  return out;
}
