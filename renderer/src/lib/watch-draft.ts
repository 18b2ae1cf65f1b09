import type { RequestOf } from '../../../preload/contract';
import { toGeoJsonGeometry } from './geojson-export';
import { isPolygonal, toWkt, utmEpsgFor, type PolygonalGeometry } from './geometry';
import type { OrderSummary } from './tasking-records';

/** What the watch form sends. */
export type WatchInputDraft = RequestOf<'watches:create'>;
type Settings = WatchInputDraft['settings'];

/** Composite settings a new watch starts with; EPSG is the area's UTM zone (common/geodesy's rule). */
export function defaultSettings(area: PolygonalGeometry | null, over: Partial<Settings> = {}): Settings {
  return {
    EpsgProjection: area ? utmEpsgFor(area) : 4326,
    Bandnames: 'rgb',
    DataType: 'INT16',
    Resolution: 10,
    PixelSelectionMode: 'intersect',
    ...over,
  };
}

/** A watch for a listed order: its area, model, constellations and period; null when the record lacks one of them. */
export function draftFromOrder(s: OrderSummary, over: Partial<Settings> = {}): WatchInputDraft | null {
  const g = toGeoJsonGeometry(s.geometry);
  if (!g || !isPolygonal(g) || !s.model || !s.from || !s.constellations?.length) return null;
  return {
    name: `Order ${s.id ? s.id.slice(0, 8) : s.from}`,
    source: { kind: 'order', orderId: s.id, recurring: s.recurring },
    area: { Wkt: toWkt(g) },
    model: s.model,
    constellations: [...s.constellations],
    from: s.from,
    to: s.recurring === false ? s.to : null,
    settings: defaultSettings(g, over),
    capEur: null,
    everyHours: 6,
  };
}

/** A watch for the current AOI and a model, from a start date on. */
export function draftFromAoi(area: PolygonalGeometry, model: string, constellations: string[], from: string, over: Partial<Settings> = {}): WatchInputDraft {
  return {
    name: 'AOI watch',
    source: { kind: 'aoi', orderId: null, recurring: null },
    area: { Wkt: toWkt(area) },
    model,
    constellations: [...constellations],
    from,
    to: null,
    settings: defaultSettings(area, over),
    capEur: null,
    everyHours: 6,
  };
}

/** A watch's area as a GeoJSON geometry, for the map and exports. */
export function watchGeometry(area: WatchInputDraft['area']): PolygonalGeometry | null {
  const g = toGeoJsonGeometry('Wkt' in area ? area.Wkt : area.GeoJson);
  return g && isPolygonal(g) ? g : null;
}
