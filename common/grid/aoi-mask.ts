/**
 * The projection of a lon/lat AOI onto the service's pixel grid: edges densified and projected as
 * the service does, and the rasterizer that decides which pixels an AOI covers (intersect or contained).
 */
import type { MultiPolygon, Polygon, Position } from 'geojson';
import type { Projection } from './projection.js';

/** A rectangle in output CRS units. */
export interface Bounds {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

/** Polygons in output CRS units: polygon -> rings -> flat [x0, y0, x1, y1, ...] (closed: last == first). */
export type ProjectedPolygons = Float64Array[][];

/** Longest lon/lat segment (degrees) kept straight before projecting; ~1 km keeps projected edges within centimetres of the true curve. */
const DENSIFY_DEG = 0.01;
const MAX_DENSIFIED_POINTS = 400_000;

function ringsOf(aoi: Polygon | MultiPolygon): Position[][][] {
  if (aoi && aoi.type === 'Polygon') return [aoi.coordinates];
  if (aoi && aoi.type === 'MultiPolygon') return aoi.coordinates;
  throw new Error('AOI must be a GeoJSON Polygon or MultiPolygon');
}

/** Validates, densifies and projects the AOI; returns an error string when it cannot be used in this CRS. */
export function projectAoi(aoi: Polygon | MultiPolygon, proj: Projection): { polygons: ProjectedPolygons; envelope: Bounds } | { error: string } {
  let polys: Position[][][];
  try {
    polys = ringsOf(aoi);
  } catch (e) {
    return { error: (e as Error).message };
  }
  if (polys.length === 0) return { error: 'AOI has no polygons' };
  let perimeterDeg = 0;
  for (const poly of polys) {
    if (!Array.isArray(poly) || poly.length === 0) return { error: 'AOI polygon has no rings' };
    for (const ring of poly) {
      if (!Array.isArray(ring) || ring.length < 4) return { error: 'AOI ring needs at least 4 positions' };
      for (let i = 0; i < ring.length; i++) {
        const p = ring[i]!;
        const lon = p[0];
        const lat = p[1];
        if (typeof lon !== 'number' || typeof lat !== 'number' || !Number.isFinite(lon) || !Number.isFinite(lat)) {
          return { error: 'AOI has a non-numeric coordinate' };
        }
        const why = proj.invalidReason(lon, lat);
        if (why) return { error: `AOI outside the valid area of EPSG:${proj.epsg}: ${why}` };
        if (i > 0) perimeterDeg += Math.hypot(lon - ring[i - 1]![0]!, lat - ring[i - 1]![1]!);
      }
    }
  }
  // Geographic output keeps edges straight in lon/lat, so no densification is needed there.
  const step = proj.geographic ? Infinity : Math.max(DENSIFY_DEG, perimeterDeg / MAX_DENSIFIED_POINTS);
  const env: Bounds = { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
  const out: ProjectedPolygons = [];
  for (const poly of polys) {
    const rings: Float64Array[] = [];
    for (const ring of poly) {
      const pts: number[] = [];
      const push = (lon: number, lat: number): void => {
        const [x, y] = proj.forward(lon, lat);
        pts.push(x, y);
        if (x < env.minX) env.minX = x;
        if (x > env.maxX) env.maxX = x;
        if (y < env.minY) env.minY = y;
        if (y > env.maxY) env.maxY = y;
      };
      for (let i = 0; i < ring.length; i++) {
        const lon = ring[i]![0]!;
        const lat = ring[i]![1]!;
        if (i > 0) {
          const plon = ring[i - 1]![0]!;
          const plat = ring[i - 1]![1]!;
          const n = Number.isFinite(step) ? Math.ceil(Math.hypot(lon - plon, lat - plat) / step) : 1;
          for (let k = 1; k < n; k++) push(plon + ((lon - plon) * k) / n, plat + ((lat - plat) * k) / n);
        }
        push(lon, lat);
      }
      if (pts[0] !== pts[pts.length - 2] || pts[1] !== pts[pts.length - 1]) pts.push(pts[0]!, pts[1]!);
      for (const v of pts) if (!Number.isFinite(v)) return { error: `AOI cannot be projected to EPSG:${proj.epsg}` };
      rings.push(Float64Array.from(pts));
    }
    out.push(rings);
  }
  return { polygons: out, envelope: env };
}

/** The pixel grid a mask is computed for: top-left origin, square pixels, row 0 at the top. */
export interface MaskGrid {
  originX: number;
  originY: number;
  pixelSize: number;
  width: number;
  height: number;
}

/** Edge list of the projected AOI, bucketed so one band of rows only visits edges that reach it. */
export class AoiRasterizer {
  private readonly polyCount: number;
  private readonly ex1: Float64Array;
  private readonly ey1: Float64Array;
  private readonly ex2: Float64Array;
  private readonly ey2: Float64Array;
  private readonly epoly: Int32Array;
  private readonly eymin: Float64Array;
  private readonly eymax: Float64Array;
  private readonly order: Int32Array; // edges sorted by ymax descending (rows go top to bottom)

  constructor(polygons: ProjectedPolygons, private readonly contained: boolean) {
    let n = 0;
    for (const poly of polygons) for (const ring of poly) n += ring.length / 2 - 1;
    this.polyCount = polygons.length;
    this.ex1 = new Float64Array(n);
    this.ey1 = new Float64Array(n);
    this.ex2 = new Float64Array(n);
    this.ey2 = new Float64Array(n);
    this.epoly = new Int32Array(n);
    this.eymin = new Float64Array(n);
    this.eymax = new Float64Array(n);
    let k = 0;
    polygons.forEach((poly, pi) => {
      for (const ring of poly) {
        for (let i = 0; i + 3 < ring.length; i += 2) {
          this.ex1[k] = ring[i]!;
          this.ey1[k] = ring[i + 1]!;
          this.ex2[k] = ring[i + 2]!;
          this.ey2[k] = ring[i + 3]!;
          this.epoly[k] = pi;
          this.eymin[k] = Math.min(ring[i + 1]!, ring[i + 3]!);
          this.eymax[k] = Math.max(ring[i + 1]!, ring[i + 3]!);
          k++;
        }
      }
    });
    const idx = Array.from({ length: n }, (_, i) => i);
    idx.sort((a, b) => this.eymax[b]! - this.eymax[a]!);
    this.order = Int32Array.from(idx);
  }

  /**
   * Fills mask (width * rowCount bytes, 1 = valid) for rows [row0, row0 + rowCount) of grid.
   * A pixel intersects the AOI iff its centre is inside or an edge passes through its interior;
   * it is contained iff its centre is inside and no edge passes through it. Touching counts as neither.
   */
  fillRows(grid: MaskGrid, row0: number, rowCount: number, mask: Uint8Array): void {
    const { originX, originY, pixelSize: ps, width: W } = grid;
    mask.fill(0, 0, W * rowCount);
    const bandTop = originY - row0 * ps;
    const bandBottom = originY - (row0 + rowCount) * ps;
    // Edges that reach this band of rows.
    const active: number[] = [];
    for (let j = 0; j < this.order.length; j++) {
      const e = this.order[j]!;
      if (this.eymin[e]! < bandTop && this.eymax[e]! > bandBottom) active.push(e);
    }
    const eps = ps * 1e-6;
    const xs: number[][] = Array.from({ length: this.polyCount }, () => []);
    for (let r = 0; r < rowCount; r++) {
      const base = r * W;
      const yt = originY - (row0 + r) * ps;
      const yb = yt - ps;
      const yc = yt - ps / 2;
      for (const list of xs) list.length = 0;
      for (const e of active) {
        const y1 = this.ey1[e]!;
        const y2 = this.ey2[e]!;
        // Half-open rule so a vertex exactly on the centre line is counted once.
        if (y1 <= yc !== y2 <= yc) {
          const x1 = this.ex1[e]!;
          const x2 = this.ex2[e]!;
          xs[this.epoly[e]!]!.push(x1 + ((yc - y1) * (x2 - x1)) / (y2 - y1));
        }
      }
      for (const list of xs) {
        if (list.length < 2) continue;
        list.sort((a, b) => a - b);
        for (let i = 0; i + 1 < list.length; i += 2) {
          let c0 = Math.ceil((list[i]! - originX) / ps - 0.5);
          let c1 = Math.ceil((list[i + 1]! - originX) / ps - 0.5);
          if (c0 < 0) c0 = 0;
          if (c1 > W) c1 = W;
          if (c1 > c0) mask.fill(1, base + c0, base + c1);
        }
      }
      // Pixels an edge passes through: partly inside, partly outside.
      const mark = this.contained ? 0 : 1;
      const st = yt - eps;
      const sb = yb + eps;
      for (const e of active) {
        const ymin = this.eymin[e]!;
        const ymax = this.eymax[e]!;
        if (!(ymax > sb && ymin < st)) continue;
        const x1 = this.ex1[e]!;
        const y1 = this.ey1[e]!;
        const x2 = this.ex2[e]!;
        const y2 = this.ey2[e]!;
        let xa: number;
        let xb: number;
        if (y1 === y2) {
          xa = x1;
          xb = x2;
        } else {
          const ya = y1 < sb ? sb : y1 > st ? st : y1;
          const yb2 = y2 < sb ? sb : y2 > st ? st : y2;
          xa = x1 + ((ya - y1) * (x2 - x1)) / (y2 - y1);
          xb = x1 + ((yb2 - y1) * (x2 - x1)) / (y2 - y1);
        }
        const lo = (Math.min(xa, xb) + eps - originX) / ps;
        const hi = (Math.max(xa, xb) - eps - originX) / ps;
        let c0 = Math.floor(lo);
        let c1 = Math.ceil(hi); // exclusive
        if (hi < lo) {
          // Vertical edge: it passes through the one pixel containing it unless it lies on a pixel border.
          const c = (xa - originX) / ps;
          if (Math.abs(c - Math.round(c)) * ps <= eps) continue;
          c0 = Math.floor(c);
          c1 = c0 + 1;
        }
        if (c0 < 0) c0 = 0;
        if (c1 > W) c1 = W;
        if (c1 > c0) mask.fill(mark, base + c0, base + c1);
      }
    }
  }
}
