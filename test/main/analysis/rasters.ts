/** Small simulator-written GeoTIFFs (main's writer, the service's tags, SCALE/OFFSET) for the analysis tests. */
import path from 'node:path';
import { parseBandnames, writeGeoTiff } from '../../../simulator/raster';

/** About 2 km x 1.4 km in Berlin (UTM 33N). */
export const TEST_AOI = { type: 'Polygon' as const, coordinates: [[[13.40, 52.50], [13.43, 52.50], [13.43, 52.513], [13.40, 52.513], [13.40, 52.50]]] };

/** Writes one date's raster with the given bands (B4, B8, [B8_B4]) and returns its path. */
export async function writeTestRaster(dir: string, date: string, bands: string[], dataType: 'INT16' | 'UINT8' = 'INT16', resolution = 20): Promise<string> {
  const file = path.join(dir, `s2-${date}-${dataType.toLowerCase()}.tif`);
  const parsed = parseBandnames(bands.join(','));
  if (!parsed.ok) throw new Error(parsed.reason);
  const specs = parsed.bands;
  await writeGeoTiff({
    aoi: TEST_AOI, date, epsg: 32633, resolution, bands: specs, dataType, pixelSelection: 'intersect',
    tags: { IMAGE_DATE: date.replace(/-/g, ''), MODEL_VERSION: 'S2-CloudFree-1.0', IMAGE_VERSION: '1', CONSTELLATIONS: 'Sentinel2' },
  }, file);
  return file;
}

/** A raster like {@link writeTestRaster}'s, named `<name>.tif`, its area moved `shiftLon` degrees east, on another CRS when asked. */
export async function writeMovedRaster(dir: string, name: string, date: string, bands: string[], shiftLon = 0, epsg = 32633): Promise<string> {
  const file = path.join(dir, `${name}.tif`);
  const parsed = parseBandnames(bands.join(','));
  if (!parsed.ok) throw new Error(parsed.reason);
  const aoi = { type: 'Polygon' as const, coordinates: [TEST_AOI.coordinates[0]!.map(([x, y]) => [x! + shiftLon, y!])] };
  await writeGeoTiff({
    aoi, date, epsg, resolution: 20, bands: parsed.bands, dataType: 'INT16', pixelSelection: 'intersect',
    tags: { IMAGE_DATE: date.replace(/-/g, ''), MODEL_VERSION: 'S2-CloudFree-1.0', IMAGE_VERSION: '1', CONSTELLATIONS: 'Sentinel2' },
  }, file);
  return file;
}
