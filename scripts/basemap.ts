import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Feature, FeatureCollection, Geometry, MultiPolygon } from 'geojson';
import { fromLonLat } from 'ol/proj.js';
import { feature } from 'topojson-client';
import type { Topology } from 'topojson-specification';
import type { Plugin } from 'vite';
import { packBasemap, type PackedBasemap } from '../common/basemap-pack';
import { planarize } from './antimeridian';

/**
 * Build-time preparation of the offline basemap (see common/basemap-pack.ts):
 * world-atlas' country TopoJSON, made planar (antimeridian.ts), projected to
 * Web Mercator and packed. The renderer imports it as
 * `virtual:swath-basemap/110m` (first frame) and `virtual:swath-basemap/50m`
 * (when the map is idle); {@link basemapPlugin} makes those modules.
 */

export const BASEMAP_SCALES = ['110m', '50m'] as const;
export type BasemapScale = (typeof BASEMAP_SCALES)[number];

const PREFIX = 'virtual:swath-basemap/';

/** Reads a world-atlas TopoJSON text into GeoJSON country features, made planar. */
export function topoToFeatures(text: string): Feature<Geometry>[] {
  const topo = JSON.parse(text) as Topology;
  const fc = feature(topo, topo.objects.countries!) as FeatureCollection<Geometry> | Feature<Geometry>;
  return planarize('features' in fc ? fc.features : [fc]);
}

/** The world-atlas countries at one scale, planar, in EPSG:3857 and packed. */
export function packedCountries(scale: BasemapScale): PackedBasemap {
  const file = createRequire(import.meta.url).resolve(`world-atlas/countries-${scale}.json`);
  const features = topoToFeatures(readFileSync(file, 'utf8'));
  return packBasemap(
    features.map((f) => ({
      id: f.id === undefined ? '' : String(f.id),
      name: String(f.properties?.name ?? ''),
      polygons: f.geometry?.type === 'MultiPolygon' ? (f.geometry as MultiPolygon).coordinates.map((poly) => poly.map((ring) => ring.map((p) => fromLonLat(p)))) : [],
    })),
  );
}

/** Serves `virtual:swath-basemap/<scale>` as a module whose default export is the packed countries. */
export function basemapPlugin(): Plugin {
  return {
    name: 'swath-basemap',
    resolveId(id) {
      return id.startsWith(PREFIX) ? '\0' + id : undefined;
    },
    load(id) {
      if (!id.startsWith('\0' + PREFIX)) return undefined;
      const scale = id.slice(PREFIX.length + 1) as BasemapScale;
      if (!BASEMAP_SCALES.includes(scale)) throw new Error(`Unknown basemap scale "${scale}" (known: ${BASEMAP_SCALES.join(', ')}).`);
      // JSON.parse of a string literal: the quickest form for the engine to read.
      return `export default JSON.parse(${JSON.stringify(JSON.stringify(packedCountries(scale)))});`;
    },
  };
}
