/**
 * AOI (area of interest) validation and planar/geodesic helpers for the simulator.
 *
 * Conventions shared by every function here:
 * - Coordinates are [longitude, latitude] in EPSG:4326. Polygons are treated as planar in
 *   lon/lat (the same as turf), so an AOI crossing the antimeridian is not supported.
 * - `null`, `undefined`, and strings that are empty or whitespace only all count as "absent"
 *   for Wkt and GeoJson, because JSON clients commonly send `null` or `""` for unused fields.
 * - GeoJson may arrive as an object or as a JSON string (some clients stringify nested
 *   objects); a string is parsed with JSON.parse and then validated like an object.
 * - Positions with a third value (Z) are accepted in both forms and the extra value is dropped;
 *   WKT with an M or ZM tag is accepted the same way, keeping only longitude and latitude.
 * - Consecutive duplicate positions are removed from the returned geometry because they
 *   carry no shape and would otherwise be reported as self-intersections.
 */
import * as turf from '../../main/shared/turf';
import type { Feature, MultiPolygon, Polygon, Position } from 'geojson';
import { firstKink } from './kinks.js';
import { fmtPoint, isAbsent, readGeoJson, readWkt, samePos, type Polygonal } from '../../common/aoi-text.js';

export { toWkt, type Polygonal } from '../../common/aoi-text.js';
export { utmEpsgFor } from '../../common/geodesy.js';


/** Validation failures keyed by request property name, one human-readable reason per entry. */
export type FieldErrors = Record<string, string[]>;

type AoiMode = 'Wkt' | 'GeoJson';

/** Result of {@link parseAoi}: `aois` are the polygons the request names, one AOI each. */
export type ParseAoiResult =
  | { ok: true; geometry: Polygonal; mode: AoiMode; aois: Polygon[] }
  | { ok: true; geometry: null; mode: null; aois: [] }
  | { ok: false; errors: FieldErrors };

/**
 * AOIs with more positions than this are refused before any geometry check (the
 * self-intersection test grows faster than linearly, and real coastlines rarely need more).
 */
export const MAX_AOI_VERTICES = 20_000;

/** Positions of a polygonal geometry, closing repeats included. */
function vertexCount(g: Polygonal): number {
  const rings = g.type === 'Polygon' ? g.coordinates : g.coordinates.flat();
  return rings.reduce((n, r) => n + r.length, 0);
}

/** Intersections smaller than this (km², i.e. 1 m²) are floating-point noise from shared edges. */
const NOISE_AREA_KM2 = 1e-6;

/**
 * Validates the Wkt/GeoJson pair of a request body. With `collections`, a GEOMETRYCOLLECTION
 * (WKT or GeoJSON) of polygons and multipolygons is accepted too (order AOIs): each member is
 * validated alone, members may overlap, and the geometry is their union.
 */
export function parseAoi(
  body: { Wkt?: unknown; GeoJson?: unknown },
  opts: { required: boolean; collections?: boolean },
): ParseAoiResult {
  const hasWkt = !isAbsent(body.Wkt);
  const hasGeo = !isAbsent(body.GeoJson);
  if (hasWkt && hasGeo) {
    const msg = 'Provide either Wkt or GeoJson, not both.';
    return { ok: false, errors: { Wkt: [msg], GeoJson: [msg] } };
  }
  if (!hasWkt && !hasGeo) {
    if (!opts.required) return { ok: true, geometry: null, mode: null, aois: [] };
    const msg = 'Either Wkt or GeoJson is required.';
    return { ok: false, errors: { Wkt: [msg], GeoJson: [msg] } };
  }
  const mode: AoiMode = hasWkt ? 'Wkt' : 'GeoJson';
  const collections = opts.collections ?? false;
  const parsed = hasWkt ? readWkt(body.Wkt, collections) : readGeoJson(body.GeoJson, collections);
  if (typeof parsed === 'string') return { ok: false, errors: { [mode]: [parsed] } };
  const members = Array.isArray(parsed) ? parsed : [parsed];
  const vertices = members.reduce((n, m) => n + vertexCount(m), 0);
  if (vertices > MAX_AOI_VERTICES) {
    return { ok: false, errors: { [mode]: [`The geometry has ${vertices} vertices; at most ${MAX_AOI_VERTICES} are accepted. Simplify it first.`] } };
  }
  if (members.length === 0) return { ok: false, errors: { [mode]: ['The geometry collection is empty; at least one polygon is required.'] } };
  const problems = members.flatMap((m, i) =>
    validatePolygonal(m).map((p) => (Array.isArray(parsed) ? `Geometry ${i + 1} of the collection: ${p}` : p)));
  if (problems.length > 0) return { ok: false, errors: { [mode]: problems } };
  const clean = members.map(dropRepeatedPositions);
  const aois: Polygon[] = clean.flatMap((g) =>
    g.type === 'Polygon' ? [g] : g.coordinates.map((coordinates) => ({ type: 'Polygon' as const, coordinates })));
  const geometry = clean.length === 1 ? clean[0]! : union(clean);
  if (!geometry) return { ok: false, errors: { [mode]: ['The geometry collection has no area.'] } };
  return { ok: true, geometry, mode, aois };
}

/** Lon/lat bounding box of a polygon, as a polygon. */
export function bboxPolygon(g: Polygonal): Polygon {
  return turf.bboxPolygon(turf.bbox(g)).geometry;
}

// ---------------------------------------------------------------------------------------------
// WKT
// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// GeoJSON
// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// Geometric validation
// ---------------------------------------------------------------------------------------------

function dedupeRing(ring: Position[]): Position[] {
  const out: Position[] = [];
  for (const p of ring) if (out.length === 0 || !samePos(out[out.length - 1]!, p)) out.push(p);
  return out;
}

function dropRepeatedPositions(g: Polygonal): Polygonal {
  return g.type === 'Polygon'
    ? { type: 'Polygon', coordinates: g.coordinates.map(dedupeRing) }
    : { type: 'MultiPolygon', coordinates: g.coordinates.map((p) => p.map(dedupeRing)) };
}

/** Twice the planar signed area; only its being zero matters here. */
function shoelace(ring: Position[]): number {
  let s = 0;
  for (let i = 0; i + 1 < ring.length; i++) {
    s += ring[i]![0]! * ring[i + 1]![1]! - ring[i + 1]![0]! * ring[i]![1]!;
  }
  return s;
}

function validatePolygon(rings: Position[][], prefix: string): string[] {
  const errors: string[] = [];
  // Messages start with "Ring 2 ..." for a Polygon and "Polygon 3, ring 2 ..." for a MultiPolygon.
  const ring = (r: number): string => `ring ${r + 1}`;
  const label = (r: number): string => (prefix ? `${prefix}${ring(r)}` : `Ring ${r + 1}`);
  rings.forEach((pts, r) => {
    if (pts.length < 4) {
      errors.push(
        `${label(r)} has ${pts.length} position(s); a ring needs at least 4 (three corners and the closing repeat of the first).`,
      );
      return;
    }
    if (!samePos(pts[0]!, pts[pts.length - 1]!)) {
      errors.push(`${label(r)} is not closed: first and last positions differ.`);
    }
    const bad = pts.findIndex((p) => !(Math.abs(p[0]!) <= 180 && Math.abs(p[1]!) <= 90));
    if (bad >= 0) {
      errors.push(
        `${label(r)}, position ${bad + 1} is out of range ${fmtPoint(pts[bad]!)}: longitude must be within [-180, 180] and latitude within [-90, 90].`,
      );
    }
  });
  if (errors.length > 0) return errors;

  const clean = rings.map(dedupeRing);
  // Crossings first: a symmetric bow-tie also has zero signed area, and "intersects itself"
  // is the reason that helps the caller.
  clean.forEach((pts, r) => {
    const k = pts.length >= 4 ? firstKink([pts]) : null;
    if (k) errors.push(`${label(r)} intersects itself at ${fmtPoint(k)}.`);
    else if (pts.length < 4 || shoelace(pts) === 0) errors.push(`${label(r)} has zero area.`);
  });
  if (errors.length > 0) return errors;

  for (let a = 0; a < clean.length; a++) {
    for (let b = a + 1; b < clean.length; b++) {
      const k = firstKink([clean[a]!, clean[b]!]);
      if (k) errors.push(`${label(a)} and ${ring(b)} intersect at ${fmtPoint(k)}.`);
    }
  }
  if (errors.length > 0) return errors;

  // Without crossings, one vertex decides containment for the whole ring.
  const shell = turf.polygon([clean[0]!]);
  for (let h = 1; h < clean.length; h++) {
    const hole = turf.polygon([clean[h]!]);
    if (!turf.booleanPointInPolygon(clean[h]![0]!, shell)) {
      errors.push(`${label(h)} is a hole but lies outside the exterior ring (ring 1).`);
    }
    for (let o = 1; o < h; o++) {
      if (
        turf.booleanPointInPolygon(clean[h]![0]!, turf.polygon([clean[o]!])) ||
        turf.booleanPointInPolygon(clean[o]![0]!, hole)
      ) {
        errors.push(`${label(o)} and ${ring(h)} are holes that overlap.`);
      }
    }
  }
  return errors;
}

function validatePolygonal(g: Polygonal): string[] {
  if (g.type === 'Polygon') return validatePolygon(g.coordinates, '');
  const errors = g.coordinates.flatMap((p, i) => validatePolygon(p, `Polygon ${i + 1}, `));
  if (errors.length > 0) return errors;
  // Overlapping parts would be counted twice in every area (and so every price).
  const parts = g.coordinates.map((p) => ({ poly: turf.polygon(p.map(dedupeRing)), box: turf.bbox(turf.polygon(p)) }));
  for (let a = 0; a < parts.length; a++) {
    for (let b = a + 1; b < parts.length; b++) {
      const A = parts[a]!;
      const B = parts[b]!;
      if (A.box[2] < B.box[0] || B.box[2] < A.box[0] || A.box[3] < B.box[1] || B.box[3] < A.box[1]) continue;
      const common = turf.intersect(turf.featureCollection([A.poly, B.poly]));
      if (common && turf.area(common) / 1e6 > NOISE_AREA_KM2) {
        errors.push(`Polygons ${a + 1} and ${b + 1} of the MultiPolygon overlap.`);
      }
    }
  }
  return errors;
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

function feat(g: Polygonal): Feature<Polygonal> {
  return turf.feature(g);
}

/** Geodesic area in km² (turf.area), with holes subtracted. */
export function areaKm2(g: Polygonal): number {
  return turf.area(g) / 1e6;
}

/** Lon/lat bounding box as [minLon, minLat, maxLon, maxLat]. */
export function bbox4326(g: Polygonal): [number, number, number, number] {
  const b = turf.bbox(g);
  return [b[0], b[1], b[2], b[3]];
}

function toPolygonal(f: Feature<Polygon | MultiPolygon> | null): Polygonal | null {
  if (!f) return null;
  return f.geometry.coordinates.length === 0 ? null : f.geometry;
}

/** Polygonal intersection of two AOIs, or null when they share no area. */
export function intersect(a: Polygonal, b: Polygonal): Polygonal | null {
  return toPolygonal(turf.intersect(turf.featureCollection([feat(a), feat(b)])));
}

/** Polygonal union of all inputs, or null for an empty list. */
export function union(list: Polygonal[]): Polygonal | null {
  if (list.length === 0) return null;
  if (list.length === 1) return list[0]!;
  return toPolygonal(turf.union(turf.featureCollection(list.map(feat))));
}

/**
 * True when `inner` lies inside `container`, up to `tolerance` km² of `inner` left outside
 * (default 1e-6 km² = 1 m², which absorbs floating-point noise along shared edges).
 */
export function covers(container: Polygonal, inner: Polygonal, tolerance = NOISE_AREA_KM2): boolean {
  const outside = turf.difference(turf.featureCollection([feat(inner), feat(container)]));
  return !outside || areaKm2(outside.geometry) <= tolerance;
}
