/** Geodesy constants and the UTM zone rule the service uses. */

/** Metres per degree at the equator: how the service turns a metric Resolution into degrees for EPSG:4326. */
export const METRES_PER_DEGREE = 111320;

/**
 * EPSG code of the standard 6° UTM zone holding a point: 326xx north of (and on) the equator,
 * 327xx south; the Norway/Svalbard exceptions are deliberately ignored so that the answer
 * always agrees with the service's tile grid, which uses the regular zones.
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

/** True for an EPSG code of a WGS 84 UTM zone (32601-32660, 32701-32760). */
export function isUtmEpsg(code: number | null | undefined): boolean {
  return code != null && ((code >= 32601 && code <= 32660) || (code >= 32701 && code <= 32760));
}
