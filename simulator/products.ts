import { createHash } from 'node:crypto';
import { CONSTELLATIONS } from './catalog.js';
import { addDays, isoDate, parseUtc } from './dates.js';
import { intersect, toWkt } from './geo/aoi.js';
import { searchTiles } from './geo/tile-grid.js';
import type { Polygonal } from './state.js';

/** Revisit period in days of each constellation, for synthetic product dates. */
const REVISIT: Record<string, number> = {
  Sentinel1: 6, Sentinel2: 5, Sentinel2L1: 5, Landsat89: 8, Sentinel3OLCI: 2, Sentinel3SLSTR: 2,
  WFIAmazonia: 5, MUXCBERS4: 26, AWFICBERS4: 5, MUXCBERS4A: 31, WFICBERS4A: 5,
};
const MAX_ITEMS = 2000;

function hashInt(s: string): number {
  return createHash('sha1').update(s).digest().readUInt32BE(0);
}

/** Dates in [from, to] on which a constellation passes over a tile: a fixed phase per tile. */
function passes(constellation: string, tileGuid: string, from: string, to: string): string[] {
  const period = REVISIT[constellation] ?? 5;
  const phase = hashInt(`${constellation}:${tileGuid}`) % period;
  const start = parseUtc(from);
  const epochDays = Math.floor(start / 86_400_000);
  const first = epochDays + ((phase - (epochDays % period)) + period) % period;
  const out: string[] = [];
  for (let d = first; d * 86_400_000 <= parseUtc(to); d += period) out.push(isoDate(d * 86_400_000));
  return out;
}

/** Products over the AOI: per internal tile and constellation, each pass in the period. */
export function satelliteProducts(aoi: Polygonal, from: string, to: string, constellations: string[] | null | undefined) {
  const list = constellations?.length ? constellations : [...CONSTELLATIONS];
  const { cells } = searchTiles(aoi, { miniTiles: false, limit: 200 });
  const products = [];
  let truncated = false;
  outer: for (const cell of cells) {
    const part = intersect(aoi, cell.geometry);
    if (!part) continue;
    const wkt = toWkt(part);
    for (const c of list) {
      for (const date of passes(c, cell.Guid, isoDate(parseUtc(from)), isoDate(parseUtc(to)))) {
        if (products.length >= MAX_ITEMS) { truncated = true; break outer; }
        const h = hashInt(`${c}:${cell.Guid}:${date}`);
        products.push({
          ProductId: `${c.toUpperCase()}_${date.replaceAll('-', '')}_${cell.Guid.slice(0, 8).toUpperCase()}`,
          SatelliteConstellation: c, Wkt: wkt, Date: date,
          CloudCoverPercent: c === 'Sentinel1' ? 0 : Math.round((h % 10000) / 100),
          TileGuid: cell.Guid,
        });
      }
    }
  }
  products.sort((a, b) => a.Date.localeCompare(b.Date) || a.SatelliteConstellation.localeCompare(b.SatelliteConstellation));
  return { Products: products, Truncated: truncated };
}

/** Planned acquisitions over the AOI between from (default now) and to (default 30 days later). */
export function acquisitionPlans(aoi: Polygonal, now: number, from: string | null | undefined, to: string | null | undefined, constellations: string[] | null | undefined) {
  const start = from ? isoDate(parseUtc(from)) : isoDate(now);
  const end = to ? isoDate(parseUtc(to)) : addDays(start, 30);
  const res = satelliteProducts(aoi, start, end, constellations);
  return {
    AcquisitionPlans: res.Products.map((p) => {
      const h = hashInt(p.ProductId);
      return {
        PlanId: `PLAN_${p.ProductId}`, SatelliteConstellation: p.SatelliteConstellation, Wkt: p.Wkt, Date: p.Date,
        Orbit: 1 + (h % 175), Direction: (h & 1 ? 'Ascending' : 'Descending') as 'Ascending' | 'Descending',
      };
    }),
    Truncated: res.Truncated,
  };
}
