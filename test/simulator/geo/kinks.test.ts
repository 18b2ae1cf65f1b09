import { lineString, multiLineString } from '@turf/helpers';
import { kinks } from '@turf/kinks';
import type { Position } from 'geojson';
import { describe, expect, it } from 'vitest';
import { firstKink } from '../../../simulator/geo/kinks';

// The indexed crossing test must report exactly what turf.kinks reports first.

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

function ring(r: () => number, n: number, grid: boolean): Position[] {
  const pts: Position[] = [];
  for (let i = 0; i < n; i++) {
    // On a coarse grid, vertices and crossings often coincide (touching ends, shared vertices).
    pts.push(grid ? [Math.floor(r() * 6), Math.floor(r() * 6)] : [13 + r(), 52 + r()]);
  }
  pts.push(pts[0]!);
  return pts;
}

function turfFirst(lines: Position[][]): Position | null {
  const f = lines.length === 1 ? kinks(lineString(lines[0]!)) : kinks(multiLineString(lines));
  return f.features[0]?.geometry.coordinates ?? null;
}

describe('firstKink', () => {
  it('matches turf.kinks on random rings, single and in pairs (crossing, touching, clean)', () => {
    const r = rng(7);
    let crossings = 0;
    let clean = 0;
    for (let t = 0; t < 600; t++) {
      const grid = t % 2 === 0;
      const a = ring(r, 3 + Math.floor(r() * 12), grid);
      const expected = turfFirst([a]);
      expect(firstKink([a]), JSON.stringify(a)).toEqual(expected);
      if (expected) crossings++; else clean++;
      const b = ring(r, 3 + Math.floor(r() * 8), grid);
      expect(firstKink([a, b]), JSON.stringify([a, b])).toEqual(turfFirst([a, b]));
    }
    expect(crossings).toBeGreaterThan(50);
    expect(clean).toBeGreaterThan(50);
  });

  it('matches turf.kinks on star-shaped rings (no crossing) and on a ring with one far crossing', () => {
    const star: Position[] = [];
    for (let i = 0; i < 500; i++) {
      const t = (2 * Math.PI * i) / 500;
      const rr = 1 + 0.3 * Math.sin(9 * t);
      star.push([rr * Math.cos(t), rr * Math.sin(t)]);
    }
    star.push(star[0]!);
    expect(firstKink([star])).toBeNull();
    expect(turfFirst([star])).toBeNull();
    const crossed = star.map((p) => [...p]);
    crossed[250] = [1.5, 0.01];
    expect(firstKink([crossed])).toEqual(turfFirst([crossed]));
    expect(firstKink([crossed])).not.toBeNull();
  });
});
