import { writeFileAtomic } from '../shared/files.js';
import { throwIfAborted } from '../../common/abort.js';

/**
 * Any list of features (the AOI, orders, and later watches) as one GeoJSON
 * FeatureCollection (RFC 7946). Each feature says which layer it came from in
 * `swath:layer`, so one file can hold several kinds.
 */

/** One feature to export: a GeoJSON geometry in EPSG:4326 and flat properties. */
export interface ExportFeature {
  /** Which list it came from: 'aoi', 'order', 'watch'… */
  layer: string;
  id?: string | number;
  geometry: { type: string; coordinates?: unknown; geometries?: unknown[] } | null;
  properties?: Record<string, unknown>;
}

/** Properties GeoJSON readers can show: nested objects and arrays as JSON text. */
function flat(properties: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(properties).map(([k, v]) => [k, v !== null && typeof v === 'object' ? JSON.stringify(v) : v]),
  );
}

/** The features as a FeatureCollection. */
export function featureCollection(features: readonly ExportFeature[], name?: string): Record<string, unknown> {
  return {
    type: 'FeatureCollection',
    ...(name ? { name } : {}),
    features: features.map((f) => ({
      type: 'Feature',
      ...(f.id !== undefined ? { id: f.id } : {}),
      geometry: f.geometry,
      properties: { 'swath:layer': f.layer, ...flat(f.properties ?? {}) },
    })),
  };
}

/** Writes the features to `file` atomically (temp file, fsync, rename). */
export async function writeFeatureCollection(file: string, features: readonly ExportFeature[], name?: string, signal?: AbortSignal): Promise<{ file: string; features: number }> {
  throwIfAborted(signal);
  await writeFileAtomic(file, `${JSON.stringify(featureCollection(features, name), null, 2)}\n`);
  return { file, features: features.length };
}
