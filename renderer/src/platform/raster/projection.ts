import proj4 from 'proj4';
import { get as getProjection } from 'ol/proj';
import { register } from 'ol/proj/proj4';
import { EPSG_BUCKETS, type EpsgBucket } from './epsg/index';

/**
 * Makes any EPSG code usable by OpenLayers offline: 4326 and 3857 are built in, WGS 84 UTM zones
 * are derived from the zone number, and every other code is looked up on demand in the bundled
 * EPSG set (proj4 definitions from the epsg-index package, one small chunk per thousand codes)
 * and registered through ol/proj/proj4.
 */

/** A projection that is registered with OpenLayers. */
export interface ProjectionInfo {
  /** "EPSG:<n>", the code OpenLayers knows it by. */
  code: string;
  epsg: number;
  name: string;
  /** The proj4 definition used, or null for OpenLayers' built-ins. */
  proj4: string | null;
  /** Set when the definition was simplified (a datum grid Swath does not bundle). */
  note?: string;
}

/** Thrown for a code that is neither built in, a UTM zone, nor in the bundled EPSG set. */
export class UnknownProjectionError extends Error {
  /** Creates the error for `epsg`. */
  constructor(readonly epsg: number) {
    super(`EPSG:${epsg} is not in Swath's offline projection set (EPSG 4326, 3857, all WGS 84 UTM zones, and the EPSG registry's codes with a proj4 definition), so this raster cannot be placed on the map.`);
    this.name = 'UnknownProjectionError';
  }
}

const known = new Map<number, ProjectionInfo>();
const pending = new Map<number, Promise<ProjectionInfo>>();

/** The proj4 definition of a WGS 84 UTM zone (EPSG 32601-32660 north, 32701-32760 south), else null. */
export function utmDefinition(epsg: number): string | null {
  if (epsg >= 32601 && epsg <= 32660) return `+proj=utm +zone=${epsg - 32600} +datum=WGS84 +units=m +no_defs`;
  if (epsg >= 32701 && epsg <= 32760) return `+proj=utm +zone=${epsg - 32700} +south +datum=WGS84 +units=m +no_defs`;
  return null;
}

/** The name of a WGS 84 UTM zone code, e.g. "WGS 84 / UTM zone 33N". */
function utmName(epsg: number): string {
  return epsg < 32700 ? `WGS 84 / UTM zone ${epsg - 32600}N` : `WGS 84 / UTM zone ${epsg - 32700}S`;
}

/**
 * proj4js needs grid files for +nadgrids; Swath bundles none, so a mandatory grid is dropped
 * (keeping any +towgs84) and the caller is told the result is approximate.
 */
export function withoutGrids(def: string): { def: string; note?: string } {
  const m = /\s\+nadgrids=(\S+)/.exec(def);
  if (!m) return { def };
  const grids = m[1]!.split(',').filter((g) => !g.startsWith('@') && g !== 'null');
  const stripped = def.replace(m[0], '');
  if (grids.length === 0) return { def: stripped };
  return { def: stripped, note: `The datum grid ${grids.join(', ')} is not bundled; positions may be off by up to a few hundred metres.` };
}

/** The bundled definition of an EPSG code: [name, proj4], or null when the set does not have it. */
export async function lookupEpsg(epsg: number): Promise<[string, string] | null> {
  const load = EPSG_BUCKETS[Math.floor(epsg / 1000)];
  if (!load) return null;
  const bucket: EpsgBucket = (await load()).default;
  const hit = bucket[String(epsg)];
  return hit && hit.length === 2 ? [hit[0]!, hit[1]!] : null;
}

function define(epsg: number, name: string, def: string, note?: string): ProjectionInfo {
  const code = `EPSG:${epsg}`;
  proj4.defs(code, def);
  register(proj4);
  const info: ProjectionInfo = { code, epsg, name, proj4: def, ...(note ? { note } : {}) };
  known.set(epsg, info);
  return info;
}

/** Registers `epsg` with OpenLayers if needed and describes it; rejects with {@link UnknownProjectionError}. */
export function ensureProjection(epsg: number): Promise<ProjectionInfo> {
  const hit = known.get(epsg);
  if (hit) return Promise.resolve(hit);
  if (epsg === 4326 || epsg === 3857) {
    const info: ProjectionInfo = { code: `EPSG:${epsg}`, epsg, name: epsg === 4326 ? 'WGS 84' : 'WGS 84 / Pseudo-Mercator', proj4: null };
    if (!getProjection(info.code)) throw new Error(`OpenLayers lost its built-in ${info.code}`);
    known.set(epsg, info);
    return Promise.resolve(info);
  }
  if (!Number.isInteger(epsg) || epsg <= 0) return Promise.reject(new UnknownProjectionError(epsg));
  const utm = utmDefinition(epsg);
  if (utm) return Promise.resolve(define(epsg, utmName(epsg), utm));
  let p = pending.get(epsg);
  if (!p) {
    p = (async () => {
      const found = await lookupEpsg(epsg);
      if (!found) throw new UnknownProjectionError(epsg);
      const { def, note } = withoutGrids(found[1]);
      return define(epsg, found[0], def, note);
    })().finally(() => pending.delete(epsg));
    pending.set(epsg, p);
  }
  return p;
}

/** The registered projection of `epsg`, if {@link ensureProjection} has succeeded for it. */
export function registeredProjection(epsg: number): ProjectionInfo | undefined {
  return known.get(epsg);
}
