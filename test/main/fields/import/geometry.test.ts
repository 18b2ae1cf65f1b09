import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { checkGeometry, decodeGeometry, encodeGeometry, toParcelGeometry } from '../../../../main/fields/geometry.js';
import { HAS_PY_OGR } from './helpers.js';

type G = { type: string; coordinates: unknown };
const poly = (...rings: number[][][]): G => ({ type: 'Polygon', coordinates: rings });

const circle = (n: number, cx = 0, cy = 0, r = 1): number[][] => {
  const ring = Array.from({ length: n }, (_, k) => [cx + r * Math.cos((k / n) * 2 * Math.PI), cy + r * Math.sin((k / n) * 2 * Math.PI)]);
  return [...ring, ring[0]!];
};
/** A serpentine: long horizontal runs stacked up, each overlapping all the others in x (the sweep's worst kind of input). */
const serpentine = (runs: number): number[][] => {
  const pts: number[][] = [[0, 0], [100, 0]];
  for (let k = 1; k <= runs; k++) {
    const right = k % 2 === 1;
    pts.push(right ? [100, k] : [1, k], right ? [1, k] : [100, k]);
  }
  const [, top] = pts[pts.length - 1]!;
  pts.push([1, top! + 1], [0, top! + 1], [0, 0]);
  return pts;
};

/** Polygons with shapely's verdict on each (is_valid), from simple to the kinds that trip checks. */
const CASES: [string, G][] = [
  ['square', poly([[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]])],
  ['clockwise square', poly([[0, 0], [0, 1], [1, 1], [1, 0], [0, 0]])],
  ['bow tie', poly([[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]])],
  ['hole inside', poly([[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]], [[1, 1], [1, 2], [2, 2], [2, 1], [1, 1]])],
  ['hole crossing the outer ring', poly([[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]], [[3, 1], [3, 2], [5, 2], [5, 1], [3, 1]])],
  ['hole touching the outer ring at a point', poly([[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]], [[0, 2], [1, 3], [1, 1], [0, 2]])],
  ['hole sharing a segment with the outer ring', poly([[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]], [[0, 1], [1, 1], [1, 2], [0, 2], [0, 1]])],
  ['hole outside the outer ring', poly([[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]], [[5, 5], [5, 6], [6, 6], [6, 5], [5, 5]])],
  ['two holes crossing each other', poly([[0, 0], [9, 0], [9, 9], [0, 9], [0, 0]], [[1, 1], [1, 4], [4, 4], [4, 1], [1, 1]], [[3, 3], [3, 6], [6, 6], [6, 3], [3, 3]])],
  ['spike', poly([[0, 0], [2, 0], [2, 2], [1, 2], [1, 3], [1, 2], [0, 2], [0, 0]])],
  ['ring touching itself at a vertex', poly([[0, 0], [2, 0], [1, 1], [2, 2], [0, 2], [1, 1], [0, 0]])],
  ['ring touching itself on an edge', poly([[0, 0], [4, 0], [4, 4], [2, 4], [2, 0.0], [1, 4], [0, 4], [0, 0]])],
  ['repeated points', poly([[0, 0], [1, 0], [1, 0], [1, 1], [0, 1], [0, 1], [0, 0]])],
  ['flat ring', poly([[0, 0], [1, 0], [2, 0], [0, 0]])],
  ['5,000-point circle', poly(circle(5000))],
  ['circle with a hole', poly(circle(400), circle(300, 0, 0, 0.5))],
  ['circle with an off-centre hole poking out', poly(circle(400), circle(300, 0.8, 0, 0.5))],
  ['serpentine of 300 runs', poly(serpentine(300))],
  ['multipolygon of two parts', { type: 'MultiPolygon', coordinates: [[[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]], [[[2, 0], [3, 0], [3, 1], [2, 1], [2, 0]]]] }],
  ['multipolygon with a bow-tie part', { type: 'MultiPolygon', coordinates: [[[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]], [[[2, 0], [3, 1], [3, 0], [2, 1], [2, 0]]]] }],
];

function shapelyValid(geoms: G[]): boolean[] {
  const r = spawnSync('/usr/bin/python3', ['-c', 'import json,sys\nfrom shapely.geometry import shape\nprint(json.dumps([bool(shape(g).is_valid) for g in json.load(sys.stdin)]))'], { input: JSON.stringify(geoms), encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  if (r.status !== 0) throw new Error(`shapely failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as boolean[];
}

describe('parcel geometry checks', () => {
  it.skipIf(!HAS_PY_OGR)('accept and refuse the same polygons as shapely\'s is_valid', () => {
    const theirs = shapelyValid(CASES.map(([, g]) => g));
    const ours = CASES.map(([, g]) => checkGeometry(g));
    const table = CASES.map(([name], i) => [name, ours[i]!.ok, theirs[i]]);
    expect(table).toEqual(CASES.map(([name], i) => [name, theirs[i], theirs[i]]));
    // The shapely verdicts this list was built for (so a change in the list cannot hide a case).
    expect(theirs.filter((v) => !v)).toHaveLength(11);
  });

  it('names each reason', () => {
    const reason = (g: unknown): string => { const r = checkGeometry(g); return r.ok ? 'ok' : r.reason; };
    expect(reason(null)).toBe('no geometry (empty)');
    expect(reason({ type: 'Point', coordinates: [0, 0] })).toBe('not a polygon (Point)');
    expect(reason({ type: 'Polygon', coordinates: [] })).toBe('empty geometry');
    expect(reason(poly([[0, 0], [1, 0], [0, 0]]))).toBe('the outer ring has 3 points, fewer than 4');
    expect(reason(poly([[0, 0], [1, 0], [1, 1], [0, 1]]))).toBe('the outer ring is not closed (its last point differs from its first)');
    expect(reason(poly([[0, 0], [1, 0], [NaN, 1], [0, 1], [0, 0]]))).toBe('the outer ring has a NaN or infinite coordinate');
    expect(reason(poly([[0, 0], [1, 0], [Infinity, 1], [0, 1], [0, 0]]))).toBe('the outer ring has a NaN or infinite coordinate');
    expect(reason(poly([[0, 0], [1, 0], ['1', 1] as unknown as number[], [0, 1], [0, 0]]))).toBe('the outer ring has a coordinate that is not a number');
    expect(reason(CASES[2]![1])).toMatch(/^self-intersection: the outer ring crosses itself near/);
    expect(reason(CASES[7]![1])).toBe('inner ring 1 lies outside the outer ring');
    expect(reason({ type: 'MultiPolygon', coordinates: [[[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]], [[[0, 0], [1, 0], [0, 0]]]] })).toBe('the outer ring of part 2 has 3 points, fewer than 4');
    expect(reason(poly(circle(50)))).toBe('ok');
    expect(checkGeometry(poly(circle(50)), { maxVertices: 50, maxSegmentPairs: 1e9 })).toEqual({ ok: false, reason: 'more than 50 points (the limit of points per parcel)' });
    expect(checkGeometry(poly(serpentine(300)), { maxVertices: 1e6, maxSegmentPairs: 10_000 })).toEqual({ ok: false, reason: 'too complex to check for self-intersections (more than 10000 segment pairs to test)' });
  });

  it('stores a geometry compactly and reads it back exactly (multipolygon with holes, Z dropped)', () => {
    const g = { type: 'MultiPolygon', coordinates: [[circle(7, 0, 0, 4).map(([x, y]) => [x, y, 99]), circle(5, 0.5, 0.5, 1)], [circle(9, 20, 0, 1)]] };
    const r = checkGeometry(g);
    if (!r.ok) throw new Error(r.reason);
    const blob = encodeGeometry(r.geometry);
    expect(blob.byteLength).toBe(Math.ceil(((2 + 2 + 3) * 4) / 8) * 8 + (8 + 6 + 10) * 16);
    expect(toParcelGeometry(decodeGeometry(blob))).toEqual({ type: 'MultiPolygon', coordinates: [[circle(7, 0, 0, 4), circle(5, 0.5, 0.5, 1)], [circle(9, 20, 0, 1)]] });
    expect(() => decodeGeometry(blob.subarray(0, blob.byteLength - 8))).toThrow(/malformed/);
  });
});
