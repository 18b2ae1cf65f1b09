/**
 * The derived change layer on the map: main's display copy of B - A painted with the diverging
 * red-blue ramp (red: the value went down, blue: up), symmetric around 0 up to a limit, its
 * opacity growing with the size of the change (no change is transparent, so the map and what is
 * drawn on it show through; a change of the limit or more is opaque), as an OpenLayers static image in the raster's own CRS (OpenLayers reprojects it).
 */
import ImageLayer from 'ol/layer/Image';
import ImageStatic from 'ol/source/ImageStatic';
import type { ResponseOf } from '../../../../../preload/contract';
import { whenMap } from '../../../platform/map/map-context';
import { rampColor } from '../../../platform/raster/color-ramps';
import { ensureProjection } from '../../../platform/raster/projection';
import { CHANGE_Z } from '../../../platform/map/z-order';

/** A change layer as main answers `analysis:change`. */
export type ChangeResult = ResponseOf<'analysis:change'>;

/** The display copy's values (NaN: no data). */
export function changeValues(c: ChangeResult): Float32Array {
  const bin = atob(c.display.float32);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new Float32Array(bytes.buffer);
}

/** The ramp's limit: the 98th percentile of |change| (robust to a few outliers), never 0. */
export function changeLimit(values: Float32Array): number {
  const abs: number[] = [];
  for (const v of values) if (Number.isFinite(v)) abs.push(Math.abs(v));
  if (!abs.length) return 1;
  abs.sort((a, b) => a - b);
  const l = abs[Math.min(abs.length - 1, Math.floor(0.98 * (abs.length - 1)))]!;
  return l > 0 ? Number(l.toPrecision(2)) : abs.at(-1)! || 1;
}

/** RGBA pixels of the values with the ramp over [-limit, limit], alpha |v| / limit (no change and no data: transparent). */
export function paintChange(values: Float32Array, limit: number): Uint8ClampedArray<ArrayBuffer> {
  const out = new Uint8ClampedArray(values.length * 4);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isFinite(v)) continue;
    const [r, g, b] = rampColor('rdbu', (v / limit + 1) / 2);
    out[4 * i] = r;
    out[4 * i + 1] = g;
    out[4 * i + 2] = b;
    out[4 * i + 3] = Math.round(255 * Math.min(1, Math.abs(v) / limit));
  }
  return out;
}

let shown: ImageLayer<ImageStatic> | null = null;

/** Shows `c` on the map (replacing the previous change layer) with the ramp up to `limit`. */
export async function showChangeLayer(c: ChangeResult, limit: number): Promise<void> {
  const [map, proj] = await Promise.all([whenMap(), ensureProjection(c.grid.epsg)]);
  const { width, height } = c.display;
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  canvas.getContext('2d')!.putImageData(new ImageData(paintChange(changeValues(c), limit), width, height), 0, 0);
  const g = c.grid;
  // Display pixel i stands for source pixels [i * step, (i + 1) * step): its footprint, not the grid's, is drawn.
  const span = c.display.step * g.pixelSize;
  const extent = [g.originX, g.originY - height * span, g.originX + width * span, g.originY];
  const layer = new ImageLayer({
    source: new ImageStatic({ url: canvas.toDataURL('image/png'), imageExtent: extent, projection: proj.code, interpolate: false }),
    // Above the raster previews, below the overlays (z-order.ts): the derived layer is what the analyst just asked for.
    zIndex: CHANGE_Z,
    properties: { name: 'change', title: c.label },
  });
  hideChangeLayer();
  map.addLayer(layer);
  shown = layer;
}

/** Removes the change layer from the map. */
export function hideChangeLayer(): void {
  if (!shown) return;
  const layer = shown;
  shown = null;
  void whenMap().then((map) => map.removeLayer(layer));
}
