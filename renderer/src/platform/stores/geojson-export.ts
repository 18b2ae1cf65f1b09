import { ask } from '../request';
import type { ExportFeature } from '../lib/geojson-export';

/** Asks main to write the features; returns the toast text and its kind. */
export async function exportGeoJson(name: string, features: ExportFeature[]): Promise<{ text: string; kind: 'ok' | 'error' | 'info' }> {
  const r = await ask((bridge) => bridge.exportGeojson({ name, features }));
  if (!r.ok) return { text: `GeoJSON export failed: ${r.error.message}`, kind: 'error' };
  if (r.data.cancelled) return { text: 'GeoJSON export cancelled.', kind: 'info' };
  return { text: `Wrote ${r.data.features} feature${r.data.features === 1 ? '' : 's'} to ${r.data.file}`, kind: 'ok' };
}
