import proj4 from 'proj4';
import { METRES_PER_DEGREE } from '../../common/geodesy.js';
import { AppError } from '../../common/errors.js';
import { abortError, throwIfAborted } from '../../common/abort.js';
import { isCloudOptimizedLayout, metadataBySample, openGeoTiff } from '../geotiff/index.js';

export { METRES_PER_DEGREE };

/** What the library records about a raster, read from the file itself. */
export interface RasterMetadata {
  /** Image date YYYY-MM-DD (GDAL_METADATA IMAGE_DATE), or null. */
  date: string | null;
  /** Model enum value (MODEL_VERSION without its "-1.0" version suffix), or null. */
  model: string | null;
  constellations: string[];
  /** Band names from the per-band DESCRIPTION items, else "Band 1", "Band 2", … */
  bands: string[];
  epsg: number | null;
  /** Pixel size in metres: CRS units for projected CRSs, degrees × 111320 for EPSG:4326; null without georeferencing. */
  resolution: number | null;
  width: number;
  height: number;
  /** [minLon, minLat, maxLon, maxLat], or null when the CRS cannot be reprojected (see boundsNote). */
  bounds4326: [number, number, number, number] | null;
  /** Why bounds4326 is null, when it is. */
  boundsNote?: string;
  /** The period a change layer spans: date A and date B (its CHANGE_FROM / CHANGE_TO tags), YYYY-MM-DD. */
  period?: { start: string; end: string };
  /** The file has a Cloud Optimized GeoTIFF layout (see isCloudOptimizedLayout). */
  cog?: boolean;
}

const converters = new Map<number, proj4.Converter>();

/** A converter to lon/lat for the CRSs we know without a projection database: 4326, 3857 and WGS84 UTM. */
function toLonLat(epsg: number): proj4.Converter | null {
  const hit = converters.get(epsg);
  if (hit) return hit;
  let def: string | null = null;
  if (epsg === 4326) def = 'EPSG:4326';
  else if (epsg === 3857) def = 'EPSG:3857';
  else if (epsg >= 32601 && epsg <= 32660) def = `+proj=utm +zone=${epsg - 32600} +datum=WGS84 +units=m +no_defs`;
  else if (epsg >= 32701 && epsg <= 32760) def = `+proj=utm +zone=${epsg - 32700} +south +datum=WGS84 +units=m +no_defs`;
  if (!def) return null;
  const conv = proj4(def, 'EPSG:4326');
  converters.set(epsg, conv);
  return conv;
}

/**
 * The lon/lat envelope of a CRS bounding box, from points along every edge (a projected rectangle
 * is curved in lon/lat, so the corners alone would cut off its bulging sides); null for unknown CRSs.
 */
export function boundsTo4326(bbox: [number, number, number, number], epsg: number): [number, number, number, number] | null {
  const conv = toLonLat(epsg);
  if (!conv) return null;
  const [minX, minY, maxX, maxY] = bbox;
  const steps = 16;
  let w = Infinity, s = Infinity, e = -Infinity, n = -Infinity;
  for (let i = 0; i <= steps; i++) {
    const t = i / steps;
    const x = minX + (maxX - minX) * t;
    const y = minY + (maxY - minY) * t;
    for (const p of [[x, minY], [x, maxY], [minX, y], [maxX, y]] as [number, number][]) {
      const [lon, lat] = conv.forward(p) as [number, number];
      if (!Number.isFinite(lon) || !Number.isFinite(lat)) return null;
      w = Math.min(w, lon);
      e = Math.max(e, lon);
      s = Math.min(s, lat);
      n = Math.max(n, lat);
    }
  }
  const r = (v: number) => Math.round(v * 1e9) / 1e9;
  return [r(w), r(s), r(e), r(n)];
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : null;
}

function isoDateOf(v: string | null): string | null {
  if (!v) return null;
  const m = /^(\d{4})-?(\d{2})-?(\d{2})/.exec(v);
  return m ? `${m[1]}-${m[2]}-${m[3]}` : null;
}

/**
 * Reads library metadata from a GeoTIFF's first image; throws a validation AppError naming the file when it is not a readable GeoTIFF.
 * `content`: the file's whole content, when the caller holds it (then the file is not read).
 */
export async function readRasterMetadata(file: string, signal: AbortSignal, content?: Uint8Array): Promise<RasterMetadata> {
  throwIfAborted(signal);
  try {
    // One open for the header and the layout: a small file is read once and both come from memory,
    // a large one from its head (read once) and the file.
    const opened = await openGeoTiff(file, signal, content);
    let cog: boolean;
    try {
      cog = await isCloudOptimizedLayout(file, opened.raw);
    } finally {
      await opened.close();
    }
    const h = opened.header;
    const byBand = metadataBySample(h.metadata);
    const dataset = byBand.dataset;
    const bands: string[] = [];
    for (let i = 0; i < h.bands; i++) bands.push(str(byBand.band(i).DESCRIPTION) ?? `Band ${i + 1}`);
    const epsg = h.epsg;
    let resolution: number | null = null;
    const bbox = h.bbox;
    if (h.transform) {
      const rx = h.transform.resX;
      resolution = epsg === 4326 ? Math.abs(rx) * METRES_PER_DEGREE : Math.abs(rx);
      resolution = Math.round(resolution * 1000) / 1000;
    }
    let bounds4326: [number, number, number, number] | null = null;
    let boundsNote: string | undefined;
    if (!bbox) boundsNote = 'The file has no georeferencing (no pixel scale/tie point or transformation).';
    else if (epsg == null) boundsNote = 'The file has no EPSG code (user-defined or missing CRS), so its bounds cannot be placed on the map.';
    else {
      bounds4326 = boundsTo4326(bbox, epsg);
      if (!bounds4326) boundsNote = `EPSG:${epsg} is not one of the CRSs Swath can reproject (4326, 3857, WGS84 UTM), so bounds4326 is unknown.`;
    }
    const modelVersion = str(dataset.MODEL_VERSION);
    // A change layer's tags are "<date> <file name>" (main/analysis saveChange).
    const from = isoDateOf(str(dataset.CHANGE_FROM));
    const to = isoDateOf(str(dataset.CHANGE_TO));
    return {
      date: isoDateOf(str(dataset.IMAGE_DATE)),
      model: modelVersion ? modelVersion.replace(/-\d+(\.\d+)*$/, '') : null,
      constellations: (str(dataset.CONSTELLATIONS) ?? '').split(',').map((s) => s.trim()).filter(Boolean),
      bands,
      epsg,
      resolution,
      width: h.width,
      height: h.height,
      bounds4326,
      ...(boundsNote ? { boundsNote } : {}),
      ...(from && to ? { period: { start: from, end: to } } : {}),
      cog,
    };
  } catch (e) {
    if (signal.aborted) throw abortError(signal);
    throw new AppError('validation', `${file} is not a readable GeoTIFF: ${(e as Error).message}`, { cause: e });
  }
}
