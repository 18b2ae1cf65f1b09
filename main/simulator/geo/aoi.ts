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
import * as turf from '@turf/turf';
import type { Feature, MultiPolygon, Polygon, Position } from 'geojson';

/** A geometry the service accepts as an AOI. */
export type Polygonal = Polygon | MultiPolygon;

/** Validation failures keyed by request property name, one human-readable reason per entry. */
export type FieldErrors = Record<string, string[]>;

type AoiMode = 'Wkt' | 'GeoJson';

/** Result of {@link parseAoi}: `aois` are the polygons the request names, one AOI each. */
export type ParseAoiResult =
  | { ok: true; geometry: Polygonal; mode: AoiMode; aois: Polygon[] }
  | { ok: true; geometry: null; mode: null; aois: [] }
  | { ok: false; errors: FieldErrors };

/** Intersections smaller than this (km², i.e. 1 m²) are floating-point noise from shared edges. */
const NOISE_AREA_KM2 = 1e-6;

/** Names used in messages, in GeoJSON spelling, for every WKT/GeoJSON type we recognise. */
const KNOWN_TYPES: Record<string, string> = {
  POINT: 'Point',
  LINESTRING: 'LineString',
  POLYGON: 'Polygon',
  MULTIPOINT: 'MultiPoint',
  MULTILINESTRING: 'MultiLineString',
  MULTIPOLYGON: 'MultiPolygon',
  GEOMETRYCOLLECTION: 'GeometryCollection',
  CIRCULARSTRING: 'CircularString',
  COMPOUNDCURVE: 'CompoundCurve',
  CURVEPOLYGON: 'CurvePolygon',
  MULTICURVE: 'MultiCurve',
  MULTISURFACE: 'MultiSurface',
  CURVE: 'Curve',
  SURFACE: 'Surface',
  POLYHEDRALSURFACE: 'PolyhedralSurface',
  TIN: 'Tin',
  TRIANGLE: 'Triangle',
};

function isAbsent(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
}

function typeRejection(name: string): string {
  return `Only Polygon or MultiPolygon geometries are accepted; got ${name}.`;
}

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

class WktSyntaxError extends Error {}
/** A well-formed collection member of a type the service does not accept. */
class MemberRejected extends Error {}

/** `text` is upper-cased for words (WKT keywords are case-insensitive); `raw` is as written. */
type Token = { kind: 'word' | 'num' | '(' | ')' | ','; text: string; raw: string; pos: number };

function tokenize(src: string, offset: number): Token[] {
  const tokens: Token[] = [];
  const re = /\s+|([A-Za-z]+)|([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)|([(),])/y;
  let i = 0;
  while (i < src.length) {
    re.lastIndex = i;
    const m = re.exec(src);
    if (!m) {
      throw new WktSyntaxError(`unexpected character '${src[i]}' at position ${offset + i + 1}`);
    }
    const pos = offset + i + 1;
    if (m[1] !== undefined) tokens.push({ kind: 'word', text: m[1].toUpperCase(), raw: m[1], pos });
    else if (m[2] !== undefined) tokens.push({ kind: 'num', text: m[2], raw: m[2], pos });
    else if (m[3] !== undefined) tokens.push({ kind: m[3] as '(' | ')' | ',', text: m[3], raw: m[3], pos });
    i = re.lastIndex;
  }
  return tokens;
}

class WktReader {
  private i = 0;
  /** Numbers per position; fixed by a Z/M/ZM tag, otherwise by the first position read. */
  private dims: number | null = null;

  constructor(
    private readonly tokens: Token[],
    private readonly endPos: number,
  ) {}

  private peek(): Token | undefined {
    return this.tokens[this.i];
  }

  private describe(t: Token | undefined): string {
    return t ? `'${t.raw}' at position ${t.pos}` : 'end of input';
  }

  private expect(kind: Token['kind']): Token {
    const t = this.peek();
    if (!t || t.kind !== kind) {
      throw new WktSyntaxError(`expected '${kind}' but found ${this.describe(t)}`);
    }
    this.i++;
    return t;
  }

  /** Returns the geometry (the members of a collection), or a rejection reason for well-formed but unacceptable input. */
  read(collections: boolean): Polygonal | Polygonal[] | string {
    const typeTok = this.peek();
    if (collections && typeTok?.kind === 'word' && typeTok.text === 'GEOMETRYCOLLECTION') {
      this.i++;
      const empty = this.peek();
      if (empty?.kind === 'word' && empty.text === 'EMPTY') {
        this.i++;
        this.expectEnd();
        return [];
      }
      const members: Polygonal[] = [];
      try {
        this.list(() => {
          const g = this.geometry();
          if (typeof g === 'string') throw new MemberRejected(`Geometry ${members.length + 1} of the collection: ${g}`);
          members.push(g);
        });
      } catch (e) {
        if (e instanceof MemberRejected) return e.message;
        throw e;
      }
      this.expectEnd();
      return members;
    }
    const g = this.geometry();
    if (typeof g !== 'string') this.expectEnd();
    return g;
  }

  private geometry(): Polygonal | string {
    const typeTok = this.peek();
    if (!typeTok || typeTok.kind !== 'word') {
      throw new WktSyntaxError(`expected a geometry type but found ${this.describe(typeTok)}`);
    }
    this.i++;
    const name = KNOWN_TYPES[typeTok.text];
    if (!name) throw new WktSyntaxError(`unknown geometry type '${typeTok.raw}'`);
    if (name !== 'Polygon' && name !== 'MultiPolygon') return typeRejection(name);

    this.dims = null;
    const tag = this.peek();
    if (tag?.kind === 'word') {
      if (tag.text === 'Z' || tag.text === 'M') this.dims = 3;
      else if (tag.text === 'ZM') this.dims = 4;
      else if (tag.text !== 'EMPTY') {
        throw new WktSyntaxError(`unexpected '${tag.raw}' at position ${tag.pos}`);
      }
      if (tag.text !== 'EMPTY') this.i++;
    }
    const empty = this.peek();
    if (empty?.kind === 'word' && empty.text === 'EMPTY') {
      this.i++;
      return 'Wkt is an empty geometry; a polygon with at least one ring is required.';
    }
    return name === 'Polygon'
      ? { type: 'Polygon', coordinates: this.polygonText() }
      : { type: 'MultiPolygon', coordinates: this.list(() => this.polygonText()) };
  }

  private expectEnd(): void {
    const t = this.peek();
    if (t) throw new WktSyntaxError(`unexpected ${this.describe(t)} after the geometry`);
  }

  private list<T>(item: () => T): T[] {
    this.expect('(');
    const out = [item()];
    while (this.peek()?.kind === ',') {
      this.i++;
      out.push(item());
    }
    this.expect(')');
    return out;
  }

  private polygonText(): Position[][] {
    return this.list(() => this.list(() => this.position()));
  }

  private position(): Position {
    const nums: number[] = [];
    while (this.peek()?.kind === 'num') {
      nums.push(Number(this.tokens[this.i]!.text));
      this.i++;
    }
    const where = this.peek()?.pos ?? this.endPos;
    if (nums.length < 2) {
      throw new WktSyntaxError(`a position needs longitude and latitude (near position ${where})`);
    }
    if (this.dims === null) {
      if (nums.length > 3) {
        throw new WktSyntaxError(`a position has ${nums.length} numbers without a ZM tag (near position ${where})`);
      }
      this.dims = nums.length;
    }
    if (nums.length !== this.dims) {
      throw new WktSyntaxError(
        `expected ${this.dims} numbers per position but found ${nums.length} (near position ${where})`,
      );
    }
    return [nums[0]!, nums[1]!];
  }
}

/** Parses strict POLYGON/MULTIPOLYGON (or, with `collections`, GEOMETRYCOLLECTION) WKT; returns a reason string on failure. */
function readWkt(value: unknown, collections = false): Polygonal | Polygonal[] | string {
  if (typeof value !== 'string') return 'Wkt must be a string.';
  let text = value;
  let offset = 0;
  const srid = /^\s*SRID\s*=\s*([^;]*);/i.exec(text);
  if (srid) {
    const code = srid[1]!.trim();
    if (!/^\d+$/.test(code)) return `Wkt is not valid WKT: SRID '${code}' is not a number.`;
    if (Number(code) !== 4326) {
      return `Only SRID=4326 (longitude/latitude) is accepted; got SRID=${Number(code)}.`;
    }
    offset = srid[0].length;
    text = text.slice(offset);
  }
  try {
    return new WktReader(tokenize(text, offset), value.length + 1).read(collections);
  } catch (e) {
    if (e instanceof WktSyntaxError) return `Wkt is not valid WKT: ${e.message}.`;
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// GeoJSON
// ---------------------------------------------------------------------------------------------

function isPosition(v: unknown): v is number[] {
  return (
    Array.isArray(v) &&
    (v.length === 2 || v.length === 3) &&
    v.every((n) => typeof n === 'number' && Number.isFinite(n))
  );
}

function readRings(v: unknown, path: string): Position[][] | string {
  if (!Array.isArray(v) || v.length === 0) return `${path} must be a non-empty array of rings.`;
  const rings: Position[][] = [];
  for (let r = 0; r < v.length; r++) {
    const ring: unknown = v[r];
    if (!Array.isArray(ring)) return `${path}[${r}] must be an array of positions.`;
    const out: Position[] = [];
    for (let p = 0; p < ring.length; p++) {
      const pos: unknown = ring[p];
      if (!isPosition(pos)) {
        return `${path}[${r}][${p}] must be a position [longitude, latitude] of finite numbers.`;
      }
      out.push([pos[0]!, pos[1]!]);
    }
    rings.push(out);
  }
  return rings;
}

/** Reads a GeoJSON geometry object (or its JSON text); returns a reason string on failure. */
function readGeoJson(value: unknown, collections = false): Polygonal | Polygonal[] | string {
  let obj = value;
  if (typeof obj === 'string') {
    try {
      obj = JSON.parse(obj) as unknown;
    } catch (e) {
      return `GeoJson is not valid JSON: ${(e as Error).message}.`;
    }
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    return 'GeoJson must be a GeoJSON geometry object with "type" and "coordinates".';
  }
  const { type, coordinates, geometries } = obj as { type?: unknown; coordinates?: unknown; geometries?: unknown };
  if (typeof type !== 'string') return 'GeoJson must have a string "type" member.';
  if (collections && type === 'GeometryCollection') {
    if (!Array.isArray(geometries)) return 'GeoJson GeometryCollection must have a "geometries" array.';
    const members: Polygonal[] = [];
    for (let i = 0; i < geometries.length; i++) {
      const g = readGeoJson(geometries[i], false);
      if (typeof g === 'string') return `Geometry ${i + 1} of the collection: ${g}`;
      members.push(g as Polygonal);
    }
    return members;
  }
  if (type === 'Feature' || type === 'FeatureCollection') {
    return `GeoJson must be a geometry, not a ${type}; send the Polygon or MultiPolygon geometry itself.`;
  }
  const known = Object.values(KNOWN_TYPES).includes(type);
  if (!known) return `GeoJson has unknown geometry type '${type}'.`;
  if (type !== 'Polygon' && type !== 'MultiPolygon') return typeRejection(type);
  if (type === 'Polygon') {
    const rings = readRings(coordinates, 'GeoJson coordinates');
    return typeof rings === 'string' ? rings : { type: 'Polygon', coordinates: rings };
  }
  if (!Array.isArray(coordinates) || coordinates.length === 0) {
    return 'GeoJson coordinates must be a non-empty array of polygons.';
  }
  const polys: Position[][][] = [];
  for (let i = 0; i < coordinates.length; i++) {
    const rings = readRings(coordinates[i], `GeoJson coordinates[${i}]`);
    if (typeof rings === 'string') return rings;
    polys.push(rings);
  }
  return { type: 'MultiPolygon', coordinates: polys };
}

// ---------------------------------------------------------------------------------------------
// Geometric validation
// ---------------------------------------------------------------------------------------------

function fmtPoint(p: Position): string {
  return `(${round6(p[0]!)}, ${round6(p[1]!)})`;
}

function round6(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

function samePos(a: Position, b: Position): boolean {
  return a[0] === b[0] && a[1] === b[1];
}

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
    const k = pts.length >= 4 ? turf.kinks(turf.lineString(pts)).features[0] : undefined;
    if (k) errors.push(`${label(r)} intersects itself at ${fmtPoint(k.geometry.coordinates)}.`);
    else if (pts.length < 4 || shoelace(pts) === 0) errors.push(`${label(r)} has zero area.`);
  });
  if (errors.length > 0) return errors;

  for (let a = 0; a < clean.length; a++) {
    for (let b = a + 1; b < clean.length; b++) {
      const k = turf.kinks(turf.multiLineString([clean[a]!, clean[b]!])).features[0];
      if (k) errors.push(`${label(a)} and ${ring(b)} intersect at ${fmtPoint(k.geometry.coordinates)}.`);
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

/** Plain decimal text: WKT readers differ on exponent notation, so never emit it. */
function fmtNum(n: number): string {
  if (Object.is(n, -0) || n === 0) return '0';
  const s = String(n);
  if (s.indexOf('e') === -1) return s;
  return n.toFixed(20).replace(/\.?0+$/, '');
}

function ringsWkt(rings: Position[][]): string {
  return `(${rings.map((r) => `(${r.map((p) => `${fmtNum(p[0]!)} ${fmtNum(p[1]!)}`).join(', ')})`).join(', ')})`;
}

/** Serialises a polygon as `POLYGON ((lon lat, ...))` or `MULTIPOLYGON (((...)), ...)`. */
export function toWkt(g: Polygonal): string {
  return g.type === 'Polygon'
    ? `POLYGON ${ringsWkt(g.coordinates)}`
    : `MULTIPOLYGON (${g.coordinates.map(ringsWkt).join(', ')})`;
}

/** Lon/lat bounding box as [minLon, minLat, maxLon, maxLat]. */
export function bbox4326(g: Polygonal): [number, number, number, number] {
  const b = turf.bbox(g);
  return [b[0], b[1], b[2], b[3]];
}

/**
 * EPSG code of the standard 6° UTM zone holding a point: 326xx north of (and on) the equator,
 * 327xx south; the Norway/Svalbard exceptions are deliberately ignored so that the answer
 * always agrees with the simulator's tile grid, which uses the regular zones.
 */
export function utmEpsgFor(lon: number, lat: number): number {
  if (!Number.isFinite(lon) || !Number.isFinite(lat)) throw new RangeError('lon/lat must be finite');
  // 180 exactly is the eastern edge of zone 60 (AOIs drawn up to the antimeridian stay there);
  // anything else is wrapped into [-180, 180) first.
  let zone: number;
  if (lon === 180) zone = 60;
  else {
    const wrapped = ((((lon + 180) % 360) + 360) % 360) - 180;
    zone = Math.floor((wrapped + 180) / 6) + 1;
  }
  return (lat >= 0 ? 32600 : 32700) + zone;
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
