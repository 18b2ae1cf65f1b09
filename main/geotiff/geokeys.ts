/** GeoTIFF GeoKey readings shared by the library, the overview copies and the batch mosaics. */

/** GTModelTypeGeoKey 2: a geographic (lon/lat) raster. */
const MODEL_GEOGRAPHIC = 2;
/** Key value of a user-defined CRS (no EPSG code). */
const USER_DEFINED = 32767;

/**
 * The EPSG code of a raster's CRS from its GeoKeys: the geographic CRS for lon/lat rasters, the
 * projected CRS otherwise (its geographic key only when no projected key is given at all); null
 * for user-defined CRSs or no keys.
 */
export function epsgOfGeoKeys(keys: Record<string, unknown> | null | undefined): number | null {
  if (!keys) return null;
  const geographic = keys.GTModelTypeGeoKey === MODEL_GEOGRAPHIC;
  const code = Number(geographic ? keys.GeographicTypeGeoKey : keys.ProjectedCSTypeGeoKey ?? keys.GeographicTypeGeoKey);
  return Number.isInteger(code) && code > 0 && code !== USER_DEFINED ? code : null;
}

/** Whether the GeoKeys describe a geographic (lon/lat) raster. */
export function isGeographic(keys: Record<string, unknown> | null | undefined): boolean {
  return keys?.GTModelTypeGeoKey === MODEL_GEOGRAPHIC;
}
