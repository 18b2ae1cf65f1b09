import type { MultiPolygon, Polygon } from 'geojson';
import type { BandSpec } from './bands.js';

/** Everything that determines one synthesized GeoTIFF. */
export interface RasterRequest {
  /** AOI in lon/lat (EPSG:4326). */
  aoi: Polygon | MultiPolygon;
  /** YYYY-MM-DD. */
  date: string;
  /** 4326, 3857, 32601-32660 or 32701-32760 (callers resolve 47000 with utmEpsgFor). */
  epsg: number;
  /** Pixel size in metres (for EPSG:4326 converted to resolution/111320 degrees). */
  resolution: number;
  /** Output band order. */
  bands: BandSpec[];
  dataType: 'INT16' | 'UINT8';
  pixelSelection: 'intersect' | 'contained';
  tags: { IMAGE_DATE: string; MODEL_VERSION: string; IMAGE_VERSION: string; CONSTELLATIONS: string };
  /** Optional exact output grid in output CRS units; otherwise the AOI envelope snapped outward to the global pixel grid. */
  grid?: { minX: number; minY: number; maxX: number; maxY: number };
}

/** Output bounds in output CRS units. */
export type { Bounds } from '../../common/grid/aoi-mask.js';
