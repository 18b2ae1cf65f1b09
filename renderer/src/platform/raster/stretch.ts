import { percentile, type Histogram } from './histogram';

/**
 * Contrast stretch and DN scaling. Values are physical (reflectance 0..1, index -1..1): DN times
 * the band's scale plus its offset, so stretches and expressions read the same on INT16 and UINT8.
 */

/** How a display range is chosen. */
export type StretchMode = 'percentile' | 'minmax' | 'manual';

/** Stretch settings of a layer. */
export interface StretchSettings {
  mode: StretchMode;
  /** Lower and upper percentile for 'percentile' (2 and 98 by default). */
  low: number;
  high: number;
  /** Gamma applied after the linear stretch (1 = none; above 1 brightens mid-tones). */
  gamma: number;
}

/** The default stretch: 2-98 % percentiles, no gamma. */
export const DEFAULT_STRETCH: StretchSettings = { mode: 'percentile', low: 2, high: 98, gamma: 1 };

export { bandScaling, type BandScaling } from '../../../../common/band-scaling';

/** The display range [lo, hi] of a histogram under a stretch; a flat histogram gets a tiny non-empty range. */
export function stretchRange(h: Histogram, s: Pick<StretchSettings, 'mode' | 'low' | 'high'>, manual?: [number, number]): [number, number] {
  let lo: number;
  let hi: number;
  if (s.mode === 'manual' && manual) [lo, hi] = manual;
  else if (s.mode === 'minmax' || s.mode === 'manual') [lo, hi] = [h.min, h.max];
  else [lo, hi] = [percentile(h, s.low), percentile(h, s.high)];
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return [0, 1];
  if (hi <= lo) hi = lo + Math.max(Math.abs(lo) * 1e-6, 1e-9);
  return [lo, hi];
}

/** Display intensity 0..1 of a value: linear between lo and hi, clamped, then gamma. */
export function applyStretch(v: number, lo: number, hi: number, gamma = 1): number {
  const t = Math.min(1, Math.max(0, (v - lo) / (hi - lo)));
  return gamma === 1 ? t : t ** (1 / gamma);
}
