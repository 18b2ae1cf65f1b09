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

/** DN scale and offset to physical values. */
export interface BandScaling {
  scale: number;
  offset: number;
}

/**
 * The DN scaling of a band: the file's own SCALE/OFFSET when it has them, else the service's
 * conventions (INT16 reflectance DN/10000, index bands DN/32767; UINT8 reflectance DN*0.4/255,
 * index (DN-128)/127), else identity.
 */
export function bandScaling(name: string, dataType: string, file?: { scale?: number | null; offset?: number | null }): BandScaling {
  if (file?.scale != null && Number.isFinite(file.scale) && file.scale !== 0) {
    return { scale: file.scale, offset: file.offset != null && Number.isFinite(file.offset) ? file.offset : 0 };
  }
  const index = /^\[\w+_\w+\]$/.test(name);
  const reflectance = /^B\d+A?$/i.test(name);
  if (dataType === 'INT16') {
    if (index) return { scale: 1 / 32767, offset: 0 };
    if (reflectance) return { scale: 1 / 10000, offset: 0 };
  }
  if (dataType === 'UINT8') {
    if (index) return { scale: 1 / 127, offset: -128 / 127 };
    if (reflectance) return { scale: 0.4 / 255, offset: 0 };
  }
  return { scale: 1, offset: 0 };
}

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
