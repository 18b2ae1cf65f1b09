/**
 * Splits a composite request that exceeds the account's limits into sub-requests that each fit.
 *
 * Area: the output pixel grid of the whole AOI (its projected envelope snapped outward to multiples
 * of the pixel size) is cut into rectangles of whole pixels; each part's AOI is the AOI clipped to
 * one rectangle, computed in the output CRS and sent back as densified lon/lat, so the service snaps
 * the part to exactly that rectangle. Parts therefore abut on the grid with no gap and no overlap.
 * Bands: a Bandnames list longer than the limit becomes groups of consecutive bands, in order.
 */
import * as turf from '../shared/turf';
import type { MultiPolygon, Polygon } from 'geojson';
import { accountLimits } from '../api/account-limits.js';
import { bandnamesFor, expandBandnames } from './bandnames.js';
import {
  PART_EDGE_DEG,
  PlanError,
  geodesicAreaKm2,
  lonLatBounds,
  pixelSizeFor,
  projectLikeService,
  projectionFor,
  readAoi,
  rewindRfc7946,
  snapOutward,
  toGeoJson,
  toWkt,
  utmEpsgFor,
  type AoiMode,
  type Projection,
  type Rings,
} from './geo.js';

/** The account limits a single composite request must respect (from account info). */
export interface BatchLimits {
  maxCompositeAreaKm2: number;
  maxTotalBands: number;
}

/** A composite process body (contract 4.3.1); fields the planner does not read are passed through untouched. */
export interface CompositeBody {
  Wkt?: string | null;
  GeoJson?: unknown;
  Date?: string;
  Resolution?: number;
  EpsgProjection?: number;
  Bandnames?: string;
  Model?: string;
  UploadUrl?: string | null;
  [field: string]: unknown;
}

/** A rectangle of whole pixels in the whole output grid (row 0 at the top). */
export interface PixelWindow {
  col: number;
  row: number;
  width: number;
  height: number;
}

/** The whole request's output grid: the AOI envelope in the output CRS snapped outward to the global pixel grid. */
export interface OutputGrid {
  epsg: number;
  geographic: boolean;
  /** Pixel edge in CRS units (degrees for EPSG:4326). */
  pixelSize: number;
  /** Global column of the grid's left edge: originX = col0 * pixelSize. */
  col0: number;
  /** Global row line of the grid's top edge: originY = rowTop * pixelSize. */
  rowTop: number;
  originX: number;
  originY: number;
  width: number;
  height: number;
}

/** One rectangle of the area split, with the geodesic area of the AOI inside it. */
export interface PlanBlock {
  index: number;
  /** Null when the plan is not split by area (the block is the whole AOI). */
  window: PixelWindow | null;
  areaKm2: number;
}

/** One sub-request: an area block crossed with a band group. */
export interface BatchPart {
  index: number;
  block: number;
  bandGroup: number;
  /** Output bands of this part in order, or null when the request names none (the service default). */
  bands: string[] | null;
  /** Position in the final band order of each band of this part, or null with bands. */
  bandIndices: number[] | null;
  window: PixelWindow | null;
  areaKm2: number;
  /** The body to send: the original request with this part's AOI, EPSG and Bandnames. */
  body: CompositeBody;
}

/** A request planned against the limits: a single request, or parts that together make the whole. */
export interface BatchPlan {
  kind: 'single' | 'split';
  splitBy: { area: boolean; bands: boolean };
  request: CompositeBody;
  /** The output EPSG every part uses (47000 resolved to the AOI's UTM zone), or null when the request leaves it to the service. */
  epsg: number | null;
  /** Present when the plan is split by area. */
  grid: OutputGrid | null;
  /** Final output bands in requested order, or null when the request names none. */
  bands: string[] | null;
  bandGroups: string[][] | null;
  blocks: PlanBlock[];
  parts: BatchPart[];
  /** Geodesic area of the whole AOI. */
  areaKm2: number;
  limits: BatchLimits;
}

/** Tuning of {@link planComposite}. */
export interface PlanOptions {
  /** Fraction of MaxCompositeAreaKm2 a part may use; the rest absorbs differences in how the service measures area. Default 0.9. */
  areaMargin?: number;
  /** Longest part edge in pixels, so no single part becomes an unwieldy file. Default 10000. */
  maxPixelsPerSide?: number;
}

/** Parts whose clipped AOI covers less than this many square pixels are numerical slivers along a cut, not area. */
const MIN_PART_PIXEL_AREA = 1e-4;

/** Reads the composite area and band limits from an account info record (MaxCompositeAreaKm2, MaxTotalBands or however it names them). */
export function limitsFromAccountInfo(info: Record<string, unknown>): BatchLimits {
  // Found by what the fields' names say (the contract does not show them).
  const { maxCompositeAreaKm2: area, maxTotalBands: bands } = accountLimits(info);
  if (typeof area !== 'number' || !(area > 0) || typeof bands !== 'number' || !(bands >= 1)) {
    throw new PlanError('account', 'Account info does not report usable MaxCompositeAreaKm2 and MaxTotalBands limits.');
  }
  return { maxCompositeAreaKm2: area, maxTotalBands: Math.floor(bands) };
}

/** Consecutive groups of at most max bands, sizes as even as possible (larger first), order kept. */
export function bandGroupsOf(bands: readonly string[], max: number): string[][] {
  const n = Math.ceil(bands.length / max);
  const base = Math.floor(bands.length / n);
  const extra = bands.length % n;
  const groups: string[][] = [];
  let at = 0;
  for (let g = 0; g < n; g++) {
    const size = base + (g < extra ? 1 : 0);
    groups.push(bands.slice(at, at + size));
    at += size;
  }
  return groups;
}

/** The output EPSG a request resolves to: 47000 becomes the UTM zone of the AOI's lon/lat bounding-box centre. */
export function resolveOutputEpsg(epsg: number, polygons: Rings): number {
  if (epsg !== 47000) return epsg;
  const [minX, minY, maxX, maxY] = lonLatBounds(polygons);
  return utmEpsgFor((minX + maxX) / 2, (minY + maxY) / 2);
}

type PixelGeom = Polygon | MultiPolygon;

/** Planar area of a pixel-space geometry, in square pixels. */
function planarArea(g: PixelGeom): number {
  const polys = g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
  let total = 0;
  for (const poly of polys) {
    poly.forEach((ring, i) => {
      let s = 0;
      for (let k = 0; k + 1 < ring.length; k++) s += ring[k]![0]! * ring[k + 1]![1]! - ring[k + 1]![0]! * ring[k]![1]!;
      total += i === 0 ? Math.abs(s) / 2 : -Math.abs(s) / 2;
    });
  }
  return total;
}

/** Moves between pixel space (u right, v down, origin at the grid's top-left corner) and lon/lat. */
class GridFrame {
  constructor(
    readonly proj: Projection,
    readonly grid: OutputGrid,
  ) {}

  /** Pixel-space rings of projected rings. */
  toPixel(rings: Rings): PixelGeom {
    const { pixelSize: ps, col0, rowTop } = this.grid;
    const polys = rings.map((poly) => poly.map((ring) => ring.map(([x, y]) => [x! / ps - col0, rowTop - y! / ps])));
    return polys.length === 1 ? { type: 'Polygon', coordinates: polys[0]! } : { type: 'MultiPolygon', coordinates: polys };
  }

  private lonLat(u: number, v: number): [number, number] {
    const { pixelSize: ps, col0, rowTop } = this.grid;
    // (col0 + u) * ps is the expression the service uses for grid lines, so cut edges land on them bit for bit.
    return this.proj.inverse((col0 + u) * ps, (rowTop - v) * ps);
  }

  /**
   * Lon/lat rings of a pixel-space geometry. Each straight pixel-space edge is subdivided (by
   * interpolating in the output CRS) until its lon/lat pieces are shorter than PART_EDGE_DEG, so the
   * service draws the same straight edge instead of a lon/lat curve.
   */
  toLonLat(g: PixelGeom): Rings {
    const polys = g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
    const out: Rings = polys.map((poly) =>
      poly.map((ring) => {
        const pts: number[][] = [];
        for (let i = 0; i + 1 < ring.length; i++) {
          const [u1, v1] = ring[i] as [number, number];
          const [u2, v2] = ring[i + 1] as [number, number];
          const a = this.lonLat(u1, v1);
          pts.push(a);
          if (this.proj.geographic) continue;
          const b = this.lonLat(u2, v2);
          const m = Math.ceil(Math.hypot(b[0] - a[0], b[1] - a[1]) / PART_EDGE_DEG);
          for (let k = 1; k < m; k++) pts.push(this.lonLat(u1 + ((u2 - u1) * k) / m, v1 + ((v2 - v1) * k) / m));
        }
        pts.push([pts[0]![0]!, pts[0]![1]!]);
        return pts;
      }),
    );
    return rewindRfc7946(out);
  }
}

interface Cell {
  window: PixelWindow;
  geom: PixelGeom;
  lonLat: Rings;
  areaKm2: number;
}

function rectangle(w: PixelWindow): PixelGeom {
  const [x0, y0, x1, y1] = [w.col, w.row, w.col + w.width, w.row + w.height];
  return { type: 'Polygon', coordinates: [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]] };
}

function clip(geom: PixelGeom, w: PixelWindow): PixelGeom | null {
  const box = turf.bboxPolygon([w.col, w.row, w.col + w.width, w.row + w.height]);
  const r = turf.intersect(turf.featureCollection([turf.feature(geom), box]));
  if (!r || r.geometry.coordinates.length === 0) return null;
  return planarArea(r.geometry) < MIN_PART_PIXEL_AREA ? null : r.geometry;
}

/** n + 1 evenly spread cut positions over [start, start + length). */
function cutPositions(start: number, length: number, n: number): number[] {
  const pos = [start];
  for (let i = 1; i < n; i++) {
    const p = start + Math.round((i * length) / n);
    if (p > pos[pos.length - 1]! && p < start + length) pos.push(p);
  }
  pos.push(start + length);
  return pos;
}

/** Aim a little below the target so cells of one even grid, whose areas vary slightly with the projection's scale, still fit. */
const GRID_SLACK = 0.98;

/**
 * Cuts a cell into an even grid of near-square blocks and recurses into any block still too big.
 * The block count comes from the cell's full rectangle when the AOI fills most of it (then every
 * full block fits at once) and from the AOI's area when it is sparse (then most blocks are partial).
 */
function splitCell(cell: Cell, frame: GridFrame, targetKm2: number, maxPx: number, out: Cell[]): void {
  const w = cell.window;
  if (cell.areaKm2 <= targetKm2 && w.width <= maxPx && w.height <= maxPx) {
    out.push(cell);
    return;
  }
  const rectKm2 = geodesicAreaKm2(frame.toLonLat(rectangle(w)));
  const basis = cell.areaKm2 >= rectKm2 / 2 ? Math.max(rectKm2, cell.areaKm2) : cell.areaKm2;
  const n = Math.max(2, Math.ceil(basis / (targetKm2 * GRID_SLACK)));
  let nx = Math.max(Math.ceil(w.width / maxPx), Math.min(w.width, Math.max(1, Math.round(Math.sqrt((n * w.width) / w.height)))));
  let ny = Math.max(Math.ceil(w.height / maxPx), Math.min(w.height, Math.ceil(n / nx)));
  if (nx * ny < 2) {
    if (w.width >= w.height && w.width >= 2) nx = 2;
    else if (w.height >= 2) ny = 2;
    else throw new PlanError('Resolution', `One ${w.width}x${w.height} pixel block already exceeds ${targetKm2.toFixed(2)} km²; use a finer Resolution.`);
  }
  const xs = cutPositions(w.col, w.width, nx);
  const ys = cutPositions(w.row, w.height, ny);
  for (let j = 0; j + 1 < ys.length; j++) {
    // Clipping a row strip first, then its blocks, keeps each clip small however many blocks there are.
    const strip = ys.length > 2 && xs.length > 2 ? clip(cell.geom, { col: w.col, row: ys[j]!, width: w.width, height: ys[j + 1]! - ys[j]! }) : cell.geom;
    if (!strip) continue;
    for (let i = 0; i + 1 < xs.length; i++) {
      const win = { col: xs[i]!, row: ys[j]!, width: xs[i + 1]! - xs[i]!, height: ys[j + 1]! - ys[j]! };
      const geom = clip(strip, win);
      if (!geom) continue;
      const lonLat = frame.toLonLat(geom);
      splitCell({ window: win, geom, lonLat, areaKm2: geodesicAreaKm2(lonLat) }, frame, targetKm2, maxPx, out);
    }
  }
}

function positiveNumber(v: unknown, field: string, what: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw new PlanError(field, `${field} must be ${what} to split this request.`);
  return v;
}

/** The window (in the plan's grid) the service will render for a part, recomputed from the part's own AOI as the service does. */
export function serviceWindowOf(polygons: Rings, grid: OutputGrid): PixelWindow {
  const proj = projectionFor(grid.epsg);
  if (!proj) throw new PlanError('EpsgProjection', `EPSG:${grid.epsg} cannot be gridded.`);
  const { envelope } = projectLikeService(polygons, proj, 'Wkt');
  const [kx0, kx1] = snapOutward(envelope.minX, envelope.maxX, grid.pixelSize);
  const [ky0, ky1] = snapOutward(envelope.minY, envelope.maxY, grid.pixelSize);
  return { col: kx0 - grid.col0, row: grid.rowTop - ky1, width: kx1 - kx0, height: ky1 - ky0 };
}

function within(inner: PixelWindow, outer: PixelWindow): boolean {
  return (
    inner.col >= outer.col &&
    inner.row >= outer.row &&
    inner.col + inner.width <= outer.col + outer.width &&
    inner.row + inner.height <= outer.row + outer.height
  );
}

function aoiFields(mode: AoiMode, polygons: Rings): Partial<CompositeBody> {
  return mode === 'Wkt' ? { Wkt: toWkt(polygons) } : { GeoJson: toGeoJson(polygons) };
}

/** Plans a composite against the account limits: one request when it fits, else grid-cut area parts crossed with band groups (throws {@link PlanError} naming the field when it cannot). */
export function planComposite(request: CompositeBody, limits: BatchLimits, options: PlanOptions = {}): BatchPlan {
  const margin = options.areaMargin ?? 0.9;
  const maxPx = options.maxPixelsPerSide ?? 10_000;
  if (!(limits.maxCompositeAreaKm2 > 0) || !(limits.maxTotalBands >= 1)) {
    throw new PlanError('account', 'The account limits must be positive.');
  }
  if (!(margin > 0 && margin <= 1)) throw new PlanError('areaMargin', 'The area margin must be in (0, 1].');
  const { mode, polygons } = readAoi(request);
  const areaKm2 = geodesicAreaKm2(polygons);
  let bands: string[] | null = null;
  if (request.Bandnames !== undefined && request.Bandnames !== null) {
    const parsed = expandBandnames(request.Bandnames);
    if (!parsed.ok) throw new PlanError('Bandnames', parsed.reason);
    bands = parsed.bands;
  }
  const maxBands = Math.floor(limits.maxTotalBands);
  const targetKm2 = limits.maxCompositeAreaKm2 * margin;
  const byArea = areaKm2 > targetKm2;
  const byBands = bands !== null && bands.length > maxBands;
  const rawEpsg = request.EpsgProjection;
  const epsg = typeof rawEpsg === 'number' ? resolveOutputEpsg(rawEpsg, polygons) : null;

  if (!byArea && !byBands) {
    return {
      kind: 'single',
      splitBy: { area: false, bands: false },
      request,
      epsg,
      grid: null,
      bands,
      bandGroups: bands ? [bands] : null,
      blocks: [{ index: 0, window: null, areaKm2 }],
      parts: [{ index: 0, block: 0, bandGroup: 0, bands, bandIndices: bands ? bands.map((_, i) => i) : null, window: null, areaKm2, body: request }],
      areaKm2,
      limits,
    };
  }
  if (request.UploadUrl) {
    throw new PlanError('UploadUrl', 'A request that must be split cannot upload to one UploadUrl; leave UploadUrl empty to download the parts.');
  }

  let grid: OutputGrid | null = null;
  let cells: { window: PixelWindow | null; lonLat: Rings | null; areaKm2: number }[];
  if (byArea) {
    if (epsg === null) throw new PlanError('EpsgProjection', 'EpsgProjection is needed to split the area on the output pixel grid.');
    const proj = projectionFor(epsg);
    if (!proj) {
      throw new PlanError('EpsgProjection', `EPSG:${epsg} cannot be split on its pixel grid; use 4326, 3857, 47000 or a UTM zone.`);
    }
    const resolution = positiveNumber(request.Resolution, 'Resolution', 'a positive number of metres');
    const ps = pixelSizeFor(proj, resolution);
    const projected = projectLikeService(polygons, proj, mode);
    const [kx0, kx1] = snapOutward(projected.envelope.minX, projected.envelope.maxX, ps);
    const [ky0, ky1] = snapOutward(projected.envelope.minY, projected.envelope.maxY, ps);
    grid = {
      epsg,
      geographic: proj.geographic,
      pixelSize: ps,
      col0: kx0,
      rowTop: ky1,
      originX: kx0 * ps,
      originY: ky1 * ps,
      width: kx1 - kx0,
      height: ky1 - ky0,
    };
    const frame = new GridFrame(proj, grid);
    const whole: PixelWindow = { col: 0, row: 0, width: grid.width, height: grid.height };
    const geom = clip(frame.toPixel(projected.rings), whole);
    if (!geom) throw new PlanError(mode, 'The AOI has no area on the output grid.');
    const found: Cell[] = [];
    splitCell({ window: whole, geom, lonLat: polygons, areaKm2 }, frame, targetKm2, maxPx, found);
    found.sort((a, b) => a.window.row - b.window.row || a.window.col - b.window.col);
    for (const c of found) {
      // The service must snap each part back inside its own block, or parts would overlap.
      const got = serviceWindowOf(c.lonLat, grid);
      if (!within(got, c.window)) {
        throw new Error(`internal: part grid ${JSON.stringify(got)} escapes its block ${JSON.stringify(c.window)}`);
      }
    }
    cells = found;
  } else {
    cells = [{ window: null, lonLat: null, areaKm2 }];
  }

  const bandGroups = bands ? (byBands ? bandGroupsOf(bands, maxBands) : [bands]) : null;
  const blocks: PlanBlock[] = cells.map((c, index) => ({ index, window: c.window, areaKm2: c.areaKm2 }));
  const parts: BatchPart[] = [];
  cells.forEach((c, b) => {
    const groups: (string[] | null)[] = bandGroups ?? [null];
    let first = 0;
    groups.forEach((group, g) => {
      const body: CompositeBody = { ...request };
      if (c.lonLat) Object.assign(body, aoiFields(mode, c.lonLat));
      if (epsg !== null) body.EpsgProjection = epsg;
      if (group && byBands) body.Bandnames = bandnamesFor(group);
      parts.push({
        index: parts.length,
        block: b,
        bandGroup: g,
        bands: group,
        bandIndices: group ? group.map((_, i) => first + i) : null,
        window: c.window,
        areaKm2: c.areaKm2,
        body,
      });
      first += group?.length ?? 0;
    });
  });
  return {
    kind: 'split',
    splitBy: { area: byArea, bands: byBands },
    request,
    epsg,
    grid,
    bands,
    bandGroups,
    blocks,
    parts,
    areaKm2,
    limits,
  };
}
