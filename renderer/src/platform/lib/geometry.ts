import GeoJSON from 'ol/format/GeoJSON';
import WKT from 'ol/format/WKT';
import type Geometry from 'ol/geom/Geometry';
import { getArea } from 'ol/sphere';
import { isUtmEpsg, utmEpsgFor as utmEpsgForPoint } from '../../../../common/geodesy';

/**
 * AOI geometry in EPSG:4326: reading pasted or opened WKT/GeoJSON, writing it
 * back, and the checks that name what is wrong (self-intersection, unclosed
 * ring, not a polygon, too large). Pure: no map, no store.
 */

/** A [longitude, latitude] position (extra ordinates are kept but ignored). */
export type Position = number[];

/** A GeoJSON Polygon geometry. */
export interface PolygonGeometry {
  type: 'Polygon';
  coordinates: Position[][];
}

/** A GeoJSON MultiPolygon geometry. */
export interface MultiPolygonGeometry {
  type: 'MultiPolygon';
  coordinates: Position[][][];
}

/** The AOI shapes the service accepts. */
export type PolygonalGeometry = PolygonGeometry | MultiPolygonGeometry;

/** Any GeoJSON geometry (what an import may yield before it is checked). */
export interface AnyGeometry {
  type: string;
  coordinates?: unknown;
  geometries?: AnyGeometry[];
}

/** One named problem of an AOI; `error` blocks every request, `limit` blocks composite requests only. */
export interface AoiProblem {
  code: 'not-polygon' | 'empty' | 'unclosed-ring' | 'too-few-vertices' | 'self-intersection' | 'out-of-range' | 'too-large';
  severity: 'error' | 'limit';
  message: string;
}

const wkt = new WKT();
const geojson = new GeoJSON();
const PROJ = { dataProjection: 'EPSG:4326', featureProjection: 'EPSG:4326' };

/** True for a Polygon or MultiPolygon geometry. */
export function isPolygonal(g: AnyGeometry | null | undefined): g is PolygonalGeometry {
  return !!g && (g.type === 'Polygon' || g.type === 'MultiPolygon') && Array.isArray(g.coordinates);
}

function asObject(v: unknown): Record<string, unknown> | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/** Combines polygonal geometries into one Polygon or MultiPolygon; null when there are none. */
function combine(geoms: AnyGeometry[]): AnyGeometry | null {
  if (geoms.length === 0) return null;
  if (geoms.length === 1) return geoms[0]!;
  if (!geoms.every(isPolygonal)) {
    const other = geoms.find((g) => !isPolygonal(g))!;
    return { type: other.type, coordinates: other.coordinates };
  }
  const polys: Position[][][] = [];
  for (const g of geoms as PolygonalGeometry[]) {
    if (g.type === 'Polygon') polys.push(g.coordinates);
    else polys.push(...g.coordinates);
  }
  return { type: 'MultiPolygon', coordinates: polys };
}

/** Unwraps Feature, FeatureCollection, GeometryCollection and request-like {Wkt}/{GeoJson} objects to one geometry. */
function unwrapGeoJson(value: unknown): AnyGeometry | string {
  const obj = asObject(value);
  if (!obj) return 'The JSON is not a GeoJSON object.';
  if (typeof obj.type !== 'string') {
    // A pasted request body: {"Wkt": "..."} or {"GeoJson": {...}}.
    if (typeof obj.Wkt === 'string') return readWkt(obj.Wkt);
    if (obj.GeoJson) return unwrapGeoJson(typeof obj.GeoJson === 'string' ? safeJson(obj.GeoJson) : obj.GeoJson);
    return 'The JSON has no "type": it is not GeoJSON.';
  }
  switch (obj.type) {
    case 'Feature':
      if (!obj.geometry) return 'The Feature has no geometry.';
      return unwrapGeoJson(obj.geometry);
    case 'FeatureCollection': {
      const features = Array.isArray(obj.features) ? obj.features : [];
      const geoms: AnyGeometry[] = [];
      for (const f of features) {
        const g = unwrapGeoJson(asObject(f)?.geometry ?? null);
        if (typeof g === 'string') return `Feature ${geoms.length + 1}: ${g}`;
        geoms.push(g);
      }
      return combine(geoms) ?? 'The FeatureCollection has no features.';
    }
    case 'GeometryCollection': {
      const parts = Array.isArray(obj.geometries) ? obj.geometries : [];
      const geoms: AnyGeometry[] = [];
      for (const p of parts) {
        const g = unwrapGeoJson(p);
        if (typeof g === 'string') return g;
        geoms.push(g);
      }
      return combine(geoms) ?? 'The GeometryCollection is empty.';
    }
    default:
      if (!Array.isArray(obj.coordinates)) return `The ${obj.type} geometry has no coordinates array.`;
      return { type: obj.type, coordinates: obj.coordinates };
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

// Unlike the service's strict reader (common/aoi-text.ts) this one keeps any geometry type, so an
// imported line or point can be shown on the map with the reason it cannot be sent.
function readWkt(text: string): AnyGeometry | string {
  let src = text.trim();
  const srid = /^SRID\s*=\s*(\d+)\s*;/i.exec(src);
  if (srid) {
    if (srid[1] !== '4326') return `Only SRID=4326 (longitude/latitude) is accepted; got SRID=${srid[1]}.`;
    src = src.slice(srid[0].length);
  }
  if (!/^[A-Za-z]+/.test(src)) return 'Not WKT or GeoJSON: expected a geometry type such as POLYGON, or a JSON object.';
  if (/^\w+\s*(Z|M|ZM)?\s*EMPTY\s*$/i.test(src)) return 'The geometry is empty.';
  let geom: Geometry | undefined;
  try {
    geom = wkt.readGeometry(src, PROJ);
  } catch (e) {
    return `The WKT could not be read: ${(e as Error).message}.`;
  }
  if (!geom) return 'The WKT could not be read.';
  const out = geojson.writeGeometryObject(geom) as unknown as AnyGeometry;
  return out;
}

/** Four numbers: a bounding box "west, south, east, north" (commas or spaces, an optional [ ] or BBOX( )). */
const BBOX_TEXT = /^(?:bbox\s*\(|\[)?\s*(-?[\d.]+(?:e-?\d+)?)\s*[,\s]\s*(-?[\d.]+(?:e-?\d+)?)\s*[,\s]\s*(-?[\d.]+(?:e-?\d+)?)\s*[,\s]\s*(-?[\d.]+(?:e-?\d+)?)\s*[\])]?$/i;

/** A typed bounding box as a polygon, or the reason it is not one; null when the text is not four numbers. */
export function parseBbox(text: string): { ok: true; geometry: AnyGeometry } | { ok: false; message: string } | null {
  const m = BBOX_TEXT.exec(text.trim());
  if (!m) {
    // Only numbers, but not four: a bounding box with one missing or too many.
    const numbers = text.trim().replace(/^(?:bbox\s*\(|\[)|[\])]$/gi, '').split(/[\s,]+/).filter(Boolean);
    if (numbers.length && numbers.every((n) => /^-?[\d.]+(?:e-?\d+)?$/i.test(n))) {
      return { ok: false, message: `A bounding box is four numbers: west, south, east, north (got ${numbers.length}).` };
    }
    return null;
  }
  const [w, s, e, n] = m.slice(1, 5).map(Number) as [number, number, number, number];
  if (![w, s, e, n].every(Number.isFinite)) return { ok: false, message: 'The bounding box has a number that cannot be read.' };
  if (w < -180 || e > 180 || w > 180 || e < -180) return { ok: false, message: `Bounding box: longitudes must be within -180..180 (got west ${w}, east ${e}).` };
  if (s < -90 || n > 90 || s > 90 || n < -90) return { ok: false, message: `Bounding box: latitudes must be within -90..90 (got south ${s}, north ${n}).` };
  if (w >= e) return { ok: false, message: `Bounding box: west (${w}) must be less than east (${e}); the order is west, south, east, north.` };
  if (s >= n) return { ok: false, message: `Bounding box: south (${s}) must be less than north (${n}); the order is west, south, east, north.` };
  return { ok: true, geometry: { type: 'Polygon', coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] } };
}

/**
 * Reads pasted, typed or opened text (WKT, GeoJSON with Feature/FeatureCollection unwrapped, or a bounding box
 * "west, south, east, north" in degrees) into a geometry, or a reason it cannot. A bounding box is sent as WKT.
 */
export function parseAoiText(text: string): { ok: true; geometry: AnyGeometry; format: 'Wkt' | 'GeoJson' } | { ok: false; message: string } {
  const src = text.replace(/^\uFEFF/, '').trim();
  if (!src) return { ok: false, message: 'Nothing to import: the text is empty.' };
  const box = parseBbox(src);
  if (box) return box.ok ? { ...box, format: 'Wkt' } : box;
  if (src.startsWith('{') || src.startsWith('[')) {
    let value: unknown;
    try {
      value = JSON.parse(src);
    } catch (e) {
      return { ok: false, message: `The JSON could not be read: ${(e as Error).message}.` };
    }
    const g = unwrapGeoJson(value);
    return typeof g === 'string' ? { ok: false, message: g } : { ok: true, geometry: g, format: 'GeoJson' };
  }
  const g = readWkt(src);
  return typeof g === 'string' ? { ok: false, message: g } : { ok: true, geometry: g, format: 'Wkt' };
}

function polygonsOf(g: PolygonalGeometry): Position[][][] {
  return g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
}

/** Number of distinct vertices (a closing repeat of the first position is not counted). */
export function vertexCount(g: AnyGeometry | null): number {
  if (!g || !isPolygonal(g)) return 0;
  let n = 0;
  for (const rings of polygonsOf(g)) {
    for (const ring of rings) {
      const closed = ring.length > 1 && samePos(ring[0]!, ring[ring.length - 1]!);
      n += ring.length - (closed ? 1 : 0);
    }
  }
  return n;
}

function samePos(a: Position, b: Position): boolean {
  return a[0] === b[0] && a[1] === b[1];
}

/** Geodesic area of a polygonal geometry in km² (holes subtracted). */
export function areaKm2(g: PolygonalGeometry): number {
  const geom = geojson.readGeometry(closeRings(g), PROJ)!;
  return Math.abs(getArea(geom, { projection: 'EPSG:4326' })) / 1e6;
}

/** Approximate area of a lon/lat box in km² (spherical). */
export function boxAreaKm2(b: readonly number[]): number {
  const R = 6371.0088;
  const rad = Math.PI / 180;
  return Math.abs(R * R * (b[2]! - b[0]!) * rad * (Math.sin(b[3]! * rad) - Math.sin(b[1]! * rad)));
}

/** The same geometry with every unclosed ring closed by repeating its first position. */
export function closeRings<G extends PolygonalGeometry>(g: G): G {
  const close = (ring: Position[]): Position[] => (ring.length > 0 && !samePos(ring[0]!, ring[ring.length - 1]!) ? [...ring, [...ring[0]!]] : ring);
  if (g.type === 'Polygon') return { ...g, coordinates: g.coordinates.map(close) };
  return { ...g, coordinates: (g as MultiPolygonGeometry).coordinates.map((rings) => rings.map(close)) } as G;
}

/** Writes the geometry as WKT (7 decimals, about 1 cm). */
export function toWkt(g: PolygonalGeometry): string {
  return wkt.writeGeometry(geojson.readGeometry(g, PROJ)!, { ...PROJ, decimals: 7 });
}

/** Rounds positions to 7 decimals (about 1 cm), dropping noise from map projection round trips. */
export function roundGeometry<G extends PolygonalGeometry>(g: G): G {
  const r = (p: Position): Position => p.map((n) => Math.round(n * 1e7) / 1e7);
  if (g.type === 'Polygon') return { type: 'Polygon', coordinates: g.coordinates.map((ring) => ring.map(r)) } as G;
  return { type: 'MultiPolygon', coordinates: (g as MultiPolygonGeometry).coordinates.map((rings) => rings.map((ring) => ring.map(r))) } as G;
}

/** Bounding box [minLon, minLat, maxLon, maxLat]. */
export function bbox(g: PolygonalGeometry): [number, number, number, number] {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const rings of polygonsOf(g)) {
    for (const p of rings[0] ?? []) {
      minX = Math.min(minX, p[0]!);
      maxX = Math.max(maxX, p[0]!);
      minY = Math.min(minY, p[1]!);
      maxY = Math.max(maxY, p[1]!);
    }
  }
  return [minX, minY, maxX, maxY];
}

/** The UTM zone EPSG code (326xx north, 327xx south) of the AOI's bounding-box centre. */
export function utmEpsgFor(g: PolygonalGeometry): number {
  const [minX, minY, maxX, maxY] = bbox(g);
  return utmEpsgForPoint((minX + maxX) / 2, (minY + maxY) / 2);
}

export { isUtmEpsg };

/** A human name for a UTM EPSG code, e.g. "UTM zone 33N". */
export function utmZoneName(code: number): string {
  return `UTM zone ${code % 100}${code < 32700 ? 'N' : 'S'}`;
}

interface Segment {
  ax: number;
  ay: number;
  bx: number;
  by: number;
  minX: number;
  maxX: number;
  ring: number;
  index: number;
  ringLength: number;
}

function orient(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  const v = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
  return Math.abs(v) < 1e-18 ? 0 : Math.sign(v);
}

function onSegment(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): boolean {
  return Math.min(ax, bx) <= cx && cx <= Math.max(ax, bx) && Math.min(ay, by) <= cy && cy <= Math.max(ay, by);
}

function intersects(s: Segment, t: Segment): boolean {
  const o1 = orient(s.ax, s.ay, s.bx, s.by, t.ax, t.ay);
  const o2 = orient(s.ax, s.ay, s.bx, s.by, t.bx, t.by);
  const o3 = orient(t.ax, t.ay, t.bx, t.by, s.ax, s.ay);
  const o4 = orient(t.ax, t.ay, t.bx, t.by, s.bx, s.by);
  if (o1 !== o2 && o3 !== o4) return true;
  if (o1 === 0 && onSegment(s.ax, s.ay, s.bx, s.by, t.ax, t.ay)) return true;
  if (o2 === 0 && onSegment(s.ax, s.ay, s.bx, s.by, t.bx, t.by)) return true;
  if (o3 === 0 && onSegment(t.ax, t.ay, t.bx, t.by, s.ax, s.ay)) return true;
  if (o4 === 0 && onSegment(t.ax, t.ay, t.bx, t.by, s.bx, s.by)) return true;
  return false;
}

/** The first crossing of two edges of one polygon (its rings included), as the position near which it happens; null when simple. */
export function findSelfIntersection(rings: Position[][]): Position | null {
  const segs: Segment[] = [];
  rings.forEach((ring, r) => {
    const closed = ring.length > 1 && samePos(ring[0]!, ring[ring.length - 1]!) ? ring : [...ring, ring[0]!];
    const n = closed.length - 1;
    for (let i = 0; i < n; i++) {
      const a = closed[i]!;
      const b = closed[i + 1]!;
      if (samePos(a, b)) continue;
      segs.push({ ax: a[0]!, ay: a[1]!, bx: b[0]!, by: b[1]!, minX: Math.min(a[0]!, b[0]!), maxX: Math.max(a[0]!, b[0]!), ring: r, index: i, ringLength: n });
    }
  });
  // Sweep along x so that only segments whose x-ranges overlap are compared.
  segs.sort((s, t) => s.minX - t.minX);
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i]!;
    for (let j = i + 1; j < segs.length && segs[j]!.minX <= s.maxX; j++) {
      const t = segs[j]!;
      if (s.ring === t.ring) {
        const d = Math.abs(s.index - t.index);
        // Neighbours share a vertex by construction; only a fold back onto the neighbour counts.
        if (d === 1 || d === s.ringLength - 1) {
          if (collinearOverlap(s, t)) return [t.ax, t.ay];
          continue;
        }
      }
      if (Math.min(s.ay, s.by) > Math.max(t.ay, t.by) || Math.min(t.ay, t.by) > Math.max(s.ay, s.by)) continue;
      if (intersects(s, t)) return intersectionPoint(s, t);
    }
  }
  return null;
}

function collinearOverlap(s: Segment, t: Segment): boolean {
  if (orient(s.ax, s.ay, s.bx, s.by, t.ax, t.ay) !== 0 || orient(s.ax, s.ay, s.bx, s.by, t.bx, t.by) !== 0) return false;
  // Adjacent and collinear: they overlap when they point in opposite directions (a spike).
  const dot = (s.bx - s.ax) * (t.bx - t.ax) + (s.by - s.ay) * (t.by - t.ay);
  return dot < 0;
}

function intersectionPoint(s: Segment, t: Segment): Position {
  const d = (s.bx - s.ax) * (t.by - t.ay) - (s.by - s.ay) * (t.bx - t.ax);
  if (d === 0) return [t.ax, t.ay];
  const u = ((t.ax - s.ax) * (t.by - t.ay) - (t.ay - s.ay) * (t.bx - t.ax)) / d;
  return [s.ax + u * (s.bx - s.ax), s.ay + u * (s.by - s.ay)];
}

const km2 = (v: number) => `${v.toLocaleString('en-US', { maximumFractionDigits: 2 })} km²`;

/** Every problem of an AOI geometry, named; `maxAreaKm2` is the account's MaxCompositeAreaKm2 when known. */
export function aoiProblems(g: AnyGeometry, options: { maxAreaKm2?: number | null } = {}): AoiProblem[] {
  if (!isPolygonal(g)) {
    return [{ code: 'not-polygon', severity: 'error', message: `Not a polygon: the geometry is a ${g.type}. The service accepts Polygon or MultiPolygon.` }];
  }
  const problems: AoiProblem[] = [];
  const polys = polygonsOf(g);
  if (polys.length === 0 || polys.every((rings) => rings.length === 0)) {
    return [{ code: 'empty', severity: 'error', message: 'The polygon has no rings.' }];
  }
  polys.forEach((rings, p) => {
    const where = (r: number) => `${polys.length > 1 ? `Polygon ${p + 1}, ` : ''}${r === 0 ? 'outer ring' : `hole ${r}`}`;
    rings.forEach((ring, r) => {
      const bad = ring.findIndex((pos) => !Array.isArray(pos) || !(Math.abs(pos[0]!) <= 180) || !(Math.abs(pos[1]!) <= 90));
      if (bad >= 0) {
        problems.push({ code: 'out-of-range', severity: 'error', message: `${where(r)}: position ${bad + 1} is outside longitude [-180, 180] / latitude [-90, 90]; is it latitude first?` });
      }
      if (ring.length > 1 && !samePos(ring[0]!, ring[ring.length - 1]!)) {
        problems.push({ code: 'unclosed-ring', severity: 'error', message: `Unclosed ring: ${where(r)} does not end where it starts (first and last positions differ).` });
      }
      const distinct = ring.length - (ring.length > 1 && samePos(ring[0]!, ring[ring.length - 1]!) ? 1 : 0);
      if (distinct < 3) problems.push({ code: 'too-few-vertices', severity: 'error', message: `${where(r)} has ${distinct} vertices; a ring needs at least 3.` });
    });
    if (problems.some((x) => x.code === 'out-of-range' || x.code === 'too-few-vertices')) return;
    const hit = findSelfIntersection(rings);
    if (hit) {
      problems.push({
        code: 'self-intersection',
        severity: 'error',
        message: `Self-intersection${polys.length > 1 ? ` in polygon ${p + 1}` : ''}: edges cross near ${hit[0]!.toFixed(5)}, ${hit[1]!.toFixed(5)} (lon, lat).`,
      });
    }
  });
  if (options.maxAreaKm2 != null && !problems.some((x) => x.severity === 'error')) {
    const area = areaKm2(g);
    if (area > options.maxAreaKm2) {
      problems.push({
        code: 'too-large',
        severity: 'limit',
        message: `Too large: ${km2(area)} exceeds the account's max composite area of ${km2(options.maxAreaKm2)}; split the AOI or draw a smaller one.`,
      });
    }
  }
  return problems;
}
