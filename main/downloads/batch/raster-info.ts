/**
 * What the mosaic and the VRT need to know about a downloaded part: size, pixel type, nodata,
 * georeferencing and the GDAL metadata items (band descriptions, scale/offset, image tags).
 */
import { gridOf, readGeoTiffHeader, type GdalMetadataItem, type RasterGrid } from '../../geotiff/index.js';

/** Pixel types the service delivers, the only ones the batch combines. */
export type ServiceDataType = 'INT16' | 'UINT8';

/** Header facts of a single-image GeoTIFF with square, north-up pixels. */
export interface PartRaster extends RasterGrid {
  file: string;
  dataType: ServiceDataType;
  metadata: GdalMetadataItem[];
}

/** Reads the header of a part file; rejects files the batch cannot combine (not INT16/UINT8, rotated, no georeferencing). */
export async function readPartRaster(file: string, signal: AbortSignal): Promise<PartRaster> {
  const h = await readGeoTiffHeader(file, signal);
  const dataType = h.dataType;
  if (dataType !== 'INT16' && dataType !== 'UINT8') {
    throw new Error(`${file}: ${h.bitsPerSample}-bit samples of format ${h.sampleFormat} are not a service data type (INT16 or UINT8)`);
  }
  if (!h.geoKeys) throw new Error(`${file} has no GeoTIFF georeferencing`);
  if (!h.transform || !h.squarePixels) {
    throw new Error(`${file} does not have square north-up pixels (${h.transform?.resX} x ${h.transform?.resY})`);
  }
  return { file, ...gridOf(h), dataType, metadata: h.metadata };
}

/** Dataset-level items (no sample) of several parts: equal values once, differing values joined with ", " in part order. */
export function mergeDatasetItems(parts: readonly PartRaster[]): GdalMetadataItem[] {
  const order: string[] = [];
  const values = new Map<string, string[]>();
  for (const p of parts) {
    for (const it of p.metadata) {
      if (it.sample !== null) continue;
      const key = `${it.name}\u0000${it.role ?? ''}`;
      if (!values.has(key)) {
        values.set(key, []);
        order.push(key);
      }
      const list = values.get(key)!;
      if (!list.includes(it.value)) list.push(it.value);
    }
  }
  return order.map((key) => {
    const [name, role] = key.split('\u0000') as [string, string];
    return { name, value: values.get(key)!.join(', '), sample: null, role: role === '' ? null : role };
  });
}

/** Per-band items of band `local` of a part, renumbered as output band `target`. */
export function bandItems(part: PartRaster, local: number, target: number): GdalMetadataItem[] {
  return part.metadata.filter((it) => it.sample === local).map((it) => ({ ...it, sample: target }));
}
