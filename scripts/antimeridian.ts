import type { Feature, Geometry, MultiPolygon, Polygon, Position } from 'geojson';

/**
 * world-atlas geometry is made for spherical renderers (d3-geo): its rings are
 * stitched across the antimeridian (Chukotka, Wrangel Island and Fiji go from
 * 179.x° straight on to -180°/-17x°) and Antarctica's ring closes around the
 * South Pole by stepping from 180° back to -180°. A planar renderer such as
 * OpenLayers draws each of those steps as a segment across the whole world: the
 * horizontal lines near 69° and 71° N (with Wrangel's short vertical stroke
 * above them), one at -16° (Fiji) and one along Antarctica's edge.
 *
 * `planarize` turns such geometry into planar polygons that stay inside
 * [-180, 180]: each ring is unwrapped (longitudes made continuous), a ring
 * around a pole is closed through the pole, and the result is clipped into the
 * world strip, pieces beyond ±180° shifted back by 360°.
 */

const EPS = 1e-9;

/** Makes a ring's longitudes continuous (no step over 180°); closes a ring around a pole through the pole. */
function unwrapRing(ring: Position[]): Position[] {
  if (ring.length === 0) return [];
  const out: Position[] = [[ring[0]![0]!, ring[0]![1]!]];
  for (let i = 1; i < ring.length; i++) {
    const prev = out[i - 1]![0]!;
    let lon = ring[i]![0]!;
    while (lon - prev > 180) lon -= 360;
    while (lon - prev < -180) lon += 360;
    out.push([lon, ring[i]![1]!]);
  }
  const first = out[0]!;
  const last = out[out.length - 1]!;
  const turn = last[0]! - first[0]!;
  if (Math.abs(turn) > 180) {
    // The ring goes once around the globe: it encloses a pole. Close it over that pole.
    const meanLat = out.reduce((s, p) => s + p[1]!, 0) / out.length;
    const pole = meanLat < 0 ? -90 : 90;
    out.push([last[0]!, pole], [first[0]!, pole], [first[0]!, first[1]!]);
  }
  return out;
}

/** Sutherland–Hodgman clip of a ring against one vertical half-plane (x >= bound when keepAbove, else x <= bound). */
function clipHalf(ring: Position[], bound: number, keepAbove: boolean): Position[] {
  const inside = (p: Position): boolean => (keepAbove ? p[0]! >= bound - EPS : p[0]! <= bound + EPS);
  const out: Position[] = [];
  const n = ring.length;
  for (let i = 0; i < n; i++) {
    const cur = ring[i]!;
    const prev = ring[(i + n - 1) % n]!;
    const curIn = inside(cur);
    const prevIn = inside(prev);
    if (curIn !== prevIn) {
      const t = (bound - prev[0]!) / (cur[0]! - prev[0]!);
      out.push([bound, prev[1]! + t * (cur[1]! - prev[1]!)]);
    }
    if (curIn) out.push([cur[0]!, cur[1]!]);
  }
  return out;
}

/**
 * Clipping a concave ring leaves runs of points along the cut line (the part
 * that was cut away, flattened onto it). Keeps only the ends of each run, so
 * the cut is one straight edge and no stroke runs up and down the antimeridian.
 */
function collapseCutRuns(ring: Position[], lo: number, hi: number): Position[] {
  const onCut = (p: Position): number => (Math.abs(p[0]! - lo) < EPS ? -1 : Math.abs(p[0]! - hi) < EPS ? 1 : 0);
  const start = ring.findIndex((p) => onCut(p) === 0);
  if (start < 0) return [];
  const r = [...ring.slice(start), ...ring.slice(0, start)];
  const out: Position[] = [];
  for (let i = 0; i < r.length; i++) {
    const side = onCut(r[i]!);
    const before = onCut(r[i - 1] ?? r[r.length - 1]!);
    const after = onCut(r[(i + 1) % r.length]!);
    if (side !== 0 && side === before && side === after) continue;
    out.push(r[i]!);
  }
  return out;
}

function signedArea(ring: Position[]): number {
  let a = 0;
  for (let i = 0; i < ring.length; i++) {
    const p = ring[i]!;
    const q = ring[(i + 1) % ring.length]!;
    a += p[0]! * q[1]! - q[0]! * p[1]!;
  }
  return a / 2;
}

/** The ring shifted by dx, clipped to [-180, 180], closed; null when nothing with area is left. */
function clipRing(ring: Position[], dx: number): Position[] | null {
  const shifted = ring.map((p) => [p[0]! + dx, p[1]!] as Position);
  // Work on the open ring (no repeated closing point).
  const open = shifted.length > 1 && shifted[0]![0] === shifted[shifted.length - 1]![0] && shifted[0]![1] === shifted[shifted.length - 1]![1] ? shifted.slice(0, -1) : shifted;
  const clipped = collapseCutRuns(clipHalf(clipHalf(open, -180, true), 180, false), -180, 180);
  if (clipped.length < 3 || Math.abs(signedArea(clipped)) < 1e-12) return null;
  return [...clipped, [clipped[0]![0]!, clipped[0]![1]!]];
}

/** One polygon (outer ring + holes) as planar polygons inside [-180, 180]. */
function planarizePolygon(rings: Position[][]): Position[][][] {
  const unwrapped = rings.map(unwrapRing).filter((r) => r.length >= 4);
  if (unwrapped.length === 0) return [];
  let min = Infinity;
  let max = -Infinity;
  for (const r of unwrapped) for (const p of r) { min = Math.min(min, p[0]!); max = Math.max(max, p[0]!); }
  if (min >= -180 - EPS && max <= 180 + EPS) return [unwrapped];
  const out: Position[][][] = [];
  // Every 360° copy of the polygon that overlaps the world strip.
  for (let k = Math.ceil((-180 - max) / 360); k <= Math.floor((180 - min) / 360); k++) {
    const outer = clipRing(unwrapped[0]!, k * 360);
    if (!outer) continue;
    const holes = unwrapped.slice(1).map((h) => clipRing(h, k * 360)).filter((h): h is Position[] => h !== null);
    out.push([outer, ...holes]);
  }
  return out;
}

/** A (Multi)Polygon as a planar MultiPolygon inside [-180, 180]; other geometry as it is. */
export function planarizeGeometry(g: Geometry): Geometry {
  if (g.type !== 'Polygon' && g.type !== 'MultiPolygon') return g;
  const polys = g.type === 'Polygon' ? [(g as Polygon).coordinates] : (g as MultiPolygon).coordinates;
  const coordinates = polys.flatMap(planarizePolygon);
  return { type: 'MultiPolygon', coordinates };
}

/** Features with their polygons made planar (see {@link planarizeGeometry}). */
export function planarize<F extends Feature<Geometry | null>>(features: F[]): F[] {
  return features.map((f) => (f.geometry ? { ...f, geometry: planarizeGeometry(f.geometry) } : f));
}
