/**
 * Geometry for batch planning: AOI parsing and formatting, the output projections, and the
 * densification rule that decides how a lon/lat edge looks in the output CRS.
 *
 * The service draws an AOI in the output CRS by densifying its lon/lat edges (about every 0.01°)
 * and joining the projected points with straight lines. The planner does the same, cuts parts
 * there, and sends each part back as lon/lat vertices so close together that the service adds no
 * points of its own: it then draws exactly the chords the planner cut, on the same pixel grid.
 */
import * as turf from '../shared/turf';
import type { MultiPolygon, Polygon, Position } from 'geojson';
import { AppError } from '../../common/errors.js';
import { isAbsent, readGeoJson, readWkt, toWkt as polygonalWkt } from '../../common/aoi-text.js';

/** Polygons as rings of [x, y] positions: polygon -> ring -> position (rings closed). */
export type Rings = number[][][][];


/**
 * Longest lon/lat edge (degrees) the planner sends: well below the service's densify step (0.01°,
 * see the simulator's projectAoi), so rounding in the service's own length test can never make it
 * insert a point the planner did not cut.
 */
export const PART_EDGE_DEG = 0.004;

/** A planning failure the caller can show as it is (bad AOI, unsupported CRS, impossible split). */
export class PlanError extends AppError<'validation'> {
  /** Creates a validation error naming the request property at fault (its fields carry the message under that name). */
  constructor(
    readonly field: string,
    message: string,
  ) {
    super('validation', message, { fields: { [field]: [message] } });
    this.name = 'PlanError';
  }
}

// The planner must grid exactly as the service renders, so it uses the core's projections, zone
// rule and grid rules (common/), which the simulator's writer uses too.
export { METRES_PER_DEGREE, utmEpsgFor } from '../../common/geodesy.js';
export { getProjection as projectionFor, pixelSizeFor, snapOutward, SNAP_TOLERANCE_PX, type Projection } from '../../common/grid/projection.js';
import type { Projection } from '../../common/grid/projection.js';
import { projectAoi } from '../../common/grid/aoi-mask.js';

/** Which AOI field a request used; parts answer in the same form. */
export type AoiMode = 'Wkt' | 'GeoJson';

function polygonsOf(type: unknown, coordinates: unknown, field: AoiMode): Rings {
  if (type === 'Polygon') return [coordinates as number[][][]];
  if (type === 'MultiPolygon') return coordinates as number[][][][];
  throw new PlanError(field, `Only Polygon or MultiPolygon AOIs can be split; got ${String(type)}.`);
}

function dedupe(ring: number[][]): number[][] {
  const out: number[][] = [];
  for (const p of ring) {
    const q = out[out.length - 1];
    if (!q || q[0] !== p[0] || q[1] !== p[1]) out.push([p[0]!, p[1]!]);
  }
  return out;
}

/** The AOI of a request as lon/lat polygons, and which field carried it. */
export function readAoi(body: { Wkt?: unknown; GeoJson?: unknown }): { mode: AoiMode; polygons: Rings } {
  const hasWkt = !isAbsent(body.Wkt);
  const hasGeo = !isAbsent(body.GeoJson);
  if (hasWkt === hasGeo) {
    throw new PlanError(hasWkt ? 'GeoJson' : 'Wkt', hasWkt ? 'Give Wkt or GeoJson, not both.' : 'Wkt or GeoJson is required.');
  }
  let polygons: Rings;
  let mode: AoiMode;
  if (hasWkt) {
    mode = 'Wkt';
    const g = readWkt(body.Wkt);
    if (typeof g === 'string') throw new PlanError(mode, g);
    polygons = polygonsOf(g.type, g.coordinates, mode);
  } else {
    mode = 'GeoJson';
    const g = readGeoJson(body.GeoJson);
    if (typeof g === 'string') throw new PlanError(mode, g);
    polygons = polygonsOf(g.type, g.coordinates, mode);
  }
  const out: Rings = [];
  for (const poly of polygons) {
    if (!Array.isArray(poly) || poly.length === 0) throw new PlanError(mode, 'A polygon of the AOI has no rings.');
    const rings: number[][][] = [];
    for (const ring of poly) {
      if (!Array.isArray(ring)) throw new PlanError(mode, 'An AOI ring is not a list of positions.');
      for (const p of ring) {
        if (!Array.isArray(p) || !Number.isFinite(p[0]) || !Number.isFinite(p[1])) {
          throw new PlanError(mode, 'The AOI has a non-numeric position.');
        }
      }
      const clean = dedupe(ring as number[][]);
      if (clean.length < 4) throw new PlanError(mode, 'An AOI ring needs at least 4 positions.');
      rings.push(clean);
    }
    out.push(rings);
  }
  return { mode, polygons: out };
}

/** WKT text of lon/lat polygons with full double precision (POLYGON for one, MULTIPOLYGON for several). */
export function toWkt(polygons: Rings): string {
  return polygonalWkt(toGeoJson(polygons));
}

/** A GeoJSON geometry of lon/lat polygons (Polygon for one, MultiPolygon for several). */
export function toGeoJson(polygons: Rings): Polygon | MultiPolygon {
  return polygons.length === 1 ? { type: 'Polygon', coordinates: polygons[0]! } : { type: 'MultiPolygon', coordinates: polygons };
}

/** Geodesic area in km² of lon/lat polygons (the measure the service applies its area limit to). */
export function geodesicAreaKm2(polygons: Rings): number {
  if (polygons.length === 0) return 0;
  return turf.area(toGeoJson(polygons)) / 1e6;
}

/** Lon/lat bounding box [minLon, minLat, maxLon, maxLat]. */
export function lonLatBounds(polygons: Rings): [number, number, number, number] {
  const b = [Infinity, Infinity, -Infinity, -Infinity] as [number, number, number, number];
  for (const poly of polygons) {
    for (const ring of poly) {
      for (const p of ring) {
        b[0] = Math.min(b[0], p[0]!);
        b[1] = Math.min(b[1], p[1]!);
        b[2] = Math.max(b[2], p[0]!);
        b[3] = Math.max(b[3], p[1]!);
      }
    }
  }
  return b;
}

/** Output bounds in CRS units. */
export interface Envelope {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

/**
 * Projects lon/lat polygons the way the service does (the simulator's projectAoi: edges cut into
 * short pieces, except for geographic output, then each point projected).
 */
export function projectLikeService(polygons: Rings, proj: Projection, field: string): { rings: Rings; envelope: Envelope } {
  // The service's own densify-and-project, so the projected points agree to the last bit.
  const projected = projectAoi({ type: 'MultiPolygon', coordinates: polygons }, proj);
  if ('error' in projected) throw new PlanError(field, `The AOI cannot be drawn in EPSG:${proj.epsg}: ${projected.error}.`);
  const rings = projected.polygons.map((poly) => poly.map((flat) => Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i]!, flat[2 * i + 1]!])));
  return { rings, envelope: projected.envelope };
}

/** Ring orientation for RFC 7946 (exterior counter-clockwise, holes clockwise), applied in place. */
export function rewindRfc7946(polygons: Rings): Rings {
  for (const poly of polygons) {
    poly.forEach((ring, i) => {
      let s = 0;
      for (let k = 0; k + 1 < ring.length; k++) s += ring[k]![0]! * ring[k + 1]![1]! - ring[k + 1]![0]! * ring[k]![1]!;
      if ((i === 0 && s < 0) || (i > 0 && s > 0)) ring.reverse();
    });
  }
  return polygons;
}

/** Re-exported so callers type positions the same way. */
export type { Position };
