/**
 * A source's CRS as a {@link ParcelCrs}: its EPSG code when the file names one (or the WKT's
 * authority, or an ESRI name of a WGS 84 CRS), and a definition the proj4 package takes: a PROJ
 * string for the codes below, else the WKT itself once proj4 has parsed it and projected a point.
 */
import proj4 from 'proj4';
import type { ParcelCrs } from '../geometry.js';
import { ImportError } from './limits.js';

/** PROJ strings of the EPSG codes met most in parcel files (WGS 84 and ETRS89 geographic and UTM, Web Mercator, LAEA Europe, Lambert-93). */
export function projStringFor(epsg: number): string | null {
  if (epsg === 4326) return '+proj=longlat +datum=WGS84 +no_defs';
  if (epsg === 4258) return '+proj=longlat +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +no_defs';
  if (epsg === 3857) return '+proj=merc +a=6378137 +b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m +nadgrids=@null +wktext +no_defs';
  if (epsg >= 32601 && epsg <= 32660) return `+proj=utm +zone=${epsg - 32600} +datum=WGS84 +units=m +no_defs`;
  if (epsg >= 32701 && epsg <= 32760) return `+proj=utm +zone=${epsg - 32700} +south +datum=WGS84 +units=m +no_defs`;
  if (epsg >= 25828 && epsg <= 25838) return `+proj=utm +zone=${epsg - 25800} +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs`;
  if (epsg === 3035) return '+proj=laea +lat_0=52 +lon_0=10 +x_0=4321000 +y_0=3210000 +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs';
  if (epsg === 2154) return '+proj=lcc +lat_0=46.5 +lon_0=3 +lat_1=49 +lat_2=44 +x_0=700000 +y_0=6600000 +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs';
  return null;
}

export const WGS84: ParcelCrs = { epsg: 4326, proj4: projStringFor(4326)!, wkt: null };

/** The EPSG code a WKT names for itself (WKT1's last top-level AUTHORITY, WKT2's last ID), or an ESRI WGS 84 name's. */
export function epsgOfWkt(wkt: string): number | null {
  const text = wkt.trim();
  // The root's own authority is the last one before its closing bracket.
  const tail = /(?:AUTHORITY|ID)\[\s*"EPSG"\s*,\s*"?(\d{4,6})"?\s*\]\s*\]\s*$/i.exec(text);
  if (tail) return Number(tail[1]);
  const esri = /^(?:PROJCS|GEOGCS)\[\s*"([^"]+)"/i.exec(text)?.[1];
  if (esri === 'GCS_WGS_1984') return 4326;
  const utm = /^WGS_1984_UTM_Zone_(\d{1,2})([NS])$/i.exec(esri ?? '');
  if (utm) return (utm[2]!.toUpperCase() === 'N' ? 32600 : 32700) + Number(utm[1]);
  const etrs = /^ETRS_1989_UTM_Zone_(\d{2})N$/i.exec(esri ?? '');
  if (etrs) return 25800 + Number(etrs[1]);
  return null;
}

/**
 * The CRS of a source from what it declares. `what` names the declaration for errors ("the .prj
 * file", "srs_id 32633 of gpkg_spatial_ref_sys"). Throws an ImportError when neither an EPSG code
 * the table knows nor a WKT proj4 reads is there.
 */
export function parcelCrs(declared: { epsg: number | null; wkt: string | null }, what: string): ParcelCrs {
  const wkt = declared.wkt?.trim() || null;
  const epsg = declared.epsg ?? (wkt ? epsgOfWkt(wkt) : null);
  const known = epsg != null ? projStringFor(epsg) : null;
  if (known) return { epsg, proj4: known, wkt };
  if (!wkt) throw new ImportError(`${what} names EPSG:${epsg} without a WKT definition, and that code is not one Swath knows (give the file a WKT definition of its CRS)`);
  try {
    const probe = proj4(wkt, 'EPSG:4326');
    probe.forward([0, 0]);
  } catch (e) {
    throw new ImportError(`${what}: proj4 cannot read its WKT definition (${(e as Error).message ?? String(e)})`);
  }
  return { epsg, proj4: wkt, wkt };
}

/** x,y of the CRS to lon/lat, or null for EPSG:4326 itself. */
export function toLonLat(crs: ParcelCrs): ((x: number, y: number) => [number, number]) | null {
  if (crs.epsg === 4326) return null;
  const conv = proj4(crs.proj4, 'EPSG:4326');
  return (x, y) => {
    try {
      return conv.forward([x, y]) as [number, number];
    } catch {
      return [NaN, NaN];
    }
  };
}
