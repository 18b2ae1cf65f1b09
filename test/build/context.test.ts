import { fromLonLat, toLonLat } from 'ol/proj';
import { describe, expect, it } from 'vitest';
import { placeFeatures, placesIn, waterFeatures } from '../../renderer/src/platform/map/context-layers';
import { MAJOR_PLACE_POPULATION, contextPlugin, packedPlaces, packedWater } from '../../scripts/context';

// The offline context at working zooms: named places and Natural Earth water, packed
// at build time and read back by the renderer exactly where they were.

const city = (name: string, lon: number, lat: number, population: number, featureCode = 'PPL') => ({ name, population, featureCode, loc: { coordinates: [lon, lat] as [number, number] } });

describe('offline context: places', () => {
  const cities = [
    city('Kreuzberg', 13.40, 52.50, 147_532, 'PPLX'),
    city('Berlin', 13.41, 52.52, 3_426_354, 'PPLC'),
    city('Hansaviertel', 13.34, 52.52, 5_629, 'PPLX'),
    city('Teltow', 13.27, 52.40, 19_530),
    city('Not a place', 13.0, 52.0, 50_000, 'STLMT'),
    city('Off the map', 10.0, 86.0, 2_000),
  ];

  it('splits the populated places into two tiers, largest first, and the renderer reads them back in place', () => {
    const major = packedPlaces('major', cities);
    const minor = packedPlaces('minor', cities);
    expect(major.names.split('\n')).toEqual(['Berlin', 'Kreuzberg', 'Teltow']);
    expect(major.population.every((p) => p >= MAJOR_PLACE_POPULATION)).toBe(true);
    expect(minor.names.split('\n')).toEqual(['Hansaviertel']);
    const features = placeFeatures(major);
    expect(features.map((f) => [f.get('name'), f.get('population')])).toEqual([['Berlin', 3_426_354], ['Kreuzberg', 147_532], ['Teltow', 19_530]]);
    const [lon, lat] = toLonLat(features[1]!.getGeometry()!.getCoordinates());
    const [x, y] = fromLonLat([13.40, 52.50]);
    expect(Math.hypot(features[1]!.getGeometry()!.getCoordinates()[0]! - x!, features[1]!.getGeometry()!.getCoordinates()[1]! - y!)).toBeLessThanOrEqual(10);
    expect(lon).toBeCloseTo(13.40, 3);
    expect(lat).toBeCloseTo(52.50, 3);
  });

  it('makes places only where the map asks, each once, also across the antimeridian', () => {
    const packed = packedPlaces('major', [...cities, city('Suva', 178.44, -18.14, 93_970), city('Apia', -171.76, -13.83, 40_407)]);
    const names = packed.names.split('\n');
    const made = new Uint8Array(names.length);
    const box = (w: number, s: number, e: number, n: number) => [...fromLonLat([w, s]), ...fromLonLat([e, n])];
    const nameOf = (fs: { get(k: string): unknown }[]) => fs.map((f) => f.get('name'));
    // Around Berlin's centre: Berlin and Kreuzberg, not Teltow (south-west) nor the Pacific.
    expect(nameOf(placesIn(packed, names, made, box(13.35, 52.45, 13.45, 52.55)))).toEqual(['Berlin', 'Kreuzberg']);
    // A wider view: only what was not made before.
    expect(nameOf(placesIn(packed, names, made, box(13.0, 52.0, 14.0, 53.0)))).toEqual(['Teltow']);
    expect(placesIn(packed, names, made, box(13.0, 52.0, 14.0, 53.0))).toEqual([]);
    // A view over the antimeridian reaches into the next world: Apia (171.76 W) shows east of Suva (178.44 E).
    const [x0, y0] = fromLonLat([175, -25]);
    const [x1, y1] = fromLonLat([195, -10]);
    expect(nameOf(placesIn(packed, names, made, [x0!, y0!, x1!, y1!]))).toEqual(['Suva', 'Apia']);
  });

  it('packs the real package: the districts of Berlin are named places', () => {
    const names = new Set(packedPlaces('major').names.split('\n'));
    expect(['Berlin', 'Kreuzberg', 'Neukölln', 'Paris', 'Tokyo'].every((n) => names.has(n))).toBe(true);
    expect(packedPlaces('minor').names.split('\n')).toContain('Hansaviertel');
  });
});

describe('offline context: water', () => {
  it('has Natural Earth 1:50m lakes as polygons and rivers as lines', async () => {
    const features = await waterFeatures(packedWater());
    const lakes = features.filter((f) => f.get('kind') === 'lake');
    const rivers = features.filter((f) => f.get('kind') === 'river');
    expect(lakes.length).toBeGreaterThan(100);
    expect(rivers.length).toBeGreaterThan(100);
    expect(lakes[0]!.getGeometry()!.getType()).toBe('MultiPolygon');
    expect(rivers[0]!.getGeometry()!.getType()).toBe('MultiLineString');
    // Lake Geneva (46.45 N, 6.5 E) is one of them.
    const [x, y] = fromLonLat([6.5, 46.45]);
    expect(lakes.some((f) => f.getGeometry()!.intersectsCoordinate([x!, y!]))).toBe(true);
  });

  it('serves each part as a virtual module and names the parts it knows', () => {
    const plugin = contextPlugin() as unknown as { resolveId(id: string): string | undefined; load(id: string): string | undefined };
    expect(plugin.resolveId('virtual:swath-basemap/110m')).toBeUndefined();
    expect(plugin.load(plugin.resolveId('virtual:swath-context/places-major')!)).toMatch(/^export default JSON\.parse\(/);
    expect(() => plugin.load(plugin.resolveId('virtual:swath-context/roads')!)).toThrow(/Unknown context part "roads" \(known: water, places-major, places-minor\)/);
  });
});
