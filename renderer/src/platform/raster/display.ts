import { isNormalizedDifference, parseBandExpression, type BandAst } from './band-expression';
import type { RampName } from './color-ramps';
import { DEFAULT_STRETCH, type BandScaling, type StretchSettings } from './stretch';

/**
 * What a preview layer shows: an RGB composite of any three bands, one band with a colour ramp,
 * or a band expression (NDVI and friends) with a ramp; plus the stretch. Pure data, so the store
 * can keep it per layer and time-series steps can carry it from one date to the next.
 */

/** How bands become colours. */
export type DisplayMode = 'rgb' | 'single' | 'expression';

/** Display settings of one layer. */
export interface DisplaySettings {
  mode: DisplayMode;
  /** 1-based bands for red, green and blue. */
  rgb: [number, number, number];
  /** 1-based band for 'single'. */
  band: number;
  /** Band expression for 'expression'. */
  expression: string;
  ramp: RampName;
  stretch: StretchSettings;
  /** Manual ranges (physical units) by channel key, used when stretch.mode is 'manual'. */
  manual: Record<string, [number, number]>;
}

/** One band of a raster as the display needs it. */
export interface BandMeta {
  name: string;
  scaling: BandScaling;
}

/** One displayed quantity: a colour channel of a composite, or the single value of a ramp. */
export interface Channel {
  key: 'r' | 'g' | 'b' | 'v';
  label: string;
  ast: BandAst;
}

function bandAst(index: number, bands: readonly BandMeta[]): BandAst {
  return { type: 'band', index, name: bands[index - 1]?.name ?? `Band ${index}` };
}

/** The channels a display shows, or why it cannot (a bad expression, a band out of range). */
export function displayChannels(d: DisplaySettings, bands: readonly BandMeta[]): { ok: true; channels: Channel[] } | { ok: false; message: string } {
  const n = bands.length;
  const bad = (i: number) => !(Number.isInteger(i) && i >= 1 && i <= n);
  if (d.mode === 'rgb') {
    if (d.rgb.some(bad)) return { ok: false, message: `Choose bands 1-${n} for red, green and blue.` };
    const keys = ['r', 'g', 'b'] as const;
    return { ok: true, channels: d.rgb.map((i, k) => ({ key: keys[k]!, label: `${['Red', 'Green', 'Blue'][k]}: ${bands[i - 1]!.name}`, ast: bandAst(i, bands) })) };
  }
  if (d.mode === 'single') {
    if (bad(d.band)) return { ok: false, message: `Choose a band 1-${n}.` };
    return { ok: true, channels: [{ key: 'v', label: bands[d.band - 1]!.name, ast: bandAst(d.band, bands) }] };
  }
  const parsed = parseBandExpression(d.expression, bands.map((b) => b.name));
  if (!parsed.ok) return { ok: false, message: `${parsed.message} (at character ${parsed.at + 1}).` };
  return { ok: true, channels: [{ key: 'v', label: d.expression.trim(), ast: parsed.ast }] };
}

function find(bands: readonly BandMeta[], name: string): number {
  return bands.findIndex((b) => b.name.toUpperCase() === name) + 1;
}

/** Whether a band is a delivered index ([A_B]). */
export function isIndexBand(name: string): boolean {
  return /^\[\w+_\w+\]$/.test(name);
}

/**
 * The first display of a raster: B4/B3/B2 true colour when those names are present, else the
 * first three bands; a single band gets viridis (or the diverging ramp for an index band).
 */
export function defaultDisplay(bands: readonly BandMeta[]): DisplaySettings {
  const base: DisplaySettings = { mode: 'rgb', rgb: [1, 2, 3], band: 1, expression: 'ndvi', ramp: 'viridis', stretch: { ...DEFAULT_STRETCH }, manual: {} };
  const r = find(bands, 'B4');
  const g = find(bands, 'B3');
  const b = find(bands, 'B2');
  if (r && g && b) return { ...base, rgb: [r, g, b] };
  if (bands.length >= 3) {
    const reflectance = bands.map((x, i) => (isIndexBand(x.name) ? 0 : i + 1)).filter(Boolean);
    if (reflectance.length >= 3) return { ...base, rgb: [reflectance[0]!, reflectance[1]!, reflectance[2]!] };
  }
  const first = bands.findIndex((x) => !isIndexBand(x.name)) + 1 || 1;
  const onlyIndex = bands.length > 0 && bands.every((x) => isIndexBand(x.name));
  return { ...base, mode: 'single', band: onlyIndex ? 1 : first, ramp: onlyIndex ? 'rdylgn' : 'grey' };
}

/** Whether a display's values are a normalized difference (so a diverging ramp and -1..1 make sense). */
export function isIndexDisplay(channels: readonly Channel[]): boolean {
  return channels.length === 1 && isNormalizedDifference(channels[0]!.ast);
}

/** Offers an NDVI-style expression when the raster has the bands for it. */
export function suggestedExpressions(bands: readonly BandMeta[]): string[] {
  const has = (n: string) => find(bands, n) > 0;
  const out: string[] = [];
  if (has('[B8_B4]') || (has('B8') && has('B4'))) out.push('ndvi');
  if (has('B3') && has('B8')) out.push('ndwi');
  if (has('B8') && has('B12')) out.push('nbr');
  return out;
}
