import type { RequestOf } from '../../../../preload/contract';
import { parseAoiText, type AnyGeometry } from './geometry';
import { findGeometry, isObject } from './recognise';

/** One feature of `export:geojson` (the AOI, an order, a watch); platform/stores/geojson-export.ts asks main to write them. */
export type ExportFeature = RequestOf<'export:geojson'>['features'][number];

/** A service geometry (GeoJSON object, GeoJSON text or WKT) as a GeoJSON geometry, or null. */
export function toGeoJsonGeometry(value: unknown): AnyGeometry | null {
  if (isObject(value) && typeof value.type === 'string') return value as unknown as AnyGeometry;
  if (typeof value === 'string') {
    const r = parseAoiText(value);
    return r.ok ? r.geometry : null;
  }
  return null;
}

/** A record's fields except its geometry, for the feature's properties. */
function propertiesOf(record: Record<string, unknown>): Record<string, unknown> {
  const geometryKey = findGeometry(record)?.key;
  return Object.fromEntries(Object.entries(record).filter(([k]) => k !== geometryKey));
}

/** Features of records as the service sent them (orders, later watches): their geometry and other fields. */
export function recordFeatures(layer: string, records: readonly { row: Record<string, unknown>; key: string }[]): ExportFeature[] {
  return records.map(({ row, key }) => ({
    layer,
    id: key,
    geometry: toGeoJsonGeometry(findGeometry(row)?.geometry) as ExportFeature['geometry'],
    properties: propertiesOf(row),
  }));
}
