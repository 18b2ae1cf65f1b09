/**
 * What the fields' channels, exports and monitoring use of the parcel store (main/fields/parcels.ts)
 * and of the statistics engine (main/fields/stats): the shapes of their interfaces, so this glue
 * depends on what it calls and nothing else.
 */

export type Position = [number, number];
export type ParcelGeometry =
  | { type: 'Polygon'; coordinates: Position[][] }
  | { type: 'MultiPolygon'; coordinates: Position[][][] };
export interface ParcelCrs { epsg: number | null; proj4: string; wkt: string | null }
export type Bbox = [number, number, number, number];

export interface ParcelSet {
  id: string; name: string; sourceFile: string; format: 'gpkg' | 'shp' | 'geojson' | 'fgb';
  layer: string | null; crs: ParcelCrs; idColumn: string; nameColumn: string | null; count: number; skipped: number;
  bbox4326: Bbox; createdAt: string;
}
export interface Parcel { setId: string; index: number; id: string; name: string | null; geometry: ParcelGeometry; bbox4326: Bbox }
export interface SkippedParcel { row: number; id: string | null; reason: string }
export interface InspectedLayer { name: string; count: number; columns: { name: string; type: string }[]; crs: ParcelCrs | null }

/** The parcel store as the fields' glue uses it. */
export interface ParcelsPort {
  inspect(file: string, signal?: AbortSignal): Promise<{ format: ParcelSet['format']; layers: InspectedLayer[] }>;
  import(file: string, options: { layer?: string; idColumn: string; nameColumn?: string; name?: string },
    progress: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void }): Promise<{ set: ParcelSet; skipped: SkippedParcel[] }>;
  sets(): ParcelSet[];
  set(id: string): ParcelSet | null;
  delete(id: string): boolean;
  parcels(setId: string, query?: { offset?: number; limit?: number; bbox4326?: Bbox }): Parcel[];
  eachParcel(setId: string, pageSize?: number): Iterable<Parcel[]>;
}

export type PixelRule = 'exact' | 'centre' | 'touched';
export interface FieldStatistic {
  setId: string; parcelIndex: number; rasterId: string; date: string; index: string; rule: PixelRule;
  mean: number | null; min: number | null; max: number | null; std: number | null;
  median: number | null; p10: number | null; p90: number | null;
  validPixels: number; coveredShare: number; validShare: number; belowThreshold: boolean;
}
export interface FieldLatest { parcelIndex: number; date: string; value: number | null; previousDate: string | null; change: number | null }
export interface RunRequest { setId: string; rasterIds?: string[]; index: string; rule?: PixelRule; minValidShare?: number }
export interface RunProgress { done: number; total: number; etaMs: number | null }
export interface ResultsQuery { index: string; rule?: PixelRule; parcelIndex?: number; date?: string; offset?: number; limit?: number }

/** The statistics engine as the fields' glue uses it. */
export interface StatisticsPort {
  run(request: RunRequest, progress: { signal?: AbortSignal; onProgress?: (p: RunProgress) => void }): Promise<{ results: number; skippedRasters: { rasterId: string; reason: string }[] }>;
  results(setId: string, query: ResultsQuery): FieldStatistic[];
  latest(setId: string, query: { index: string; rule?: PixelRule; date?: string }): FieldLatest[];
}
