/**
 * Geometry for batch planning: AOI parsing and formatting, the output projections, and the
 * densification rule that decides how a lon/lat edge looks in the output CRS.
 *
 * The service draws an AOI in the output CRS by densifying its lon/lat edges (about every 0.01°)
 * and joining the projected points with straight lines. The planner does the same, cuts parts
 * there, and sends each part back as lon/lat vertices so close together that the service adds no
 * points of its own: it then draws exactly the chords the planner cut, on the same pixel grid.
 */
import * as turf from '@turf/turf';
import type { MultiPolygon, Polygon, Position } from 'geojson';
import WKT from 'ol/format/WKT.js';

/** Polygons as rings of [x, y] positions: polygon -> ring -> position (rings closed). */
export type Rings = number[][][][];

/** Metres per degree the service uses to turn a metric Resolution into degrees for EPSG:4326. */
export const METRES_PER_DEGREE = 111320;

/**
 * Longest lon/lat edge (degrees) the planner sends: well below the service's densify step (0.01°,
 * see the simulator's projectAoi), so rounding in the service's own length test can never make it
 * insert a point the planner did not cut.
 */
export const PART_EDGE_DEG = 0.004;

/** A planning failure the caller can show as it is (bad AOI, unsupported CRS, impossible split). */
export class PlanError extends Error {
  /** Creates an error naming the request property at fault. */
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'PlanError';
  }
}

// The planner must grid exactly as the service renders, so it uses the same projections and zone rule
// as the simulator's writer (which follows the service's published behaviour).
export { utmEpsgFor } from '../../simulator/geo/aoi.js';
export { getProjection as projectionFor, type Projection } from '../../simulator/raster/projection.js';
import type { Projection } from '../../simulator/raster/projection.js';
import { projectAoi } from '../../simulator/raster/mask.js';

/** Pixel edge in output CRS units for a Resolution in metres. */
export function pixelSizeFor(proj: Projection, resolution: number): number {
  return proj.geographic ? resolution / METRES_PER_DEGREE : resolution;
}

/** Which AOI field a request used; parts answer in the same form. */
export type AoiMode = 'Wkt' | 'GeoJson';

function isAbsent(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
}

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
    if (typeof body.Wkt !== 'string') throw new PlanError(mode, 'Wkt must be a string.');
    let geom;
    try {
      geom = new WKT().readGeometry(body.Wkt);
    } catch (e) {
      throw new PlanError(mode, `Wkt cannot be read: ${(e as Error).message}`);
    }
    const g = geom as unknown as { getType(): string; getCoordinates(): unknown };
    polygons = polygonsOf(g.getType(), g.getCoordinates(), mode);
  } else {
    mode = 'GeoJson';
    let g: unknown = body.GeoJson;
    if (typeof g === 'string') {
      try {
        g = JSON.parse(g);
      } catch (e) {
        throw new PlanError(mode, `GeoJson is not valid JSON: ${(e as Error).message}`);
      }
    }
    const o = (g ?? {}) as { type?: unknown; coordinates?: unknown };
    polygons = polygonsOf(o.type, o.coordinates, mode);
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

function num(n: number): string {
  if (Object.is(n, -0) || n === 0) return '0';
  const s = String(n);
  // WKT readers differ on exponent notation; plain decimals keep every bit that String() printed.
  return s.includes('e') ? n.toFixed(20).replace(/\.?0+$/, '') : s;
}

/** WKT text of lon/lat polygons with full double precision (POLYGON for one, MULTIPOLYGON for several). */
export function toWkt(polygons: Rings): string {
  const poly = (rings: number[][][]): string => `(${rings.map((r) => `(${r.map((p) => `${num(p[0]!)} ${num(p[1]!)}`).join(', ')})`).join(', ')})`;
  return polygons.length === 1 ? `POLYGON ${poly(polygons[0]!)}` : `MULTIPOLYGON (${polygons.map(poly).join(', ')})`;
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

/** Envelope overshoot (in pixels) ignored when snapping, as the service does: projection round trips wobble by millimetres. */
export const SNAP_TOLERANCE_PX = 1e-3;

/** Pixel index range [k0, k1) of the global grid that covers [min, max] when snapped outward. */
export function snapOutward(min: number, max: number, pixelSize: number): [number, number] {
  const k0 = Math.floor(min / pixelSize + SNAP_TOLERANCE_PX);
  let k1 = Math.ceil(max / pixelSize - SNAP_TOLERANCE_PX);
  if (k1 <= k0) k1 = k0 + 1;
  return [k0, k1];
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
