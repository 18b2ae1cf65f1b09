/**
 * The bounds of a parcel import. Every reader checks a file against them before it allocates for
 * what the file declares, and a file past one is refused with an {@link ImportError} naming it.
 */

/** An import refused for a reason the analyst can act on (the message names the field or limit). */
export class ImportError extends Error {
  override name = 'ImportError';
}

export interface ImportLimits {
  /** Bytes of a GeoPackage (read through SQLite, page by page). */
  maxGpkgBytes: number;
  /** Bytes of a file read whole: .shp, .dbf, FlatGeobuf. */
  maxFileBytes: number;
  /** Bytes of a GeoJSON file (read whole, its features parsed one at a time). */
  maxGeoJsonBytes: number;
  /** Bytes of a GeoJSON document outside its features array ("type", "crs", foreign members: parsed whole). */
  maxGeoJsonMembersBytes: number;
  /** Nesting of a GeoJSON document's arrays and objects. */
  maxJsonDepth: number;
  /** Features of one layer. */
  maxFeatures: number;
  /** Points of one parcel. */
  maxVerticesPerParcel: number;
  /** Points of a whole set. */
  maxTotalVertices: number;
  /** Candidate segment pairs of one parcel's self-intersection check. */
  maxSegmentPairsPerParcel: number;
  /** Candidate segment pairs of the whole import's checks. */
  maxSegmentPairs: number;
  /** Attribute columns of a layer. */
  maxColumns: number;
  /** Layers of a GeoPackage. */
  maxLayers: number;
  /** Characters of a parcel's id and of its name. */
  maxIdLength: number;
  maxNameLength: number;
}

export const IMPORT_LIMITS: ImportLimits = {
  maxGpkgBytes: 4 * 2 ** 30,
  maxFileBytes: 2 ** 30,
  maxGeoJsonBytes: 256 * 2 ** 20,
  maxGeoJsonMembersBytes: 2 ** 20,
  maxJsonDepth: 64,
  maxFeatures: 100_000,
  maxVerticesPerParcel: 100_000,
  maxTotalVertices: 10_000_000,
  maxSegmentPairsPerParcel: 20_000_000,
  maxSegmentPairs: 1_000_000_000,
  maxColumns: 1_000,
  maxLayers: 1_000,
  maxIdLength: 256,
  maxNameLength: 1_000,
};

/** "1 GiB", "256 MiB": a byte limit as the analyst reads it. */
export function bytesText(n: number): string {
  if (n >= 2 ** 30 && n % 2 ** 30 === 0) return `${n / 2 ** 30} GiB`;
  if (n >= 2 ** 20 && n % 2 ** 20 === 0) return `${n / 2 ** 20} MiB`;
  return `${n} bytes`;
}

/** Refuses a layer that declares (or holds) more features than the limit. */
export function checkFeatureCount(count: number, what: string, limits: ImportLimits): void {
  if (!(count <= limits.maxFeatures)) {
    throw new ImportError(`${what} has ${Number.isFinite(count) ? count : 'an invalid number of'} features, more than the limit of ${limits.maxFeatures} parcels per set`);
  }
}
