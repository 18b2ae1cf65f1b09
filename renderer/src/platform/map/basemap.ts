import Feature, { type FeatureLike } from 'ol/Feature';
import MultiLineString from 'ol/geom/MultiLineString';
import MultiPolygon from 'ol/geom/MultiPolygon';
import VectorImageLayer from 'ol/layer/VectorImage';
import VectorSource from 'ol/source/Vector';
import { Fill, Stroke, Style } from 'ol/style';
import countries110 from 'virtual:swath-basemap/110m';
import { checkBasemapVersion, unpackBasemap, unpackCountry, type PackedBasemap, type UnpackedCountry } from '../../../../common/basemap-pack';
import { mapInSlices } from '../lib/idle';

/**
 * The offline basemap: world-atlas country outlines over a water-coloured map
 * background, no network. 1:110m loads at start (small, fast cold start); the
 * 1:50m set replaces it once the start has settled, made in slices that yield to the window. Both come made planar and
 * projected at build time (scripts/basemap.ts). The online layer (OSM or an
 * internal XYZ server) is the settings feature's contribution (features/settings/views/online-layer.ts).
 */

/**
 * Packed countries (common/basemap-pack.ts) as map features in EPSG:3857, each with its `name` and
 * `iso` code. The code is not the feature id: a few territories share their country's code (and
 * some have none), and a source keeps only the first feature of an id.
 */
export function countryFeatures(packed: PackedBasemap): Feature<MultiPolygon>[] {
  return unpackBasemap(packed).map(countryFeature);
}

function countryFeature({ id, name, flat, endss, borders }: UnpackedCountry): Feature<MultiPolygon> {
  return new Feature({ geometry: new MultiPolygon(flat, 'XY', endss), name, iso: id, borders: borders ? new MultiLineString(borders.flat, 'XY', borders.ends) : undefined });
}

/** {@link countryFeatures} in slices that yield to the window (the 1:50m set is thousands of rings). */
export async function countryFeaturesInSlices(packed: PackedBasemap): Promise<Feature<MultiPolygon>[]> {
  checkBasemapVersion(packed);
  return mapInSlices(packed.countries, (country) => countryFeature(unpackCountry(country, packed.unit)));
}

function cssVar(name: string, fallback: string): string {
  if (typeof document === 'undefined') return fallback;
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}

/**
 * A country is filled and stroked in one go, except the few cut at the antimeridian: their outline is
 * drawn from their `borders` lines, which leave the cut out.
 */
function makeStyle(): (feature: FeatureLike) => Style | Style[] {
  const fill = new Fill({ color: cssVar('--map-land', '#eef0e8') });
  const stroke = new Stroke({ color: cssVar('--map-border', '#a5acb8'), width: 0.8 });
  const whole = new Style({ fill, stroke });
  const cut = [new Style({ fill }), new Style({ stroke, geometry: (f) => f.get('borders') as MultiLineString })];
  return (feature) => (feature.get('borders') ? cut : whole);
}

/** The country layer plus functions to restyle it (theme change) and to upgrade it to 1:50m. */
export function createBasemap(): { layer: VectorImageLayer<VectorSource<Feature<MultiPolygon>>>; restyle(): void; upgrade(): Promise<void> } {
  const source = new VectorSource<Feature<MultiPolygon>>({ features: countryFeatures(countries110), overlaps: false });
  let style = makeStyle();
  const layer = new VectorImageLayer({ source, style: (feature) => style(feature), zIndex: 0, imageRatio: 1.5, properties: { swathBasemap: true }, declutter: false });
  return {
    layer,
    restyle() {
      style = makeStyle();
      layer.changed();
    },
    async upgrade() {
      const features = await countryFeaturesInSlices((await import('virtual:swath-basemap/50m')).default);
      source.clear(true);
      source.addFeatures(features);
    },
  };
}
