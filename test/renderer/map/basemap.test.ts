import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { booleanPointInPolygon, point } from '@turf/turf';
import type { Feature, Geometry, MultiPolygon, Position } from 'geojson';
import { describe, expect, it, vi } from 'vitest';
import { planarizeGeometry } from '../../../renderer/src/map/antimeridian';

// basemap.ts imports the TopoJSON with Vite's ?raw; read the same files here.
vi.mock('world-atlas/countries-110m.json?raw', () => ({ default: '{}' }));
const { topoToFeatures } = await import('../../../renderer/src/map/basemap');
const require = createRequire(import.meta.url);
const atlas = (name: string): string => readFileSync(require.resolve(`world-atlas/${name}.json`), 'utf8');

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
    const features = topoToFeatures(atlas(name));
    expect(longSegments(features, 30)).toEqual([]);
    for (const f of features) for (const poly of (f.geometry as MultiPolygon).coordinates) for (const ring of poly) {
      for (const p of ring) expect(Math.abs(p[0]!)).toBeLessThanOrEqual(180);
      expect(ring[0]).toEqual(ring[ring.length - 1]);
    }
  });

  it('keeps the land on both sides of the antimeridian (Chukotka, Wrangel, Fiji) and Antarctica', () => {
    const features = topoToFeatures(atlas('countries-110m'));
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
