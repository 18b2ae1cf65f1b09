/**
 * Parcel geometry: the types a parcel set holds, the checks every imported geometry passes (each
 * refusal a reason the analyst reads in the import's skipped list), and the compact form swath.db
 * stores (one blob: part and ring counts, then the float64 coordinates).
 */

export type Position = [number, number];

/** Rings closed, outer ring first, in the set's CRS. */
export type ParcelGeometry =
  | { type: 'Polygon'; coordinates: Position[][] }
  | { type: 'MultiPolygon'; coordinates: Position[][][] };

/**
 * A parcel set's CRS. `proj4` is always set: a definition the proj4 package takes (a PROJ string
 * for the EPSG codes {@link projStringFor} knows, else the source's WKT, which proj4 parsed at
 * import). GeoJSON is EPSG:4326 (RFC 7946).
 */
export interface ParcelCrs { epsg: number | null; proj4: string; wkt: string | null }

export type Bbox = [number, number, number, number];

/**
 * A checked geometry in flat form: `coords` x,y pairs of every ring in order; `ringPoints` the
 * points of each ring (closing point included); `partRings` the rings of each polygon.
 */
export interface FlatGeometry {
  type: 'Polygon' | 'MultiPolygon';
  partRings: number[];
  ringPoints: number[];
  coords: Float64Array;
}

/** Bounds of one geometry's check. */
export interface GeometryLimits {
  /** Points of one parcel, all rings together. */
  maxVertices: number;
  /** Candidate segment pairs of the self-intersection check of one parcel. */
  maxSegmentPairs: number;
}

export const DEFAULT_GEOMETRY_LIMITS: GeometryLimits = { maxVertices: 100_000, maxSegmentPairs: 20_000_000 };

/** The outcome of {@link checkGeometry}: the geometry, or why it is refused. */
export type Checked = { ok: true; geometry: FlatGeometry; pairsTested: number } | { ok: false; reason: string };

const refuse = (reason: string): Checked => ({ ok: false, reason });

/**
 * Checks a GeoJSON-shaped geometry (`{ type, coordinates }`, any reader's output) and flattens it.
 * Refused: no geometry, empty, not a polygon, a position that is not two finite numbers, a ring of
 * fewer than 4 points, an unclosed ring, too many points, a self-intersection (two segments of a
 * ring meeting anywhere but at their shared end, or rings of one polygon crossing or overlapping
 * along a segment; rings touching at a point are allowed, as in OGC Simple Features). Z and M are
 * dropped. A multipolygon stays one geometry; its parts are not checked against each other.
 */
export function checkGeometry(g: unknown, limits: GeometryLimits = DEFAULT_GEOMETRY_LIMITS): Checked {
  if (g == null) return refuse('no geometry (empty)');
  if (typeof g !== 'object') return refuse('the geometry is not an object');
  const { type, coordinates } = g as { type?: unknown; coordinates?: unknown };
  if (type !== 'Polygon' && type !== 'MultiPolygon') return refuse(`not a polygon (${typeof type === 'string' ? type.slice(0, 40) : 'no type'})`);
  if (!Array.isArray(coordinates)) return refuse('the geometry has no coordinates');
  if (coordinates.length === 0) return refuse('empty geometry');
  const parts = type === 'Polygon' ? [coordinates] : coordinates;
  // Count first (bounded by maxVertices), then fill one typed array.
  let total = 0;
  for (let p = 0; p < parts.length; p++) {
    const rings = parts[p];
    if (!Array.isArray(rings)) return refuse(`part ${p + 1} is not a list of rings`);
    if (rings.length === 0) return refuse(type === 'Polygon' ? 'empty geometry' : `part ${p + 1} is empty`);
    for (let r = 0; r < rings.length; r++) {
      const ring = rings[r];
      if (!Array.isArray(ring)) return refuse(`${where(type, p, r)} is not a list of positions`);
      total += ring.length;
      if (total > limits.maxVertices) return refuse(`more than ${limits.maxVertices} points (the limit of points per parcel)`);
    }
  }
  const coords = new Float64Array(total * 2);
  const partRings: number[] = [];
  const ringPoints: number[] = [];
  let at = 0;
  for (let p = 0; p < parts.length; p++) {
    const rings = parts[p] as unknown[][];
    partRings.push(rings.length);
    for (let r = 0; r < rings.length; r++) {
      const ring = rings[r]!;
      if (ring.length < 4) return refuse(`${where(type, p, r)} has ${ring.length} point${ring.length === 1 ? '' : 's'}, fewer than 4`);
      const start = at;
      for (const pos of ring) {
        if (!Array.isArray(pos) || pos.length < 2) return refuse(`${where(type, p, r)} has a position that is not [x, y]`);
        const x = pos[0] as unknown;
        const y = pos[1] as unknown;
        if (typeof x !== 'number' || typeof y !== 'number') return refuse(`${where(type, p, r)} has a coordinate that is not a number`);
        if (!Number.isFinite(x) || !Number.isFinite(y)) return refuse(`${where(type, p, r)} has a NaN or infinite coordinate`);
        // A point repeating the one before adds nothing (OGC allows it): kept once.
        if (at > start && coords[at - 2] === x && coords[at - 1] === y) continue;
        coords[at++] = x;
        coords[at++] = y;
      }
      if (coords[start] !== coords[at - 2] || coords[start + 1] !== coords[at - 1]) return refuse(`${where(type, p, r)} is not closed (its last point differs from its first)`);
      const n = (at - start) / 2;
      if (n < 4) return refuse(`${where(type, p, r)} has ${n} distinct consecutive points, fewer than 4`);
      ringPoints.push(n);
    }
  }
  const used = coords.subarray(0, at);
  const flat: FlatGeometry = { type, partRings, ringPoints, coords: at === coords.length ? coords : used.slice() };
  const outside = holeOutside(flat);
  if (outside) return refuse(outside);
  const crossing = selfIntersection(flat, limits.maxSegmentPairs);
  if (typeof crossing === 'string') return refuse(crossing);
  return { ok: true, geometry: flat, pairsTested: crossing };
}

/** Whether (x, y) is inside the ring of `n` points from point `p0` (even-odd rule; a point on the boundary counts as neither). */
function inRing(c: Float64Array, p0: number, n: number, x: number, y: number): boolean | null {
  let inside = false;
  for (let i = 0, j = n - 1; i < n; j = i++) {
    const xi = c[(p0 + i) * 2]!, yi = c[(p0 + i) * 2 + 1]!, xj = c[(p0 + j) * 2]!, yj = c[(p0 + j) * 2 + 1]!;
    if (orient(xj, yj, xi, yi, x, y) === 0 && within(xj, yj, xi, yi, x, y)) return null;
    if ((yi > y) !== (yj > y) && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** The first inner ring lying outside its outer ring (tested at its first point off the outer ring), as a reason. */
function holeOutside(g: FlatGeometry): string | null {
  let ring = 0;
  let point = 0;
  for (let p = 0; p < g.partRings.length; p++) {
    const outer = point;
    const outerN = g.ringPoints[ring]!;
    point += outerN;
    for (let r = 1; r < g.partRings[p]!; r++) {
      const n = g.ringPoints[ring + r]!;
      for (let i = 0; i < n - 1; i++) {
        const inside = inRing(g.coords, outer, outerN, g.coords[(point + i) * 2]!, g.coords[(point + i) * 2 + 1]!);
        if (inside === null) continue;
        if (!inside) return `${where(g.type, p, r)} lies outside the outer ring`;
        break;
      }
      point += n;
    }
    ring += g.partRings[p]!;
  }
  return null;
}

function where(type: 'Polygon' | 'MultiPolygon', part: number, ring: number): string {
  const name = ring === 0 ? 'the outer ring' : `inner ring ${ring}`;
  return type === 'Polygon' ? name : `${name} of part ${part + 1}`;
}

const orient = (ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number => (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);

/** Whether c, collinear with a-b, lies within a-b's box. */
const within = (ax: number, ay: number, bx: number, by: number, cx: number, cy: number): boolean =>
  Math.min(ax, bx) <= cx && cx <= Math.max(ax, bx) && Math.min(ay, by) <= cy && cy <= Math.max(ay, by);

/**
 * The first self-intersection of each polygon of `g`, as a reason, or the number of candidate
 * segment pairs tested. Segments are swept by x (sorted by their west end; each is tested against
 * the following ones whose west end is not past its east end).
 */
function selfIntersection(g: FlatGeometry, maxPairs: number): string | number {
  const c = g.coords;
  let pairs = 0;
  let ring0 = 0;
  let point0 = 0;
  for (let p = 0; p < g.partRings.length; p++) {
    const nRings = g.partRings[p]!;
    // Segments of this polygon: start point index, ring index, position in ring, ring length.
    let n = 0;
    for (let r = 0; r < nRings; r++) n += g.ringPoints[ring0 + r]! - 1;
    const start = new Uint32Array(n);
    const ringOf = new Uint32Array(n);
    const pos = new Uint32Array(n);
    const len = new Uint32Array(n);
    let s = 0;
    let pt = point0;
    for (let r = 0; r < nRings; r++) {
      const k = g.ringPoints[ring0 + r]! - 1;
      for (let i = 0; i < k; i++) {
        start[s] = pt + i;
        ringOf[s] = r;
        pos[s] = i;
        len[s] = k;
        s++;
      }
      pt += k + 1;
    }
    const minX = new Float64Array(n);
    for (let i = 0; i < n; i++) minX[i] = Math.min(c[start[i]! * 2]!, c[start[i]! * 2 + 2]!);
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => minX[a]! - minX[b]!);
    for (let oi = 0; oi < n; oi++) {
      const i = order[oi]!;
      const a = start[i]! * 2;
      const ax = c[a]!, ay = c[a + 1]!, bx = c[a + 2]!, by = c[a + 3]!;
      const maxX = Math.max(ax, bx);
      const minY = Math.min(ay, by), maxY = Math.max(ay, by);
      for (let oj = oi + 1; oj < n; oj++) {
        const j = order[oj]!;
        if (minX[j]! > maxX) break;
        if (++pairs > maxPairs) return `too complex to check for self-intersections (more than ${maxPairs} segment pairs to test)`;
        const b = start[j]! * 2;
        const cx = c[b]!, cy = c[b + 1]!, dx = c[b + 2]!, dy = c[b + 3]!;
        if (Math.max(cy, dy) < minY || Math.min(cy, dy) > maxY) continue;
        const found = meet(ax, ay, bx, by, cx, cy, dx, dy, ringOf[i] === ringOf[j], adjacency(pos[i]!, pos[j]!, len[i]!, ringOf[i] === ringOf[j]));
        if (found) {
          const what = ringOf[i] === ringOf[j] ? (ringOf[i] === 0 ? 'the outer ring' : `inner ring ${ringOf[i]}`) : `rings ${Math.min(ringOf[i]!, ringOf[j]!)} and ${Math.max(ringOf[i]!, ringOf[j]!)}`;
          const partText = g.type === 'MultiPolygon' ? ` of part ${p + 1}` : '';
          return `self-intersection: ${what}${partText} ${found} near (${fmt(ax)}, ${fmt(ay)})`;
        }
      }
    }
    ring0 += nRings;
    for (let r = 0; r < nRings; r++) point0 += g.ringPoints[ring0 - nRings + r]!;
  }
  return pairs;
}

const fmt = (v: number): string => String(Math.round(v * 1e6) / 1e6);

/** 0: not adjacent; 1: j follows i; -1: i follows j (segments of one ring sharing an end). */
function adjacency(pi: number, pj: number, k: number, sameRing: boolean): number {
  if (!sameRing) return 0;
  if ((pi + 1) % k === pj) return 1;
  if ((pj + 1) % k === pi) return -1;
  return 0;
}

/**
 * How segments a-b and c-d meet when that makes the polygon invalid, else null. Same ring: any
 * contact but the shared end of adjacent segments (and adjacent ones folding back on each other, a
 * spike). Different rings: a proper crossing or a collinear overlap; a single touching point is allowed.
 */
function meet(ax: number, ay: number, bx: number, by: number, cx: number, cy: number, dx: number, dy: number, sameRing: boolean, adjacent: number): string | null {
  const d1 = orient(cx, cy, dx, dy, ax, ay);
  const d2 = orient(cx, cy, dx, dy, bx, by);
  const d3 = orient(ax, ay, bx, by, cx, cy);
  const d4 = orient(ax, ay, bx, by, dx, dy);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return 'crosses itself';
  if (adjacent !== 0) {
    // The shared end is b=c (j follows i) or d=a (i follows j); invalid only when the two fold back (a spike).
    if (d3 !== 0 || d4 !== 0) return null;
    const [ox, oy, ux, uy, vx, vy] = adjacent === 1 ? [bx, by, ax, ay, dx, dy] : [ax, ay, bx, by, cx, cy];
    return (ux - ox) * (vx - ox) + (uy - oy) * (vy - oy) > 0 ? 'folds back on itself (a spike)' : null;
  }
  const touches = (d1 === 0 && within(cx, cy, dx, dy, ax, ay)) || (d2 === 0 && within(cx, cy, dx, dy, bx, by))
    || (d3 === 0 && within(ax, ay, bx, by, cx, cy)) || (d4 === 0 && within(ax, ay, bx, by, dx, dy));
  if (!touches) return null;
  if (sameRing) return 'touches itself';
  // Different rings: collinear and sharing more than one point is an overlap along a segment.
  if (d1 === 0 && d2 === 0) {
    const shared = [within(cx, cy, dx, dy, ax, ay), within(cx, cy, dx, dy, bx, by), within(ax, ay, bx, by, cx, cy), within(ax, ay, bx, by, dx, dy)];
    const pts = [[ax, ay], [bx, by], [cx, cy], [dx, dy]].filter((_, i) => shared[i]);
    const distinct = new Set(pts.map(([x, y]) => `${x},${y}`));
    return distinct.size > 1 ? 'overlap along a segment' : null;
  }
  return null;
}

/** The geometry as nested positions (the interface's form). */
export function toParcelGeometry(g: FlatGeometry): ParcelGeometry {
  const polys: Position[][][] = [];
  let ring = 0;
  let at = 0;
  for (const nRings of g.partRings) {
    const rings: Position[][] = [];
    for (let r = 0; r < nRings; r++) {
      const n = g.ringPoints[ring++]!;
      const positions: Position[] = new Array(n);
      for (let i = 0; i < n; i++, at += 2) positions[i] = [g.coords[at]!, g.coords[at + 1]!];
      rings.push(positions);
    }
    polys.push(rings);
  }
  return g.type === 'Polygon' ? { type: 'Polygon', coordinates: polys[0]! } : { type: 'MultiPolygon', coordinates: polys };
}

/**
 * The stored form: little-endian uint32 type (1 Polygon, 2 MultiPolygon), part count, each part's
 * ring count, each ring's point count, padding to 8 bytes, then float64 x,y of every point.
 */
export function encodeGeometry(g: FlatGeometry): Uint8Array {
  const words = 2 + g.partRings.length + g.ringPoints.length;
  const head = Math.ceil((words * 4) / 8) * 8;
  const out = new Uint8Array(head + g.coords.byteLength);
  const view = new DataView(out.buffer);
  view.setUint32(0, g.type === 'Polygon' ? 1 : 2, true);
  view.setUint32(4, g.partRings.length, true);
  let o = 8;
  for (const n of g.partRings) { view.setUint32(o, n, true); o += 4; }
  for (const n of g.ringPoints) { view.setUint32(o, n, true); o += 4; }
  out.set(new Uint8Array(g.coords.buffer, g.coords.byteOffset, g.coords.byteLength), head);
  return out;
}

/** Reads {@link encodeGeometry}'s form back; throws on a blob that does not hold one. */
export function decodeGeometry(blob: Uint8Array): FlatGeometry {
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const bad = (): never => { throw new Error('a stored parcel geometry is malformed'); };
  if (blob.byteLength < 8) bad();
  const kind = view.getUint32(0, true);
  const nParts = view.getUint32(4, true);
  if ((kind !== 1 && kind !== 2) || nParts < 1 || 8 + nParts * 4 > blob.byteLength) bad();
  const partRings: number[] = [];
  let o = 8;
  let nRings = 0;
  for (let i = 0; i < nParts; i++, o += 4) { const n = view.getUint32(o, true); partRings.push(n); nRings += n; }
  if (o + nRings * 4 > blob.byteLength) bad();
  const ringPoints: number[] = [];
  let nPoints = 0;
  for (let i = 0; i < nRings; i++, o += 4) { const n = view.getUint32(o, true); ringPoints.push(n); nPoints += n; }
  const head = Math.ceil(o / 8) * 8;
  if (head + nPoints * 16 !== blob.byteLength) bad();
  const coords = new Float64Array(nPoints * 2);
  new Uint8Array(coords.buffer).set(blob.subarray(head));
  return { type: kind === 1 ? 'Polygon' : 'MultiPolygon', partRings, ringPoints, coords };
}

/**
 * The WGS 84 box of a geometry: its outer rings' points through `toLonLat` (holes lie inside).
 * Null when a point does not project to a finite longitude/latitude in -180..180 / -90..90.
 */
export function lonLatBox(g: FlatGeometry, toLonLat: ((x: number, y: number) => [number, number]) | null): Bbox | null {
  let w = Infinity, s = Infinity, e = -Infinity, n = -Infinity;
  let ring = 0;
  let at = 0;
  for (const nRings of g.partRings) {
    for (let r = 0; r < nRings; r++) {
      const pts = g.ringPoints[ring++]!;
      if (r === 0) {
        for (let i = 0; i < pts; i++) {
          const x = g.coords[at + i * 2]!, y = g.coords[at + i * 2 + 1]!;
          const [lon, lat] = toLonLat ? toLonLat(x, y) : [x, y];
          if (!(Math.abs(lon) <= 180 && Math.abs(lat) <= 90)) return null;
          if (lon < w) w = lon;
          if (lon > e) e = lon;
          if (lat < s) s = lat;
          if (lat > n) n = lat;
        }
      }
      at += pts * 2;
    }
  }
  return [w, s, e, n];
}
