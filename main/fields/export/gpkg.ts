import { DatabaseSync } from 'node:sqlite';
import wkx from 'wkx';
import type { ParcelCrs, ParcelGeometry, Position } from '../ports';
import { STAT_COLUMNS, parcelNames, statisticPages, yieldLoop, type ExportSource } from './rows.js';

/** GeoPackage's application id ("GPKG") and the version of the standard written (1.3.0). */
const GPKG_APPLICATION_ID = 0x47504b47;
const GPKG_USER_VERSION = 10300;
/** The srs_id of a set whose CRS has no EPSG code (GeoPackage leaves 32768 and above to the writer). */
const CUSTOM_SRS_ID = 100_000;

const WGS84_WKT = 'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],AUTHORITY["EPSG","4326"]]';

/** WKT of a WGS 84 / UTM zone (EPSG 326zz north, 327zz south), so a reader needs no EPSG database for the common case. */
function utmWkt(epsg: number): string | null {
  const north = epsg >= 32601 && epsg <= 32660;
  const south = epsg >= 32701 && epsg <= 32760;
  if (!north && !south) return null;
  const zone = epsg % 100;
  const name = `WGS 84 / UTM zone ${zone}${north ? 'N' : 'S'}`;
  return `PROJCS["${name}",${WGS84_WKT.replace(',AXIS["Latitude",NORTH],AXIS["Longitude",EAST]', '')},PROJECTION["Transverse_Mercator"],PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",${zone * 6 - 183}],PARAMETER["scale_factor",0.9996],PARAMETER["false_easting",500000],PARAMETER["false_northing",${north ? 0 : 10000000}],UNIT["metre",1,AUTHORITY["EPSG","9001"]],AXIS["Easting",EAST],AXIS["Northing",NORTH],AUTHORITY["EPSG","${epsg}"]]`;
}

/** The set's CRS as a gpkg_spatial_ref_sys row (its srs_id, organization, code and definition). */
export function srsRow(crs: ParcelCrs): { srsId: number; name: string; organization: string; code: number; definition: string } {
  if (crs.epsg === 4326) return { srsId: 4326, name: 'WGS 84 geodetic', organization: 'EPSG', code: 4326, definition: WGS84_WKT };
  if (crs.epsg !== null) return { srsId: crs.epsg, name: `EPSG:${crs.epsg}`, organization: 'EPSG', code: crs.epsg, definition: crs.wkt ?? utmWkt(crs.epsg) ?? 'undefined' };
  return { srsId: CUSTOM_SRS_ID, name: 'Parcel set CRS', organization: 'NONE', code: CUSTOM_SRS_ID, definition: crs.wkt ?? 'undefined' };
}

/** The rings of a geometry as one multipolygon's polygons. */
function polygonsOf(g: ParcelGeometry): Position[][][] {
  return g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
}

/**
 * A GeoPackage binary geometry: the header ("GP", version 0, flags: little-endian with an XY
 * envelope), the srs_id and the envelope (min x, max x, min y, max y), then the WKB (wkx) of the
 * geometry as a MultiPolygon, so the layer holds one geometry type.
 */
export function gpkgGeometry(g: ParcelGeometry, srsId: number): { blob: Uint8Array; envelope: [number, number, number, number] } {
  const coordinates = polygonsOf(g);
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const polygon of coordinates) for (const ring of polygon) for (const [x, y] of ring) {
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  const wkb = wkx.Geometry.parseGeoJSON({ type: 'MultiPolygon', coordinates }).toWkb();
  const header = Buffer.alloc(8 + 32);
  header.write('GP', 0, 'latin1');
  header.writeUInt8(0, 2);
  header.writeUInt8(0b0000_0011, 3);
  header.writeInt32LE(srsId, 4);
  header.writeDoubleLE(minX, 8);
  header.writeDoubleLE(maxX, 16);
  header.writeDoubleLE(minY, 24);
  header.writeDoubleLE(maxY, 32);
  return { blob: Buffer.concat([header, wkb]), envelope: [minX, minY, maxX, maxY] };
}

const SCHEMA = `
  CREATE TABLE gpkg_spatial_ref_sys (
    srs_name TEXT NOT NULL, srs_id INTEGER NOT NULL PRIMARY KEY, organization TEXT NOT NULL,
    organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
  CREATE TABLE gpkg_contents (
    table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE, description TEXT DEFAULT '',
    last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER,
    CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id));
  CREATE TABLE gpkg_geometry_columns (
    table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL, srs_id INTEGER NOT NULL,
    z TINYINT NOT NULL, m TINYINT NOT NULL,
    CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name),
    CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),
    CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id));
  CREATE TABLE parcels (
    fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, geom MULTIPOLYGON, parcel_id TEXT NOT NULL, name TEXT, parcel_index INTEGER NOT NULL);
  CREATE TABLE statistics (
    fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, parcel_id TEXT NOT NULL, name TEXT, date DATE NOT NULL,
    raster_id TEXT NOT NULL, raster TEXT NOT NULL, "index" TEXT NOT NULL, rule TEXT NOT NULL,
    ${STAT_COLUMNS.map(([, h]) => `${h} REAL`).join(', ')}, below_threshold BOOLEAN NOT NULL);
  CREATE INDEX statistics_parcel ON statistics (parcel_id, date);
`;

/**
 * Writes `source` as a GeoPackage at `file` (node:sqlite): the GPKG tables, a `parcels` feature
 * table (MultiPolygon in the set's CRS) and a `statistics` attribute table (data_type
 * 'attributes', one row per parcel and date, joined to the parcels by parcel_id). Pages of rows go
 * in one transaction each, with main's event loop given back between them. Returns the statistics' rows.
 */
export async function writeGeoPackage(file: string, source: ExportSource, signal?: AbortSignal): Promise<{ parcels: number; statistics: number }> {
  const db = new DatabaseSync(file);
  const srs = srsRow(source.set.crs);
  let parcels = 0;
  let statistics = 0;
  try {
    db.exec(`PRAGMA application_id = ${GPKG_APPLICATION_ID}; PRAGMA user_version = ${GPKG_USER_VERSION};`);
    db.exec('BEGIN');
    db.exec(SCHEMA);
    const srsInsert = db.prepare('INSERT OR IGNORE INTO gpkg_spatial_ref_sys (srs_name, srs_id, organization, organization_coordsys_id, definition, description) VALUES (?, ?, ?, ?, ?, ?)');
    srsInsert.run('WGS 84 geodetic', 4326, 'EPSG', 4326, WGS84_WKT, 'longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid');
    srsInsert.run('Undefined cartesian SRS', -1, 'NONE', -1, 'undefined', 'undefined cartesian coordinate reference system');
    srsInsert.run('Undefined geographic SRS', 0, 'NONE', 0, 'undefined', 'undefined geographic coordinate reference system');
    srsInsert.run(srs.name, srs.srsId, srs.organization, srs.code, srs.definition, source.set.crs.proj4);
    db.exec('COMMIT');

    const names = await parcelNames(source.parcels(), signal);
    const putParcel = db.prepare('INSERT INTO parcels (geom, parcel_id, name, parcel_index) VALUES (?, ?, ?, ?)');
    const extent = [Infinity, Infinity, -Infinity, -Infinity];
    for (const page of source.parcels()) {
      signal?.throwIfAborted();
      db.exec('BEGIN');
      for (const p of page) {
        const { blob, envelope } = gpkgGeometry(p.geometry, srs.srsId);
        putParcel.run(blob, p.id, p.name, p.index);
        extent[0] = Math.min(extent[0]!, envelope[0]);
        extent[1] = Math.min(extent[1]!, envelope[1]);
        extent[2] = Math.max(extent[2]!, envelope[2]);
        extent[3] = Math.max(extent[3]!, envelope[3]);
        parcels++;
      }
      db.exec('COMMIT');
      await yieldLoop();
    }

    const putStat = db.prepare(`INSERT INTO statistics (parcel_id, name, date, raster_id, raster, "index", rule, ${STAT_COLUMNS.map(([, h]) => h).join(', ')}, below_threshold)
      VALUES (${Array.from({ length: 7 + STAT_COLUMNS.length + 1 }, () => '?').join(', ')})`);
    for await (const page of statisticPages(source, signal)) {
      db.exec('BEGIN');
      for (const s of page) {
        const parcel = names.get(s.parcelIndex);
        putStat.run(parcel?.id ?? String(s.parcelIndex), parcel?.name ?? null, s.date, s.rasterId, source.rasterName(s.rasterId), s.index, s.rule,
          ...STAT_COLUMNS.map(([k]) => s[k] as number | null), s.belowThreshold ? 1 : 0);
        statistics++;
      }
      db.exec('COMMIT');
    }

    const has = parcels > 0;
    db.prepare(`INSERT INTO gpkg_contents (table_name, data_type, identifier, description, min_x, min_y, max_x, max_y, srs_id) VALUES (?, 'features', ?, ?, ?, ?, ?, ?, ?)`)
      .run('parcels', 'parcels', `Parcels of ${source.set.name}`, has ? extent[0]! : null, has ? extent[1]! : null, has ? extent[2]! : null, has ? extent[3]! : null, srs.srsId);
    db.prepare(`INSERT INTO gpkg_contents (table_name, data_type, identifier, description) VALUES ('statistics', 'attributes', 'statistics', ?)`)
      .run(`Statistics of ${source.set.name} per parcel and date (join on parcel_id)`);
    db.prepare(`INSERT INTO gpkg_geometry_columns (table_name, column_name, geometry_type_name, srs_id, z, m) VALUES ('parcels', 'geom', 'MULTIPOLYGON', ?, 0, 0)`).run(srs.srsId);
  } catch (e) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw e;
  } finally {
    db.close();
  }
  return { parcels, statistics };
}
