import DataTileSource from 'ol/source/DataTile';
import { get as getProjection, getTransform, transformExtent } from 'ol/proj';
import { createXYZ } from 'ol/tilegrid';
import type { RasterFile } from '../raster/raster-data';

/**
 * A data-tile source that shows a GeoTIFF in the map's projection by warping on the CPU:
 * for each map tile it picks the overview level matching the zoom, reads only the window it needs
 * (Range requests through geotiff.js), and samples it nearest-neighbour through a 17x17 grid of
 * exactly transformed control points. OpenLayers' own reprojection of data tiles renders every
 * band group to a framebuffer and reads it back; on software GL that costs seconds per view.
 * Output tiles carry the raw DNs plus a nodata mask band (255 = data), like the GeoTIFF source
 * with normalize: false, so the same styles apply.
 */

/** Map tile edge in pixels. */
const TILE = 256;
/** Control points per tile side; the warp is exact at them and bilinear between (error far below a pixel). */
const GRID = 17;
type Block = { data: ArrayLike<number>; stride: number };

/** What the warp needs to know about the raster. */
export interface WarpOptions {
  file: RasterFile;
  /** "EPSG:<n>" of the raster, registered. */
  sourceProjection: string;
  /** "EPSG:<n>" of the map view; it must have an extent (3857, 4326, UTM...). */
  viewProjection: string;
  nodata: number | null;
  /** File bands (1-based) the tiles carry, in order; the mask band follows them. Fewer bands, faster tiles: up to 3 plus the mask fit one GPU texture. */
  bands: readonly number[];
}

/** Whether the warp source can serve a view projection (it needs a world extent for its tile grid). */
export function canWarpTo(viewProjection: string): boolean {
  return !!getProjection(viewProjection)?.getExtent();
}

/** Creates the warping source and the raster's extent in the view projection (for the layer's extent). */
export function createWarpSource(o: WarpOptions): { source: DataTileSource; extent: [number, number, number, number] } {
  const view = getProjection(o.viewProjection)!;
  const tileGrid = createXYZ({ extent: view.getExtent(), tileSize: TILE, maxZoom: 24 });
  const toSource = getTransform(o.viewProjection, o.sourceProjection) as (input: number[], output: number[], dimension: number) => number[];
  const h = o.file.header;
  const nb = h.bands.length;
  const pick = o.bands.map((b) => b - 1);
  const np = pick.length;
  const channels = np + 1;
  const extent = transformExtent(h.bbox!, o.sourceProjection, o.viewProjection, 16) as [number, number, number, number];
  const [ox, oy] = h.origin!;
  const levels = Array.from({ length: o.file.levels }, (_, i) => ({ size: o.file.levelSize(i), res: o.file.levelResolution(i), block: o.file.levelBlock(i) }));
  const loader = async (z: number, x: number, y: number, opts: { signal: AbortSignal }): Promise<Float32Array> => {
    const out = new Float32Array(TILE * TILE * channels);
    const [e0, e1, e2, e3] = tileGrid.getTileCoordExtent([z, x, y]) as [number, number, number, number];
    // Control points: exact source CRS coordinates on a GRID x GRID lattice over the tile.
    const pts = new Array<number>(GRID * GRID * 2);
    for (let j = 0; j < GRID; j++) {
      for (let i = 0; i < GRID; i++) {
        pts[(j * GRID + i) * 2] = e0 + ((e2 - e0) * i) / (GRID - 1);
        pts[(j * GRID + i) * 2 + 1] = e3 - ((e3 - e1) * j) / (GRID - 1);
      }
    }
    toSource(pts, pts, 2);
    if (pts.some((v) => !Number.isFinite(v))) return out;
    // Source CRS units per map pixel, from the lattice: the level whose pixels are at most that size.
    const step = (TILE / (GRID - 1));
    let u = Infinity;
    for (let j = 0; j < GRID; j++) {
      for (let i = 0; i + 1 < GRID; i++) {
        const a = (j * GRID + i) * 2;
        u = Math.min(u, Math.hypot(pts[a + 2]! - pts[a]!, pts[a + 3]! - pts[a + 1]!) / step);
      }
    }
    let level = 0;
    for (let l = levels.length - 1; l >= 0; l--) {
      if (Math.abs(levels[l]!.res[0]) <= u * 1.01) {
        level = l;
        break;
      }
    }
    const [lw, lh] = levels[level]!.size;
    const [rx, ry] = levels[level]!.res;
    // Lattice in the level's pixel coordinates, and the window of the level it covers.
    let minC = Infinity, minR = Infinity, maxC = -Infinity, maxR = -Infinity;
    for (let k = 0; k < GRID * GRID; k++) {
      const c = (pts[k * 2]! - ox) / rx;
      const r = (pts[k * 2 + 1]! - oy) / ry;
      pts[k * 2] = c;
      pts[k * 2 + 1] = r;
      if (c < minC) minC = c;
      if (c > maxC) maxC = c;
      if (r < minR) minR = r;
      if (r > maxR) maxR = r;
    }
    const x0 = Math.max(0, Math.floor(minC));
    const y0 = Math.max(0, Math.floor(minR));
    const x1 = Math.min(lw, Math.ceil(maxC) + 1);
    const y1 = Math.min(lh, Math.ceil(maxR) + 1);
    if (x1 <= x0 || y1 <= y0) return out;
    const [bw, bh] = levels[level]!.block;
    const bx0 = Math.floor(x0 / bw);
    const by0 = Math.floor(y0 / bh);
    const bxn = Math.floor((x1 - 1) / bw) - bx0 + 1;
    const byn = Math.floor((y1 - 1) / bh) - by0 + 1;
    const wanted: Promise<Block>[] = [];
    for (let j = 0; j < byn; j++) for (let i = 0; i < bxn; i++) wanted.push(o.file.cachedBlock(level, bx0 + i, by0 + j));
    const got = await Promise.all(wanted);
    if (opts.signal.aborted) throw new DOMException('Aborted', 'AbortError');
    const nodata = o.nodata;
    for (let py = 0; py < TILE; py++) {
      // Pixel centres: the lattice points sit on pixel corners.
      const gy = (py + 0.5) / step;
      const j0 = Math.min(GRID - 2, Math.floor(gy));
      const fy = gy - j0;
      for (let px = 0; px < TILE; px++) {
        const gx = (px + 0.5) / step;
        const i0 = Math.min(GRID - 2, Math.floor(gx));
        const fx = gx - i0;
        const a = (j0 * GRID + i0) * 2;
        const b = a + 2;
        const c = a + GRID * 2;
        const d = c + 2;
        const col = (pts[a]! * (1 - fx) + pts[b]! * fx) * (1 - fy) + (pts[c]! * (1 - fx) + pts[d]! * fx) * fy;
        const row = (pts[a + 1]! * (1 - fx) + pts[b + 1]! * fx) * (1 - fy) + (pts[c + 1]! * (1 - fx) + pts[d + 1]! * fx) * fy;
        if (col < 0 || row < 0 || col >= lw || row >= lh) continue;
        const ci = Math.floor(col);
        const ri = Math.floor(row);
        const bi = Math.floor(ci / bw) - bx0;
        const bj = Math.floor(ri / bh) - by0;
        if (bi < 0 || bj < 0 || bi >= bxn || bj >= byn) continue;
        const blk = got[bj * bxn + bi]!;
        const data = blk.data;
        const si = ((ri - (by0 + bj) * bh) * blk.stride + (ci - (bx0 + bi) * bw)) * nb;
        const o0 = (py * TILE + px) * channels;
        let valid = false;
        for (let k = 0; k < np; k++) {
          const v = data[si + pick[k]!]!;
          if (v !== nodata) {
            valid = true;
            out[o0 + k] = v;
          }
        }
        if (valid) out[o0 + np] = 255;
      }
    }
    return out;
  };

  const source = new DataTileSource({
    loader,
    projection: o.viewProjection,
    tileGrid,
    bandCount: channels,
    interpolate: false,
    transition: 0,
    wrapX: false,
  });
  return { source, extent };
}
