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
 * is finite and every weight > 0. `values` may be reordered.
 */
/** Reused buffers of the weighted path (a third each: interior values, sorted values, their weights). */
let scratch = new Float64Array(3 * 4096);

export function weightedStats(values: Float64Array, weights: Float64Array | null, n: number): WeightedStats | null {
  if (n === 0) return null;
  if (!weights) return unweighted(values.subarray(0, n));
  // Pixels of weight 1 (a parcel's inside) sorted natively, the partial ones (its edge) through an
  // index, then merged: the edge is a small part of a parcel's pixels.
  let ones = 0;
  for (let i = 0; i < n; i++) if (weights[i] === 1) ones++;
  if (scratch.length < 3 * n) scratch = new Float64Array(6 * n);
  const cap = scratch.length / 3;
  const full = scratch.subarray(0, ones);
  const part: number[] = [];
  for (let i = 0, o = 0; i < n; i++) {
    if (weights[i] === 1) full[o++] = values[i]!;
    else part.push(i);
  }
  full.sort();
  part.sort((a, b) => values[a]! - values[b]!);
  const v = scratch.subarray(cap, cap + n);
  const w = scratch.subarray(2 * cap, 2 * cap + n);
  let W = 0;
  let sum = 0;
  for (let i = 0, a = 0, b = 0; i < n; i++) {
    if (b >= part.length || (a < ones && full[a]! <= values[part[b]!]!)) {
      v[i] = full[a++]!;
      w[i] = 1;
    } else {
      const k = part[b++]!;
      v[i] = values[k]!;
      w[i] = weights[k]!;
    }
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
  const n = v.length;
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const x = v[i]!;
    sum += x;
    if (x < min) min = x;
    if (x > max) max = x;
  }
  const mean = sum / n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (v[i]! - mean) ** 2;
  // NumPy's linear percentile from the two ranks around (n - 1) p / 100, found by selection (no
  // full sort): the median's rank first, then p10 left of it and p90 right of it.
  const rankOf = (p: number) => Math.floor(((n - 1) * p) / 100);
  const at = (p: number, lo: number, hi: number): number => {
    const h = ((n - 1) * p) / 100;
    const k = Math.floor(h);
    select(v, k, lo, hi);
    if (k + 1 >= n || h === k) return v[k]!;
    let next = Infinity;
    for (let i = k + 1; i < n; i++) if (v[i]! < next) next = v[i]!;
    return v[k]! + (h - k) * (next - v[k]!);
  };
  const median = at(50, 0, n);
  const k50 = rankOf(50);
  const p10 = at(10, 0, k50 + 1);
  const p90 = at(90, k50, n);
  return { mean, min, max, std: Math.sqrt(ss / n), median, p10, p90, weight: n };
}

/**
 * Rearranges `a[lo..hi)` so that `a[k]` is the value of rank k within it, smaller or equal values
 * before it and greater or equal after (Hoare's quickselect, median-of-three pivots).
 */
function select(a: Float64Array, k: number, lo: number, hi: number): void {
  let l = lo;
  let r = hi - 1;
  while (r > l) {
    const m = (l + r) >> 1;
    // Median of three as the pivot.
    if (a[m]! < a[l]!) swap(a, m, l);
    if (a[r]! < a[l]!) swap(a, r, l);
    if (a[r]! < a[m]!) swap(a, r, m);
    const pivot = a[m]!;
    let i = l;
    let j = r;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        swap(a, i, j);
        i++;
        j--;
      }
    }
    if (k <= j) r = j;
    else if (k >= i) l = i;
    else return;
  }
}

function swap(a: Float64Array, i: number, j: number): void {
  const t = a[i]!;
  a[i] = a[j]!;
  a[j] = t;
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
