import { rampColor, type RampName } from './color-ramps';
import type { BandMeta, Channel } from './display';
import { channelValues, type RasterSample } from './raster-data';
import { applyStretch } from './stretch';

/**
 * The CPU twin of the GPU style (layer-style.ts): the same scaling, maths, stretch and ramp, used
 * for thumbnails and to check the map's pixels in tests.
 */

/** Display byte 0..255 of a physical value under a range and gamma (the GPU style's arithmetic); -1 for NaN. */
function displayByte(v: number, lo: number, hi: number, gamma: number): number {
  return Number.isNaN(v) ? -1 : Math.round(255 * applyStretch(v, lo, hi, gamma));
}

/**
 * A channel as display bytes indexed by DN (offset by `base`), when it is a plain band of 8/16-bit
 * integers: 256 or 65536 evaluations instead of one per pixel. -1 marks nodata. The value is
 * rounded to float32 first, as {@link channelValues} stores it, so both paths agree to the bit.
 */
function bandLut(
  sample: RasterSample, channel: Channel, bands: readonly BandMeta[], nodata: number | null, lo: number, hi: number, gamma: number,
): { lut: Int16Array; base: number; src: ArrayLike<number> } | null {
  if (channel.ast.type !== 'band') return null;
  const src = sample.data[channel.ast.index - 1]!;
  const base = src instanceof Int16Array ? -32768 : src instanceof Uint16Array || src instanceof Uint8Array ? 0 : null;
  if (base === null) return null;
  const { scale, offset } = bands[channel.ast.index - 1]!.scaling;
  const lut = new Int16Array(src instanceof Uint8Array ? 256 : 65536);
  for (let k = 0; k < lut.length; k++) {
    const dn = k + base;
    lut[k] = dn === nodata ? -1 : displayByte(Math.fround(dn * scale + offset), lo, hi, gamma);
  }
  return { lut, base, src };
}

/** RGBA pixels of a sample under a display; fully transparent where the value is nodata. */
export function renderSample(
  sample: RasterSample, channels: readonly Channel[], bands: readonly BandMeta[], nodata: number | null,
  ranges: readonly [number, number][], gamma: number, ramp: RampName,
): Uint8ClampedArray {
  const n = sample.width * sample.height;
  const out = new Uint8ClampedArray(n * 4);
  if (channels.length === 3) {
    // Per channel: display bytes by pixel (-1 = nodata), through a DN lookup table where possible.
    const bytes = channels.map((c, k) => {
      const [lo, hi] = ranges[k]!;
      const t = bandLut(sample, c, bands, nodata, lo, hi, gamma);
      const b = new Int16Array(n);
      if (t) {
        for (let i = 0; i < n; i++) b[i] = t.lut[t.src[i]! - t.base]!;
      } else {
        const v = channelValues(sample, c, bands, nodata);
        for (let i = 0; i < n; i++) b[i] = displayByte(v[i]!, lo, hi, gamma);
      }
      return b;
    });
    const [r, g, b] = bytes as [Int16Array, Int16Array, Int16Array];
    for (let i = 0; i < n; i++) {
      const vr = r[i]!, vg = g[i]!, vb = b[i]!;
      if (vr < 0 && vg < 0 && vb < 0) continue;
      out[i * 4] = vr < 0 ? 0 : vr;
      out[i * 4 + 1] = vg < 0 ? 0 : vg;
      out[i * 4 + 2] = vb < 0 ? 0 : vb;
      out[i * 4 + 3] = 255;
    }
    return out;
  }
  const [lo, hi] = ranges[0]!;
  const v0 = channelValues(sample, channels[0]!, bands, nodata);
  for (let i = 0; i < n; i++) {
    const v = v0[i]!;
    if (Number.isNaN(v)) continue;
    const c = rampColor(ramp, applyStretch(v, lo, hi, gamma));
    out[i * 4] = c[0];
    out[i * 4 + 1] = c[1];
    out[i * 4 + 2] = c[2];
    out[i * 4 + 3] = 255;
  }
  return out;
}

/** A PNG data URL of RGBA pixels (for list thumbnails). */
export function rgbaToDataUrl(rgba: Uint8ClampedArray, width: number, height: number): string {
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext('2d');
  if (!ctx) return '';
  ctx.putImageData(new ImageData(new Uint8ClampedArray(rgba), width, height), 0, 0);
  return canvas.toDataURL('image/png');
}
