import { afterEach, describe, expect, it } from 'vitest';
import {
  clearLayer, colorFor, stateOf, featureCount, featureIds, highlight, layerExtent, readGeometry, resetVectorLayers, select, setFeatures,
} from '../../../../renderer/src/platform/map/vector-layers';

afterEach(() => resetVectorLayers());

const WKT = 'POLYGON ((13.3 52.45, 13.5 52.45, 13.5 52.55, 13.3 52.55, 13.3 52.45))';

describe('vector layers by key', () => {
  it('draws WKT and GeoJSON (EPSG:4326) in the view projection, skipping what it cannot read', () => {
    const r = setFeatures('results', [
      { id: 'a', geometry: WKT },
      { id: 'b', geometry: { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]] } },
      { id: 'c', geometry: 'not a geometry' },
    ]);
    expect(r).toEqual({ drawn: 2, skipped: 1 });
    expect(featureIds('results')).toEqual(['a', 'b']);
    const ext = layerExtent('results', ['a'])!;
    // Web Mercator metres around Berlin.
    expect(ext[0]).toBeCloseTo(1_480_000, -4);
    expect(ext[1]).toBeCloseTo(6_880_000, -5);
  });

  it('replaces features, and keeps layers apart', () => {
    setFeatures('one', [{ id: 'a', geometry: WKT }]);
    setFeatures('two', [{ id: 'x', geometry: WKT }, { id: 'y', geometry: WKT }]);
    setFeatures('one', [{ id: 'b', geometry: WKT }]);
    expect(featureIds('one')).toEqual(['b']);
    expect(featureCount('two')).toBe(2);
    clearLayer('two');
    expect(featureCount('two')).toBe(0);
    expect(layerExtent('two')).toBeNull();
  });

  it('highlights and selects by id without throwing for unknown layers', () => {
    setFeatures('hl', [{ id: 'a', geometry: WKT }, { id: 'b', geometry: WKT }]);
    highlight('hl', 'a');
    select('hl', ['b']);
    expect([stateOf('hl', 'a'), stateOf('hl', 'b')]).toEqual(['hover', 'selected']);
    highlight('hl', null);
    expect(stateOf('hl', 'a')).toBe('normal');
    // New features forget the old highlight and selection.
    setFeatures('hl', [{ id: 'b', geometry: WKT }]);
    expect(stateOf('hl', 'b')).toBe('normal');
    expect(() => highlight('nope', 'a')).not.toThrow();
  });

  // How fast: the renderer bench (pan-frame-median-ms over 5,000 result polygons).
  it('draws 5,000 geometries, each under its id', () => {
    const items = Array.from({ length: 5000 }, (_, i) => {
      const x = (i % 100) * 0.05;
      const y = Math.floor(i / 100) * 0.05;
      return { id: String(i), geometry: `POLYGON ((${x} ${y}, ${x + 0.04} ${y}, ${x + 0.04} ${y + 0.04}, ${x} ${y + 0.04}, ${x} ${y}))` };
    });
    expect(setFeatures('many', items)).toEqual({ drawn: 5000, skipped: 0 });
    expect(featureIds('many').sort()).toEqual(items.map((i) => i.id).sort());
    // The last square (4.95..4.99 E, 2.45..2.49 N) is where its WKT puts it.
    const last = layerExtent('many', ['4999'])!;
    expect(last[0]).toBeCloseTo(551_030, -1);
    expect(last[2]).toBeCloseTo(555_483, -1);
  });

  it('reads geometry and picks stable category colours', () => {
    expect(readGeometry('SRID=4326;' + WKT, 'EPSG:4326')?.getType()).toBe('Polygon');
    expect(readGeometry(null)).toBeNull();
    expect(colorFor('Sentinel2')).toBe(colorFor('Sentinel2'));
    expect(colorFor('Sentinel2')).toMatch(/^#[0-9a-f]{6}$/);
  });
});
