import DataTileSource from 'ol/source/DataTile';
import { get as getProjection, getTransform, transformExtent } from 'ol/proj';
import { createXYZ } from 'ol/tilegrid';
import type { RasterFile } from '../raster/raster-data';
import { gatherWarp, planWarp, warpIndex, type ToSource } from '../raster/warp';

/**
 * A data-tile source that shows a GeoTIFF in the map's projection by warping on the CPU:
 * for each map tile it picks the overview level matching the zoom, reads only the window it needs
 * (Range requests through geotiff.js), and samples it nearest-neighbour (raster/warp.ts).
 * OpenLayers' own reprojection of data tiles renders every band group to a framebuffer and reads it back; on software GL that costs seconds per view.
 * Output tiles carry the raw DNs plus a nodata mask band (255 = data), like the GeoTIFF source
 * with normalize: false, so the same styles apply.
 */

/** Map tile edge in pixels. */
const TILE = 256;

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
  const toSource = getTransform(o.viewProjection, o.sourceProjection) as ToSource;
  const h = o.file.header;
  const nb = h.bands.length;
  const pick = o.bands.map((b) => b - 1);
  const np = pick.length;
  const channels = np + 1;
  const extent = transformExtent(h.bbox!, o.sourceProjection, o.viewProjection, 16) as [number, number, number, number];
  const raster = o.file.warpRaster();
  const nodata = o.nodata;
  const loader = async (z: number, x: number, y: number, opts: { signal: AbortSignal }): Promise<Float32Array> => {
    const out = new Float32Array(TILE * TILE * channels);
    const plan = planWarp(tileGrid.getTileCoordExtent([z, x, y]), TILE, TILE, toSource, raster);
    if (!plan) return out;
    await o.file.tileTable(plan.level);
    const blocks = Promise.all(o.file.cachedBlocks(plan.level, plan.blocks));
    const index = warpIndex(plan, raster);
    const got = await blocks;
    if (opts.signal.aborted) throw new DOMException('Aborted', 'AbortError');
    gatherWarp(index, got, nb, (i, data, si) => {
      const o0 = i * channels;
      let valid = false;
      for (let k = 0; k < np; k++) {
        const v = data[si + pick[k]!]!;
        if (v !== nodata) {
          valid = true;
          out[o0 + k] = v;
        }
      }
      if (valid) out[o0 + np] = 255;
    });
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
