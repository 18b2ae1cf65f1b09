/**
 * Opens a parcel file with the reader of its format, told by its extension and confirmed by its
 * first bytes: .gpkg (SQLite), .shp (with its .dbf and .prj), .geojson/.json, .fgb.
 */
import path from 'node:path';
import { openFlatGeobuf } from './flatgeobuf.js';
import { openGeoJson } from './geojson.js';
import { openGeoPackage } from './geopackage.js';
import { openShapefile } from './shapefile.js';
import { ImportError, type ImportLimits } from './limits.js';
import type { ParcelFormat, Source } from './source.js';

export const FORMAT_OF_EXTENSION: Record<string, ParcelFormat> = { '.gpkg': 'gpkg', '.shp': 'shp', '.geojson': 'geojson', '.json': 'geojson', '.fgb': 'fgb' };

export async function openSource(file: string, limits: ImportLimits): Promise<Source> {
  const format = FORMAT_OF_EXTENSION[path.extname(file).toLowerCase()];
  switch (format) {
    case 'geojson':
      return openGeoJson(file, limits);
    case 'gpkg':
      return openGeoPackage(file, limits);
    case 'shp':
      return openShapefile(file, limits);
    case 'fgb':
      return openFlatGeobuf(file, limits);
    default:
      throw new ImportError(`${path.basename(file)} is not a parcel file Swath reads (GeoPackage .gpkg, Shapefile .shp, GeoJSON .geojson or .json, FlatGeobuf .fgb)`);
  }
}
