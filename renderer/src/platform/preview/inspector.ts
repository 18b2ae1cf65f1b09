import type { PointerAt, RasterLayers } from '../map/raster-layers';
import { evaluate, parseBandExpression } from '../raster/band-expression';
import { suggestedExpressions } from '../raster/display';
import { physicalValues } from '../raster/raster-data';
import type { InspectorReading, LayerRuntime, PreviewLayer } from './types';

/**
 * The pixel inspector's reading of one layer under a map position: where it is (lon/lat, the
 * raster's CRS, the full-resolution pixel), every band's DN and physical value, and the indices.
 */
export async function readInspector(target: PreviewLayer, rt: LayerRuntime, m: RasterLayers, at: PointerAt): Promise<InspectorReading | null> {
  const crs = rt.projection.code;
  const crsCoordinate = m.toProjection(at.coordinate, at.viewProjection, crs);
  const lonLat = m.toProjection(at.coordinate, at.viewProjection, 'EPSG:4326');
  const px = rt.file.pixelOf(crsCoordinate[0], crsCoordinate[1]);
  const inside = !!px && px[0] >= 0 && px[1] >= 0 && px[0] < rt.header.width && px[1] < rt.header.height;
  const base: InspectorReading = {
    layerKey: target.key, title: target.title, lonLat, crs, crsCoordinate,
    pixel: inside && px ? [Math.floor(px[0]), Math.floor(px[1])] : null, values: [], indices: [], pinned: at.click, outside: !inside,
  };
  if (!inside || !px) return base;
  // The layer's file: the library file itself, or its overview copy, whose full resolution is
  // the file's pixels exactly (and readable where the original is not, e.g. big-endian strips).
  const dns = await rt.file.readPixel(px[0], px[1]);
  if (!dns) return null;
  const phys = physicalValues(dns, rt.header.bands, rt.header.nodata);
  base.values = dns.map((dn, i) => ({ band: rt.header.bands[i]!.name, dn, value: Number.isNaN(phys[i]!) ? null : phys[i]! }));
  const names = rt.header.bands.map((b) => b.name);
  const exprs = new Set(suggestedExpressions(rt.header.bands));
  if (target.display.mode === 'expression') exprs.add(target.display.expression.trim());
  for (const text of exprs) {
    const parsed = parseBandExpression(text, names);
    if (!parsed.ok) continue;
    const v = evaluate(parsed.ast, (i) => phys[i - 1]!);
    base.indices.push({ name: text.toUpperCase() === text ? text : text.length <= 5 ? text.toUpperCase() : text, value: Number.isFinite(v) ? v : null });
  }
  return base;
}
