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

/** Reused buffers of the weighted path (a third each: interior values, sorted values, their weights). */
let scratch = new Float64Array(3 * 4096);

/**
 * The statistics of `values[0..n)` weighted by `weights[0..n)` (null: every weight 1). Every value
 * is finite and every weight > 0; `values` is left as it is.
 */
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

/** Most buckets of the rank histogram (16 KB of counts). */
const MAX_BUCKETS = 4096;
const counts = new Int32Array(MAX_BUCKETS);
/** Slot + 1 of a bucket whose values are gathered (0: not gathered). */
const gathered = new Uint8Array(MAX_BUCKETS);
let picks = new Float64Array(4096);
/** p10, median, p90. */
const PERCENTILES = [10, 50, 90] as const;
const ranks = new Int32Array(2 * PERCENTILES.length);
const rankSlot = new Int32Array(ranks.length);
const rankAt = new Int32Array(ranks.length);
const slotStart = new Int32Array(ranks.length);
const slotFill = new Int32Array(ranks.length);
const slotBucket = new Int32Array(ranks.length);

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
  // NumPy's linear percentile between the values of ranks floor(h) and floor(h) + 1, h = (n - 1) p / 100.
  // The ranks are found without sorting or partitioning (whose comparisons of random values the CPU
  // mispredicts): a histogram of the values over [min, max] in equal buckets (a bucket is a monotone
  // function of the value, so the values of a rank's bucket are exactly the ranks around it), then
  // only the few buckets holding the wanted ranks are gathered and sorted.
  const buckets = Math.max(1, Math.min(MAX_BUCKETS, n >> 1));
  let scale = buckets / (max - min);
  if (!(scale < Infinity)) scale = 0; // one value (or a span too small to divide): one bucket
  counts.fill(0, 0, buckets);
  let ss = 0;
  for (let i = 0; i < n; i++) {
    const x = v[i]!;
    const d = x - mean;
    ss += d * d;
    let b = ((x - min) * scale) | 0;
    if (b >= buckets) b = buckets - 1;
    counts[b]!++;
  }
  // The wanted ranks, ascending: each percentile's rank and the one after it.
  for (let q = 0; q < PERCENTILES.length; q++) {
    const k = Math.floor(((n - 1) * PERCENTILES[q]!) / 100);
    ranks[2 * q] = k;
    ranks[2 * q + 1] = Math.min(n - 1, k + 1);
  }
  // Each rank's bucket (its slot among the gathered ones) and its place among that bucket's values, in one sweep of the counts.
  let slots = 0;
  let total = 0;
  for (let r = 0, b = 0, before = 0; r < ranks.length; r++) {
    while (before + counts[b]! <= ranks[r]!) before += counts[b++]!;
    if (!gathered[b]) {
      slotStart[slots] = total;
      slotBucket[slots] = b;
      total += counts[b]!;
      gathered[b] = ++slots;
    }
    rankSlot[r] = gathered[b]! - 1;
    rankAt[r] = ranks[r]! - before;
  }
  if (picks.length < total) picks = new Float64Array(Math.max(total, 2 * picks.length));
  for (let s = 0; s < slots; s++) slotFill[s] = slotStart[s]!;
  for (let i = 0; i < n; i++) {
    const x = v[i]!;
    let b = ((x - min) * scale) | 0;
    if (b >= buckets) b = buckets - 1;
    const slot = gathered[b]!;
    if (slot) picks[slotFill[slot - 1]!++] = x;
  }
  for (let s = 0; s < slots; s++) {
    const b = slotBucket[s]!;
    picks.subarray(slotStart[s]!, slotStart[s]! + counts[b]!).sort();
    gathered[b] = 0;
  }
  const at = (q: number): number => {
    const h = ((n - 1) * PERCENTILES[q]!) / 100;
    const k = Math.floor(h);
    const lo = picks[slotStart[rankSlot[2 * q]!]! + rankAt[2 * q]!]!;
    if (k + 1 >= n || h === k) return lo;
    return lo + (h - k) * (picks[slotStart[rankSlot[2 * q + 1]!]! + rankAt[2 * q + 1]!]! - lo);
  };
  return { mean, min, max, std: Math.sqrt(ss / n), p10: at(0), median: at(1), p90: at(2), weight: n };
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
