/**
 * FlatGeobuf reader: the file read whole (bounded), its header (geometry type, columns, CRS,
 * feature count) checked before any feature is decoded, then flatgeobuf's `deserialize` yields
 * the features in file order as GeoJSON; a feature whose geometry declares more points than a
 * parcel's limit yields its properties only (its geometry counted in the buffer, never decoded). The CRS is the header's (its EPSG code, or its WKT).
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Geometry } from 'flatgeobuf/lib/mjs/flat-geobuf/geometry.js';
import { parseProperties, type IFeature } from 'flatgeobuf/lib/mjs/generic/feature.js';
import { deserialize as deserializeWith, type FromFeatureFn } from 'flatgeobuf/lib/mjs/generic/featurecollection.js';
import { fromFeature } from 'flatgeobuf/lib/mjs/geojson/feature.js';
import { deserialize } from 'flatgeobuf/lib/mjs/geojson.js';
import type { HeaderMeta } from 'flatgeobuf/lib/mjs/header-meta.js';
import { calcTreeSize } from 'flatgeobuf/lib/mjs/packedrtree.js';
import { parcelCrs } from './crs.js';
import { bytesText, checkFeatureCount, ImportError, type ImportLimits } from './limits.js';
import type { Source, SourceColumn, SourceFeature, SourceLayer } from './source.js';

const MAGIC = [0x66, 0x67, 0x62, 0x03];
/** GeometryType of the header: Unknown (mixed), Polygon, MultiPolygon. */
const POLYGONAL = new Set([0, 3, 6]);
const COLUMN_TYPES = ['byte', 'ubyte', 'boolean', 'short', 'ushort', 'integer', 'uinteger', 'long', 'ulong', 'float', 'double', 'text', 'json', 'datetime', 'binary'];

async function header(bytes: Uint8Array): Promise<HeaderMeta> {
  let meta: HeaderMeta | null = null;
  const it = deserialize(bytes, { headerMetaFn: (h) => { meta = h; throw new HeaderRead(); } });
  try {
    await it.next();
  } catch (e) {
    if (!(e instanceof HeaderRead)) throw new ImportError(`the FlatGeobuf header is malformed (${(e as Error).message})`);
  }
  if (!meta) throw new ImportError('the FlatGeobuf file has no header');
  return meta;
}

class HeaderRead extends Error {}

/** Points of a geometry and its parts as the buffer declares them (counted without decoding; the count stops once past `max`). */
function pointCount(g: Geometry | null, max: number): number {
  if (!g) return 0;
  let n = g.xyLength() / 2;
  for (let i = 0, parts = g.partsLength(); i < parts && n <= max; i++) n += pointCount(g.parts(i), max - n);
  return n;
}

/** A feature as read: GeoJSON's, or (`tooMany`) only the properties of one whose geometry is past the points of a parcel. */
interface ReadFeature { geometry: unknown; properties?: unknown; tooMany?: true }

export async function openFlatGeobuf(file: string, limits: ImportLimits): Promise<Source> {
  const size = statSync(file).size;
  if (size > limits.maxFileBytes) throw new ImportError(`the FlatGeobuf file is ${size} bytes, more than the limit of ${bytesText(limits.maxFileBytes)}`);
  const bytes: Uint8Array = readFileSync(file);
  if (bytes.length < 12 || !MAGIC.every((b, i) => bytes[i] === b)) throw new ImportError('the file is not FlatGeobuf version 3 (its first bytes are not "fgb" 3)');
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true);
  if (12 + headerLength > bytes.length) throw new ImportError(`the FlatGeobuf header length (${headerLength} bytes) runs past the end of the file`);
  const h = await header(bytes);
  checkFeatureCount(h.featuresCount, 'the FlatGeobuf header (features_count)', limits);
  if (!POLYGONAL.has(h.geometryType)) throw new ImportError(`the FlatGeobuf holds geometry type ${h.geometryType}, not polygons (3) or multipolygons (6)`);
  if ((h.columns?.length ?? 0) > limits.maxColumns) throw new ImportError(`the FlatGeobuf has ${h.columns!.length} columns, more than the limit of ${limits.maxColumns}`);
  const columns: SourceColumn[] = (h.columns ?? []).map((c) => ({ name: c.name, type: COLUMN_TYPES[c.type] ?? String(c.type) }));
  let crs: SourceLayer['crs'] = null;
  let crsProblem: string | undefined;
  if (!h.crs || (!h.crs.wkt && !(h.crs.code > 0))) crsProblem = 'the FlatGeobuf header names no CRS (crs)';
  else {
    try {
      const epsg = (h.crs.org ?? 'EPSG').toUpperCase() === 'EPSG' && h.crs.code > 0 ? h.crs.code : null;
      crs = parcelCrs({ epsg, wkt: h.crs.wkt }, 'the FlatGeobuf header\'s crs');
    } catch (e) {
      crsProblem = (e as Error).message;
    }
  }
  // Every feature's size prefix is walked first: a truncated file, or one whose lengths lie, is refused before
  // flatgeobuf reads past the end. features_count 0 means "unknown" (and no index); then this walk counts.
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 12 + headerLength + (h.indexNodeSize > 0 && h.featuresCount > 0 ? calcTreeSize(h.featuresCount, h.indexNodeSize) : 0);
  if (at > bytes.length) throw new ImportError(`the FlatGeobuf's spatial index (${h.featuresCount} features) runs past the end of the file: it is truncated or its features_count is wrong`);
  let count = 0;
  while (at < bytes.length) {
    if (at + 4 > bytes.length) throw new ImportError(`feature ${count + 1} of the FlatGeobuf: its size prefix runs past the end of the file (truncated)`);
    const length = view.getUint32(at, true);
    if (at + 4 + length > bytes.length) throw new ImportError(`feature ${count + 1} of the FlatGeobuf: its length (${length} bytes) runs past the end of the file (${bytes.length - at - 4} bytes left; truncated)`);
    if (++count > limits.maxFeatures) checkFeatureCount(count, 'the FlatGeobuf file', limits);
    at += 4 + length;
  }
  if (h.featuresCount > 0 && count !== h.featuresCount) throw new ImportError(`the FlatGeobuf header's features_count is ${h.featuresCount} and the file holds ${count} features`);
  const layer: SourceLayer = { name: h.title || path.basename(file, path.extname(file)), count, columns, crs, ...(crsProblem ? { crsProblem } : {}) };
  return {
    format: 'fgb',
    layers: () => [layer],
    async *features(_layer, c): AsyncIterable<SourceFeature> {
      let row = 0;
      const max = limits.maxVerticesPerParcel;
      try {
        // Each feature's points are counted in the buffer first: the geometry of one past the limit of a parcel is not decoded.
        const read: FromFeatureFn = (id, feature, meta) => (pointCount(feature.geometry(), max) <= max
          ? fromFeature(id, feature, meta)
          : { geometry: null, properties: parseProperties(feature, meta.columns), tooMany: true } satisfies ReadFeature as IFeature);
        const features = deserializeWith(bytes, { fromFeature: read }) as AsyncGenerator<ReadFeature>;
        for await (const f of features) {
          row++;
          const props = (f.properties ?? {}) as Record<string, unknown>;
          const base = { row, id: props[c.id], name: c.name ? props[c.name] : null, geometry: f.geometry };
          yield f.tooMany ? { ...base, unreadable: `its FlatGeobuf geometry has more than ${max} points (the limit of points per parcel)` } : base;
        }
      } catch (e) {
        if (e instanceof ImportError) throw e;
        throw new ImportError(`feature ${row + 1} of the FlatGeobuf is malformed (${(e as Error).message})`);
      }
    },
    close() {},
  };
}
