/**
 * Weighted statistics of one parcel on one date: the values of its valid pixels, each with its
 * coverage weight (1 under the centre and touched rules).
 *
 * - mean: sum(w v) / sum(w).
 * - std: the weighted population standard deviation, sqrt(sum(w (v - mean)^2) / sum(w)) (NumPy's
 *   np.std with ddof=0 when every weight is 1).
 * - min, max: of the values with a weight, whatever the weight.
 * - median, p10, p90: weighted percentiles. Sorted by value, sample k (cumulative weight C_k including
 *   its own w_k, total W) sits at u_k = (C_k - w_k / 2 - w_0 / 2) / (W - w_0 / 2 - w_last / 2),
 *   from 0 for the lowest to 1 for the highest; percentile p is linearly interpolated between the two
 *   samples around u = p / 100. With every weight 1, u_k = k / (n - 1): NumPy's np.percentile default
 *   ("linear", Hyndman & Fan type 7).
 */

/** Statistics of a parcel's valid pixels (null when it has none). */
export interface WeightedStats {
  mean: number;
  min: number;
  max: number;
  std: number;
  median: number;
  p10: number;
  p90: number;
  /** Sum of the weights (pixels). */
  weight: number;
}

/**
 * The statistics of `values[0..n)` weighted by `weights[0..n)` (null: every weight 1). Every value
 * is finite and every weight > 0. `values` and `weights` are reordered (sorted by value).
 */
export function weightedStats(values: Float64Array, weights: Float64Array | null, n: number): WeightedStats | null {
  if (n === 0) return null;
  if (!weights) return unweighted(values.subarray(0, n));
  // Sort value-weight pairs by value through an index.
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => values[a]! - values[b]!);
  const v = new Float64Array(n);
  const w = new Float64Array(n);
  let W = 0;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const k = order[i]!;
    v[i] = values[k]!;
    w[i] = weights[k]!;
    W += w[i]!;
    sum += w[i]! * v[i]!;
  }
  const mean = sum / W;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += w[i]! * (v[i]! - mean) ** 2;
  return {
    mean,
    min: v[0]!,
    max: v[n - 1]!,
    std: Math.sqrt(ss / W),
    median: weightedPercentile(v, w, W, 50),
    p10: weightedPercentile(v, w, W, 10),
    p90: weightedPercentile(v, w, W, 90),
    weight: W,
  };
}

function unweighted(v: Float64Array): WeightedStats {
  v.sort();
  const n = v.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += v[i]!;
  const mean = sum / n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (v[i]! - mean) ** 2;
  const pct = (p: number): number => {
    const h = ((n - 1) * p) / 100;
    const lo = Math.floor(h);
    const hi = Math.min(n - 1, lo + 1);
    return v[lo]! + (h - lo) * (v[hi]! - v[lo]!);
  };
  return { mean, min: v[0]!, max: v[n - 1]!, std: Math.sqrt(ss / n), median: pct(50), p10: pct(10), p90: pct(90), weight: n };
}

/** Percentile `p` (0..100) of values `v` sorted ascending with weights `w` (total `W`), by the rule in this module's comment. */
export function weightedPercentile(v: Float64Array, w: Float64Array, W: number, p: number): number {
  const n = v.length;
  if (n === 1) return v[0]!;
  const t = Math.min(100, Math.max(0, p)) / 100;
  const first = w[0]! / 2;
  const span = W - first - w[n - 1]! / 2;
  let cum = 0;
  let prevU = 0;
  for (let k = 0; k < n; k++) {
    cum += w[k]!;
    const u = k === n - 1 ? 1 : (cum - w[k]! / 2 - first) / span;
    if (u >= t) {
      if (k === 0) return v[0]!;
      const f = u > prevU ? (t - prevU) / (u - prevU) : 1;
      return v[k - 1]! + f * (v[k]! - v[k - 1]!);
    }
    prevU = u;
  }
  return v[n - 1]!;
}
