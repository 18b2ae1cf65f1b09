/**
 * The service's output CRSs (EPSG:4326, 3857 and WGS 84 UTM) and its pixel-grid rules: how a
 * metric Resolution becomes a pixel size, and how an envelope snaps outward to the global grid.
 * One definition for the simulator's writer, the batch planner and the library.
 */
import proj4 from 'proj4';
import { METRES_PER_DEGREE } from '../geodesy.js';

/** A supported output CRS with lon/lat conversions and a validity check. */
export interface Projection {
  epsg: number;
  geographic: boolean;
  forward(lon: number, lat: number): [number, number];
  inverse(x: number, y: number): [number, number];
  /** Why this lon/lat cannot be represented sensibly in the CRS, or null when it can. */
  invalidReason(lon: number, lat: number): string | null;
}


/** True for the EPSG codes the raster writer can produce. */
export function isSupportedEpsg(epsg: number): boolean {
  return epsg === 4326 || epsg === 3857 || (epsg >= 32601 && epsg <= 32660) || (epsg >= 32701 && epsg <= 32760);
}

const cache = new Map<number, Projection>();

/** The projection for an EPSG code, or null when it is not supported. */
export function getProjection(epsg: number): Projection | null {
  const hit = cache.get(epsg);
  if (hit) return hit;
  if (!Number.isInteger(epsg) || !isSupportedEpsg(epsg)) return null;
  let p: Projection;
  if (epsg === 4326) {
    p = {
      epsg,
      geographic: true,
      forward: (lon, lat) => [lon, lat],
      inverse: (x, y) => [x, y],
      invalidReason: (lon, lat) =>
        Math.abs(lon) > 180 || Math.abs(lat) > 90 ? `coordinate ${lon},${lat} is outside -180..180 / -90..90` : null,
    };
  } else if (epsg === 3857) {
    const conv = proj4('EPSG:4326', 'EPSG:3857');
    p = {
      epsg,
      geographic: false,
      forward: (lon, lat) => conv.forward([lon, lat]) as [number, number],
      inverse: (x, y) => conv.inverse([x, y]) as [number, number],
      invalidReason: (lon, lat) =>
        Math.abs(lat) > 85.06 || Math.abs(lon) > 180
          ? `coordinate ${lon},${lat} is outside the valid area of EPSG:3857 (|lat| <= 85.06)`
          : null,
    };
  } else {
    const zone = epsg % 100;
    const south = epsg >= 32701;
    const conv = proj4('EPSG:4326', `+proj=utm +zone=${zone}${south ? ' +south' : ''} +datum=WGS84 +units=m +no_defs`);
    const cm = -183 + 6 * zone;
    p = {
      epsg,
      geographic: false,
      forward: (lon, lat) => conv.forward([lon, lat]) as [number, number],
      inverse: (x, y) => conv.inverse([x, y]) as [number, number],
      // A zone is usable a few degrees past its edges (the real service reprojects neighbours in);
      // beyond that Transverse Mercator distortion makes a "10 m" pixel meaningless.
      invalidReason: (lon, lat) => {
        const d = ((((lon - cm + 180) % 360) + 360) % 360) - 180;
        if (Math.abs(d) > 9) return `coordinate ${lon},${lat} is too far from UTM zone ${zone} (central meridian ${cm})`;
        if (lat < -80 || lat > 84) return `coordinate ${lon},${lat} is outside the UTM latitude range -80..84`;
        return null;
      },
    };
  }
  cache.set(epsg, p);
  return p;
}

/** Pixel edge in output CRS units for a Resolution in metres (degrees = metres / 111320 for EPSG:4326). */
export function pixelSizeFor(proj: Pick<Projection, 'geographic'>, resolution: number): number {
  return proj.geographic ? resolution / METRES_PER_DEGREE : resolution;
}

/** Envelope overshoot (in pixels) ignored when snapping, as the service does: projection round trips and densified edges wobble by millimetres. */
export const SNAP_TOLERANCE_PX = 1e-3;

/**
 * Pixel index range [k0, k1) of the global grid (origin at multiples of the pixel size) that covers
 * [min, max] when snapped outward, at least one pixel; neighbouring requests then abut exactly.
 */
export function snapOutward(min: number, max: number, pixelSize: number): [number, number] {
  const k0 = Math.floor(min / pixelSize + SNAP_TOLERANCE_PX);
  let k1 = Math.ceil(max / pixelSize - SNAP_TOLERANCE_PX);
  if (k1 <= k0) k1 = k0 + 1;
  return [k0, k1];
}
