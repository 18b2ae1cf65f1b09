/**
 * Request and response types of the operations the contract shows. Response
 * records whose fields the contract leaves "not shown" are plain records: the
 * renderer displays whatever fields arrive.
 */

/** A response record whose fields the contract does not show. */
export type ServiceRecord = Record<string, unknown>;

/** A GeoJSON geometry (Polygon or MultiPolygon, [longitude, latitude] positions). */
export interface GeoJsonGeometry {
  type: string;
  coordinates: unknown;
  [member: string]: unknown;
}

/** An area of interest: exactly one of Wkt or GeoJson. */
export interface Aoi {
  Wkt?: string | null;
  GeoJson?: GeoJsonGeometry | string | null;
}

/** Constellation values of contract 2.3, plus Sentinel2L1 used by the model list. */
export const CONSTELLATIONS = [
  'Sentinel1', 'Sentinel2', 'Landsat89', 'Sentinel3OLCI', 'Sentinel3SLSTR', 'WFIAmazonia',
  'MUXCBERS4', 'AWFICBERS4', 'MUXCBERS4A', 'WFICBERS4A', 'Sentinel2L1',
] as const;

/** Output resolutions the contract allows, metres. */
export const RESOLUTIONS = [10, 20, 40, 80, 160, 320, 640, 1280] as const;

/** UtmDataSelectionMode values (contract 4.3.1). */
export const UTM_DATA_SELECTION_MODES = ['single_utm_fully_covered', 'combined_utm', 'single_utm'] as const;
/** One of {@link UTM_DATA_SELECTION_MODES}. */
export type UtmDataSelectionMode = (typeof UTM_DATA_SELECTION_MODES)[number];

/** PixelSelectionMode values (contract 4.3.1). */
export const PIXEL_SELECTION_MODES = ['intersect', 'contained'] as const;
/** DataType values (contract 4.3.1). */
export const DATA_TYPES = ['INT16', 'UINT8'] as const;

/** Account info; only the request limits are read by the client, every other field is passed through. */
export interface AccountInfo extends ServiceRecord {
  MaxConcurrentConnections?: number;
  MaxCompositeAreaKm2?: number;
  MaxTotalBands?: number;
}

/** One tasking model (contract 2.2). */
export interface TaskingModel {
  Model: string;
  SupportedSatelliteConstellations: { SatelliteConstellation: string; Optional: boolean }[];
}

/** Data of GET /api/tasking/models. */
export interface TaskingModelList {
  TaskingModels: TaskingModel[];
}

/** Body of POST /api/satelliteimages/search/available; the period end is sent as Until. */
export interface SearchAvailableRequest extends Aoi {
  From: string;
  Until?: string | null;
  SatelliteConstellations?: string[] | null;
  Model?: string | null;
}

/** Body of POST /api/satelliteimages/process/composite/available (extra composite settings may ride along). */
export interface CompositeAvailableRequest extends Aoi {
  Date: string;
  Model: string;
  SatelliteConstellations?: string[] | null;
  EpsgProjection?: number;
  Bandnames?: string;
  UtmDataSelectionMode?: UtmDataSelectionMode;
  [setting: string]: unknown;
}

/** Body of POST /api/satelliteimages/process/composite/estimate (extra composite settings may ride along). */
export interface CompositeEstimateRequest extends Aoi {
  MiniTileGuid?: string | null;
  TileGuid?: string | null;
  [setting: string]: unknown;
}

/** Body of POST /api/satelliteimages/process/composite (contract 4.3.1). */
export interface CompositeRequest extends Aoi {
  Date: string;
  Resolution?: number;
  EpsgProjection?: number;
  FileType?: string;
  PixelSelectionMode?: (typeof PIXEL_SELECTION_MODES)[number];
  DataType?: (typeof DATA_TYPES)[number];
  UtmDataSelectionMode?: UtmDataSelectionMode;
  UtmGridForcePixelResolutionSize?: boolean;
  SatelliteConstellations?: string[] | null;
  Model: string;
  Bandnames?: string;
  OldPixelSelectionMode?: boolean;
  AllowPartialImage?: boolean;
  AutomaticOrderCreation?: boolean;
  UploadUrl?: string | null;
}

interface TileCommon {
  Date: string;
  SatelliteConstellations?: string[] | null;
  Model: string;
  /** Type and values not shown by the contract; passed through. */
  Level?: unknown;
  /** Type and values not shown by the contract; passed through. */
  Harmonize?: unknown;
  /** Type and values not shown by the contract; passed through. */
  ClipReflectance?: unknown;
  UploadUrl?: string | null;
}

/** Body of POST /api/satelliteimages/process/tile (contract 4.3.2). */
export interface TileRequest extends TileCommon {
  TileGuid: string;
}

/** Body of POST /api/satelliteimages/process/minitile (contract 4.3.2). */
export interface MiniTileRequest extends TileCommon {
  MiniTileGuid: string;
}

/** The order request record of estimate and create (contract 2.5). */
export interface OrderRequest extends Aoi {
  MiniTileGuid?: string | null;
  TileGuid?: string | null;
  /** List form of the tile selection, as the production service also accepts. */
  TileGuids?: string[] | null;
  /** List form of the mini-tile selection, as the production service also accepts. */
  MiniTileGuids?: string[] | null;
  SatelliteConstellations: string[];
  Model: string;
  StorageMonths?: number;
  ApiRequests?: number;
  ImageFrequency?: number;
  ReferenceDate?: string;
  From: string;
  /** null (or absent) makes the order recurring. */
  To?: string | null;
  [field: string]: unknown;
}

/** Body of the deprecated POST /api/satelliteimages/geography/composite: a WKT geography and a period whose field names come from the specification. */
export interface GeographyCompositeRequest {
  Wkt: string;
  [field: string]: unknown;
}

/** Result of an order estimate: the service's answer and the exact JSON text that was estimated. */
export interface OrderEstimate {
  estimate: ServiceRecord;
  /** Send this string unchanged to createOrder; any edit invalidates the estimate. */
  payload: string;
}
