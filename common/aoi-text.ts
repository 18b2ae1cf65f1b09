/**
 * Reading and writing AOIs as text: strict POLYGON / MULTIPOLYGON WKT (optionally SRID=4326;) and
 * GeoJSON geometries, the service's rules, shared by the client's pre-validation, the batch planner,
 * the renderer and the simulator. Coordinates are [longitude, latitude]; Z and M values are dropped.
 */
import type { MultiPolygon, Polygon, Position } from 'geojson';

/** A geometry the service accepts as an AOI. */
export type Polygonal = Polygon | MultiPolygon;

/** Names used in messages, in GeoJSON spelling, for every WKT/GeoJSON type we recognise. */
export const KNOWN_TYPES: Record<string, string> = {
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

/** The reason a geometry of another type is refused. */
export function typeRejection(name: string): string {
  return `Only Polygon or MultiPolygon geometries are accepted; got ${name}.`;
}

/** True for values that count as an absent Wkt or GeoJson: undefined, null, and empty or blank strings. */
export function isAbsent(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
}

class WktSyntaxError extends Error {}

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

/** A well-formed collection member of a type the service does not accept. */
class MemberRejected extends Error {}

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
  read(collections = false): Polygonal | Polygonal[] | string {
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
    this.dims = null;
    const name = KNOWN_TYPES[typeTok.text];
    if (!name) throw new WktSyntaxError(`unknown geometry type '${typeTok.raw}'`);
    if (name !== 'Polygon' && name !== 'MultiPolygon') return typeRejection(name);

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
    const notFinite = (t: Token): WktSyntaxError => new WktSyntaxError(`coordinates must be finite numbers; ${t.raw} is not (at position ${t.pos})`);
    while (this.peek()?.kind === 'num') {
      const t = this.tokens[this.i]!;
      const n = Number(t.text);
      // 1e999 reads as Infinity.
      if (!Number.isFinite(n)) throw notFinite(t);
      nums.push(n);
      this.i++;
    }
    const next = this.peek();
    if (next?.kind === 'word' && /^(NAN|INF|INFINITY)$/.test(next.text)) throw notFinite(next);
    const where = next?.pos ?? this.endPos;
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

/** Parses strict POLYGON/MULTIPOLYGON WKT; returns a reason string on failure. */
export function readWkt(value: unknown): Polygonal | string;
/** With `collections`, a GEOMETRYCOLLECTION of polygons and multipolygons gives its members. */
export function readWkt(value: unknown, collections: boolean): Polygonal | Polygonal[] | string;
export function readWkt(value: unknown, collections = false): Polygonal | Polygonal[] | string {
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
export function readGeoJson(value: unknown): Polygonal | string;
/** With `collections`, a GeometryCollection of polygons and multipolygons gives its members. */
export function readGeoJson(value: unknown, collections: boolean): Polygonal | Polygonal[] | string;
export function readGeoJson(value: unknown, collections = false): Polygonal | Polygonal[] | string {
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
      const g = readGeoJson(geometries[i]);
      if (typeof g === 'string') return `Geometry ${i + 1} of the collection: ${g}`;
      members.push(g);
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


export function fmtPoint(p: Position): string {
  return `(${round6(p[0]!)}, ${round6(p[1]!)})`;
}

function round6(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

export function samePos(a: Position, b: Position): boolean {
  return a[0] === b[0] && a[1] === b[1];
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

