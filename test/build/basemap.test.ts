import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import { point } from '@turf/helpers';
import type { Feature, Geometry, MultiPolygon, Position } from 'geojson';
import { fromLonLat } from 'ol/proj.js';
import { describe, expect, it } from 'vitest';
import { packBasemap, unpackBasemap } from '../../common/basemap-pack';
import { planarizeGeometry } from '../../scripts/antimeridian';
import { basemapPlugin, packedCountries, topoToFeatures } from '../../scripts/basemap';

const require = createRequire(import.meta.url);
const atlas = (name: string): string => readFileSync(require.resolve(`world-atlas/${name}.json`), 'utf8');

// Each atlas made planar, and each scale packed and unpacked, once per file: the tests only read them.
const planarCache = new Map<string, Feature<Geometry>[]>();
const planarOf = (name: string): Feature<Geometry>[] => planarCache.get(name) ?? planarCache.set(name, topoToFeatures(atlas(name))).get(name)!;
const unpackedCache = new Map<string, ReturnType<typeof unpackBasemap>>();
const unpackedOf = (scale: '110m' | '50m'): ReturnType<typeof unpackBasemap> =>
  unpackedCache.get(scale) ?? unpackedCache.set(scale, unpackBasemap(packedCountries(scale))).get(scale)!;

/** Segments whose ends are more than `limit` degrees of longitude apart, except along the polar edges (outside Web Mercator). */
function longSegments(features: Feature<Geometry>[], limit: number): string[] {
  const found: string[] = [];
  for (const f of features) {
    const g = f.geometry as MultiPolygon;
    for (const poly of g.coordinates) for (const ring of poly) {
      for (let i = 1; i < ring.length; i++) {
        const [a, b] = [ring[i - 1]!, ring[i]!];
        if (Math.abs(a[1]!) >= 85.06 && Math.abs(b[1]!) >= 85.06) continue;
        if (Math.abs(b[0]! - a[0]!) > limit) found.push(`${String(f.properties?.name)} ${JSON.stringify(a)} -> ${JSON.stringify(b)}`);
      }
    }
  }
  return found;
}

function named(features: Feature<Geometry>[], name: string): Feature<MultiPolygon> {
  return features.find((f) => f.properties?.name === name) as Feature<MultiPolygon>;
}

describe('basemap: world-atlas made planar', () => {
  it.each(['countries-110m', 'countries-50m'])('%s has no segment across the world and no coordinate outside ±180°', (name) => {
    const features = planarOf(name);
    expect(longSegments(features, 30)).toEqual([]);
    const outside: string[] = [];
    const open: string[] = [];
    for (const f of features) for (const poly of (f.geometry as MultiPolygon).coordinates) for (const ring of poly) {
      for (const p of ring) if (!(Math.abs(p[0]!) <= 180)) outside.push(`${String(f.properties?.name)} ${JSON.stringify(p)}`);
      if (JSON.stringify(ring[0]) !== JSON.stringify(ring[ring.length - 1])) open.push(`${String(f.properties?.name)} ${JSON.stringify(ring[0])}`);
    }
    expect(outside).toEqual([]);
    expect(open).toEqual([]);
  });

  it('keeps the land on both sides of the antimeridian (Chukotka, Wrangel, Fiji) and Antarctica', () => {
    const features = planarOf('countries-110m');
    const inside = (name: string, lon: number, lat: number): boolean => booleanPointInPolygon(point([lon, lat]), named(features, name));
    expect(inside('Russia', 37.6, 55.75)).toBe(true); // Moscow
    expect(inside('Russia', 177, 64.7)).toBe(true); // Anadyr, west of 180°
    expect(inside('Russia', -173, 65.5)).toBe(true); // Chukotka east of 180°
    expect(inside('Russia', -179.5, 71.2)).toBe(true); // Wrangel Island, east part
    expect(inside('Russia', 0, 69)).toBe(false); // the old line across the Norwegian Sea is gone
    expect(inside('Fiji', 178.5, -17.8)).toBe(true);
    expect(inside('Fiji', -179.9, -16.3)).toBe(true);
    expect(inside('Antarctica', 0, -80)).toBe(true);
    expect(inside('Antarctica', 0, -60)).toBe(false);
  });

  it('splits a ring that crosses the antimeridian and closes a ring around a pole', () => {
    const ring: Position[] = [[170, 60], [-170, 60], [-170, 70], [170, 70], [170, 60]];
    const g = planarizeGeometry({ type: 'Polygon', coordinates: [ring] }) as MultiPolygon;
    expect(g.coordinates).toHaveLength(2);
    const xs = g.coordinates.map((p) => p[0]!.map((q) => q[0]!));
    expect(xs.map((x) => [Math.min(...x), Math.max(...x)]).sort((a, b) => a[0]! - b[0]!)).toEqual([[-180, -170], [170, 180]]);
    const cap = planarizeGeometry({ type: 'Polygon', coordinates: [[[-180, -70], [0, -75], [180, -70], [-180, -70]]] }) as MultiPolygon;
    expect(cap.coordinates).toHaveLength(1);
    expect(cap.coordinates[0]![0]!.some((p) => p[1] === -90)).toBe(true);
    expect(booleanPointInPolygon(point([90, -85]), cap)).toBe(true);
  });
});

describe('basemap: packed at build time', () => {
  it('round-trips polygons, holes and ring ends to within half a step', () => {
    const square = (x: number, y: number, s: number): number[][] => [[x, y], [x + s, y], [x + s, y + s], [x, y + s], [x, y]];
    const polygons = [[square(1_000_003, -2_000_004, 50_000), square(1_010_000, -1_990_000, 1_000)], [square(-7, 7, 30)]];
    const [c] = unpackBasemap(packBasemap([{ id: '1', name: 'A', polygons }], 10));
    expect(c!.endss).toEqual([[10, 20], [30]]);
    const flat = polygons.flat(2).flat();
    expect(c!.flat).toHaveLength(flat.length);
    c!.flat.forEach((v, i) => expect(Math.abs(v - flat[i]!)).toBeLessThanOrEqual(5));
    expect(c!.flat.slice(0, 2)).toEqual(c!.flat.slice(8, 10)); // rings stay closed
  });

  it('refuses a vertex that is not a finite coordinate, and data that does not add up', () => {
    expect(() => packBasemap([{ id: '1', name: 'Nowhere', polygons: [[[[0, 0], [Infinity, 0], [0, 0]]]] }])).toThrow(/Nowhere: a vertex is not a finite coordinate/);
    expect(() => unpackBasemap({ version: 1, unit: 10, countries: [['1', 'Short', [[3]], [0, 0, 1, 1]]] })).toThrow(/Short: ring lengths \(3 vertices\) do not match the 2 vertices/);
    expect(() => unpackBasemap({ version: 2, unit: 10, countries: [] } as never)).toThrow(/version 2 is not supported/);
  });

  it.each(['110m', '50m'] as const)('countries-%s: every planar country, in EPSG:3857, within 10 m', (scale) => {
    const planar = planarOf(`countries-${scale}`);
    const unpacked = unpackedOf(scale);
    expect(unpacked.map((c) => c.name)).toEqual(planar.map((f) => f.properties?.name));
    unpacked.forEach((c, i) => {
      const coords = (planar[i]!.geometry as MultiPolygon).coordinates;
      const flat = coords.flat(2).flatMap((p) => fromLonLat(p));
      expect(c.flat.length).toBe(flat.length);
      let worst = 0;
      for (let k = 0; k < flat.length; k++) worst = Math.max(worst, Math.abs(c.flat[k]! - flat[k]!));
      expect(worst, c.name).toBeLessThanOrEqual(5);
      expect(c.endss.at(-1)?.at(-1) ?? 0).toBe(flat.length);
    });
  });

  it('draws borders without the antimeridian cut: a square cut at the east edge', () => {
    const E = 20037508.342789244;
    // A polygon cut at 180°: its east side runs along the seam (two segments), the rest is border.
    const ring = [[E - 5e5, 0], [E, 0], [E, 2e5], [E, 4e5], [E - 5e5, 4e5], [E - 5e5, 0]];
    const [c] = unpackBasemap(packBasemap([{ id: '', name: 'Cut', polygons: [[ring]] }], 10));
    const q = (v: number) => Math.round(v / 10) * 10;
    expect(c!.borders).toEqual({ flat: [E - 5e5, 0, E, 0, E, 4e5, E - 5e5, 4e5, E - 5e5, 0].map(q), ends: [4, 10] });
    // A country that does not touch the seam is stroked from its rings.
    const [whole] = unpackBasemap(packBasemap([{ id: '', name: 'Whole', polygons: [[[[0, 0], [10, 0], [10, 10], [0, 0]]]] }], 10));
    expect(whole!.borders).toBeNull();
  });

  it.each(['110m', '50m'] as const)('countries-%s: the countries cut at the antimeridian keep every border but the cut', (scale) => {
    const unpacked = unpackedOf(scale);
    const seam = (x0: number, x1: number) => Math.abs(x0) > 20037498 && Math.abs(x1) > 20037498 && x0 > 0 === x1 > 0;
    expect(unpacked.filter((c) => c.borders).map((c) => c.name).sort()).toEqual(['Antarctica', 'Fiji', 'Russia']);
    for (const c of unpacked.filter((k) => k.borders)) {
      let ringSegments = 0;
      let cutSegments = 0;
      let start = 0;
      for (const end of c.endss.flat()) {
        for (let i = start; i + 3 < end; i += 2) {
          ringSegments++;
          if (seam(c.flat[i]!, c.flat[i + 2]!)) cutSegments++;
        }
        start = end;
      }
      let lineSegments = 0;
      start = 0;
      for (const end of c.borders!.ends) {
        for (let i = start; i + 3 < end; i += 2) {
          lineSegments++;
          expect(seam(c.borders!.flat[i]!, c.borders!.flat[i + 2]!), c.name).toBe(false);
        }
        start = end;
      }
      expect(cutSegments, c.name).toBeGreaterThan(0);
      expect(lineSegments, c.name).toBe(ringSegments - cutSegments);
    }
  });

  it('serves the scales as modules and refuses an unknown one', () => {
    const plugin = basemapPlugin() as unknown as { resolveId(id: string): string | undefined; load(id: string): string | undefined };
    const id = plugin.resolveId('virtual:swath-basemap/110m')!;
    const code = plugin.load(id)!;
    const data = JSON.parse(JSON.parse(/^export default JSON\.parse\((.*)\);$/s.exec(code)![1]!) as string) as ReturnType<typeof packedCountries>;
    expect(data.countries.find((c) => c[1] === 'Fiji')).toBeTruthy();
    expect(plugin.resolveId('world-atlas/countries-110m.json')).toBeUndefined();
    expect(() => plugin.load(plugin.resolveId('virtual:swath-basemap/10m')!)).toThrow(/Unknown basemap scale "10m"/);
  });
});
