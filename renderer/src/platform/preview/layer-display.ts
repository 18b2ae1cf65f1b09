import { formatExpression } from '../raster/band-expression';
import { isIndexDisplay } from '../raster/display';
import { buildHistogram, type Histogram } from '../raster/histogram';
import { buildRasterStyle, type RasterStyle } from '../raster/layer-style';
import { channelValues } from '../raster/raster-data';
import { stretchRange } from '../raster/stretch';
import type { LayerRuntime, PreviewAnswer, PreviewLayer } from './types';

/**
 * What a layer's display settings make of its raster: one histogram per channel (of the
 * stretch sample, cached by expression), the display ranges, and the WebGL style.
 */

/** The histograms of a layer's channels, computed once per channel expression. */
export function histogramsFor(rt: LayerRuntime, l: PreviewLayer): Histogram[] {
  const sample = rt.sample;
  if (!sample) return l.channels.map(() => buildHistogram([]));
  return l.channels.map((c) => {
    const k = formatExpression(c.ast);
    let h = rt.histograms.get(k);
    if (!h) {
      h = buildHistogram(channelValues(sample, c, l.bands, rt.header.nodata));
      rt.histograms.set(k, h);
    }
    return h;
  });
}

/** Display range [lo, hi] of each channel, from its histogram and the stretch (or the manual ranges). */
export function rangesFor(l: Pick<PreviewLayer, 'channels' | 'histograms' | 'display'>): [number, number][] {
  const index = isIndexDisplay(l.channels);
  return l.channels.map((c, i) => {
    const h = l.histograms[i]!;
    const manual = l.display.manual[c.key];
    // Index values are only meaningful on their own scale: min/max of an index spans -1..1.
    if (index && l.display.stretch.mode === 'minmax') return [Math.max(-1, h.min), Math.min(1, h.max)] as [number, number];
    return stretchRange(h, l.display.stretch, manual);
  });
}

/** The WebGL style of a layer as displayed now. */
export function rasterStyle(l: PreviewLayer, rt: LayerRuntime): RasterStyle {
  const alpha = rt.header.nodata == null ? null : (rt.slots ? rt.slots.length : l.bands.length) + 1;
  return buildRasterStyle(l.channels, l.bands, l.ranges, l.display.stretch.gamma, l.display.ramp, alpha, rt.slots ?? undefined);
}

/** What the layer list says about how a raster is read. */
export function previewNote(p: PreviewAnswer): string | null {
  if (p.state === 'ready') return `Previewed from an overview copy (${p.reused ? 'cached' : `built in ${(p.buildMs / 1000).toFixed(1)} s`}): ${p.reason}`;
  if (p.state === 'quick-look') return `A quick look is shown while the overview copy is built: ${p.reason}`;
  return p.state === 'unsupported' ? p.reason : null;
}
