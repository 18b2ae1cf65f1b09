/**
 * GeoPackage reader: the file is SQLite, opened read-only through node:sqlite. Layers are the
 * `features` rows of gpkg_contents with their gpkg_geometry_columns entry; a layer's CRS is its
 * srs_id's row of gpkg_spatial_ref_sys (organization and code, WKT definition). Each geometry is
 * a GeoPackage binary blob: its header (magic "GP", version, flags: byte order, envelope size,
 * empty) is read here, the WKB after it by wkx. Counts are the rows themselves (bounded), never a
 * declared count (gpkg_ogr_contents).
 */
import { statSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import wkx from 'wkx';
import { parcelCrs } from './crs.js';
import { bytesText, checkFeatureCount, ImportError, type ImportLimits } from './limits.js';
import type { Source, SourceFeature, SourceLayer } from './source.js';

/** An SQL identifier, quoted. */
const q = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** Bytes of the envelope for each envelope indicator of the flags (5–7 are invalid). */
const ENVELOPE_BYTES = [0, 32, 48, 48, 64];

/** The WKB inside a GeoPackage binary geometry, or why there is none (the skip reason). */
export function gpkgWkb(blob: Uint8Array): { wkb: Buffer } | { reason: string } {
  if (blob.byteLength < 8 || blob[0] !== 0x47 || blob[1] !== 0x50) return { reason: 'not a GeoPackage geometry (no "GP" magic)' };
  if (blob[2] !== 0) return { reason: `GeoPackage geometry version ${blob[2]} is not 0` };
  const flags = blob[3]!;
  if (flags & 0x20) return { reason: 'an extended GeoPackage geometry (not a polygon)' };
  const envelope = (flags >> 1) & 0x07;
  if (envelope > 4) return { reason: `invalid envelope indicator ${envelope} in the geometry header` };
  if (flags & 0x10) return { reason: 'empty geometry' };
  const start = 8 + ENVELOPE_BYTES[envelope]!;
  if (blob.byteLength < start + 5) return { reason: 'the geometry is shorter than its header says' };
  return { wkb: Buffer.from(blob.buffer, blob.byteOffset + start, blob.byteLength - start) };
}

interface LayerRow { table_name: string; column_name: string; geometry_type_name: string; srs_id: number }

export function openGeoPackage(file: string, limits: ImportLimits): Source {
  const size = statSync(file).size;
  if (size > limits.maxGpkgBytes) throw new ImportError(`the GeoPackage is ${size} bytes, more than the limit of ${bytesText(limits.maxGpkgBytes)}`);
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(file, { readOnly: true });
    db.prepare('SELECT COUNT(*) FROM sqlite_master').get();
  } catch (e) {
    throw new ImportError(`the GeoPackage cannot be read: SQLite cannot open it (${(e as Error).message}); is it truncated or damaged?`);
  }
  try {
    const has = (t: string): boolean => !!db.prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?").get(t);
    for (const t of ['gpkg_contents', 'gpkg_geometry_columns', 'gpkg_spatial_ref_sys']) {
      if (!has(t)) throw new ImportError(`the file is not a GeoPackage: it has no ${t} table`);
    }
    const rows = db.prepare(`SELECT c.table_name, g.column_name, g.geometry_type_name, g.srs_id FROM gpkg_contents c
      JOIN gpkg_geometry_columns g ON g.table_name = c.table_name WHERE c.data_type = 'features' ORDER BY c.table_name LIMIT ?`).all(limits.maxLayers + 1) as unknown as LayerRow[];
    if (rows.length > limits.maxLayers) throw new ImportError(`the GeoPackage has more than ${limits.maxLayers} feature layers, past the limit of ${limits.maxLayers}`);
    const layers: (SourceLayer & { geometryColumn: string; problem?: string })[] = [];
    for (const r of rows) {
      if (typeof r.table_name !== 'string' || typeof r.column_name !== 'string') continue;
      if (!has(r.table_name)) continue;
      const info = db.prepare(`PRAGMA table_info(${q(r.table_name)})`).all() as { name: string; type: string; pk: number }[];
      if (info.length > limits.maxColumns + 2) throw new ImportError(`layer ${r.table_name} has ${info.length} columns, more than the limit of ${limits.maxColumns}`);
      const columns = info.filter((c) => c.name !== r.column_name).map((c) => ({ name: c.name, type: (c.type || 'any').toLowerCase() }));
      const problem = info.length > columns.length ? undefined
        : `column_name: gpkg_geometry_columns names ${JSON.stringify(r.column_name.slice(0, 200))} as the geometry column of layer ${r.table_name}, and the table has no such column`;
      const { n } = db.prepare(`SELECT COUNT(*) AS n FROM (SELECT 1 FROM ${q(r.table_name)} LIMIT ?)`).get(limits.maxFeatures + 1) as { n: number };
      const count = Number(n);
      let crs: SourceLayer['crs'] = null;
      let crsProblem: string | undefined;
      const srs = db.prepare('SELECT srs_name, organization, organization_coordsys_id, definition FROM gpkg_spatial_ref_sys WHERE srs_id = ?').get(r.srs_id) as
        { srs_name: string; organization: string; organization_coordsys_id: number; definition: string } | undefined;
      const what = `srs_id ${r.srs_id} of layer ${r.table_name} (gpkg_spatial_ref_sys)`;
      if (!srs) crsProblem = `the layer's srs_id ${r.srs_id} has no row in gpkg_spatial_ref_sys`;
      else if (r.srs_id === 0 || r.srs_id === -1 || String(srs.definition).trim().toLowerCase() === 'undefined') {
        crsProblem = `the layer's srs_id ${r.srs_id} is an undefined CRS (${srs.srs_name}): assign its CRS in GIS software first`;
      } else {
        try {
          const epsg = String(srs.organization).toUpperCase() === 'EPSG' && Number.isInteger(Number(srs.organization_coordsys_id)) ? Number(srs.organization_coordsys_id) : null;
          crs = parcelCrs({ epsg, wkt: typeof srs.definition === 'string' ? srs.definition : null }, what);
        } catch (e) {
          crsProblem = (e as Error).message;
        }
      }
      layers.push({ name: r.table_name, count, columns, crs, ...(crsProblem ? { crsProblem } : {}), geometryColumn: r.column_name, ...(problem ? { problem } : {}) });
    }
    const prepare = (sql: string, name: string) => {
      try {
        return db.prepare(sql);
      } catch (e) {
        throw damaged(e, `layer ${name}`);
      }
    };
    return {
      format: 'gpkg',
      layers: () => layers.map(({ geometryColumn: _, problem: __, ...l }) => l),
      *features(layer, c): Iterable<SourceFeature> {
        const l = layers.find((x) => x.name === layer.name)!;
        checkFeatureCount(l.count, `layer ${l.name}`, limits);
        if (l.problem) throw new ImportError(l.problem);
        // Integers as their exact text (a 64-bit id stays whole); other values as SQLite gives them.
        const text = (col: string): string => `CASE WHEN typeof(${q(col)}) = 'integer' THEN CAST(${q(col)} AS TEXT) ELSE ${q(col)} END`;
        const g = q(l.geometryColumn);
        // The blob is read only when its size is within the bound of one parcel's points (16 bytes each, plus rings and headers).
        const maxBlob = limits.maxVerticesPerParcel * 32 + 1_000_000;
        const stmt = prepare(`SELECT ${text(c.id)} AS id, ${c.name ? text(c.name) : 'NULL'} AS name, length(${g}) AS n, typeof(${g}) AS t,
          CASE WHEN length(${g}) <= ${maxBlob} THEN ${g} END AS g FROM ${q(l.name)} ORDER BY rowid`, l.name);
        let row = 0;
        const rows = stmt.iterate();
        for (;;) {
          let next: IteratorResult<Record<string, unknown>>;
          try {
            next = rows.next();
          } catch (e) {
            throw damaged(e, `row ${row + 1} of layer ${l.name}`);
          }
          if (next.done) return;
          const r = next.value;
          row++;
          const base = { row, id: r.id, name: r.name };
          if (r.t === 'null') { yield { ...base, geometry: null }; continue; }
          if (r.t !== 'blob') { yield { ...base, geometry: null, unreadable: `the geometry column holds ${String(r.t)}, not a GeoPackage geometry` }; continue; }
          if (r.g == null) { yield { ...base, geometry: null, unreadable: `the geometry is ${String(r.n)} bytes, more than a parcel of ${limits.maxVerticesPerParcel} points takes` }; continue; }
          const inner = gpkgWkb(r.g as Uint8Array);
          if ('reason' in inner) { yield { ...base, geometry: null, unreadable: inner.reason }; continue; }
          try {
            yield { ...base, geometry: wkx.Geometry.parse(inner.wkb).toGeoJSON() };
          } catch (e) {
            yield { ...base, geometry: null, unreadable: `malformed WKB (${(e as Error).message})` };
          }
        }
      },
      close: () => db.close(),
    };
  } catch (e) {
    db.close();
    throw damaged(e, 'reading its tables');
  }
}

/** An SQLite failure of a damaged file as an ImportError (an ImportError as it is). */
function damaged(e: unknown, doing: string): Error {
  if (e instanceof ImportError) return e;
  return new ImportError(`the GeoPackage cannot be read (${doing}: ${(e as Error).message}); is it truncated or damaged?`);
}
