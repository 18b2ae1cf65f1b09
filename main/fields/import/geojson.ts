/**
 * GeoJSON reader: a FeatureCollection (RFC 7946), read whole through JSON.parse once its size and
 * nesting are within the limits; its CRS is EPSG:4326 (a legacy `crs` member naming any other is
 * refused, as its coordinates would be read as degrees).
 */
import { readFileSync, statSync } from 'node:fs';
import { WGS84 } from './crs.js';
import { bytesText, checkFeatureCount, ImportError, type ImportLimits } from './limits.js';
import { valueType, type Source, type SourceColumn, type SourceFeature, type SourceLayer } from './source.js';

/** Throws when the JSON text nests arrays and objects deeper than `max` (scanned before parsing: JSON.parse and any walk of its result stay shallow). */
export function checkJsonDepth(bytes: Uint8Array, max: number): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === 0x5c) i++;
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) inString = true;
    else if (b === 0x5b || b === 0x7b) {
      if (++depth > max) throw new ImportError(`the GeoJSON nests arrays and objects more than ${max} deep (byte ${i}), past the limit of ${max}`);
    } else if (b === 0x5d || b === 0x7d) depth--;
  }
}

const CRS84 = /^(urn:ogc:def:crs:OGC:1\.3:CRS84|urn:ogc:def:crs:EPSG::4326|EPSG:4326)$/i;

export function openGeoJson(file: string, limits: ImportLimits): Source {
  const size = statSync(file).size;
  if (size > limits.maxGeoJsonBytes) throw new ImportError(`the GeoJSON file is ${size} bytes, more than the limit of ${bytesText(limits.maxGeoJsonBytes)}`);
  const bytes = readFileSync(file);
  checkJsonDepth(bytes, limits.maxJsonDepth);
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch (e) {
    throw new ImportError(`the GeoJSON file is not valid JSON (${(e as Error).message})`);
  }
  const fc = doc as { type?: unknown; features?: unknown; crs?: { properties?: { name?: unknown } } };
  if (!fc || typeof fc !== 'object' || fc.type !== 'FeatureCollection') throw new ImportError('the GeoJSON is not a FeatureCollection (its "type" must be "FeatureCollection")');
  if (!Array.isArray(fc.features)) throw new ImportError('the GeoJSON FeatureCollection has no "features" list');
  const crsName = fc.crs?.properties?.name;
  if (fc.crs != null && !(typeof crsName === 'string' && CRS84.test(crsName))) {
    throw new ImportError(`the GeoJSON's "crs" member names ${typeof crsName === 'string' ? crsName.slice(0, 100) : 'an unknown CRS'}; GeoJSON is read as EPSG:4326 (RFC 7946): reproject it to WGS 84 first`);
  }
  const features = fc.features as unknown[];
  checkFeatureCount(features.length, 'the GeoJSON FeatureCollection', limits);
  const columns = new Map<string, Set<string>>();
  for (const f of features) {
    const props = (f as { properties?: unknown } | null)?.properties;
    if (!props || typeof props !== 'object') continue;
    for (const [k, v] of Object.entries(props)) {
      let types = columns.get(k);
      if (!types) {
        if (columns.size >= limits.maxColumns) throw new ImportError(`the GeoJSON's features have more than ${limits.maxColumns} distinct properties, past the limit of ${limits.maxColumns} columns`);
        columns.set(k, (types = new Set()));
      }
      if (v !== null) types.add(valueType(v));
    }
  }
  const cols: SourceColumn[] = [...columns].map(([name, types]) => ({ name, type: types.size === 1 ? [...types][0]! : types.size === 0 ? 'null' : 'mixed' }));
  const layer: SourceLayer = { name: 'features', count: features.length, columns: cols, crs: WGS84 };
  return {
    format: 'geojson',
    layers: () => [layer],
    *features(_layer, c): Iterable<SourceFeature> {
      for (let i = 0; i < features.length; i++) {
        const f = features[i] as { type?: unknown; properties?: Record<string, unknown> | null; geometry?: unknown } | null;
        if (!f || typeof f !== 'object' || f.type !== 'Feature') {
          yield { row: i + 1, id: null, name: null, geometry: null, unreadable: 'not a GeoJSON Feature' };
          continue;
        }
        const props = f.properties && typeof f.properties === 'object' ? f.properties : {};
        yield { row: i + 1, id: props[c.id], name: c.name ? props[c.name] : null, geometry: f.geometry };
      }
    },
    close() {},
  };
}
