import { describe, expect, it } from 'vitest';
import {
  aoiProblems, areaKm2, boxAreaKm2, closeRings, findSelfIntersection, isUtmEpsg, parseAoiText, toWkt, utmEpsgFor, vertexCount, type PolygonalGeometry,
} from '../../../../renderer/src/platform/lib/geometry';

const BERLIN = 'POLYGON((13.25 52.40, 13.60 52.40, 13.60 52.60, 13.25 52.60, 13.25 52.40))';

function geom(text: string): PolygonalGeometry {
  const r = parseAoiText(text);
  if (!r.ok) throw new Error(r.message);
  return r.geometry as PolygonalGeometry;
}

describe('AOI geometry', () => {
  it('reads WKT and measures the demo order area like the simulator (526.89 km²)', () => {
    const g = geom(BERLIN);
    expect(g.type).toBe('Polygon');
    expect(areaKm2(g)).toBeCloseTo(526.89, 0);
    expect(vertexCount(g)).toBe(4);
    expect(utmEpsgFor(g)).toBe(32633);
    expect(aoiProblems(g, { maxAreaKm2: 2500 })).toEqual([]);
  });

  it('measures a lon/lat box on the sphere', () => {
    // One degree square at the equator is about 12,364 km².
    expect(boxAreaKm2([0, 0, 1, 1])).toBeCloseTo(12364, -1);
  });

  it('unwraps Feature and FeatureCollection GeoJSON; several polygons become a MultiPolygon', () => {
    const poly = { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]] };
    const feature = parseAoiText(JSON.stringify({ type: 'Feature', properties: {}, geometry: poly }));
    expect(feature).toMatchObject({ ok: true, format: 'GeoJson', geometry: poly });
    const fc = parseAoiText(JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', geometry: poly }, { type: 'Feature', geometry: poly }] }));
    expect(fc.ok && fc.geometry.type).toBe('MultiPolygon');
    const wrapped = parseAoiText(JSON.stringify({ Wkt: BERLIN }));
    expect(wrapped.ok && wrapped.geometry.type).toBe('Polygon');
  });

  it('reads a typed bounding box "west, south, east, north" (commas, spaces, [ ] or BBOX( )) as a polygon sent as WKT', () => {
    const ring = [[13.3, 52.45], [13.5, 52.45], [13.5, 52.55], [13.3, 52.55], [13.3, 52.45]];
    for (const text of ['13.3, 52.45, 13.5, 52.55', '13.3 52.45 13.5 52.55', '[13.3,52.45,13.5,52.55]', 'BBOX(13.3, 52.45, 13.5, 52.55)']) {
      expect(parseAoiText(text), text).toEqual({ ok: true, format: 'Wkt', geometry: { type: 'Polygon', coordinates: [ring] } });
    }
    expect(areaKm2(geom('13.3,52.45,13.5,52.55'))).toBeCloseTo(150.6, 0);
    // Each mistake named, with the expected order.
    expect(parseAoiText('13.5, 52.45, 13.3, 52.55')).toMatchObject({ ok: false, message: expect.stringMatching(/west \(13\.5\) must be less than east.*west, south, east, north/) });
    expect(parseAoiText('13.3, 52.55, 13.5, 52.45')).toMatchObject({ ok: false, message: expect.stringMatching(/south \(52\.55\) must be less than north/) });
    expect(parseAoiText('52.45, 13.3, 200, 14')).toMatchObject({ ok: false, message: expect.stringMatching(/longitudes must be within -180\.\.180/) });
    expect(parseAoiText('13.3, -95, 13.5, 52')).toMatchObject({ ok: false, message: expect.stringMatching(/latitudes must be within -90\.\.90/) });
    // Three numbers are not a box, and the message says what is missing.
    expect(parseAoiText('13.3, 52.45, 13.5')).toEqual({ ok: false, message: 'A bounding box is four numbers: west, south, east, north (got 3).' });
    expect(parseAoiText('[1, 2, 3, 4, 5]')).toMatchObject({ ok: false, message: expect.stringContaining('(got 5)') });
  });

  it('reads MULTIPOLYGON and SRID=4326 WKT, refuses other SRIDs', () => {
    expect(parseAoiText('SRID=4326;MULTIPOLYGON(((0 0,1 0,1 1,0 0)),((5 5,6 5,6 6,5 5)))')).toMatchObject({ ok: true, geometry: { type: 'MultiPolygon' } });
    expect(parseAoiText('SRID=3857;POLYGON((0 0,1 0,1 1,0 0))')).toMatchObject({ ok: false, message: expect.stringContaining('SRID=4326') });
  });

  it('names each problem: not a polygon, unclosed ring, self-intersection, out of range, too large', () => {
    const line = parseAoiText('LINESTRING(0 0, 1 1)');
    expect(line.ok && aoiProblems(line.geometry)[0]).toMatchObject({ code: 'not-polygon', message: expect.stringContaining('LineString') });
    expect(aoiProblems(geom('POLYGON((10 50, 10.1 50, 10.1 50.1, 10 50.1))')).map((p) => p.code)).toEqual(['unclosed-ring']);
    const bow = aoiProblems(geom('POLYGON((0 0, 1 1, 1 0, 0 1, 0 0))'));
    expect(bow).toHaveLength(1);
    expect(bow[0]).toMatchObject({ code: 'self-intersection', message: expect.stringContaining('0.50000, 0.50000') });
    expect(aoiProblems(geom('POLYGON((0 0, 0 100, 1 1, 0 0))'))[0]!.code).toBe('out-of-range');
    const big = aoiProblems(geom('POLYGON((10 50, 11 50, 11 51, 10 51, 10 50))'), { maxAreaKm2: 2500 });
    expect(big).toEqual([expect.objectContaining({ code: 'too-large', severity: 'limit', message: expect.stringContaining('2,500 km²') })]);
  });

  it('finds a hole crossing its shell and a spike folding back', () => {
    expect(findSelfIntersection([[[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]], [[3, 1], [5, 1], [5, 2], [3, 2], [3, 1]]])).not.toBeNull();
    expect(findSelfIntersection([[[0, 0], [4, 0], [4, 4], [4, 2], [0, 4], [0, 0]]])).not.toBeNull();
    expect(findSelfIntersection([[[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]], [[1, 1], [2, 1], [2, 2], [1, 1]]])).toBeNull();
  });

  it('closes rings and writes WKT back', () => {
    const open = geom('POLYGON((10 50, 10.1 50, 10.1 50.1, 10 50.1))');
    const closed = closeRings(open);
    expect(aoiProblems(closed)).toEqual([]);
    expect(toWkt(closed)).toBe('POLYGON((10 50,10.1 50,10.1 50.1,10 50.1,10 50))');
  });

  it('gives reasons for text that is neither WKT nor GeoJSON', () => {
    expect(parseAoiText('')).toMatchObject({ ok: false });
    expect(parseAoiText('hello world')).toMatchObject({ ok: false });
    expect(parseAoiText('{"type": ')).toMatchObject({ ok: false, message: expect.stringContaining('JSON') });
    expect(parseAoiText('{"foo": 1}')).toMatchObject({ ok: false, message: expect.stringContaining('not GeoJSON') });
  });

  it('knows UTM EPSG ranges and southern zones', () => {
    expect(isUtmEpsg(32633)).toBe(true);
    expect(isUtmEpsg(32760)).toBe(true);
    expect(isUtmEpsg(32661)).toBe(false);
    expect(isUtmEpsg(4326)).toBe(false);
    expect(utmEpsgFor(geom('POLYGON((-43.3 -22.9, -43.1 -22.9, -43.1 -22.8, -43.3 -22.8, -43.3 -22.9))'))).toBe(32723);
  });
});
