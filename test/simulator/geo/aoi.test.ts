import { describe, expect, it } from 'vitest';
import type { Polygon } from 'geojson';
import {
  areaKm2,
  bbox4326,
  covers,
  intersect,
  parseAoi,
  toWkt,
  union,
  utmEpsgFor,
  type Polygonal,
} from '../../../simulator/geo/aoi.js';

const SQUARE_WKT = 'POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))';
const SQUARE: Polygon = { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]] };

function rect(x0: number, y0: number, x1: number, y1: number): Polygon {
  return { type: 'Polygon', coordinates: [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]] };
}

/** The reasons for one property, failing the test if parsing succeeded. */
function reasons(body: { Wkt?: unknown; GeoJson?: unknown }, key: 'Wkt' | 'GeoJson', required = true): string[] {
  const r = parseAoi(body, { required });
  if (r.ok) throw new Error(`expected a validation failure, got ${JSON.stringify(r)}`);
  return r.errors[key] ?? [];
}

function geometryOf(body: { Wkt?: unknown; GeoJson?: unknown }): Polygonal {
  const r = parseAoi(body, { required: true });
  if (!r.ok || !r.geometry) throw new Error(`expected success, got ${JSON.stringify(r)}`);
  return r.geometry;
}

describe('parseAoi: presence rules', () => {
  it('rejects both Wkt and GeoJson on both keys', () => {
    const r = parseAoi({ Wkt: SQUARE_WKT, GeoJson: SQUARE }, { required: false });
    expect(r).toEqual({
      ok: false,
      errors: {
        Wkt: ['Provide either Wkt or GeoJson, not both.'],
        GeoJson: ['Provide either Wkt or GeoJson, not both.'],
      },
    });
  });

  it('requires one of them when required', () => {
    const r = parseAoi({}, { required: true });
    expect(r).toEqual({
      ok: false,
      errors: { Wkt: ['Either Wkt or GeoJson is required.'], GeoJson: ['Either Wkt or GeoJson is required.'] },
    });
  });

  it('returns a null geometry when optional and absent', () => {
    expect(parseAoi({}, { required: false })).toEqual({ ok: true, geometry: null, mode: null, aois: [] });
  });

  it('treats null, undefined, "" and whitespace as absent', () => {
    expect(parseAoi({ Wkt: null, GeoJson: '' }, { required: false })).toEqual({ ok: true, geometry: null, mode: null, aois: [] });
    expect(parseAoi({ Wkt: '   ', GeoJson: undefined }, { required: false })).toEqual({
      ok: true,
      geometry: null,
      mode: null,
      aois: [],
    });
    expect(reasons({ Wkt: '', GeoJson: null }, 'Wkt')).toEqual(['Either Wkt or GeoJson is required.']);
    // An absent partner does not count as "both".
    const r = parseAoi({ Wkt: '', GeoJson: SQUARE }, { required: true });
    expect(r).toMatchObject({ ok: true, mode: 'GeoJson' });
  });
});

describe('parseAoi: WKT', () => {
  it('parses a polygon, case-insensitively', () => {
    const r = parseAoi({ Wkt: 'polygon ((0 0,1 0,1 1,0 1,0 0))' }, { required: true });
    expect(r).toEqual({ ok: true, geometry: SQUARE, mode: 'Wkt', aois: [SQUARE] });
  });

  it('accepts an SRID=4326 prefix and refuses any other SRID', () => {
    expect(geometryOf({ Wkt: `SRID=4326;${SQUARE_WKT}` })).toEqual(SQUARE);
    expect(geometryOf({ Wkt: `srid=4326; ${SQUARE_WKT}` })).toEqual(SQUARE);
    expect(reasons({ Wkt: `SRID=3857;${SQUARE_WKT}` }, 'Wkt')[0]).toMatch(/SRID=4326.*got SRID=3857/);
  });

  it('parses holes and multipolygons', () => {
    expect(geometryOf({ Wkt: 'POLYGON((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 1 2, 2 2, 2 1, 1 1))' })).toEqual({
      type: 'Polygon',
      coordinates: [
        [[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]],
        [[1, 1], [1, 2], [2, 2], [2, 1], [1, 1]],
      ],
    });
    const multi = geometryOf({ Wkt: 'MULTIPOLYGON(((0 0, 1 0, 1 1, 0 1, 0 0)), ((2 2, 3 2, 3 3, 2 3, 2 2)))' });
    expect(multi.type).toBe('MultiPolygon');
    expect(multi.coordinates).toHaveLength(2);
  });

  it('reads signed, decimal and exponent numbers', () => {
    const g = geometryOf({ Wkt: 'POLYGON((-1.5 -0.5, +1e0 -.5, 1. 2.5E-1, -1.5 -0.5))' });
    expect(g.coordinates[0]).toEqual([[-1.5, -0.5], [1, -0.5], [1, 0.25], [-1.5, -0.5]]);
  });

  it('drops Z values, with or without a tag', () => {
    expect(geometryOf({ Wkt: 'POLYGON Z ((0 0 5, 1 0 5, 1 1 5, 0 1 5, 0 0 5))' })).toEqual(SQUARE);
    expect(geometryOf({ Wkt: 'POLYGON ((0 0 5, 1 0 5, 1 1 5, 0 1 5, 0 0 5))' })).toEqual(SQUARE);
    expect(reasons({ Wkt: 'POLYGON ((0 0, 1 0 5, 1 1, 0 1, 0 0))' }, 'Wkt')[0]).toMatch(/^Wkt is not valid WKT: .*2 numbers/);
  });

  it.each([
    ['missing parenthesis', 'POLYGON((0 0, 1 0, 1 1, 0 1, 0 0)', /expected '\)' but found end of input/],
    ['trailing text', `${SQUARE_WKT} extra`, /'extra' at position \d+ after the geometry/],
    ['bad character', 'POLYGON((0 0; 1 0, 1 1, 0 1, 0 0))', /unexpected character ';'/],
    ['unknown type', 'BLOB((0 0))', /unknown geometry type 'BLOB'/],
    ['lone number', 'POLYGON((0 0, 1, 1 1, 0 0))', /needs longitude and latitude/],
    ['not WKT at all', '{"type":"Polygon"}', /unexpected character '\{'/],
  ])('rejects unparsable WKT (%s) with a detail', (_name, wkt, detail) => {
    const [reason] = reasons({ Wkt: wkt }, 'Wkt');
    expect(reason).toMatch(/^Wkt is not valid WKT: /);
    expect(reason).toMatch(detail);
  });

  it.each([
    ['POINT(1 2)', 'Point'],
    ['LINESTRING(0 0, 1 1)', 'LineString'],
    ['multilinestring((0 0, 1 1))', 'MultiLineString'],
    ['GEOMETRYCOLLECTION(POINT(1 2))', 'GeometryCollection'],
    ['MULTIPOINT((1 2))', 'MultiPoint'],
  ])('names the rejected type of %s', (wkt, name) => {
    expect(reasons({ Wkt: wkt }, 'Wkt')).toEqual([`Only Polygon or MultiPolygon geometries are accepted; got ${name}.`]);
  });

  it('rejects an empty polygon and a non-string', () => {
    expect(reasons({ Wkt: 'POLYGON EMPTY' }, 'Wkt')[0]).toMatch(/empty/);
    expect(reasons({ Wkt: 42 }, 'Wkt')).toEqual(['Wkt must be a string.']);
  });

  it('does not auto-close rings', () => {
    expect(reasons({ Wkt: 'POLYGON((0 0, 1 0, 1 1, 0 1))' }, 'Wkt')).toEqual([
      'Ring 1 is not closed: first and last positions differ.',
    ]);
  });
});

describe('parseAoi: geometric rules', () => {
  it('requires at least 4 positions per ring', () => {
    expect(reasons({ Wkt: 'POLYGON((0 0, 1 0, 0 0))' }, 'Wkt')[0]).toMatch(/^Ring 1 has 3 position\(s\); a ring needs at least 4/);
  });

  it('names the ring that is not closed, inside a multipolygon too', () => {
    const [reason] = reasons(
      { Wkt: 'MULTIPOLYGON(((0 0, 1 0, 1 1, 0 1, 0 0)), ((2 2, 3 2, 3 3, 2 3, 2 2), (2.2 2.2, 2.4 2.2, 2.4 2.4, 2.3 2.4)))' },
      'Wkt',
    );
    expect(reason).toBe('Polygon 2, ring 2 is not closed: first and last positions differ.');
  });

  it('rejects coordinates outside lon/lat range', () => {
    const [reason] = reasons({ Wkt: 'POLYGON((0 0, 181 0, 1 1, 0 0))' }, 'Wkt');
    expect(reason).toMatch(/^Ring 1, position 2 is out of range \(181, 0\)/);
    expect(reasons({ Wkt: 'POLYGON((0 0, 1 0, 1 91, 0 0))' }, 'Wkt')[0]).toMatch(/out of range/);
    // Swapped order (lat, lon) is the usual way to get there.
    expect(reasons({ Wkt: 'POLYGON((52 150, 53 150, 53 151, 52 150))' }, 'Wkt')[0]).toMatch(/latitude within \[-90, 90\]/);
  });

  it('rejects a self-intersecting ring (bow-tie)', () => {
    expect(reasons({ Wkt: 'POLYGON((0 0, 1 1, 1 0, 0 1, 0 0))' }, 'Wkt')).toEqual([
      'Ring 1 intersects itself at (0.5, 0.5).',
    ]);
  });

  it('rejects a hole that crosses the shell, lies outside it, or overlaps another hole', () => {
    expect(reasons({ Wkt: 'POLYGON((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 5 1, 5 2, 1 2, 1 1))' }, 'Wkt')[0]).toMatch(
      /^Ring 1 and ring 2 intersect at \(4, [12]\)\.$/,
    );
    expect(reasons({ Wkt: 'POLYGON((0 0, 4 0, 4 4, 0 4, 0 0), (5 5, 6 5, 6 6, 5 6, 5 5))' }, 'Wkt')[0]).toMatch(
      /Ring 2 is a hole but lies outside/,
    );
    expect(
      reasons({ Wkt: 'POLYGON((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 3 1, 3 3, 1 3, 1 1), (1.5 1.5, 2 1.5, 2 2, 1.5 1.5))' }, 'Wkt')[0],
    ).toMatch(/holes that overlap/);
  });

  it('rejects zero-area rings and overlapping multipolygon parts', () => {
    expect(reasons({ Wkt: 'POLYGON((0 0, 1 0, 2 0, 0 0))' }, 'Wkt')).toEqual(['Ring 1 has zero area.']);
    expect(
      reasons({ Wkt: 'MULTIPOLYGON(((0 0, 2 0, 2 2, 0 2, 0 0)), ((1 1, 3 1, 3 3, 1 3, 1 1)))' }, 'Wkt'),
    ).toEqual(['Polygons 1 and 2 of the MultiPolygon overlap.']);
  });

  it('accepts multipolygon parts that only share an edge', () => {
    const g = geometryOf({ Wkt: 'MULTIPOLYGON(((0 0, 1 0, 1 1, 0 1, 0 0)), ((1 0, 2 0, 2 1, 1 1, 1 0)))' });
    expect(g.type).toBe('MultiPolygon');
  });

  it('removes repeated consecutive positions instead of calling them self-intersections', () => {
    expect(geometryOf({ Wkt: 'POLYGON((0 0, 1 0, 1 0, 1 1, 0 1, 0 0))' })).toEqual(SQUARE);
  });
});

describe('parseAoi: GeoJSON', () => {
  it('accepts a Polygon object, a MultiPolygon, and a JSON string', () => {
    expect(parseAoi({ GeoJson: SQUARE }, { required: true })).toEqual({ ok: true, geometry: SQUARE, mode: 'GeoJson', aois: [SQUARE] });
    expect(geometryOf({ GeoJson: JSON.stringify(SQUARE) })).toEqual(SQUARE);
    const multi = { type: 'MultiPolygon', coordinates: [SQUARE.coordinates, rect(2, 2, 3, 3).coordinates] };
    expect(geometryOf({ GeoJson: multi })).toEqual(multi);
  });

  it('accepts holes and drops altitude', () => {
    const g = geometryOf({
      GeoJson: {
        type: 'Polygon',
        coordinates: [
          [[0, 0, 10], [4, 0, 10], [4, 4, 10], [0, 4, 10], [0, 0, 10]],
          [[1, 1], [1, 2], [2, 2], [2, 1], [1, 1]],
        ],
      },
    });
    expect(g.coordinates[0]).toEqual([[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]]);
    expect(g.coordinates).toHaveLength(2);
  });

  it('rejects invalid JSON text', () => {
    expect(reasons({ GeoJson: '{"type": "Polygon",' }, 'GeoJson')[0]).toMatch(/^GeoJson is not valid JSON: /);
  });

  it('rejects a Feature wrapper and a FeatureCollection with a clear reason', () => {
    const [r1] = reasons({ GeoJson: { type: 'Feature', properties: {}, geometry: SQUARE } }, 'GeoJson');
    expect(r1).toMatch(/must be a geometry, not a Feature/);
    const [r2] = reasons({ GeoJson: { type: 'FeatureCollection', features: [] } }, 'GeoJson');
    expect(r2).toMatch(/not a FeatureCollection/);
  });

  it('names non-polygon geometry types', () => {
    expect(reasons({ GeoJson: { type: 'LineString', coordinates: [[0, 0], [1, 1]] } }, 'GeoJson')).toEqual([
      'Only Polygon or MultiPolygon geometries are accepted; got LineString.',
    ]);
    expect(reasons({ GeoJson: { type: 'Point', coordinates: [0, 0] } }, 'GeoJson')[0]).toMatch(/got Point\.$/);
  });

  it.each([
    [{}, /string "type"/],
    [[1, 2], /geometry object/],
    [7, /geometry object/],
    [{ type: 'Polygonz', coordinates: [] }, /unknown geometry type 'Polygonz'/],
    [{ type: 'Polygon' }, /coordinates must be a non-empty array of rings/],
    [{ type: 'Polygon', coordinates: [] }, /coordinates must be a non-empty array of rings/],
    [{ type: 'Polygon', coordinates: [[[0, 0], [1, 'x'], [1, 1], [0, 0]]] }, /coordinates\[0\]\[1\] must be a position/],
    [{ type: 'Polygon', coordinates: [[[0, 0], [1], [1, 1], [0, 0]]] }, /coordinates\[0\]\[1\] must be a position/],
    [{ type: 'MultiPolygon', coordinates: [[[[0, 0], [1, 0], [1, 1], [0, 0]]], 5] }, /coordinates\[1\] must be a non-empty array/],
  ])('rejects malformed GeoJSON %j', (geo, why) => {
    expect(reasons({ GeoJson: geo }, 'GeoJson')[0]).toMatch(why);
  });

  it('applies the geometric rules to GeoJSON as well', () => {
    expect(reasons({ GeoJson: { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1]]] } }, 'GeoJson')).toEqual([
      'Ring 1 is not closed: first and last positions differ.',
    ]);
    expect(
      reasons({ GeoJson: { type: 'Polygon', coordinates: [[[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]]] } }, 'GeoJson')[0],
    ).toMatch(/intersects itself/);
  });
});

describe('area, bbox, WKT output', () => {
  it('computes geodesic area of a 0.1° square at the equator (~123.6 km²)', () => {
    expect(areaKm2(rect(0, 0, 0.1, 0.1))).toBeCloseTo(123.6, 0);
    // Same square at 60°N is about half as wide.
    expect(areaKm2(rect(0, 60, 0.1, 60.1)) / areaKm2(rect(0, 0, 0.1, 0.1))).toBeCloseTo(0.5, 2);
  });

  it('subtracts holes', () => {
    const withHole: Polygon = { type: 'Polygon', coordinates: [rect(0, 0, 0.2, 0.2).coordinates[0]!, rect(0.05, 0.05, 0.15, 0.15).coordinates[0]!.slice().reverse()] };
    expect(areaKm2(withHole)).toBeCloseTo(areaKm2(rect(0, 0, 0.2, 0.2)) - areaKm2(rect(0.05, 0.05, 0.15, 0.15)), 6);
  });

  it('returns the lon/lat bounding box', () => {
    expect(bbox4326({ type: 'MultiPolygon', coordinates: [rect(1, 2, 3, 4).coordinates, rect(-5, -6, -4, -5).coordinates] })).toEqual([
      -5, -6, 3, 4,
    ]);
  });

  it('writes WKT that parses back to the same geometry', () => {
    expect(toWkt(SQUARE)).toBe('POLYGON ((0 0, 1 0, 1 1, 0 1, 0 0))');
    const multi: Polygonal = { type: 'MultiPolygon', coordinates: [rect(0.000000123, -1.5, 2, 3).coordinates, rect(5, 5, 6, 6).coordinates] };
    const wkt = toWkt(multi);
    expect(wkt).toMatch(/^MULTIPOLYGON \(\(\(/);
    expect(wkt).not.toMatch(/e-/);
    expect(geometryOf({ Wkt: wkt })).toEqual(multi);
  });
});

describe('utmEpsgFor', () => {
  it.each([
    [13.4, 52.5, 32633],
    [151.2, -33.9, 32756],
    [-0.1, 51.5, 32630],
    [0, 0, 32631],
    [0, -0.0001, 32731],
    [-180, 10, 32601],
    [180, 10, 32660],
    [179.99, -10, 32760],
    [-174, 10, 32602],
    [5.3, 60.4, 32631], // Bergen: the Norway exception (32) is deliberately not applied
  ])('(%f, %f) -> %i', (lon, lat, epsg) => {
    expect(utmEpsgFor(lon, lat)).toBe(epsg);
  });

  it('refuses non-finite input', () => {
    expect(() => utmEpsgFor(Number.NaN, 0)).toThrow(RangeError);
  });
});

describe('intersect, union, covers', () => {
  const a = rect(0, 0, 2, 2);
  const b = rect(1, 1, 3, 3);

  it('intersects overlapping squares and returns null for disjoint ones', () => {
    const i = intersect(a, b);
    expect(i).not.toBeNull();
    expect(areaKm2(i!)).toBeCloseTo(areaKm2(rect(1, 1, 2, 2)), 3);
    expect(intersect(a, rect(5, 5, 6, 6))).toBeNull();
  });

  it('unions a list, and handles empty and single lists', () => {
    expect(union([])).toBeNull();
    expect(union([a])).toEqual(a);
    const u = union([a, b])!;
    expect(areaKm2(u)).toBeCloseTo(areaKm2(a) + areaKm2(b) - areaKm2(rect(1, 1, 2, 2)), 3);
    expect(union([rect(0, 0, 1, 1), rect(1, 0, 2, 1)])!.type).toBe('Polygon');
  });

  it('reports coverage, with a tolerance in km²', () => {
    expect(covers(a, rect(0.5, 0.5, 1.5, 1.5))).toBe(true);
    expect(covers(a, a)).toBe(true);
    expect(covers(a, b)).toBe(false);
    expect(covers(rect(0, 0, 1, 1), rect(0, 0, 1.001, 1))).toBe(false);
    expect(covers(rect(0, 0, 1, 1), rect(0, 0, 1.001, 1), 200)).toBe(true);
  });
});
