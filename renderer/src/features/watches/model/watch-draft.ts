import type { RequestOf } from '../../../../../preload/contract';
import { toGeoJsonGeometry } from '../../../platform/lib/geojson-export';
import { isPolygonal, toWkt, utmEpsgFor, type PolygonalGeometry } from '../../../platform/lib/geometry';

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

/** The constellation values of the contract (2.3), by which a list is recognised whatever its field is called. */
const CONSTELLATIONS = new Set(['Sentinel1', 'Sentinel2', 'Landsat89', 'Sentinel3OLCI', 'Sentinel3SLSTR', 'WFIAmazonia', 'MUXCBERS4', 'AWFICBERS4', 'MUXCBERS4A', 'WFICBERS4A', 'Sentinel2L1']);

/** The one list of constellation values in a record (any field name), or null. */
export function constellationsIn(row: Record<string, unknown> | null | undefined): string[] | null {
  const lists = Object.values(row ?? {}).filter((v): v is string[] => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string' && CONSTELLATIONS.has(x)));
  return lists.length === 1 ? [...lists[0]!] : null;
}

/** What a watch reads of an order (tasking's order summary has these fields). */
export interface WatchedOrder {
  id: string | null;
  from: string | null;
  to: string | null;
  recurring: boolean | null;
  model: string | null;
  constellations: string[] | null;
  geometry: unknown;
}

/**
 * A watch for a listed order: its area, model, constellations and period; null when the record
 * lacks one of them. `row` is the record itself, where the constellations are found by value when
 * the summary did not find them by name.
 */
export function draftFromOrder(s: WatchedOrder, over: Partial<Settings> = {}, row?: Record<string, unknown>): WatchInputDraft | null {
  const g = toGeoJsonGeometry(s.geometry);
  const constellations = s.constellations?.length ? s.constellations : constellationsIn(row);
  if (!g || !isPolygonal(g) || !s.model || !s.from || !constellations?.length) return null;
  return {
    name: `Order ${s.id ? s.id.slice(0, 8) : s.from}`,
    source: { kind: 'order', orderId: s.id, recurring: s.recurring },
    area: { Wkt: toWkt(g) },
    model: s.model,
    constellations: [...constellations],
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
