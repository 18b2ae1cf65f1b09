/** The part of shpjs (no types of its own) the Shapefile reader uses: its record and attribute parsers. */
declare module 'shpjs' {
  /** GeoJSON geometries (or null) of a .shp's records; with `prj` they are reprojected to WGS 84, without it left as stored. */
  export function parseShp(shp: ArrayBufferView | ArrayBuffer, prj?: string): ({ type: string; coordinates: unknown } | null)[];
  /** The .dbf's rows as objects by field name; `cpg` is the .cpg file's encoding name. */
  export function parseDbf(dbf: ArrayBufferView | ArrayBuffer, cpg?: string): Record<string, unknown>[];
}
