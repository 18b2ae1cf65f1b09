/**
 * Which area an order is billed for. The service bills each polygon of an order's AOI by its
 * lon/lat bounding box, at least MIN_BILLED_KM2_PER_POLYGON each (the service's pricing notes; the
 * order estimate states the result as its billed area, e.g. AreaKm2, and the boxes as
 * AreasOfInterestWkt). An order row names only its AOI area, so the orders list derives the billed
 * area from the row's geometry by that rule; an estimate's own figure is always shown as the service
 * stated it.
 */

import { areaKm2, bbox, boxAreaKm2, isPolygonal, parseAoiText, type AnyGeometry, type PolygonalGeometry } from './geometry';
import { isGeoJsonGeometry, isWkt } from './recognise';

/** A WKT or GeoJSON polygonal geometry as the service sends it, or null. */
export function polygonalOf(geometry: unknown): PolygonalGeometry | null {
  if (isWkt(geometry)) {
    const parsed = parseAoiText(geometry);
    return parsed.ok && isPolygonal(parsed.geometry) ? parsed.geometry : null;
  }
  if (isGeoJsonGeometry(geometry) && isPolygonal(geometry as AnyGeometry)) return geometry as unknown as PolygonalGeometry;
  return null;
}

/** The service's minimum billable area per AOI polygon, km². */
export const MIN_BILLED_KM2_PER_POLYGON = 1;

/** The AOI's own area, the bounding boxes' and the billed area (boxes at least the minimum each), km². */
export interface BilledArea {
  aoiKm2: number;
  boxesKm2: number;
  billedKm2: number;
  polygons: number;
}

/** The areas of an order AOI by the billing rule (each polygon by its bounding box, at least the minimum). */
export function billedArea(g: PolygonalGeometry): BilledArea {
  const polygons = g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
  const boxes = polygons.map((coordinates) => boxAreaKm2(bbox({ type: 'Polygon', coordinates })));
  return {
    aoiKm2: areaKm2(g),
    boxesKm2: boxes.reduce((s, a) => s + a, 0),
    billedKm2: boxes.reduce((s, a) => s + Math.max(a, MIN_BILLED_KM2_PER_POLYGON), 0),
    polygons: polygons.length,
  };
}

/** Why the billed area differs from the AOI's, in one sentence (null when they are the same to 0.01 km²). */
export function billedNote(aoiKm2: number, billedKm2: number, polygons: number | null): string | null {
  if (Math.abs(billedKm2 - aoiKm2) < 0.005) return null;
  const each = polygons === null ? 'each polygon of the AOI' : polygons === 1 ? 'the AOI' : `each of the AOI's ${polygons} polygons`;
  return `Billed by bounding box: the service bills ${each} by its longitude/latitude bounding box (at least ${MIN_BILLED_KM2_PER_POLYGON} km² each), not by its outline.`;
}

/** The areas an order row shows, each saying which area it is. */
export interface OrderAreas {
  /** The AOI's own area, from the row's geometry (else the row's own km² figure). */
  aoiKm2: number | null;
  /** The billed area by the service's rule, from the row's polygon geometry. */
  billedKm2: number | null;
  /** Why billed differs from the AOI, or null. */
  note: string | null;
  /** A tile order: its area is the tiles'. */
  tiles: boolean;
}

/** What an order row's areas are: AOI and billed for a polygon order, the tiles' area for a tile order. */
export function orderAreas(o: { geometry: unknown; areaKm2: number | null; tiles: readonly string[]; miniTiles: readonly string[] }): OrderAreas {
  const tiles = o.tiles.length > 0 || o.miniTiles.length > 0;
  const g = tiles ? null : polygonalOf(o.geometry);
  if (!g) return { aoiKm2: o.areaKm2, billedKm2: null, note: null, tiles };
  const b = billedArea(g);
  return { aoiKm2: b.aoiKm2, billedKm2: b.billedKm2, note: billedNote(b.aoiKm2, b.billedKm2, b.polygons), tiles };
}
