import { rampColor, type RampName } from './color-ramps';
import type { BandMeta, Channel } from './display';
import { channelValues, type RasterSample } from './raster-data';
import { applyStretch } from './stretch';

/**
 * The CPU twin of the GPU style (layer-style.ts): the same scaling, maths, stretch and ramp, used
 * for thumbnails and to check the map's pixels in tests.
 */

/** RGBA pixels of a sample under a display; fully transparent where the value is nodata. */
export function renderSample(
  sample: RasterSample, channels: readonly Channel[], bands: readonly BandMeta[], nodata: number | null,
  ranges: readonly [number, number][], gamma: number, ramp: RampName,
): Uint8ClampedArray {
  const n = sample.width * sample.height;
  const out = new Uint8ClampedArray(n * 4);
  const values = channels.map((c) => channelValues(sample, c, bands, nodata));
  for (let i = 0; i < n; i++) {
    if (values.every((v) => Number.isNaN(v[i]!))) continue;
    if (channels.length === 3) {
      for (let k = 0; k < 3; k++) {
        const v = values[k]![i]!;
        out[i * 4 + k] = Number.isNaN(v) ? 0 : Math.round(255 * applyStretch(v, ranges[k]![0], ranges[k]![1], gamma));
      }
    } else {
      const c = rampColor(ramp, applyStretch(values[0]![i]!, ranges[0]![0], ranges[0]![1], gamma));
      out[i * 4] = c[0];
      out[i * 4 + 1] = c[1];
      out[i * 4 + 2] = c[2];
    }
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
