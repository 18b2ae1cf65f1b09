import type { BandSpec } from './bands.js';
import { AoiRasterizer, projectAoi, type ProjectedPolygons } from '../../common/grid/aoi-mask.js';
import { getProjection, pixelSizeFor, snapOutward, type Projection } from '../../common/grid/projection.js';
// The modules themselves, not the geotiff index (its readers load geotiff.js): the render threads load this plan.
import { gdalMetadataXml, type GdalMetadataItem } from '../../main/geotiff/gdal-metadata.js';
import { pyramidLevels, type TiffLayout } from '../../main/geotiff/layout.js';
import { pyramidLayout, type PyramidImage } from '../../main/geotiff/pyramid.js';
import type { Bounds, RasterRequest } from './types.js';

/** Largest output edge in pixels. */
export const MAX_PIXELS_PER_SIDE = 20000;
/** Largest band count; keeps one 512x512 tile (and the write buffers) bounded. */
export const MAX_BANDS = 32;
/** Tile edge of tiled outputs and the size overviews are reduced to. */
export const TILE = 512;

/** One resolution level of the output. */
export interface LevelPlan {
  width: number;
  height: number;
  pixelSize: number;
  pixelMetres: number;
}

/** Everything needed to write a request, derived once. */
export interface FullPlan {
  proj: Projection;
  polygons: ProjectedPolygons;
  bounds: Bounds;
  width: number;
  height: number;
  pixelSize: number;
  levels: LevelPlan[];
  layout: TiffLayout;
}

function isValidDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!));
  return d.getUTCFullYear() === +m[1]! && d.getUTCMonth() === +m[2]! - 1 && d.getUTCDate() === +m[3]!;
}

function fmt(n: number): string {
  return String(Number(n.toPrecision(12)));
}

/** GDAL_METADATA XML: dataset tags, plus per-band description, scale and offset so GDAL shows names and physical values. */
export function metadataXml(req: RasterRequest): string {
  const items: GdalMetadataItem[] = [];
  const tags = req.tags;
  for (const name of ['CONSTELLATIONS', 'IMAGE_DATE', 'IMAGE_VERSION', 'MODEL_VERSION'] as const) {
    items.push({ name, value: String(tags[name] ?? ''), sample: null, role: null });
  }
  req.bands.forEach((b: BandSpec, i) => {
    const index = b.kind === 'index';
    let scale: number;
    let offset: number;
    if (req.dataType === 'INT16') {
      scale = index ? 1 / 32767 : 0.0001;
      offset = 0;
    } else {
      scale = index ? 1 / 127 : 0.4 / 255;
      offset = index ? -128 / 127 : 0;
    }
    items.push({ name: 'DESCRIPTION', value: b.name, sample: i, role: 'description' });
    items.push({ name: 'SCALE', value: fmt(scale), sample: i, role: 'scale' });
    items.push({ name: 'OFFSET', value: fmt(offset), sample: i, role: 'offset' });
  });
  return gdalMetadataXml(items);
}

/** The image main's GeoTIFF writer writes for a plan: the service's layout (512 tiles above 512 px, one strip below). */
export function pyramidImageOf(plan: Pick<FullPlan, 'width' | 'height' | 'bounds' | 'pixelSize' | 'proj'>, req: RasterRequest, bigTiff?: boolean): PyramidImage {
  return {
    width: plan.width,
    height: plan.height,
    bands: req.bands.length,
    dataType: req.dataType,
    geo: { epsg: req.epsg, geographic: plan.proj.geographic, originX: plan.bounds.minX, originY: plan.bounds.maxY, pixelSize: plan.pixelSize },
    metadataXml: metadataXml(req),
    tile: TILE,
    bigTiff,
  };
}

/** Validates a request and derives grid, levels and file layout; returns an error message instead when it cannot be produced. */
export function buildPlan(req: RasterRequest, opts: { bigTiff?: boolean } = {}): FullPlan | { error: string } {
  const proj = getProjection(req.epsg);
  if (!proj) return { error: `unsupported EPSG ${req.epsg}: use 4326, 3857, 32601-32660 or 32701-32760` };
  if (typeof req.resolution !== 'number' || !Number.isFinite(req.resolution) || req.resolution <= 0) {
    return { error: `invalid resolution ${req.resolution}` };
  }
  if (!Array.isArray(req.bands) || req.bands.length === 0) return { error: 'no bands requested' };
  if (req.bands.length > MAX_BANDS) return { error: `too many bands (${req.bands.length} > ${MAX_BANDS})` };
  if (req.dataType !== 'INT16' && req.dataType !== 'UINT8') return { error: `invalid data type ${String(req.dataType)}` };
  if (req.pixelSelection !== 'intersect' && req.pixelSelection !== 'contained') {
    return { error: `invalid pixel selection ${String(req.pixelSelection)}` };
  }
  if (!isValidDate(req.date)) return { error: `invalid date ${req.date}, expected YYYY-MM-DD` };

  const projected = projectAoi(req.aoi, proj);
  if ('error' in projected) return projected;
  const ps = pixelSizeFor(proj, req.resolution);

  let bounds: Bounds;
  let width: number;
  let height: number;
  if (req.grid) {
    const g = req.grid;
    if (![g.minX, g.minY, g.maxX, g.maxY].every(Number.isFinite) || g.maxX <= g.minX || g.maxY <= g.minY) {
      return { error: 'invalid output grid' };
    }
    // The grid is taken as given; its size is rounded to whole pixels from the top-left corner.
    width = Math.max(1, Math.round((g.maxX - g.minX) / ps));
    height = Math.max(1, Math.round((g.maxY - g.minY) / ps));
    bounds = { minX: g.minX, maxY: g.maxY, maxX: g.minX + width * ps, minY: g.maxY - height * ps };
  } else {
    // Snap outward to the global grid (origin at multiples of the pixel size) so neighbouring requests abut exactly.
    const env = projected.envelope;
    const [kx0, kx1] = snapOutward(env.minX, env.maxX, ps);
    const [ky0, ky1] = snapOutward(env.minY, env.maxY, ps);
    width = kx1 - kx0;
    height = ky1 - ky0;
    bounds = { minX: kx0 * ps, minY: ky0 * ps, maxX: kx1 * ps, maxY: ky1 * ps };
  }
  if (width > MAX_PIXELS_PER_SIDE || height > MAX_PIXELS_PER_SIDE) {
    return { error: `output too large: ${width} x ${height} px (max ${MAX_PIXELS_PER_SIDE} per side)` };
  }

  const levels: LevelPlan[] = pyramidLevels(width, height, TILE).map((l, i) => ({ ...l, pixelSize: ps * 2 ** i, pixelMetres: req.resolution * 2 ** i }));
  const layout = pyramidLayout(pyramidImageOf({ width, height, bounds, pixelSize: ps, proj }, req, opts.bigTiff));
  return { proj, polygons: projected.polygons, bounds, width, height, pixelSize: ps, levels, layout };
}

/** A rasterizer for the plan's AOI honouring the pixel selection mode. */
export function rasterizerFor(plan: FullPlan, req: RasterRequest): AoiRasterizer {
  return new AoiRasterizer(plan.polygons, req.pixelSelection === 'contained');
}
