/**
 * Deterministic UTM tile grid of the simulator.
 *
 * Grid design (no stored tables; everything is derived from the GUID or the AOI):
 * - Each standard 6° UTM zone has two grids: the northern one in EPSG:326zz (northing 0 at the
 *   equator) covering latitudes [0, 84], and the southern one in EPSG:327zz (false northing
 *   10,000,000 m) covering [-80, 0]. These are the latitudes UTM is defined for; an AOI beyond
 *   them gets no cells. The Norway/Svalbard zone exceptions are ignored.
 * - Tiles are 51,200 m squares (5120 px at 10 m) whose corners sit on multiples of 51,200 m of
 *   the grid's own easting/northing. Mini-tiles split each tile 16 x 16 into 3,200 m squares
 *   (320 px at 10 m). Squares are clipped in lon/lat to their grid's zone (longitude edges,
 *   the equator, 84°N / 80°S), so cells at a zone edge are partial, as in production.
 *   Cells whose clipped footprint is under 1 m² do not exist.
 * - Footprints are built from points of one shared 3,200 m lattice: a tile edge has 17 points
 *   and a mini-tile edge 2. The straight lon/lat chord between lattice points strays from the
 *   true UTM line by about 0.2 m at 45° latitude (1.3 m at 80°), neighbours share identical
 *   edge points, and a tile is exactly the union of its mini-tiles.
 *
 * GUID encoding (16 bytes, printed as a lowercase 8-4-4-4-12 GUID):
 *   payload P (8 bytes) = epsg (uint16 BE), flags (1 = mini-tile), tile col, tile row,
 *                         subCol << 4 | subRow (0 for tiles), 0x5a, 0x77 (magic)
 *   checksum C (6 bytes) = first 6 bytes of sha256("swath-tile-grid/v1" + P)
 *   mask M (8 bytes)     = first 8 bytes of sha256("swath-tile-grid/mask" + C)
 *   bytes = C[0..5], 0x81 (version nibble 8 = custom, format 1), (P^M)[0],
 *           0x80 | (C[0] & 0x3f) (RFC 4122 variant), (P^M)[1..7]
 * The mask only makes neighbouring GUIDs look unrelated. The checksum (48 bits), magic and fixed
 * bytes let a random or edited GUID pass with a probability below 2^-80, so decoding needs no
 * table of issued GUIDs. `isGuid` checks only the syntax; `cellByGuid` checks everything.
 */
import { createHash } from 'node:crypto';
import proj4 from 'proj4';
import * as turf from '../../main/shared/turf';
import type { Feature, MultiLineString, Polygon, Position } from 'geojson';
import { bbox4326, intersect, toWkt, type Polygonal } from './aoi.js';

/** Edge length of a tile in metres (5120 px at 10 m). */
export const TILE_SIZE_M = 51_200;
/** Edge length of a mini-tile in metres (320 px at 10 m). */
export const MINI_TILE_SIZE_M = 3_200;
/** Mini-tiles per tile edge. */
const SUB = TILE_SIZE_M / MINI_TILE_SIZE_M;
/** Number of cells {@link searchTiles} returns at most when no `limit` is given. */
export const DEFAULT_SEARCH_LIMIT = 5000;
/** Clipped footprints below this area (km²) are slivers of floating-point noise. */
const MIN_CELL_KM2 = 1e-6;
/** Overlaps below this area (km²) come from edges the AOI shares with a cell, not real area. */
const MIN_OVERLAP_KM2 = 1e-6;
const NORTH_LIMIT = 84;
const SOUTH_LIMIT = -80;

/** One tile or mini-tile, as returned by tile search. */
export interface GridCell {
  Guid: string;
  MiniTile: boolean;
  Epsg: number;
  DataGeogWkt: string;
  /** lon/lat footprint clipped to the zone */
  geometry: Polygonal;
  /** exact bounds in the zone's UTM metres, unclipped square */
  utmBounds: { minX: number; minY: number; maxX: number; maxY: number };
  areaKm2: number;
}

interface CellId {
  epsg: number;
  mini: boolean;
  col: number;
  row: number;
  subCol: number;
  subRow: number;
}

type Box = [number, number, number, number];

// ---------------------------------------------------------------------------------------------
// Zones and projection
// ---------------------------------------------------------------------------------------------

function isUtmEpsg(epsg: number): boolean {
  const zone = epsg % 100;
  return (Math.floor(epsg / 100) === 326 || Math.floor(epsg / 100) === 327) && zone >= 1 && zone <= 60;
}

/** The lon/lat rectangle a grid is clipped to. */
function regionOf(epsg: number): Box {
  const zone = epsg % 100;
  const west = -180 + (zone - 1) * 6;
  return epsg < 32700 ? [west, 0, west + 6, NORTH_LIMIT] : [west, SOUTH_LIMIT, west + 6, 0];
}

const converters = new Map<number, proj4.Converter>();

function converter(epsg: number): proj4.Converter {
  let c = converters.get(epsg);
  if (!c) {
    const south = epsg >= 32700 ? ' +south' : '';
    c = proj4(`+proj=utm +zone=${epsg % 100}${south} +datum=WGS84 +units=m +no_defs`, 'EPSG:4326');
    converters.set(epsg, c);
  }
  return c;
}

/** Rounding to 1e-9° (~0.1 mm) keeps WKT short and identical for neighbours. */
function round9(n: number): number {
  return Math.round(n * 1e9) / 1e9;
}

/**
 * Lon/lat of lattice point (i, j), i.e. UTM (i * 3200, j * 3200) of the grid. Longitudes are
 * kept within 180° of the zone's central meridian instead of wrapping at ±180, so a square
 * reaching past the antimeridian stays one compact polygon (that clipping then trims) rather
 * than one spanning the globe.
 */
function latticePoint(epsg: number, i: number, j: number): Position {
  const [lon, lat] = converter(epsg).forward([i * MINI_TILE_SIZE_M, j * MINI_TILE_SIZE_M]);
  const cm = -183 + (epsg % 100) * 6;
  const unwrapped = lon! - 360 * Math.round((lon! - cm) / 360);
  return [round9(unwrapped), round9(lat!)];
}

// ---------------------------------------------------------------------------------------------
// GUIDs
// ---------------------------------------------------------------------------------------------

const GUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAGIC = [0x5a, 0x77] as const;
const FORMAT_BYTE = 0x81;

function sha(prefix: string, bytes: Uint8Array): Buffer {
  return createHash('sha256').update(prefix).update(bytes).digest();
}

function payloadOf(id: CellId): Uint8Array {
  return Uint8Array.from([
    id.epsg >> 8,
    id.epsg & 0xff,
    id.mini ? 1 : 0,
    id.col,
    id.row,
    id.mini ? (id.subCol << 4) | id.subRow : 0,
    MAGIC[0],
    MAGIC[1],
  ]);
}

function encodeGuid(id: CellId): string {
  const p = payloadOf(id);
  const c = sha('swath-tile-grid/v1', p).subarray(0, 6);
  const m = sha('swath-tile-grid/mask', c);
  const q = p.map((b, k) => b ^ m[k]!);
  const bytes = Uint8Array.from([...c, FORMAT_BYTE, q[0]!, 0x80 | (c[0]! & 0x3f), ...q.subarray(1)]);
  const hex = Buffer.from(bytes).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function decodeGuid(guid: string): CellId | undefined {
  if (!isGuid(guid)) return undefined;
  const bytes = Buffer.from(guid.replace(/-/g, ''), 'hex');
  const c = bytes.subarray(0, 6);
  if (bytes[6] !== FORMAT_BYTE || bytes[8] !== (0x80 | (c[0]! & 0x3f))) return undefined;
  const m = sha('swath-tile-grid/mask', c);
  const q = [bytes[7]!, ...bytes.subarray(9)];
  const p = Uint8Array.from(q.map((b, k) => b ^ m[k]!));
  if (p[6] !== MAGIC[0] || p[7] !== MAGIC[1]) return undefined;
  if (!sha('swath-tile-grid/v1', p).subarray(0, 6).equals(c)) return undefined;
  const epsg = (p[0]! << 8) | p[1]!;
  const flags = p[2]!;
  if (!isUtmEpsg(epsg) || flags > 1 || (flags === 0 && p[5] !== 0)) return undefined;
  return { epsg, mini: flags === 1, col: p[3]!, row: p[4]!, subCol: p[5]! >> 4, subRow: p[5]! & 0x0f };
}

/** True when `s` is a GUID in the standard 8-4-4-4-12 hex form (any case, no braces). */
export function isGuid(s: string): boolean {
  return GUID_RE.test(s);
}

// ---------------------------------------------------------------------------------------------
// Cells
// ---------------------------------------------------------------------------------------------

interface BuiltCell {
  cell: GridCell;
  box: Box;
  /** A point strictly inside the footprint. */
  inner: Position;
}

function boxOf(ring: Position[]): Box {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x, y] of ring) {
    x0 = Math.min(x0, x!);
    y0 = Math.min(y0, y!);
    x1 = Math.max(x1, x!);
    y1 = Math.max(y1, y!);
  }
  return [x0, y0, x1, y1];
}

function samePos(a: Position, b: Position): boolean {
  return a[0] === b[0] && a[1] === b[1];
}

function boxesOverlap(a: Box, b: Box): boolean {
  return a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3];
}

function inBox(p: Position, b: Box): boolean {
  return p[0]! >= b[0] && p[0]! <= b[2] && p[1]! >= b[1] && p[1]! <= b[3];
}

function buildCell(id: CellId): BuiltCell | undefined {
  const n = id.mini ? 1 : SUB;
  const i0 = id.col * SUB + (id.mini ? id.subCol : 0);
  const j0 = id.row * SUB + (id.mini ? id.subRow : 0);
  const ring: Position[] = [];
  // Counter-clockwise (RFC 7946 exterior), since UTM keeps east right and north up.
  for (let k = 0; k < n; k++) ring.push(latticePoint(id.epsg, i0 + k, j0));
  for (let k = 0; k < n; k++) ring.push(latticePoint(id.epsg, i0 + n, j0 + k));
  for (let k = n; k > 0; k--) ring.push(latticePoint(id.epsg, i0 + k, j0 + n));
  for (let k = n; k > 0; k--) ring.push(latticePoint(id.epsg, i0, j0 + k));
  ring.push(ring[0]!);
  if (ring.some((p) => !Number.isFinite(p[0]) || !Number.isFinite(p[1]))) return undefined;

  const region = regionOf(id.epsg);
  let rings: Position[][];
  if (ring.every((p) => inBox(p, region))) {
    rings = [ring];
  } else {
    const clipped = turf.bboxClip(turf.polygon([ring]), region).geometry.coordinates as Position[][];
    rings = clipped
      .map((r) => r.map((p): Position => [round9(p[0]!), round9(p[1]!)]).filter((p, k, a) => k === 0 || !samePos(p, a[k - 1]!)))
      .filter((r) => r.length >= 4);
    if (rings.length === 0) return undefined;
  }
  const geometry: Polygonal = { type: 'Polygon', coordinates: rings };
  const areaKm2 = turf.area(geometry) / 1e6;
  if (!(areaKm2 >= MIN_CELL_KM2)) return undefined;
  // Footprints are convex up to metre-level edge curvature, so the vertex mean is well inside.
  const outer = rings[0]!;
  let [sx, sy] = [0, 0];
  for (let k = 0; k < outer.length - 1; k++) {
    sx += outer[k]![0]!;
    sy += outer[k]![1]!;
  }
  const inner: Position = [sx / (outer.length - 1), sy / (outer.length - 1)];

  const size = n * MINI_TILE_SIZE_M;
  const minX = i0 * MINI_TILE_SIZE_M;
  const minY = j0 * MINI_TILE_SIZE_M;
  return {
    cell: {
      Guid: encodeGuid(id),
      MiniTile: id.mini,
      Epsg: id.epsg,
      DataGeogWkt: toWkt(geometry),
      geometry,
      utmBounds: { minX, minY, maxX: minX + size, maxY: minY + size },
      areaKm2,
    },
    box: boxOf(rings[0]!),
    inner,
  };
}

/** The tile or mini-tile a GUID from {@link searchTiles} names, or undefined if no such cell exists. */
export function cellByGuid(guid: string): GridCell | undefined {
  const id = decodeGuid(guid);
  return id ? buildCell(id)?.cell : undefined;
}

/** GUID of the tile holding a mini-tile, or undefined when `guid` is not a known mini-tile. */
export function parentTileGuid(guid: string): string | undefined {
  const id = decodeGuid(guid);
  if (!id?.mini || !buildCell(id)) return undefined;
  return encodeGuid({ ...id, mini: false, subCol: 0, subRow: 0 });
}

function minisOf(tile: CellId): CellId[] {
  const out: CellId[] = [];
  for (let subRow = SUB - 1; subRow >= 0; subRow--) {
    for (let subCol = 0; subCol < SUB; subCol++) out.push({ ...tile, mini: true, subCol, subRow });
  }
  return out;
}

/** All existing mini-tiles of a tile, in search order, or undefined when `guid` is not a known tile. */
export function miniTilesOf(guid: string): GridCell[] | undefined {
  const id = decodeGuid(guid);
  if (!id || id.mini || !buildCell(id)) return undefined;
  return minisOf(id).flatMap((m) => buildCell(m)?.cell ?? []);
}

// ---------------------------------------------------------------------------------------------
// Search
// ---------------------------------------------------------------------------------------------

function utmZone(lon: number): number {
  return lon >= 180 ? 60 : Math.min(60, Math.max(1, Math.floor((lon + 180) / 6) + 1));
}

/** Grids whose region shares area with the AOI's bounding box, in ascending EPSG order. */
function epsgsFor(box: Box): number[] {
  const out: number[] = [];
  const z0 = utmZone(box[0]);
  const z1 = utmZone(box[2]);
  for (const base of [32600, 32700]) {
    for (let z = z0; z <= z1; z++) {
      const r = regionOf(base + z);
      if (Math.min(r[2], box[2]) > Math.max(r[0], box[0]) && Math.min(r[3], box[3]) > Math.max(r[1], box[1])) {
        out.push(base + z);
      }
    }
  }
  return out;
}

/** Tile col/row ranges that can touch `box` within the grid of `epsg`. */
function tileRange(epsg: number, box: Box): { cols: [number, number]; rows: [number, number] } {
  const r = regionOf(epsg);
  const [w, s, e, n] = [Math.max(r[0], box[0]), Math.max(r[1], box[1]), Math.min(r[2], box[2]), Math.min(r[3], box[3])];
  // The projection's extremes over a rectangle lie on its boundary; sample it densely and
  // widen by a mini-tile so that curvature between samples cannot hide a cell.
  const steps = 32;
  const inv = converter(epsg);
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let k = 0; k <= steps; k++) {
    const t = k / steps;
    for (const [lon, lat] of [
      [w + (e - w) * t, s],
      [w + (e - w) * t, n],
      [w, s + (n - s) * t],
      [e, s + (n - s) * t],
    ] as const) {
      const [x, y] = inv.inverse([lon, lat]);
      x0 = Math.min(x0, x!);
      y0 = Math.min(y0, y!);
      x1 = Math.max(x1, x!);
      y1 = Math.max(y1, y!);
    }
  }
  const m = MINI_TILE_SIZE_M;
  const idx = (v: number): number => Math.max(0, Math.min(255, Math.floor(v / TILE_SIZE_M)));
  return { cols: [idx(x0 - m), idx(x1 + m)], rows: [idx(y0 - m), idx(y1 + m)] };
}

/** The AOI as seen by one grid: its part inside the grid's region, plus what tests need. */
interface ZoneAoi {
  feature: Feature<Polygonal>;
  box: Box;
  /** All rings as lines, to ask "does the boundary pass through this block?". */
  boundary: MultiLineString;
  /** Every ring edge with its bounding box, for cheap crossing tests against cells. */
  edges: { a: Position; b: Position; box: Box }[];
}

function zoneAoi(aoi: Polygonal, epsg: number): ZoneAoi | undefined {
  const [w, s, e, n] = regionOf(epsg);
  const part = intersect(aoi, { type: 'Polygon', coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] });
  if (!part) return undefined;
  const rings = part.type === 'Polygon' ? part.coordinates : part.coordinates.flat();
  const edges = rings.flatMap((r) => r.slice(1).map((b, k) => ({ a: r[k]!, b, box: boxOf([r[k]!, b]) })));
  return {
    feature: turf.feature(part),
    box: bbox4326(part),
    boundary: { type: 'MultiLineString', coordinates: rings },
    edges,
  };
}

function orient(a: Position, b: Position, c: Position): number {
  return (b[0]! - a[0]!) * (c[1]! - a[1]!) - (b[1]! - a[1]!) * (c[0]! - a[0]!);
}

/** Segments cross at a single interior point of both (touching and collinear cases excluded). */
function properlyCross(a: Position, b: Position, c: Position, d: Position): boolean {
  return orient(a, b, c) * orient(a, b, d) < 0 && orient(c, d, a) * orient(c, d, b) < 0;
}

function onSegment(a: Position, b: Position, p: Position): boolean {
  return (
    orient(a, b, p) === 0 &&
    Math.min(a[0]!, b[0]!) <= p[0]! && p[0]! <= Math.max(a[0]!, b[0]!) &&
    Math.min(a[1]!, b[1]!) <= p[1]! && p[1]! <= Math.max(a[1]!, b[1]!)
  );
}

/** Segments share at least one point, given that they do not cross properly. */
function touch(a: Position, b: Position, c: Position, d: Position): boolean {
  return onSegment(a, b, c) || onSegment(a, b, d) || onSegment(c, d, a) || onSegment(c, d, b);
}

/**
 * True when the cell and the AOI share more than noise-level area. Each early answer below is
 * exact; only boundaries that touch without crossing (shared or collinear edges, vertices on
 * edges) reach the exact but slow (BigNumber-based) polygon clipping.
 */
function overlaps(c: BuiltCell, aoi: ZoneAoi): boolean {
  if (!boxesOverlap(c.box, aoi.box)) return false;
  if (turf.booleanPointInPolygon(c.inner, aoi.feature, { ignoreBoundary: true })) return true;
  const near = aoi.edges.filter((e) => boxesOverlap(e.box, c.box));
  // Beyond this point the cell's interior point lies outside the AOI, so if the boundaries
  // never meet the AOI can only overlap the cell by lying inside it.
  if (near.length === 0) return false;
  const cellPoly = c.cell.geometry as Polygon;
  const ring = cellPoly.coordinates[0]!;
  let touching = false;
  for (const e of near) {
    for (let k = 0; k + 1 < ring.length; k++) {
      const [p, q] = [ring[k]!, ring[k + 1]!];
      if (properlyCross(e.a, e.b, p, q)) return true;
      touching ||= touch(e.a, e.b, p, q);
    }
  }
  for (const e of near) {
    if (inBox(e.a, c.box) && turf.booleanPointInPolygon(e.a, cellPoly, { ignoreBoundary: true })) return true;
  }
  if (!touching) return false;
  for (let k = 0; k + 1 < ring.length; k++) {
    if (turf.booleanPointInPolygon(ring[k]!, aoi.feature, { ignoreBoundary: true })) return true;
  }
  const common = turf.intersect(turf.featureCollection([turf.feature(c.cell.geometry), aoi.feature]));
  return common !== null && turf.area(common) / 1e6 > MIN_OVERLAP_KM2;
}

interface Candidate {
  col: number;
  row: number;
  /** Proven to lie wholly inside the AOI, so no per-cell test is needed. */
  inside: boolean;
}

/**
 * Lon/lat outline of a block of tiles [c0, c1) x [r0, r1), made deliberately larger than the
 * tiles' union: it is drawn through points a quarter tile apart (chord error is tens of metres
 * at most) and then scaled by 1% about its centre (hundreds of metres or more), so a block
 * test can only ever keep too much, never drop a tile.
 */
function blockOutline(epsg: number, c0: number, c1: number, r0: number, r1: number): { poly: Polygon; box: Box; centre: Position } | undefined {
  const q = SUB / 4;
  const [i0, i1, j0, j1] = [c0 * SUB, c1 * SUB, r0 * SUB, r1 * SUB];
  const pts: Position[] = [];
  for (let i = i0; i < i1; i += q) pts.push(latticePoint(epsg, i, j0));
  for (let j = j0; j < j1; j += q) pts.push(latticePoint(epsg, i1, j));
  for (let i = i1; i > i0; i -= q) pts.push(latticePoint(epsg, i, j1));
  for (let j = j1; j > j0; j -= q) pts.push(latticePoint(epsg, i0, j));
  if (pts.some((p) => !Number.isFinite(p[0]) || !Number.isFinite(p[1]))) return undefined;
  const c = converter(epsg).forward([((i0 + i1) / 2) * MINI_TILE_SIZE_M, ((j0 + j1) / 2) * MINI_TILE_SIZE_M]);
  const centre: Position = [c[0]!, c[1]!];
  const ring = pts.map((p): Position => [centre[0]! + (p[0]! - centre[0]!) * 1.01, centre[1]! + (p[1]! - centre[1]!) * 1.01]);
  ring.push(ring[0]!);
  return { poly: { type: 'Polygon', coordinates: [ring] }, box: boxOf(ring), centre };
}

/**
 * Tiles of [c0, c1] x [r0, r1] that may share area with the AOI, found by halving the range
 * so that a long thin AOI across a big bounding box costs in proportion to its length, not
 * to the box.
 */
function collect(epsg: number, aoi: ZoneAoi, c0: number, c1: number, r0: number, r1: number, out: Candidate[]): void {
  if (c0 === c1 && r0 === r1) {
    out.push({ col: c0, row: r0, inside: false });
    return;
  }
  const block = blockOutline(epsg, c0, c1 + 1, r0, r1 + 1);
  if (block) {
    if (!boxesOverlap(block.box, aoi.box) || !turf.booleanIntersects(block.poly, aoi.feature)) return;
    if (
      !turf.booleanIntersects(aoi.boundary, block.poly) &&
      turf.booleanPointInPolygon(block.centre, aoi.feature, { ignoreBoundary: true })
    ) {
      for (let row = r0; row <= r1; row++) for (let col = c0; col <= c1; col++) out.push({ col, row, inside: true });
      return;
    }
  }
  if (c1 - c0 >= r1 - r0) {
    const m = Math.floor((c0 + c1) / 2);
    collect(epsg, aoi, c0, m, r0, r1, out);
    collect(epsg, aoi, m + 1, c1, r0, r1, out);
  } else {
    const m = Math.floor((r0 + r1) / 2);
    collect(epsg, aoi, c0, c1, r0, m, out);
    collect(epsg, aoi, c0, c1, m + 1, r1, out);
  }
}

/**
 * Tiles (or mini-tiles) that share area with the AOI, across every UTM grid it spans. Cells
 * that only touch the AOI along an edge are left out. Order: EPSG ascending, then tiles north
 * to south and west to east, and within a tile its mini-tiles in the same order. At most
 * `limit` (default 5000) cells are returned; `truncated` says more exist.
 */
export function searchTiles(
  aoi: Polygonal,
  opts: { miniTiles: boolean; limit?: number },
): { cells: GridCell[]; truncated: boolean } {
  const limit = opts.limit ?? DEFAULT_SEARCH_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
  const aoiBox = bbox4326(aoi);
  const cells: GridCell[] = [];
  for (const epsg of epsgsFor(aoiBox)) {
    const part = zoneAoi(aoi, epsg);
    if (!part) continue;
    const { cols, rows } = tileRange(epsg, part.box);
    const candidates: Candidate[] = [];
    collect(epsg, part, cols[0], cols[1], rows[0], rows[1], candidates);
    candidates.sort((a, b) => b.row - a.row || a.col - b.col);
    for (const { col, row, inside } of candidates) {
      const tileId: CellId = { epsg, mini: false, col, row, subCol: 0, subRow: 0 };
      const tile = buildCell(tileId);
      if (!tile || !(inside || overlaps(tile, part))) continue;
      const found = opts.miniTiles ? minisOf(tileId).flatMap((m) => buildCell(m) ?? []) : [tile];
      for (const c of found) {
        if (!(inside || overlaps(c, part))) continue;
        if (cells.length === limit) return { cells, truncated: true };
        cells.push(c.cell);
      }
    }
  }
  return { cells, truncated: false };
}
