import type { Feature as GeoJsonFeature, FeatureCollection, Geometry as GeoJsonGeometry } from 'geojson';
import GeoJSON from 'ol/format/GeoJSON';
import VectorImageLayer from 'ol/layer/VectorImage';
import TileLayer from 'ol/layer/Tile';
import VectorSource from 'ol/source/Vector';
import OSM from 'ol/source/OSM';
import { Fill, Stroke, Style } from 'ol/style';
import { feature } from 'topojson-client';
import type { Topology } from 'topojson-specification';
import countries110 from 'world-atlas/countries-110m.json?raw';
import { planarize } from './antimeridian';

/**
 * The offline basemap: world-atlas country outlines over a water-coloured map
 * background, no network. 1:110m loads at start (small, fast cold start); the
 * 1:50m set replaces it once the map is idle. The OSM layer is optional and off
 * by default.
 */

/**
 * Reads a world-atlas TopoJSON text into GeoJSON country features, made planar:
 * world-atlas is stitched across the antimeridian for spherical renderers,
 * which OpenLayers would draw as lines across the world (see antimeridian.ts).
 */
export function topoToFeatures(text: string): GeoJsonFeature<GeoJsonGeometry>[] {
  const topo = JSON.parse(text) as Topology;
  const fc = feature(topo, topo.objects.countries!) as FeatureCollection<GeoJsonGeometry> | GeoJsonFeature<GeoJsonGeometry>;
  return planarize('features' in fc ? fc.features : [fc]);
}

function cssVar(name: string, fallback: string): string {
  if (typeof document === 'undefined') return fallback;
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}

function makeStyle(): Style {
  return new Style({
    fill: new Fill({ color: cssVar('--map-land', '#eef0e8') }),
    stroke: new Stroke({ color: cssVar('--map-border', '#a5acb8'), width: 0.8 }),
  });
}

/** The country layer plus functions to restyle it (theme change) and to upgrade it to 1:50m. */
export function createBasemap(): { layer: VectorImageLayer<VectorSource>; restyle(): void; upgrade(): Promise<void> } {
  const format = new GeoJSON({ featureProjection: 'EPSG:3857', dataProjection: 'EPSG:4326' });
  const source = new VectorSource({ features: format.readFeatures({ type: 'FeatureCollection', features: topoToFeatures(countries110) }), overlaps: false });
  let style = makeStyle();
  const layer = new VectorImageLayer({ source, style: () => style, zIndex: 0, imageRatio: 1.5, properties: { swathBasemap: true }, declutter: false });
  return {
    layer,
    restyle() {
      style = makeStyle();
      layer.changed();
    },
    async upgrade() {
      const text = (await import('world-atlas/countries-50m.json?raw')).default;
      const features = format.readFeatures({ type: 'FeatureCollection', features: topoToFeatures(text) });
      source.clear(true);
      source.addFeatures(features);
    },
  };
}

/** The optional OpenStreetMap layer (online only; off unless Settings turn it on). */
export function createOsmLayer(onError: (message: string) => void): TileLayer<OSM> {
  const layer = new TileLayer<OSM>({ visible: false, zIndex: 1, opacity: 0.85 });
  setOnlineSource(layer, null, null, onError);
  return layer;
}

/**
 * Points the online layer at OpenStreetMap (url null) or at the internal XYZ server an admin policy names
 * (the CSP allows exactly that host then).
 */
export function setOnlineSource(layer: TileLayer<OSM>, url: string | null, attribution: string | null, onError: (message: string) => void): void {
  const source = url ? new OSM({ url, crossOrigin: 'anonymous', attributions: attribution ?? undefined }) : new OSM({ crossOrigin: 'anonymous' });
  const name = url ? `The internal basemap (${new URL(url.replace(/[{}]/g, '')).host})` : 'OpenStreetMap';
  let reported = false;
  source.on('tileloaderror', () => {
    if (reported) return;
    reported = true;
    onError(url ? `${name} tiles did not load: the network or the tile server is unavailable.` : 'OpenStreetMap tiles did not load: the network or tile.openstreetmap.org is unavailable.');
  });
  source.on('tileloadend', () => {
    reported = false;
  });
  layer.setSource(source);
}
